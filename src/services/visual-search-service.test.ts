import { describe, expect, it } from 'vitest';
import { tieStable } from './visual-search-service.ts';

const hit = (key: number, distance: number) => ({ record: { key, recordId: String(key), data: {} }, distance });

describe('tieStable', () => {
  it('searches once when the page ends on a distance no later hit shares', async () => {
    const all = [hit(3, 0.1), hit(1, 0.2), hit(2, 0.3), hit(4, 0.4)];
    const asked: number[] = [];
    const page = await tieStable(2, all.length, async (n) => (asked.push(n), all.slice(0, n)));
    expect(page.map((h) => h.record.key)).toEqual([3, 1]);
    expect(asked).toEqual([3]);
  });

  it('widens the search until a tie at the page edge is whole, and orders ties by insertion', async () => {
    // The index returns tied hits in any order, and only as many as asked.
    const all = [hit(9, 0), hit(5, 0), hit(7, 0), hit(2, 0), hit(8, 0.5)];
    const asked: number[] = [];
    const page = await tieStable(2, all.length, async (n) => (asked.push(n), all.slice(0, n)));
    expect(page.map((h) => h.record.key)).toEqual([2, 5]);
    expect(asked).toEqual([3, 6]);
  });
});
