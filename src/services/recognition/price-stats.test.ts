import { describe, expect, it } from 'vitest';
import { priceStats, quantile, type PriceObservation } from './price-stats.ts';

const ungraded = (date: string, price: number): PriceObservation => ({ date, price, graded: false, currency: 'USD' });
// Worked by hand: ungraded 10, 20, 30, 40 ten days apart (one dollar a day), one graded sale of 100 on the last day.
const series = [ungraded('2024-01-01', 10), ungraded('2024-01-11', 20), ungraded('2024-01-21', 30), ungraded('2024-01-31', 40), { date: '2024-01-31', price: 100, graded: true, currency: 'USD' }];

describe('priceStats', () => {
  it('gives the spec entries, anchored at the latest observation', () => {
    const s = priceStats(series);
    expect(s.map((e) => `${e.stats_type} ${e.interval} ${e.start_date}`)).toEqual([
      'overall 30d 2024-01-02',
      'overall 365d 2023-02-01',
      'overall all null',
      'graded 30d 2024-01-02',
      'graded 365d 2023-02-01',
      'graded all null',
      'ungraded 30d 2024-01-02',
      'ungraded 365d 2023-02-01',
      'ungraded all null',
    ]);
    expect(s.length).toBeLessThanOrEqual(10);
  });

  it('computes the order statistics and the spread', () => {
    const all = priceStats(series).find((e) => e.stats_type === 'overall' && e.interval === 'all')!.value;
    expect(all).toMatchObject({ min: 10, max: 100, range: 90, mean: 40, median: 30, q1: 20, q3: 40, std: 35.36, oldest: 10, oldest_date: '2024-01-01', latest: 100, latest_date: '2024-01-31' });
    expect(all.trend.trimmed_mean).toBe(40);
  });

  it('fits the trend line of price on day', () => {
    const u = priceStats(series).find((e) => e.stats_type === 'ungraded' && e.interval === 'all')!.value;
    expect(u.trend).toEqual({ r_squared: 1, slope_per_day: 1, slope_per_day_pct: 4, forecast_30d: 70, trimmed_mean: 25, volatility: 0.3469 });
    const recent = priceStats(series).find((e) => e.stats_type === 'ungraded' && e.interval === '30d')!.value;
    expect(recent).toMatchObject({ min: 20, oldest_date: '2024-01-11', mean: 30 });
  });

  it('says null where one observation cannot make a trend', () => {
    const g = priceStats(series).find((e) => e.stats_type === 'graded' && e.interval === 'all')!.value;
    expect(g).toMatchObject({ mean: 100, std: 0, q1: 100, q3: 100 });
    expect(g.trend).toMatchObject({ r_squared: null, slope_per_day: null, forecast_30d: null, volatility: null, trimmed_mean: 100 });
  });

  it('never forecasts below zero, and trims a tenth each end', () => {
    const falling = [ungraded('2024-01-01', 50), ungraded('2024-01-02', 10), ...Array.from({ length: 8 }, (_, i) => ungraded(`2024-01-${String(i + 3).padStart(2, '0')}`, 1))];
    const v = priceStats(falling).find((e) => e.interval === 'all')!.value;
    expect(v.trend.forecast_30d).toBe(0);
    // 10 prices: the lowest and the highest dropped
    expect(v.trend.trimmed_mean).toBe(Number(((10 + 7 * 1) / 8).toFixed(2)));
  });

  it('leaves out other currencies and bad rows, and gives nothing without a price', () => {
    expect(priceStats([{ date: '2024-01-01', price: 3, graded: false, currency: 'TIX' }])).toEqual([]);
    expect(priceStats([])).toEqual([]);
    const s = priceStats([ungraded('2024-01-01', 5), ungraded('not a date', 1000), ungraded('2024-01-02', Number.NaN)]);
    expect(s.find((e) => e.interval === 'all')!.value.max).toBe(5);
  });
});

describe('quantile', () => {
  it('interpolates between order statistics', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantile([7], 0.75)).toBe(7);
  });
});
