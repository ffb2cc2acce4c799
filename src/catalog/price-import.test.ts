import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, openTestStore, scratchDir, sharedCatalogs, sharedPresent, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { CatalogService } from '../services/catalog-service.ts';
import { ServiceError } from '../services/errors.ts';
import { priceStats, type PriceStatsOptions } from './price-stats.ts';
import { PriceStore } from '../store/price-store.ts';
import { importCatalog } from './catalog-import.ts';
import { importPrices, PriceImportError, type PriceImportResult } from './price-import.ts';
import { CatalogFileError } from './record-stream.ts';

if (!sharedPresent) console.warn(`price import tests on the shared price files skipped: ${sharedCatalogs} is absent (the shared folder beside the project)`);

const prices = (name: string) => fixture('prices', name);
const ANGEL = 'aaaaaaaa-0000-4000-8000-000000000001';
const SPLIT = 'aaaaaaaa-0000-4000-8000-000000000003';

describe.each(backends)('price import (%s)', (backend) => {
  let t: TestStore;
  let store: PriceStore;
  let files: Awaited<ReturnType<typeof scratchDir>>;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await openTestStore(backend);
    store = new PriceStore(t.store);
    files = await scratchDir();
    await importCatalog(t.catalogs, { kind: 'pokemon', catalog: 'pokemon', files: { cards: fixture('pokemon/cards.json'), sets: fixture('pokemon/sets.json') } });
    await importCatalog(t.catalogs, { kind: 'mtg', catalog: 'mtg', files: { cards: fixture('mtg/mtgjson-printings.json.gz'), sets: fixture('mtg/mtgjson-sets.json') } });
    await importCatalog(t.catalogs, { kind: 'sports', catalog: 'sports', files: { csv: fixture('sports/topps_checklist.csv') } });
    for (const c of await t.catalogs.list()) ids[c.name] = c.id;
  });
  afterAll(async () => {
    await t.close();
    await files.remove();
  });
  const run = (catalog: string, file: string) => importPrices(t.catalogs, store, { catalog, file });
  const rejection = async (p: Promise<unknown>) => p.then(
    () => {
      throw new Error('expected the import to fail');
    },
    (e: unknown) => e as Error,
  );

  it('imports PSA graded sales into the Pokémon catalog, skipping the MTG sale and the unknown card, and again changes nothing', async () => {
    const first = await run('pokemon', prices('psa_auction_prices_realized.csv'));
    expect(first).toMatchObject({
      catalog: 'pokemon',
      layout: 'psa',
      rows: 5,
      currencies: { USD: 3 },
      graded: 3,
      cards: 1,
      prices: { created: 3, updated: 0, unchanged: 0, not_in_file: 0, deleted_before: 0, total: 3 },
      skipped: { ambiguous: 0, no_card_id: 0, no_price: 0, unknown_card: 1, other_game: 1 },
    });
    expect(first.remarks).toEqual(['1 row prices MTG cards, not pokemon: skipped (first: line 5)', '1 row names a card the catalog does not have: skipped (first: zzz9-99 on line 6)']);
    const again = await run('pokemon', prices('psa_auction_prices_realized.csv'));
    expect(again.prices).toEqual({ created: 0, updated: 0, unchanged: 3, not_in_file: 0, deleted_before: 0, total: 3 });
    const sales = await store.observations(ids.pokemon!, 'tst1-1');
    expect(sales.map((s) => [s.date, s.price, s.graded, s.grade, s.qualifier, s.currency, s.source])).toEqual([
      ['2019-01-05', 1200, true, '10.0', null, 'USD', 'psa'],
      ['2019-02-10', 300.5, true, '9.0', '(MK)', 'USD', 'psa'],
      ['2019-03-15', 150, true, 'Authentic', null, 'USD', 'psa'],
    ]);
    expect(sales[1]!.extra).toMatchObject({ sale_type: 'Best Offer', psa_cert: '40000002', lot_url: expect.stringMatching(/auction\/2$/) });
    expect(sales[1]!.rowKey).toBe('psa:https://www.psacard.com/auctionprices/tcg-cards/test-base/sparkit/auction/2');
  });

  it('updates a re-imported row whose price changed, and only that one', async () => {
    const text = (await fs.readFile(prices('psa_auction_prices_realized.csv'), 'utf8')).replace(',300.5,', ',310.0,');
    const changed = await run('pokemon', await files.write('psa-changed.csv', text));
    expect(changed.prices).toEqual({ created: 0, updated: 1, unchanged: 2, not_in_file: 0, deleted_before: 0, total: 3 });
    expect((await store.observations(ids.pokemon!, 'tst1-1')).map((s) => s.price)).toEqual([1200, 310, 150]);
    // a lot moved to the next day (a time zone corrected): that lot updated, counted so, not one more (h228: `created 1`)
    const moved = await run('pokemon', await files.write('psa-moved.csv', text.replace('2019-02-10,', '2019-02-11,')));
    expect(moved.prices).toEqual({ created: 0, updated: 1, unchanged: 2, not_in_file: 0, deleted_before: 0, total: 3 });
    expect((await run('pokemon', prices('psa_auction_prices_realized.csv'))).prices).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
  });

  it('imports TCGplayer 3-day windows with their volume, skipping sealed products', async () => {
    const r = await run('pokemon', prices('pokemon_tcgplayer_3day_history.csv'));
    expect(r).toMatchObject({ layout: 'tcgplayer-3day', rows: 4, prices: { created: 3, total: 6 }, skipped: { no_card_id: 1 }, graded: 0, cards: 1 });
    expect((await store.observations(ids.pokemon!, 'tst1-2')).map((s) => [s.date, s.price, s.volume, s.graded])).toEqual([
      ['2025-04-28', 10, 3, false],
      ['2025-05-01', 11.5, 0, false],
      ['2025-05-04', 12.25, 7, false],
    ]);
  });

  it('imports only snapshot rows naming one candidate card, and counts the ambiguous ones', async () => {
    const r = await run('pokemon', prices('pokemon_tcgplayer_daily_snapshots.csv'));
    expect(r).toMatchObject({ layout: 'tcgplayer-snapshot', rows: 4, prices: { created: 2 }, skipped: { ambiguous: 1, no_card_id: 1 } });
    expect(r.remarks).toContain('1 row names several candidate cards (the file gives no collector number to tell them apart): skipped (first: line 4)');
    // Neither candidate of the ambiguous row got its price.
    expect((await store.observations(ids.pokemon!, 'tst1-4')).length).toBe(0);
    expect((await store.observations(ids.pokemon!, 'tst2pt5-TG05')).map((s) => [s.date, s.price, s.extra.low_price_usd])).toEqual([
      ['2026-04-12', 4.75, 3.05],
      ['2026-04-13', 4.8, 3.1],
    ]);
  });

  it('imports MTGO tix (gzipped) as TIX, finding a face uuid through the card\'s aliases, and daily USD prices by uuid or Scryfall id', async () => {
    const tix = await run('mtg', prices('mtg_mtgo_tix_daily.csv.gz'));
    expect(tix).toMatchObject({ layout: 'mtgo-tix', rows: 4, currencies: { TIX: 3 }, prices: { created: 3 }, skipped: { no_card_id: 1 }, cards: 2 });
    expect((await store.observations(ids.mtg!, SPLIT)).map((s) => [s.date, s.price, s.currency])).toEqual([
      ['2020-05-14', 1.25, 'TIX'],
      ['2020-05-15', 1.5, 'TIX'],
    ]);
    const usd = await run('mtg', prices('mtg_mtggoldfish_test_angel_tst_daily.csv'));
    expect(usd).toMatchObject({ layout: 'mtggoldfish', currencies: { USD: 3 }, prices: { created: 3 }, cards: 1 });
    const psa = await run('mtg', prices('psa_auction_prices_realized.csv'));
    expect(psa).toMatchObject({ prices: { created: 1 }, skipped: { other_game: 4, unknown_card: 0 } });
  });

  it('gives price-stats what it needs: graded apart from ungraded, tix left out of dollars', async () => {
    const angel = await store.observations(ids.mtg!, ANGEL);
    expect(angel.map((s) => [s.source, s.currency, s.graded])).toEqual([
      ['mtggoldfish', 'USD', false],
      ['mtggoldfish', 'USD', false],
      ['mtggoldfish', 'USD', false],
      ['psa', 'USD', true],
      ['mtgo-tix', 'TIX', false],
    ]);
    expect(await store.observations(ids.mtg!, ANGEL, { currency: 'TIX' })).toHaveLength(1);
    expect(await store.observations(ids.mtg!, ANGEL, { source: 'psa' })).toHaveLength(1);
    const stats = priceStats(angel);
    const all = stats.find((s) => s.stats_type === 'overall' && s.interval === 'all')!;
    // Four USD observations; the 0.02 tix is not among them.
    expect(all.value).toMatchObject({ min: 12.14, max: 45.25, oldest_date: '2010-11-02', latest_date: '2018-07-01' });
    expect(stats.find((s) => s.stats_type === 'graded' && s.interval === 'all')!.value).toMatchObject({ min: 45.25, max: 45.25 });
    expect(stats.find((s) => s.stats_type === 'ungraded' && s.interval === 'all')!.value).toMatchObject({ min: 12.14, max: 13, median: 12.5 });
  });

  it('lists real price counts per catalog', async () => {
    const service = new CatalogService(t.catalogs, store);
    const listed = (await service.list()).catalogs;
    expect(Object.fromEntries(listed.map((c) => [c.catalog, c.prices]))).toEqual({ mtg: 7, pokemon: 8, sports: 0 });
  });

  it('imports the plain CSV: two sales alike are two, graded by grade or company, other currencies kept apart; again changes nothing', async () => {
    const text = [
      'card,date,price,currency,grade,company,source',
      'tst1-4,2025-06-01,12.00,USD,,,my shop',
      'tst1-4,2025-06-01,12.00,USD,,,my shop',
      'tst1-4,2025-06-02,80,usd,GEM MT 10,psa,ebay',
      'tst1-4,2025-06-02,15.5,EUR,,,ebay',
      'zzz9-99,2025-06-02,1,USD,,,',
    ].join('\n');
    const file = await files.write('plain.csv', text);
    const first = await run('pokemon', file);
    expect(first).toMatchObject({ layout: 'csv', rows: 5, currencies: { USD: 3, EUR: 1 }, graded: 1, cards: 1, duplicates: 0, prices: { created: 4, updated: 0, unchanged: 0 }, skipped: { unknown_card: 1 } });
    expect(first.remarks).toEqual(['1 row names a card the catalog does not have: skipped (first: zzz9-99 on line 6)']);
    const rows = await store.observations(ids.pokemon!, 'tst1-4');
    expect(rows.map((r) => [r.rowKey, r.source, r.date, r.price, r.currency, r.graded, r.grade, r.extra])).toEqual([
      ['csv:tst1-4|2025-06-01|USD|||my shop#1', 'my shop', '2025-06-01', 12, 'USD', false, null, {}],
      ['csv:tst1-4|2025-06-01|USD|||my shop#2', 'my shop', '2025-06-01', 12, 'USD', false, null, {}],
      ['csv:tst1-4|2025-06-02|EUR|||ebay#1', 'ebay', '2025-06-02', 15.5, 'EUR', false, null, {}],
      ['csv:tst1-4|2025-06-02|USD|PSA|GEM MT 10|ebay#1', 'ebay', '2025-06-02', 80, 'USD', true, 'GEM MT 10', { company: 'PSA', grade_value: 10 }],
    ]);
    expect((await run('pokemon', file)).prices).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
    // a price corrected in place is an update of that sale, not one more
    const corrected = await run('pokemon', await files.write('plain-corrected.csv', text.replace('my shop\ntst1-4,2025-06-01,12.00', 'my shop\ntst1-4,2025-06-01,12.50')));
    expect(corrected.prices).toMatchObject({ created: 0, updated: 1, unchanged: 3, not_in_file: 0 });
    // a later file of that day without one of its sales: the sale stays, and the answer says so (h107: counted twice, unsaid)
    const dropped = await run('pokemon', await files.write('plain-dropped.csv', text.replace('tst1-4,2025-06-01,12.00,USD,,,my shop\n', '')));
    expect(dropped.prices).toMatchObject({ not_in_file: 1 });
    expect(dropped.remarks).toContain('1 stored price of the file\'s cards and days is not in this file and kept: an import never removes, and a day\'s sales are matched by their place in it, so a sale taken out of a day shifts the others. To make a day as the file has it: loupe prices delete --catalog pokemon --card <card> --date <date> (with --currency and --graded yes|no as the file\'s sales, so the day\'s others stay), then import the file again (first: tst1-4 on 2025-06-01)');
    // what price_stats makes of it: the PSA 10 sale graded, the two shop sales ungraded, the euros left out and said so
    const stats = await store.priceStats(ids.pokemon!, 'tst1-4');
    expect(stats.map((e) => `${e.stats_type} ${e.interval} ${e.value.min}-${e.value.max}`)).toEqual([
      'overall 30d 12-80',
      'overall 365d 12-80',
      'overall all 12-80',
      'graded 30d 80-80',
      'graded 365d 80-80',
      'graded all 80-80',
      'ungraded 30d 12-12.5',
      'ungraded 365d 12-12.5',
      'ungraded all 12-12.5',
    ]);
    expect(await store.leftOutCurrencies(ids.pokemon!, 'tst1-4')).toEqual({ EUR: 1 });
    expect(await store.priceStats(ids.pokemon!, 'tst1-4', { slab: { company: 'PSA', grade: 9 } })).toHaveLength(6);
    // a file of the day's euro sales alone is told of no dollar sale (h155: every stored price of its cards' days)
    const euros = await run('pokemon', await files.write('plain-euros.csv', 'card,date,price,currency,grade,company,source\ntst1-4,2025-06-02,15.5,EUR,,,ebay\ntst1-4,2025-06-01,14,EUR,,,my shop\n'));
    expect(euros.prices).toMatchObject({ created: 1, unchanged: 1, not_in_file: 0 });
  });

  it('a plain CSV\'s Beckett sale is a BGS sale, as a slab label read names it: a BGS 9.5 slab\'s graded entries count it', async () => {
    const file = await files.write('beckett.csv', ['card,date,price,currency,grade,company,source', 'tst1-3,2025-06-02,200,USD,9.5,Beckett,ebay', 'tst1-3,2025-06-03,30,USD,,,ebay', 'tst1-3,2025-06-03,90,USD,9,Ksa,ebay'].join('\n'));
    expect((await run('pokemon', file)).prices).toMatchObject({ created: 3 });
    const graded = (await store.priceStats(ids.pokemon!, 'tst1-3', { slab: { company: 'BGS', grade: 9.5 } })).filter((e) => e.stats_type === 'graded');
    expect(graded.map((e) => `${e.interval} ${e.value.min}-${e.value.max}`)).toEqual(['30d 200-200', '365d 200-200', 'all 200-200']);
    expect((await store.observations(ids.pokemon!, 'tst1-3')).map((r) => String(r.extra.company ?? '-')).sort()).toEqual(['-', 'BGS', 'OTHER']);
  });

  it("takes a plain CSV's source in any case as one source, and a raw card's words in the grade or company column as no grade (h228)", async () => {
    const head = 'card,date,price,currency,grade,company,source';
    const first = await run('pokemon', await files.write('spelt-1.csv', [head, 'tst2pt5-12,2025-02-01,30.00,USD,,,TCG Corner', 'tst2pt5-12,2025-02-01,32.00,USD,,,TCG Corner', 'tst2pt5-12,2025-02-03,31.00,USD,,,TCG Corner'].join('\n')));
    expect(first.prices).toMatchObject({ created: 3 });
    // the same sales with the source typed otherwise: the same three sales, named as first stored, and said so
    const again = await run('pokemon', await files.write('spelt-2.csv', [head, 'tst2pt5-12,2025-02-01,30.00,USD,,,tcg corner', 'tst2pt5-12,2025-02-01,32.00,USD,,,tcg corner', 'tst2pt5-12,2025-02-03,31.00,USD,,, TCG  CORNER '].join('\n')));
    expect(again.prices).toMatchObject({ created: 0, unchanged: 3 });
    expect(again.remarks).toEqual(['1 row spells its source otherwise than the file\'s rows before it: read as "tcg corner", one source (first: "TCG  CORNER" on line 4)', '3 rows name their source as their cards\' stored prices spell it otherwise: stored as "TCG Corner", one source (first: "tcg corner" for tst2pt5-12)']);
    // a file's own spellings, its skipped rows not counted (h230: the remark counted a row naming an unknown card)
    const own = await run('pokemon', await files.write('spelt-3.csv', [head, 'tst1-2,2025-03-01,5.00,USD,,,Local Fair', 'tst1-2,2025-03-02,5.00,USD,,,LOCAL FAIR', 'zzz9-99,2025-03-02,5.00,USD,,,local fair'].join('\n')));
    expect(own.remarks).toEqual(['1 row spells its source otherwise than the file\'s rows before it: read as "Local Fair", one source (first: "LOCAL FAIR" on line 3)', '1 row names a card the catalog does not have: skipped (first: zzz9-99 on line 4)']);
    expect((await store.observations(ids.pokemon!, 'tst1-2', { source: 'Local Fair' })).length).toBe(2);
    // a price no currency writes: kept, and said (h228: `1.234` euros, a $0.001 sale)
    const odd = await run('pokemon', await files.write('odd-prices.csv', [head, 'tst1-2,2025-04-01,1.234,EUR,,,fair', 'tst1-2,2025-04-02,0.001,USD,,,fair', 'tst1-2,2025-04-03,12.50,USD,,,fair', 'tst1-2,2025-04-04,0.29,USD,,,fair', 'tst1-2,2025-04-05,1.15,USD,,,fair'].join('\n')));
    // a file pasted twice over (h228: every count doubled, unsaid)
    const once = ['tst1-2,2025-05-01,3.00,USD,,,twice', 'tst1-2,2025-05-02,4.00,USD,,,twice', 'tst1-2,2025-05-03,5.00,USD,,,twice'];
    const doubled = await run('pokemon', await files.write('doubled.csv', [head, ...once, ...once].join('\n')));
    expect(doubled.prices).toMatchObject({ created: 6 });
    const undo = "if it was doubled by mistake, delete the card's sales (loupe prices delete --catalog pokemon --card <card> --date <date>, with --source as the file's) and import it once: an import never removes";
    expect(doubled.remarks).toEqual([`the file's sales are written twice over, in the same order: imported as that many sales again (two alike are two); ${undo} (first: 3 sales)`]);
    // one sale a card, the file twice over (h232: said nothing); and one card's run twice among other sales
    const single = ['tst1-3,2025-05-01,3.00,USD,,,once', 'tst1-4,2025-05-01,4.00,USD,,,once'];
    expect((await run('pokemon', await files.write('single-doubled.csv', [head, ...single, ...single].join('\n')))).remarks).toEqual([`the file's sales are written twice over, in the same order: imported as that many sales again (two alike are two); ${undo} (first: 2 sales)`]);
    const mixed = await run('pokemon', await files.write('card-doubled.csv', [head, 'tst1-3,2025-05-09,9.00,USD,,,mix', ...once.map((l) => l.replace('twice', 'mix')), ...once.map((l) => l.replace('twice', 'mix'))].join('\n')));
    expect(mixed.remarks).toEqual([`1 card's sales are written twice over, in the same order: imported as that many sales again (two alike are two); ${undo} (first: tst1-2)`]);
    // a price of three decimals where the currency writes them, or of nine digits: no remark (h232)
    expect((await run('pokemon', await files.write('dinar.csv', [head, 'tst1-3,2025-06-01,1.234,KWD,,,dinar', 'tst1-3,2025-06-02,592326041.55,USD,,,dinar'].join('\n')))).remarks).toEqual([]);
    expect(odd.remarks).toEqual(["2 prices have more than two decimals or are under 0.01: kept as read; check the file's number format (a point or comma between thousands?) (first: 1.234 EUR on line 2)"]);
    const sales = await store.observations(ids.pokemon!, 'tst2pt5-12', { source: 'TCG Corner' });
    expect(sales.map((r) => r.source)).toEqual(['TCG Corner', 'TCG Corner', 'TCG Corner']);
    // Raw, Ungraded, NM, a company `none`: sales of cards in no slab; a grade with a company, or one that names it, a slab's
    const raw = await run('pokemon', await files.write('raw-words.csv', [head, 'tst2pt5-TG05,2025-05-01,1.00,USD,Raw,,shop', 'tst2pt5-TG05,2025-05-02,1.20,USD,Ungraded,,shop', 'tst2pt5-TG05,2025-05-03,0.90,USD,NM,,shop', 'tst2pt5-TG05,2025-05-04,45,USD,10,PSA,shop', 'tst2pt5-TG05,2025-05-05,30,USD,PSA 9,,shop', 'tst2pt5-TG05,2025-05-06,1.10,USD,,,shop', 'tst2pt5-TG05,2025-05-07,2.00,USD,,none,shop', 'tst2pt5-TG05,2025-05-08,3.00,USD,Lightly Played,n/a,shop', 'tst2pt5-TG05,2025-05-09,50,USD,Authentic,,shop'].join('\n')));
    expect(raw).toMatchObject({ graded: 3, prices: { created: 9 } });
    const stored = await store.observations(ids.pokemon!, 'tst2pt5-TG05', { source: 'shop' });
    expect(stored.map((r) => [r.grade, r.graded, r.extra])).toEqual([
      ['Raw', false, {}],
      ['Ungraded', false, {}],
      ['NM', false, {}],
      ['10', true, { company: 'PSA', grade_value: 10 }],
      ['PSA 9', true, { company: 'PSA', grade_value: 9 }],
      [null, false, {}],
      [null, false, {}],
      ['Lightly Played', false, {}],
      ['Authentic', true, {}],
    ]);
  });

  it("reads a spreadsheet's header in any case, and says so of a file separated by semicolons (h228)", async () => {
    const upper = await run('pokemon', await files.write('upper.csv', 'Card,Date,Price,Currency\ntst1-3,2025-07-01,4.00,USD\n'));
    expect(upper).toMatchObject({ layout: 'csv', prices: { created: 1 } });
    for (const text of ['card;date;price;currency\ntst1-3;2025-07-01;4,00;USD\n', 'card;date;price;currency\ntst1-3;2025-07-01;4;USD\n']) {
      const err = await rejection(run('pokemon', await files.write('semicolons.csv', text)));
      expect(err.message).toMatch(/the file looks separated by semicolons/);
    }
    expect((await rejection(run('pokemon', await files.write('twice.csv', 'Card,card,Date,Price,Currency\ntst1-3,tst1-3,2025-07-01,4,USD\n')))).message).toMatch(/the header \(Card, card, Date, Price, Currency\) names a column twice/);
  });

  it('imports the plain CSV into a catalog of any kind, by the card\'s key or an alias', async () => {
    const sports = await run('sports', await files.write('plain-sports.csv', 'card,date,price,currency\n2022 Topps Test Series 1|base|1,2024-05-01,3.25,USD\n'));
    expect(sports).toMatchObject({ layout: 'csv', cards: 1, prices: { created: 1 } });
    expect((await store.priceStats(ids.sports!, '2022 Topps Test Series 1|base|1'))[0]!.value).toMatchObject({ mean: 3.25, latest_date: '2024-05-01' });
    // the MTGJSON uuid of Test Angel is an alias of its Scryfall id, the MTG card key
    const mtg = await run('mtg', await files.write('plain-mtg.csv', `card,date,price,currency\n00000000-0000-5000-8000-000000000001,2024-05-01,20,USD\n${ANGEL},2024-05-01,20,USD\n`));
    expect(mtg).toMatchObject({ cards: 1, prices: { created: 2 } });
    // one key per card found, however the file names it: the two rows are two sales of it
    expect((await store.observations(ids.mtg!, ANGEL, { source: 'csv' })).map((r) => r.rowKey)).toEqual([`csv:${ANGEL}|2024-05-01|USD|||#1`, `csv:${ANGEL}|2024-05-01|USD|||#2`]);
    // a key copied decomposed (NFD, from a Mac or a PDF) names its card: it was skipped as unknown (h224)
    const checklist = await files.write('mx.csv', 'year,brand,set_name,subset,card_number,players,teams,attributes,card_type,sport\n2023,Panini,2023 Panini Selección México,base,9,Santiago Giménez,México,,base,soccer\n');
    await importCatalog(t.catalogs, { kind: 'sports', catalog: 'sports-mx', files: { csv: checklist } });
    const decomposed = '2023 Panini Selección México|base|9'.normalize('NFD');
    expect(await run('sports-mx', await files.write('plain-mx.csv', `card,date,price,currency\n${decomposed},2024-05-01,12,USD\n`))).toMatchObject({ cards: 1, prices: { created: 1 } });
  });

  it('refuses a plain CSV with a bad row, naming the line, and writes none of it', async () => {
    const before = await store.counts();
    const good = Array.from({ length: 1200 }, (_, i) => `tst1-1,2024-01-01,${i + 1}.00,USD`);
    const bad = async (name: string, lines: string[], problem: RegExp) => {
      const err = await rejection(run('pokemon', await files.write(name, ['card,date,price,currency', ...lines].join('\n'))));
      expect(err).toBeInstanceOf(CatalogFileError);
      expect(err.message).toMatch(problem);
    };
    await bad('late.csv', [...good, 'tst1-1,2024-01-02,4.00,$'], /late\.csv line 1202: "currency" must be a three-letter code such as USD or EUR, not "\$"/);
    await bad('no-price.csv', ['tst1-1,2024-01-02,,USD'], /no-price\.csv line 2: "price" is missing/);
    await bad('comma.csv', ['tst1-1,2024-01-02,"1,200.00",USD'], /comma\.csv line 2: "price" must be a price like 12\.50, not "1,200\.00"/);
    await bad('feb.csv', ['tst1-1,2023-02-29,3.00,USD'], /feb\.csv line 2: "date" is not a day of the calendar: "2023-02-29"/);
    // every bad line at once (h155: three bad lines took three nightly runs to find)
    // a line of another shape stops the reading: the bad rows before it are named with it (h158: they were dropped)
    await bad('shape.csv', ['tst1-1,2024-01-02,12;50,USD', 'tst1-1,2024-01-02,3.00,USD', 'tst1-1,2024-01-02,3.00,USD,extra'], /shape\.csv line 4: 5 fields where the header has 4 columns; before it, 1 bad line: line 2: "price" must be a price like 12\.50, not "12;50"/);
    await bad('three.csv', ['tst1-1,2024-01-02,12;50,USD', 'tst1-1,2024-01-02,3.00,USD', 'tst1-1,2024-01-03,4.00,$', 'tst1-1,2024-13-01,5.00,USD'], /three\.csv line 2: .*; 2 more bad lines: line 4: "currency" must be a three-letter code such as USD or EUR, not "\$"; line 5: "date" /);
    const extra = await rejection(run('pokemon', await files.write('notes.csv', 'card,date,price,currency,notes\ntst1-1,2024-01-02,3.00,USD,nice\n')));
    expect(extra.message).toMatch(/notes\.csv line 1: the header \(card, date, price, currency, notes\) is none of the price layouts known \(as a plain CSV, "notes" is none of its columns \(remove it\)\): .*plain CSV \(card, date, price, currency\[, grade, company, source\]\)/);
    // a sheet with no currency column is told so (h316: only the six layouts' columns were listed)
    const noCurrency = await rejection(run('pokemon', await files.write('no-currency.csv', 'Card,Date,Price,Notes\ntst1-1,2024-01-02,3.00,nice\n')));
    expect(noCurrency.message).toMatch(/no-currency\.csv line 1: the header \(Card, Date, Price, Notes\) is none of the price layouts known \(as a plain CSV, "notes" is none of its columns \(remove it\) and it lacks "currency"\): /);
    expect(await store.counts()).toEqual(before);
  });

  it('a malformed row fails naming file and line and writes nothing', async () => {
    const before = await store.counts();
    const lines = (await fs.readFile(prices('pokemon_tcgplayer_3day_history.csv'), 'utf8')).split('\n');
    lines.splice(2, 0, 'tst1-1,900009,Card,Sparkit 1,TST01,2025-06-01,2025-06-03,9.99,1,2025-07-24 22:00:50,False,0');
    lines[5] = lines[5]!.replace(',12.25,', ',12;25,');
    const bad = await files.write('bad-price.csv', lines.join('\n'));
    const err = await rejection(run('pokemon', bad));
    expect(err).toBeInstanceOf(CatalogFileError);
    expect(err.message).toBe(`${bad} line 6: "market_price_usd" must be a price like 12.50, not "12;25"`);
    const quote = await files.write('bad-quote.csv', lines.join('\n').replace(',12;25,', ',"12.25" ,'));
    expect((await rejection(run('pokemon', quote))).message).toMatch(/bad-quote\.csv line 6: text after the closing quote of field 8/);
    const short = await files.write('short.csv', lines.join('\n').replace(',12;25,7,', ',12.25,'));
    expect((await rejection(run('pokemon', short))).message).toMatch(/short\.csv line 6: 11 fields where the header has 12 columns/);
    expect(await store.counts()).toEqual(before);
    expect(await store.observations(ids.pokemon!, 'tst1-1', { source: 'tcgplayer-3day' })).toEqual([]);
  });

  it('refuses a file of another game, an unknown layout, JSON, an empty file and a missing or non-card catalog', async () => {
    const other = await rejection(run('pokemon', prices('mtg_mtgo_tix_daily.csv.gz')));
    expect(other).toBeInstanceOf(PriceImportError);
    expect(other).toMatchObject({ status: 409, code: 'catalog_kind_conflict' });
    expect(other.message).toMatch(/holds MTG prices \(MTGO prices in tix\); catalog pokemon holds pokemon cards/);
    const unknown = await rejection(run('pokemon', await files.write('unknown.csv', 'date,card,price\n2020-01-01,x,1\n')));
    expect(unknown.message).toMatch(/unknown\.csv line 1: the header \(date, card, price\) is none of the price layouts known \(as a plain CSV, it lacks "currency"\): TCGplayer daily price snapshots/);
    const json = await rejection(run('pokemon', prices('pokemon_tcgplayer_3day_products.json')));
    expect(json).toBeInstanceOf(CatalogFileError);
    expect(json.message).toMatch(/pokemon_tcgplayer_3day_products\.json: is JSON; price files are CSV/);
    const empty = await rejection(run('pokemon', await files.write('header-only.csv', 'date,name,set_code,scryfall_id,mtgjson_uuid,price_usd\n')));
    expect(empty.message).toMatch(/header-only\.csv: holds no price rows/);
    expect(await rejection(run('nope', prices('psa_auction_prices_realized.csv')))).toMatchObject({ status: 404, code: 'catalog_not_found' });
    expect(await rejection(run('sports', prices('psa_auction_prices_realized.csv')))).toMatchObject({ status: 409 });
    // Through the service: the CLI's errors.
    const service = new CatalogService(t.catalogs, store);
    const serviceErr = await rejection(service.importPrices({ catalog: 'pokemon', file: prices('pokemon_tcgplayer_3day_products.json') }));
    expect(serviceErr).toBeInstanceOf(ServiceError);
    expect(serviceErr).toMatchObject({ status: 400, code: 'price_file_invalid' });
  });

  describe.skipIf(!sharedPresent)('the shared price files on the full catalogs', () => {
    const results: Record<string, PriceImportResult> = {};
    beforeAll(async () => {
      await importCatalog(t.catalogs, { kind: 'pokemon', catalog: 'pokemon-full', files: { cards: path.join(sharedCatalogs, 'pokemon/cards.json'), sets: path.join(sharedCatalogs, 'pokemon/sets.json') } });
      await importCatalog(t.catalogs, { kind: 'mtg', catalog: 'mtg-full', files: { cards: path.join(sharedCatalogs, 'mtg/mtgjson_printings.json.gz'), sets: path.join(sharedCatalogs, 'mtg/mtgjson_sets.json') } });
      const p = (f: string) => path.join(sharedCatalogs, 'prices', f);
      results.psaPokemon = await run('pokemon-full', p('psa_auction_prices_realized.csv'));
      results.psaMtg = await run('mtg-full', p('psa_auction_prices_realized.csv'));
      results.history = await run('pokemon-full', p('pokemon_tcgplayer_3day_history.csv'));
      results.snapshots = await run('pokemon-full', p('pokemon_tcgplayer_daily_snapshots.csv'));
      results.tix = await run('mtg-full', p('mtg_mtgo_tix_daily.csv.gz'));
      results.goldfish = await run('mtg-full', p('mtg_mtggoldfish_stoneforge_mystic_wwk_daily.csv'));
      for (const [name, r] of Object.entries(results)) console.log(`prices ${name} (${backend}): ${r.rows} rows, ${r.prices.created} stored, read ${r.seconds.read} s, write ${r.seconds.write} s`);
    }, 300_000);

    it('finds every card the README names, skips what it says cannot be linked', () => {
      // PSA: 2,287 Pokémon sales of 24 cards, 18 Black Lotus sales.
      expect(results.psaPokemon).toMatchObject({ cards: 24, graded: 2287, skipped: { other_game: 18, unknown_card: 0 } });
      expect(results.psaMtg).toMatchObject({ cards: 1, graded: 18, skipped: { other_game: 2287, unknown_card: 0 } });
      // 9,638 card rows of 20 cards, 9 of them (and 13 sealed rows) priced 0.0, a gap in the series, no sale; the rest are sealed products.
      expect(results.history).toMatchObject({ cards: 20, currencies: { USD: 9629 }, skipped: { no_price: 22, no_card_id: 10_983, unknown_card: 0 } });
      // 28 single-candidate cards × 4 dates; 163 ambiguous × 4; 9 without a candidate × 4.
      expect(results.snapshots).toMatchObject({ cards: 28, currencies: { USD: 112 }, skipped: { ambiguous: 652, no_card_id: 36, unknown_card: 0 } });
      // 241 of 245 printings linked; the 4 MTGO-only promos have no ids.
      expect(results.tix).toMatchObject({ cards: 241, currencies: { TIX: 140_447 }, skipped: { no_card_id: 2639, unknown_card: 0 } });
      expect(results.goldfish).toMatchObject({ cards: 1, currencies: { USD: 3356 } });
    });

    it('gives Base Set Charizard\'s graded sales to price-stats', async () => {
      const id = (await t.catalogs.get('pokemon-full'))!.id;
      const sales = await store.observations(id, 'base1-4');
      expect(sales.length).toBe(562);
      const graded = priceStats(sales).find((s) => s.stats_type === 'graded' && s.interval === 'all')!;
      expect(graded.value.oldest_date >= '2016-09-10').toBe(true);
      expect(graded.value.latest_date <= '2020-06-28').toBe(true);
    });

    it('computes price_stats in SQL as the reference does, on the real series', async () => {
      const pokemon = (await t.catalogs.get('pokemon-full'))!.id;
      const mtg = (await t.catalogs.get('mtg-full'))!.id;
      const cards: [string, string, PriceStatsOptions][] = [
        [pokemon, 'base1-4', {}],
        [pokemon, 'base1-4', { slab: { company: 'PSA', grade: 9 } }],
        [pokemon, 'sv3pt5-199', {}],
        [pokemon, 'sv8-238', {}],
      ];
      // the one Stoneforge Mystic printing with 3,356 daily prices, and an MTGO printing in tix at 1 USD a tix
      const goldfishKey = (await t.store.db.selectFrom('catalog_prices').select('card_key').where('catalog_id', '=', mtg).where('source', '=', 'mtggoldfish').executeTakeFirstOrThrow()).card_key;
      const tixKey = (await t.store.db.selectFrom('catalog_prices').select('card_key').where('catalog_id', '=', mtg).where('source', '=', 'mtgo-tix').orderBy('card_key').executeTakeFirstOrThrow()).card_key;
      cards.push([mtg, goldfishKey, {}], [mtg, tixKey, { rates: { TIX: 1 } }]);
      for (const [catalog, card, options] of cards) {
        const started = performance.now();
        const sql = await store.priceStats(catalog, card, options);
        const ms = performance.now() - started;
        const observations = await store.observations(catalog, card);
        console.log(`price_stats ${card} (${backend}): ${observations.length} prices, ${sql.length} entries, ${ms.toFixed(1)} ms in SQL`);
        expect(sql.length, card).toBeGreaterThan(0);
        expect(sql, `${card} ${JSON.stringify(options)}`).toEqual(priceStats(observations, options));
      }
    });

    it("reads Pikachu ex's trend past its month of windows at $0.70 to $3.44 among $250 to $380 ones (h291)", async () => {
      // January 2026 in the TCGplayer file (30 of 483 windows; another printing's price, it seems): the steps into and
      // out of them made a volatility of 3.9873 (399 % a step) in 365d and 3.4651 in all; the trimmed mean left them out
      const stats = await store.priceStats((await t.catalogs.get('pokemon-full'))!.id, 'sv8-238');
      const year = stats.find((e) => e.stats_type === 'overall' && e.interval === '365d')!.value;
      expect(year).toMatchObject({ min: 0.7, max: 384.5, trend: { trimmed_mean: 302.14, volatility: 0.0074, forecast_30d: 307.66 } });
      expect(stats.find((e) => e.stats_type === 'overall' && e.interval === 'all')!.value.trend.volatility).toBe(0.0073);
    });
  });
});
