import { describe, expect, it } from 'vitest';
import { priceBoxes, priceScale } from './price-chart.ts';
import { moneyIn } from './format.ts';

describe('price chart', () => {
  it('makes one box per entry with a median, reading numbers given as text', () => {
    const boxes = priceBoxes([
      { stats_type: 'ungraded', interval: '30 days', value: { min: 1, q1: 2, median: '3', q3: 4, max: 8, latest: 3.5 } },
      { stats_type: 'graded', interval: 'all', value: { mean: 20 } },
      { stats_type: 'overall', interval: '7d', value: {} },
    ]);
    expect(boxes).toEqual([
      { label: 'ungraded · 30 days', min: 1, q1: 2, median: 3, q3: 4, max: 8, latest: 3.5, currency: 'USD' },
      { label: 'graded · all', min: 20, q1: 20, median: 20, q3: 20, max: 20, latest: null, currency: 'USD' },
    ]);
    const scale = priceScale(boxes, 200);
    expect(scale.max).toBe(20);
    expect(scale.x(10)).toBe(100);
    expect(scale.x(-5)).toBe(0);
    expect(priceBoxes(undefined)).toEqual([]);
  });

  it("keeps an entry's currency, said in its label and figures (h157: euros showed a dollar sign)", () => {
    const [euro] = priceBoxes([{ stats_type: 'ungraded', interval: '30d', currency: 'eur', value: { median: 38, min: 22.8, max: 68.4 } }]);
    expect(euro).toMatchObject({ label: 'ungraded · 30d (EUR)', currency: 'EUR' });
    expect(moneyIn(38, 'EUR')).toBe('€38.00');
    expect(moneyIn(38, 'USD')).toBe('$38.00');
    expect(moneyIn(38, 'TIX')).toMatch(/^TIX\s38\.00$/);
  });
});
