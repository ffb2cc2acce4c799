import { describe, expect, it } from 'vitest';
import { onePerProduct, tieStable } from './hits.ts';

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

  it('orders distances as they are shown (backends differ in the last bits), and the searched record first at 0', async () => {
    // 10.0000 both when shown: insertion order, not the float's last bits, which pgvector and usearch give otherwise
    const all = [hit(7, 0.1), hit(5, 0.10000001), hit(6, 0.2)];
    expect((await tieStable(2, 3, async (n) => all.slice(0, n))).map((h) => h.record.key)).toEqual([5, 7]);
    // its own vector's distance rounds off zero; a copy stored before it is at 0 exactly
    const own = [hit(1, 0), hit(9, 1e-7), hit(3, 0.3)];
    const page = await tieStable(2, 3, async (n) => own.slice(0, n), 9);
    expect(page.map((h) => [h.record.key, h.distance])).toEqual([[9, 0], [1, 0]]);
  });
});

describe('onePerProduct', () => {
  it('groups by an own field only: a built-in name such as __proto__ groups nothing', async () => {
    const hits = [1, 2, 3].map((n) => ({ record: { recordId: `r${n}`, data: { sku: n === 3 ? 'a' : 'b' } } }));
    const search = async () => hits as never[];
    expect(await onePerProduct('sku', 10, 3, search)).toHaveLength(2);
    for (const f of ['__proto__', 'toString', 'constructor']) expect(await onePerProduct(f, 10, 3, search), f).toHaveLength(3);
  });
});
