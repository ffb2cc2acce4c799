import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { PriceStore, type PriceInput } from './price-store.ts';

const price = (n: number, over: Partial<PriceInput> = {}): PriceInput => ({
  rowKey: `test:${n}`,
  cardKey: `c-${n % 3}`,
  source: 'test',
  date: `2020-01-${String((n % 28) + 1).padStart(2, '0')}`,
  price: n + 0.25,
  currency: 'USD',
  graded: n % 2 === 0,
  grade: n % 2 === 0 ? '10.0' : null,
  qualifier: null,
  volume: n % 5 === 0 ? null : n,
  extra: { n },
  ...over,
});

describe.each(backends)('price store (%s)', (backend) => {
  let t: TestStore;
  let store: PriceStore;
  let catalogId: string;
  let otherId: string;
  beforeAll(async () => {
    t = await openTestStore(backend);
    store = new PriceStore(t.store);
    catalogId = (await t.catalogs.create('prices', 'pokemon')).id;
    otherId = (await t.catalogs.create('other', 'mtg')).id;
  });
  afterAll(() => t.close());

  it('stores rows in batches, then a same import changes nothing and a changed row is updated', async () => {
    const rows = Array.from({ length: 1203 }, (_, i) => price(i));
    const progress: number[] = [];
    expect(await store.applyImport({ catalogId, rows, onProgress: (w) => progress.push(w) })).toEqual({ created: 1203, updated: 0, unchanged: 0, total: 1203 });
    expect(progress).toEqual([500, 1000, 1203]);
    expect(await store.applyImport({ catalogId, rows })).toEqual({ created: 0, updated: 0, unchanged: 1203, total: 1203 });
    const changed = rows.map((r, i) => (i === 7 ? { ...r, extra: { n: 7, note: 'fixed' } } : r));
    expect(await store.applyImport({ catalogId, rows: changed })).toEqual({ created: 0, updated: 1, unchanged: 1202, total: 1203 });
    expect(await store.applyImport({ catalogId: otherId, rows: rows.slice(0, 2) })).toMatchObject({ created: 2, total: 2 });
    expect(await store.counts()).toEqual(new Map([
      [catalogId, 1203],
      [otherId, 2],
    ]));
  });

  it('reads a card\'s prices back oldest first, with every field alike on both backends', async () => {
    const obs = await store.observations(catalogId, 'c-1');
    expect(obs).toHaveLength(401);
    expect(obs.map((o) => o.date)).toEqual([...obs.map((o) => o.date)].sort());
    const seven = obs.find((o) => o.rowKey === 'test:7')!;
    expect(seven).toMatchObject({ cardKey: 'c-1', source: 'test', date: '2020-01-08', price: 7.25, currency: 'USD', graded: false, grade: null, qualifier: null, volume: 7, extra: { n: 7, note: 'fixed' } });
    const ten = (await store.observations(catalogId, 'c-1')).find((o) => o.rowKey === 'test:10')!;
    expect(ten).toMatchObject({ graded: true, grade: '10.0', volume: null });
    expect(await store.observations(catalogId, 'nope')).toEqual([]);
  });

  it('rolls the whole import back when a later batch fails', async () => {
    const rows = [...Array.from({ length: 700 }, (_, i) => price(5000 + i)), price(9999, { cardKey: null as unknown as string })];
    await expect(store.applyImport({ catalogId, rows })).rejects.toThrow();
    expect((await store.counts()).get(catalogId)).toBe(1203);
    expect((await store.observations(catalogId, 'c-2')).some((o) => o.rowKey === 'test:5000')).toBe(false);
  });
});
