import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { entryOf as entry, expectHandFigures, GRADED_30D, HAND_ENTRIES, HAND_SERIES, OVERALL_30D } from '../catalog/price-stats.fixture.ts';
import { priceStats, type PriceObservation, type PriceStatsOptions } from '../catalog/price-stats.ts';
import { sql } from 'kysely';
import { zeroPrices } from './migrations/023-zero-prices.ts';
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

  it("a sale deleted by its price stays out when its row comes again with another volume or note; each price deleted at a place is remembered, and one restored leaves the others deleted (h156, h158)", async () => {
    const id = (await t.catalogs.create('tombstones', 'pokemon')).id;
    const sale = (p: number, over: Partial<PriceInput> = {}) => price(1, { rowKey: 'place', cardKey: 'c-t', price: p, volume: 4, extra: {}, ...over });
    await store.applyImport({ catalogId: id, rows: [sale(1)] });
    expect(await store.deleteCardPrices(id, 'c-t', { price: 1 })).toMatchObject({ deleted: 1 });
    expect(await store.applyImport({ catalogId: id, rows: [sale(1, { volume: 6, extra: { note: 'x' } })] })).toMatchObject({ created: 0, deleted_before: 1 });
    // a correction in its place is imported, then deleted too: both stay out
    expect(await store.applyImport({ catalogId: id, rows: [sale(110)] })).toMatchObject({ created: 1, deleted_before: 0 });
    expect(await store.deleteCardPrices(id, 'c-t', { price: 110 })).toMatchObject({ deleted: 1 });
    for (const p of [1, 110]) expect(await store.applyImport({ catalogId: id, rows: [sale(p)] }), String(p)).toMatchObject({ created: 0, deleted_before: 1 });
    // the $1 restored: the $110 is still deleted there
    expect(await store.applyImport({ catalogId: id, rows: [sale(1)], restoreDeleted: true })).toMatchObject({ created: 1 });
    expect(await store.applyImport({ catalogId: id, rows: [sale(110)] })).toMatchObject({ updated: 0, deleted_before: 1 });
    expect((await store.observations(id, 'c-t')).map((o) => o.price)).toEqual([1]);
    // no price left in this catalog: the other tests count every catalog's prices
    await store.deleteCardPrices(id, 'c-t');
  });

  it('stores rows in batches, then a same import changes nothing and a changed row is updated', async () => {
    const rows = Array.from({ length: 1203 }, (_, i) => price(i));
    const progress: number[] = [];
    expect(await store.applyImport({ catalogId, rows, onProgress: (w) => progress.push(w) })).toEqual({ created: 1203, updated: 0, unchanged: 0, not_in_file: 0, deleted_before: 0, total: 1203 });
    expect(progress).toEqual([500, 1000, 1203]);
    expect(await store.applyImport({ catalogId, rows })).toEqual({ created: 0, updated: 0, unchanged: 1203, not_in_file: 0, deleted_before: 0, total: 1203 });
    const changed = rows.map((r, i) => (i === 7 ? { ...r, extra: { n: 7, note: 'fixed' } } : r));
    expect(await store.applyImport({ catalogId, rows: changed })).toEqual({ created: 0, updated: 1, unchanged: 1202, not_in_file: 0, deleted_before: 0, total: 1203 });
    expect(await store.applyImport({ catalogId: otherId, rows: rows.slice(0, 2) })).toMatchObject({ created: 2, total: 2 });
    expect(await store.counts()).toEqual(new Map([
      [catalogId, 1203],
      [otherId, 2],
    ]));
  });

  it('migration 023 deletes prices of 0 stored before imports skipped them', async () => {
    const zeroId = (await t.catalogs.create('zeros', 'pokemon')).id;
    await store.applyImport({ catalogId: zeroId, rows: [price(1, { price: 0 }), price(2), price(4, { price: 0 })] });
    expect((await store.counts()).get(zeroId)).toBe(3);
    for (const statement of zeroPrices[backend]) await sql.raw(statement).execute(t.store.db);
    expect((await store.counts()).get(zeroId)).toBe(1);
    expect((await store.observations(zeroId, 'c-2')).map((o) => o.price)).toEqual([2.25]);
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

  it('names each card\'s TCGplayer product, the one priced last, from the prices\' own ids only', async () => {
    const cat = (await t.catalogs.create('tcgplayer', 'pokemon')).id;
    const row = (key: string, date: string, extra: Record<string, unknown>, n: number): PriceInput => ({ ...price(n, { cardKey: key, date, extra }), rowKey: `tp:${n}` });
    await store.applyImport({
      catalogId: cat,
      rows: [
        row('a', '2025-01-01', { tcgplayer_product_id: '111' }, 1),
        row('a', '2025-02-01', { tcgplayer_product_id: '222' }, 2),
        row('a', '2025-01-15', { tcgplayer_product_id: '111' }, 3),
        row('b', '2025-01-01', { tcgplayer_product_id: 333 }, 4),
        row('c', '2025-01-01', { lot_url: 'https://example.org/lot' }, 5),
        row('d', '2025-01-01', { tcgplayer_product_id: '44/4' }, 6),
      ],
    });
    const products = await store.tcgplayerProducts(cat, ['a', 'b', 'c', 'd', 'e', 'a']);
    expect([...products].sort()).toEqual([['a', '222'], ['b', '333']]);
    expect(await store.tcgplayerProducts(cat, [])).toEqual(new Map());
    expect(await store.tcgplayerProducts(catalogId, ['a', 'b'])).toEqual(new Map());
  });

  it('rolls the whole import back when a later batch fails', async () => {
    const rows = [...Array.from({ length: 700 }, (_, i) => price(5000 + i)), price(9999, { cardKey: null as unknown as string })];
    await expect(store.applyImport({ catalogId, rows })).rejects.toThrow();
    expect((await store.counts()).get(catalogId)).toBe(1203);
    expect((await store.observations(catalogId, 'c-2')).some((o) => o.rowKey === 'test:5000')).toBe(false);
    expect(await staged()).toBe(0);
  });

  const staged = async () => Number((await t.store.db.selectFrom('catalog_price_import_rows').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it.runIf(backend === 'sqlite')('lets other connections write while it stages its rows, and leaves none staged', async () => {
    // Another process's connection, without waiting: a write while the import holds the lock fails at once.
    const other = new SQLite(t.store.file!);
    other.pragma('busy_timeout = 0');
    other.exec('CREATE TABLE IF NOT EXISTS other_writes (id INTEGER PRIMARY KEY)');
    const outcomes: boolean[] = [];
    const probe = () => {
      try {
        other.prepare('INSERT INTO other_writes DEFAULT VALUES').run();
        outcomes.push(true);
      } catch {
        outcomes.push(false);
      }
    };
    const rows = Array.from({ length: 1500 }, (_, i) => price(20_000 + i));
    expect(await store.applyImport({ catalogId: otherId, rows, onProgress: probe })).toMatchObject({ created: 1500 });
    other.close();
    expect(outcomes).toEqual([true, true, true]);
    expect(await staged()).toBe(0);
  });
});

/** An observation as the importer hands it over, on card `card`. */
const asInput = (card: string) => (o: PriceObservation & { rowKey: string }): PriceInput => ({
  rowKey: o.rowKey,
  cardKey: card,
  source: 'hand',
  date: o.date,
  price: o.price,
  currency: o.currency,
  graded: o.graded,
  grade: o.graded ? String(o.extra?.grade_value ?? '') : null,
  qualifier: null,
  volume: null,
  extra: o.extra ?? {},
});

/**
 * A longer series, the same on every run: 700 prices over three years with several a day, graded
 * sales of two companies and grades, euros, tix and a price of 0 (no relative change from it).
 */
function randomSeries(): (PriceObservation & { rowKey: string })[] {
  let seed = 42;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: 700 }, (_, i) => {
    const graded = next() < 0.3;
    const currency = next() < 0.1 ? 'EUR' : next() < 0.05 ? 'TIX' : 'USD';
    const day = Math.floor(next() * 1100);
    const date = new Date(Date.UTC(2021, 0, 1 + day)).toISOString().slice(0, 10);
    // rising by half over the three years, so that the line explains some of it
    const price = i === 17 ? 0 : Math.round((graded ? 400 : 40) * (0.5 + next() + day / 2200) * 100) / 100;
    const extra = graded ? { company: next() < 0.5 ? 'PSA' : 'BGS', grade_value: next() < 0.5 ? 10 : 9.5 } : {};
    return { rowKey: `r:${String(next()).slice(2, 6)}:${i}`, date, price, graded, currency, extra };
  });
}

/** A mean of exactly half a cent (0.755): each engine's own average of doubles rounded it its own way (0.76 on SQLite, 0.75 on PostgreSQL). */
const HALF_CENT = [0.75, 0.76, 0.75, 0.76];

describe.each(backends)('price statistics in SQL (%s)', (backend) => {
  let t: TestStore;
  let store: PriceStore;
  let catalogId: string;
  const random = randomSeries();
  beforeAll(async () => {
    t = await openTestStore(backend);
    store = new PriceStore(t.store);
    catalogId = (await t.catalogs.create('stats', 'pokemon')).id;
    const rows = [...HAND_SERIES.map(asInput('hand')), ...random.map(asInput('random')), asInput('one')({ rowKey: 'o:1', date: '2024-03-05', price: 12.5, graded: false, currency: 'USD' })];
    rows.push(asInput('tix-only')({ rowKey: 't:1', date: '2024-03-05', price: 0.5, graded: false, currency: 'TIX' }));
    for (const [i, price] of HALF_CENT.entries()) rows.push(asInput('half-cent')({ rowKey: `half:${i}`, date: `2024-03-0${i + 1}`, price, graded: false, currency: 'USD' }));
    await store.applyImport({ catalogId, rows });
  });
  afterAll(() => t.close());

  it('computes the hand-worked figures (price-stats.fixture.ts)', async () => {
    const stats = await store.priceStats(catalogId, 'hand');
    expect(stats.map((e) => `${e.stats_type} ${e.interval} ${e.start_date}`)).toEqual(HAND_ENTRIES);
    expectHandFigures(stats);
    expect(stats).toEqual(priceStats(HAND_SERIES));
  });

  it('converts only with a configured rate, says what it left out, and prices a slab by its company and grade', async () => {
    expect(await store.leftOutCurrencies(catalogId, 'hand')).toEqual({ EUR: 1 });
    expect(await store.leftOutCurrencies(catalogId, 'hand', { rates: { EUR: 1.1 } })).toEqual({});
    const withEur = await store.priceStats(catalogId, 'hand', { rates: { EUR: 1.1 } });
    expect(entry(withEur, 'ungraded 30d')).toMatchObject({ mean: 36.25, median: 35, q3: 43.75, max: 55, latest: 40 });
    expect(withEur).toEqual(priceStats(HAND_SERIES, { rates: { EUR: 1.1 } }));
    const psa10 = await store.priceStats(catalogId, 'hand', { slab: { company: 'psa', grade: 10 } });
    for (const interval of ['30d', '365d', 'all']) expect(entry(psa10, `graded ${interval}`)).toEqual(GRADED_30D);
    expect(entry(psa10, 'overall 30d')).toEqual(OVERALL_30D);
    expect((await store.priceStats(catalogId, 'hand', { slab: { company: 'BGS', grade: 10 } })).map((e) => e.stats_type)).not.toContain('graded');
  });

  it('prices an AUTHENTIC slab (no grade number) by its company\'s sales without a grade, not every one of them (h145)', async () => {
    const sale = (n: number, extra: Record<string, unknown>, p: number): PriceInput => ({ rowKey: `auth:${n}`, cardKey: 'auth', source: 'test', date: `2024-03-0${n}`, price: p, currency: 'USD', graded: true, grade: null, qualifier: null, volume: null, extra });
    await store.applyImport({ catalogId, rows: [sale(1, { company: 'PSA', grade_value: 10 }, 5000), sale(2, { company: 'PSA', grade_value: 9 }, 2000), sale(3, { company: 'PSA' }, 800), sale(4, { company: 'BGS' }, 700)] });
    const options: PriceStatsOptions = { slab: { company: 'PSA', grade: null, gradeless: true } };
    const stats = await store.priceStats(catalogId, 'auth', options);
    expect(entry(stats, 'graded all')).toMatchObject({ min: 800, max: 800, latest: 800 });
    expect(stats).toEqual(priceStats((await store.observations(catalogId, 'auth')) as PriceObservation[], options));
    // a label whose grade was not read at all keeps the company's every sale, as before
    expect(entry(await store.priceStats(catalogId, 'auth', { slab: { company: 'PSA', grade: null } }), 'graded all')).toMatchObject({ min: 800, max: 5000 });
  });

  it('gives one sale as itself, and nothing for a card without a usable price', async () => {
    const one = await store.priceStats(catalogId, 'one');
    expect(one.map((e) => `${e.stats_type} ${e.interval} ${e.start_date}`)).toEqual(['overall 30d 2024-02-05', 'overall 365d 2023-03-07', 'overall all null', 'ungraded 30d 2024-02-05', 'ungraded 365d 2023-03-07', 'ungraded all null']);
    expect(entry(one, 'overall all')).toMatchObject({ mean: 12.5, median: 12.5, q1: 12.5, q3: 12.5, range: 0, std: null, latest: 12.5, oldest_date: '2024-03-05' });
    expect(entry(one, 'overall all')!.trend).toEqual({ r_squared: null, volatility: null, forecast_30d: null, trimmed_mean: 12.5, slope_per_day: null, slope_per_day_pct: null });
    expect(one).toEqual(priceStats([{ date: '2024-03-05', price: 12.5, graded: false, currency: 'USD' }]));
    expect(await store.priceStats(catalogId, 'tix-only')).toEqual([]);
    expect(await store.leftOutCurrencies(catalogId, 'tix-only')).toEqual({ TIX: 1 });
    expect(await store.priceStats(catalogId, 'no-such-card')).toEqual([]);
  });

  it("keeps a busy day's sales in file order past nine (`#10` after `#9`: its 10th sale came before its 2nd, h196)", async () => {
    const sale = (n: number): PriceInput => ({ rowKey: `busy|2024-07-01|shop#${n}`, cardKey: 'busy', source: 'shop', date: '2024-07-01', price: n, currency: 'USD', graded: false, grade: null, qualifier: null, volume: null, extra: {} });
    await store.applyImport({ catalogId, rows: Array.from({ length: 12 }, (_, i) => sale(i + 1)) });
    const stats = await store.priceStats(catalogId, 'busy');
    expect(entry(stats, 'overall all')).toMatchObject({ latest: 12, oldest: 1 });
    // each sale a dollar above the one before: the changes are small and alike, not a jump from 9 to 1
    expect(entry(stats, 'overall all')!.trend.volatility).toBeLessThan(0.3);
    expect(stats).toEqual(priceStats((await store.observations(catalogId, 'busy')) as PriceObservation[]));
  });

  it('rounds a mean of half a cent alike on both backends and in the reference', async () => {
    const stats = await store.priceStats(catalogId, 'half-cent');
    const all = entry(stats, 'overall all')!;
    expect(all.mean).toBe(0.76);
    expect(all.trend.trimmed_mean).toBe(0.76);
    expect(stats).toEqual(priceStats(HALF_CENT.map((price, i) => ({ date: `2024-03-0${i + 1}`, price, graded: false, currency: 'USD' }))));
  });

  it('reads the trend past a $9,999 sale among $5 ones, whichever of the equal prices the engine ranks first (h291)', async () => {
    const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);
    // 5, 5.25 and 5.5 seven, seven and six times: the trimmed mean drops two of the 5s, which two being the engine's choice
    const sales: (PriceObservation & { rowKey: string })[] = Array.from({ length: 20 }, (_, i) => ({ rowKey: `w:${i}`, date: day(i * 3), price: 5 + (i % 3) * 0.25, graded: false, currency: 'USD' }));
    sales.push({ rowKey: 'w:20', date: day(61), price: 9999, graded: false, currency: 'USD' });
    await store.applyImport({ catalogId, rows: sales.map(asInput('wrong-sale')) });
    const stats = await store.priceStats(catalogId, 'wrong-sale');
    // before: a forecast of 3178.13 and a volatility of 425.6505 for the $5 card (price-stats.test.ts works them out)
    expect(entry(stats, 'overall all')).toMatchObject({ max: 9999, mean: 481.13, trend: { forecast_30d: 5.26, volatility: 0.0668, slope_per_day: 0.0004, r_squared: 0.0014 } });
    expect(stats).toEqual(priceStats(sales));
  });

  it('leaves a price five times the middle ones out of the line below 10 prices, and keeps a real rise (h296)', async () => {
    const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);
    const usd = (rowKey: string, date: string, price: number): PriceObservation & { rowKey: string } => ({ rowKey, date, price, graded: false, currency: 'USD' });
    // $5, $5.50, $9,999 and $5 ten days apart forecast 7000.70 through every price (price-stats.test.ts works it out)
    const four = [5, 5.5, 9999, 5].map((p, i) => usd(`f:${i}`, day(i * 10), p));
    // Mew ex's weekly TCGplayer prices, 298.24 to 677.59, with a $524 sale typed as 5.24
    const mew = [['2025-07-09', 298.24], ['2025-07-16', 333.03], ['2025-07-23', 348.44], ['2025-07-30', 361.09], ['2025-08-06', 405.08], ['2025-08-10', 5.24], ['2025-08-13', 523.54], ['2025-08-20', 571.6], ['2025-08-27', 677.59]] as const;
    const rising = mew.map(([d, p], i) => usd(`m:${i}`, d, p));
    // on the fence: the middle prices are 2 and 2, so 0.4 and 10 (five times) stay on the line, 0.39 and 10.01 do not
    const edge = [0.4, 2, 0.39, 10, 10.01, 2].map((p, i) => usd(`e:${i}`, day(i * 3), p));
    await store.applyImport({ catalogId, rows: [...four.map(asInput('four')), ...rising.map(asInput('mew')), ...edge.map(asInput('edge'))] });
    const stats = await store.priceStats(catalogId, 'four');
    expect(entry(stats, 'overall all')).toMatchObject({ max: 9999, median: 5.25, trend: { forecast_30d: 5, slope_per_day: -0.0036, volatility: 0.135 } });
    expect(stats).toEqual(priceStats(four));
    const mewStats = await store.priceStats(catalogId, 'mew');
    expect(entry(mewStats, 'overall all')!.trend).toMatchObject({ forecast_30d: 849.28, slope_per_day: 7.5129, r_squared: 0.9067, volatility: 0.0884 });
    expect(mewStats).toEqual(priceStats(rising));
    const edgeStats = await store.priceStats(catalogId, 'edge');
    expect(entry(edgeStats, 'overall all')!.trend).toMatchObject({ slope_per_day: 0.2169, volatility: 2.7713 });
    expect(edgeStats).toEqual(priceStats(edge));
  });

  it('gives the reference\'s numbers on a long series, every figure, with rates and slabs', async () => {
    const options: PriceStatsOptions[] = [{}, { rates: { EUR: 1.0825, TIX: 0.9 } }, { slab: { company: 'PSA', grade: 9.5 } }, { slab: { company: 'bgs', grade: null } }];
    for (const o of options) {
      const sql = await store.priceStats(catalogId, 'random', o);
      expect(sql.length, JSON.stringify(o)).toBe(9);
      expect(sql, JSON.stringify(o)).toEqual(priceStats(random, o));
    }
    // the trim, the line and the volatility are not degenerate here
    const all = entry(await store.priceStats(catalogId, 'random'), 'ungraded all')!;
    expect(all.trend.r_squared).toBeGreaterThan(0);
    expect(all.trend.volatility).toBeGreaterThan(0);
    expect(all.trend.trimmed_mean).not.toBe(all.mean);
  });
});
