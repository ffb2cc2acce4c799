import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { parseColumnMap } from '../../src/catalog/formats/generic-csv.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Services } from '../../src/services/container.ts';
import { catalogsElsewhere, sportOfHints, TCG } from '../../src/services/recognition/recognition-families.ts';
import { tieNotes, wholeReadIsNoCard } from '../../src/services/recognition/recognition-service.ts';
import { makeCard, standardCard } from '../helpers/card-scenes.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64, photosDir } from '../helpers/photos.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

/**
 * `/collectibles/v2/tcg_id` on real photos (test/fixtures/photos/cards): a French card whose
 * collector line reads G SVI FR 086/198 (Gardevoir ex), against a made-up catalog in the Pokémon
 * data project's format: the card's number in a set of 198 cards printed SVI, a decoy with the
 * same number in another set of 198 (CRE) and one in a set of 98; and a Japanese card (036/190,
 * Kyogre) that no catalog here holds.
 */
const photo = (await fs.readdir(path.join(photosDir, 'cards'))).find((f) => f.startsWith('read-416032719'))!;
/**
 * The photo cut to the card's region with the playmat around it. On the whole photo the detector
 * places this holo card's dark-on-dark upper-right corner 56 px off, and its verifier (since
 * 2026-11-25) refuses that outline; this test is about identification, not finding the card.
 */
const photoCard = (await sharp(path.join(photosDir, 'cards', photo)).extract({ left: 100, top: 250, width: 520, height: 680 }).jpeg({ quality: 92 }).toBuffer()).toString('base64');
const japanese = (await fs.readdir(path.join(photosDir, 'cards'))).find((f) => f.startsWith('single-440572034'))!;
const sets = [
  { id: 'tsa', name: 'Test Alpha', series: 'Testing', printedTotal: 198, total: 258, releaseDate: '2023/03/31', ptcgoCode: 'SVI' },
  { id: 'tsb', name: 'Test Beta', series: 'Testing', printedTotal: 198, total: 233, releaseDate: '2021/06/18', ptcgoCode: 'CRE' },
  { id: 'tsc', name: 'Test Gamma', series: 'Testing', printedTotal: 98, total: 98, releaseDate: '2019/02/01', ptcgoCode: null },
];
const cards = [
  { id: 'tsa-86', name: 'Alphamon', number: '086', set: 'tsa', rarity: 'Common', supertype: 'Pokémon', subtypes: ['Basic'], hp: '70', types: ['Water'] },
  { id: 'tsb-86', name: 'Betamon', number: '086', set: 'tsb', rarity: 'Uncommon', supertype: 'Pokémon', subtypes: ['Stage 1'], hp: '90', types: ['Fire'] },
  { id: 'tsc-86', name: 'Gammamon', number: '86', set: 'tsc', rarity: 'Rare', supertype: 'Pokémon', subtypes: ['Basic'], hp: '60', types: ['Grass'] },
];

type Obj = { name: string; id: number; bound_box: number[]; prob: number; area: number; 'Top Category': { name: string }[]; _tags: Record<string, { name: string; 'pre-filled'?: boolean }[]>; _tags_simple: string[]; _ocr: { full_text: string; lang?: string; texts: { polygon: number[][]; text: string }[] }; _identification: { best_match: Record<string, unknown> | null; alternatives: Record<string, unknown>[]; distances: number[] } };
type Rec = { _id?: string; _status: { code: number; text: string }; _width?: number; _height?: number; _objects?: Obj[]; 'Graded Slab'?: { name: string }[]; Category?: string };

describe.each(backends)('collectibles recognition (%s)', (backend) => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 60_000, warm: [], embedder: '' }, queue: { workers: 1, pollMs: 200 } });
    await h.app.ready();
    // the same photos are read again with other hints and for the second backend (test/helpers/vision-memo.ts)
    rememberVision(h);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-tcg-'));
  });
  /** Made-up cards of one made-up set, added to the `pokemon` catalog. */
  const importSet = async (set: { id: string; name: string; printedTotal: number; releaseDate: string }, cards: Record<string, unknown>[]) => {
    const files = { cards: path.join(dir, `cards-${set.id}.json`), sets: path.join(dir, `sets-${set.id}.json`) };
    await fs.writeFile(files.cards, JSON.stringify(cards.map((c) => ({ set: set.id, supertype: 'Pokémon', ...c }))));
    await fs.writeFile(files.sets, JSON.stringify([{ ...set, series: 'Testing', total: set.printedTotal, ptcgoCode: null }]));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files });
  };
  afterAll(async () => {
    await h?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Submits an asynchronous collectibles-recognition request and waits for its records. */
  async function recognised(endpoint: string | undefined, records: Record<string, unknown>[]): Promise<Rec[]> {
    const res = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', ...(endpoint === undefined ? {} : { endpoint }), records } });
    expect(res.json().request?.endpoint ?? res.json().endpoint).toBe(endpoint ?? 'tcg_id');
    expect(res.statusCode, res.body).toBe(201);
    const id = (res.json() as { id: string }).id;
    for (let i = 0; i < 1200; i++) {
      const done = (await h.request('GET', `/account/v2/request/${id}`)).json() as { status: string; response?: { records: Rec[] } };
      if (done.status === 'DONE') return done.response!.records;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`request ${id} not done`);
  }

  it('answers 503 with a clear message while no trading-card catalog is imported', async () => {
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }] } });
    expect(res.statusCode).toBe(503);
    expect(JSON.stringify(res.json())).toMatch(/loupe catalog import/);
    // as every 503 says when to come back (h91)
    expect(res.headers['retry-after']).toBe('3600');
  });

  it('refuses a name beside the records that the endpoint does not take, before the catalog check and uncharged (h343: ignored without a word)', async () => {
    const account = await h.newAccount(50);
    for (const [url, extra, named] of [
      // another endpoint's option: magic_ai is /sport_id's, slab_grade not one of /comics_id's (document 3 §4)
      ['tcg_id', { magic_ai: true }, 'magic_ai'],
      ['sport_id', { include_mtg_digital: true }, 'include_mtg_digital'],
      ['comics_id', { slab_grade: true }, 'slab_grade'],
      ['analyze', { zz_unknown: 1 }, 'zz_unknown'],
      // the endpoints that take records alone read no option and no hint (another endpoint's option: the next test)
      ['card_ocr_id', { zz_unknown: 1 }, 'zz_unknown'],
      ['slab_id', { slab_grade: true }, 'slab_grade'],
      ['slab_grade', { slab_id: false }, 'slab_id'],
      ['detect', { limit: 3 }, 'limit'],
      ['process', { fields_to_return: ['x'] }, 'fields_to_return'],
    ] as const) {
      const res = await h.request('POST', `/collectibles/v2/${url}`, { token: account.token, body: { records: [{ _base64: photoCard }], ...extra } });
      expect([res.statusCode, res.json().code, res.json().detail], `${url}: ${res.body}`).toEqual([400, 'invalid_request', expect.stringContaining(`collectibles/v2/${url} has no parameter ${named}: it takes records`)]);
      expect(res.json().errors, url).toEqual([{ field: named, message: 'not a parameter of this method' }]);
      expect(res.json().status?.code, url).toBe(400);
    }
    // the nicer words for a misspelt option or a hint beside the records come first, as before (h175, h270)
    const misspelt = await h.request('POST', '/collectibles/v2/sport_id', { token: account.token, body: { records: [{ _base64: photoCard }], magicAi: true } });
    expect([misspelt.statusCode, misspelt.json().detail]).toEqual([400, expect.stringMatching(/^magicAi is not an option: it is `magic_ai`/)]);
    expect((await h.app.loupe.accounts.getAccount(account.account)).credits).toBe(50);
  });

  it('identifies the card of a real photo by its collector line, with the spec record shape', async () => {
    await fs.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await fs.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    // before any price is imported: the best match gets no price_stats at all, not [] (issue 19: "no price_stats, not zeros")
    const unpriced = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }], price_stats: true } });
    const unpricedMatch = (unpriced.json() as { records: Rec[] }).records[0]!._objects![0]!._identification.best_match;
    expect(unpricedMatch).toMatchObject({ id: 'tsa-86' });
    expect(unpricedMatch).not.toHaveProperty('price_stats');
    // and the record says why, so a shop owner does not look for a fault
    expect((unpriced.json() as { records: Rec[] }).records[0]!._status.text).toBe('OK; no prices are known for tsa-86: no price file imported names it (loupe prices import)');
    expect((unpricedMatch as { links: Record<string, string> }).links).not.toHaveProperty('tcgplayer');
    // market prices of the card in the TCGplayer 3-day layout of ../shared/catalogs/prices
    const header = 'pokemon_card_id,tcgplayer_product_id,product_type,name,set_code_source,window_start,window_end,market_price_usd,volume,scraped_at,year_corrected,duplicates_dropped';
    const rows = [['2025-04-26', '2025-04-28', '2.00'], ['2025-05-01', '2025-05-03', '3.00'], ['2025-05-06', '2025-05-08', '4.00']].map(([a, b, p]) => `tsa-86,900086,Card,Alphamon,SVI,${a},${b},${p},2,2025-07-24 22:00:50,False,0`);
    await fs.writeFile(path.join(dir, 'pokemon_tcgplayer_3day_history.csv'), [header, ...rows].join('\n') + '\n');
    await (h.app.loupe as unknown as Services).catalogs.importPrices({ catalog: 'pokemon', file: path.join(dir, 'pokemon_tcgplayer_3day_history.csv') });
    const before = (await h.app.loupe.accounts.getAccount(h.account.account)).credits;
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _id: 'fr', _base64: photoCard, Side: 'front' }], lang: true, price_stats: true } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { status: { code: number }; records: Rec[]; lang: boolean; price_stats: boolean; statistics: Record<string, number> };
    expect(body).toMatchObject({ status: { code: 200 }, lang: true, price_stats: true });
    const [r] = body.records;
    expect(r).toMatchObject({ _id: 'fr', _status: { code: 200, text: 'OK' }, _width: 520, _height: 680, Category: 'Trading Card Game/Pokemon', 'Graded Slab': [{ name: 'no' }] });
    expect(r).not.toHaveProperty('_base64');
    const o = r!._objects![0]!;
    expect(o).toMatchObject({ name: 'Card', id: 1, 'Top Category': [{ name: 'Trading Card' }] });
    expect(o.bound_box[2]).toBeGreaterThan(o.bound_box[0]! + 300);
    expect(o.area).toBeGreaterThan(0.2);
    expect(o.area).toBeLessThan(1);
    expect(o._tags.Category).toEqual([{ id: 1, name: 'Pokemon', prob: 1 }]);
    expect(o._tags.Side).toEqual([{ id: 1, name: 'front', prob: 1, 'pre-filled': true }]);
    // a common may be its reverse holo: the catalog does not say which finish it is
    expect(o._tags).not.toHaveProperty('Foil/Holo');
    expect(o._ocr.lang).toBe('fr');
    expect(o._ocr.full_text).toMatch(/086\/198/);
    // the collector line's polygon lies in the card's lower part, in pixels of the photo
    const line = o._ocr.texts.find((t) => t.text.includes('086/198'))!;
    for (const [x, y] of line.polygon) {
      expect(x).toBeGreaterThanOrEqual(o.bound_box[0]! - 5);
      expect(x).toBeLessThanOrEqual(o.bound_box[2]! + 5);
      expect(y).toBeGreaterThan((o.bound_box[1]! + o.bound_box[3]!) / 2);
    }
    expect(o._identification.best_match).toMatchObject({ id: 'tsa-86', name: 'Alphamon', set: 'Test Alpha', set_code: 'SVI', set_series_code: 'tsa', card_number: '086', out_of: 198, year: '2023', rarity: 'Common', color: 'Water', type: 'Pokémon — Basic', subcategory: 'Pokemon', full_name: 'Alphamon 086/198 Test Alpha' });
    // the other set of 198 is an alternative, behind by the printed set code
    expect(o._identification.alternatives[0]).toMatchObject({ id: 'tsb-86' });
    // the TCGplayer product the imported prices name is the card's marketplace link (the catalog carries none)
    expect((o._identification.best_match as { links: Record<string, string> }).links).toEqual({ tcgplayer: 'https://www.tcgplayer.com/product/900086' });
    // price_stats are the best match's only (document 3 §4: _identification.best_match.price_stats)
    for (const a of o._identification.alternatives) expect(a).not.toHaveProperty('price_stats');
    const stats = (o._identification.best_match as { price_stats: { stats_type: string; interval: string; value: { min: number; max: number; median: number; latest: number } }[] }).price_stats;
    expect(stats.find((e) => e.stats_type === 'overall' && e.interval === 'all')?.value).toMatchObject({ min: 2, max: 4, median: 3, latest: 4 });
    expect(stats.some((e) => e.stats_type === 'graded')).toBe(false);
    expect(o._identification.alternatives.map((a) => a.id)).not.toContain('tsa-86');
    expect(o._identification.distances[0]).toBeLessThan(0.23);
    expect(o._identification.distances.length).toBe(1 + o._identification.alternatives.length);
    expect([...o._identification.distances]).toEqual([...o._identification.distances].sort((a, b) => a - b));
    expect((await h.app.loupe.accounts.getAccount(h.account.account)).credits).toBe(before - 1);
  }, 120_000);

  it('reads each catalog\'s sets at warm-up (the server does before it listens), so the first scan does not', async () => {
    const recognition = h.app.loupe.recognition as unknown as { warm(): Promise<void>; catalogs: { sets(id: string): Promise<unknown> } };
    const importCards = async (list: typeof cards) => {
      await fs.writeFile(path.join(dir, 'cards.json'), JSON.stringify(list));
      await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    };
    // a re-import that changes a row moves the catalog's version: its sets are read again, once
    await importCards(cards.map((c) => (c.id === 'tsc-86' ? { ...c, rarity: 'Promo' } : c)));
    const sets = vi.spyOn(recognition.catalogs, 'sets');
    try {
      await recognition.warm();
      expect(sets).toHaveBeenCalledTimes(1);
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }] } });
      expect((res.json() as { records: Rec[] }).records[0]!._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86' });
      expect(sets).toHaveBeenCalledTimes(1);
    } finally {
      sets.mockRestore();
      await importCards(cards);
    }
  });

  it("says Foil where the matched printing's rarity is foil in every copy, and a client's Foil/Holo hint goes first", async () => {
    const importCards = async (list: typeof cards) => {
      await fs.writeFile(path.join(dir, 'cards.json'), JSON.stringify(list));
      await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    };
    await importCards(cards.map((c) => (c.id === 'tsa-86' ? { ...c, rarity: 'Rare Holo' } : c)));
    try {
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }, { _base64: photoCard, 'Foil/Holo': 'Non-Foil' }] } });
      const [plain, hinted] = (res.json() as { records: Rec[] }).records.map((r) => r._objects![0]!);
      expect(plain!._identification.best_match).toMatchObject({ id: 'tsa-86', rarity: 'Rare Holo' });
      expect(plain!._tags['Foil/Holo']).toEqual([{ id: 1, name: 'Foil', prob: 1 }]);
      expect(plain!._tags_simple).toContain('Foil');
      expect(hinted!._tags['Foil/Holo']).toEqual([{ id: 1, name: 'Non-Foil', prob: 1, 'pre-filled': true }]);
    } finally {
      await importCards(cards);
    }
  }, 120_000);

  it('answers from one version of a catalog when an import commits during the call: never a new card in its old set (h122)', async () => {
    const recognition = h.app.loupe.recognition as unknown as { catalogs: { cardsByNumber: (...a: unknown[]) => Promise<unknown> } };
    const importAs = async (cardName: string, setName: string) => {
      await fs.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards.map((c) => (c.id === 'tsa-86' ? { ...c, name: cardName } : c))));
      await fs.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets.map((t) => (t.id === 'tsa' ? { ...t, name: setName } : t))));
      await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    };
    await importAs('Alphamon', 'Test Alpha');
    // warm the sets of this version, as a running server has them
    await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }] } });
    const original = recognition.catalogs.cardsByNumber.bind(recognition.catalogs);
    let imported = false;
    const spy = vi.spyOn(recognition.catalogs, 'cardsByNumber').mockImplementation(async (...a: unknown[]) => {
      // the import commits after the call read its catalogs and sets, before it reads the cards
      if (!imported) {
        imported = true;
        await importAs('Alphamon M2', 'Test Alpha M2');
      }
      return original(...a);
    });
    try {
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }] } });
      expect(imported).toBe(true);
      expect((res.json() as { records: Rec[] }).records[0]!._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86', name: 'Alphamon M2', set: 'Test Alpha M2' });
      // /card_ocr_id too (h124: only /tcg_id was answered again)
      await importAs('Alphamon', 'Test Alpha');
      await h.request('POST', '/collectibles/v2/card_ocr_id', { body: { records: [{ _base64: photoCard }] } });
      imported = false;
      const ocr = await h.request('POST', '/collectibles/v2/card_ocr_id', { body: { records: [{ _base64: photoCard }] } });
      expect(imported).toBe(true);
      expect((ocr.json() as { records: Rec[] }).records[0]!._objects![0]!._identification.best_match).toMatchObject({ name: 'Alphamon M2', full_name: expect.stringContaining('Test Alpha M2') });
    } finally {
      spy.mockRestore();
      await importAs('Alphamon', 'Test Alpha');
    }
  });

  it('leaves prices in a currency with no configured rate out of price_stats, and says so in the record\'s status', async () => {
    await fs.writeFile(path.join(dir, 'eur.csv'), 'card,date,price,currency\ntsa-86,2025-05-07,100.00,EUR\ntsa-86,2025-05-08,120.00,EUR\n');
    await (h.app.loupe as unknown as Services).catalogs.importPrices({ catalog: 'pokemon', file: path.join(dir, 'eur.csv') });
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }], price_stats: true } });
    const [r] = (res.json() as { records: Rec[] }).records;
    expect(r!._status).toMatchObject({ code: 200, text: 'OK; price_stats of tsa-86 leave out 2 in EUR: no rate to US dollars is configured (LOUPE_PRICE_RATES)' });
    const stats = (r!._objects![0]!._identification.best_match as { price_stats: { stats_type: string; interval: string; value: { max: number } }[] }).price_stats;
    // the dollar prices alone: 100 and 120 EUR would be the maximum otherwise
    expect(stats.find((e) => e.stats_type === 'overall' && e.interval === 'all')?.value.max).toBe(4);
  });

  it('keeps to a set_code hint: another set gives no match, an unknown one is the record\'s 400; a Japanese card is matched to no Pokémon card', async () => {
    const res = await h.request('POST', '/collectibles/v2/tcg_id', {
      body: { records: [{ _id: 'tsb', _base64: photoCard, set_code: 'tsc' }, { _id: 'nope', _base64: photoCard, set_code: 'NOPE' }] },
    });
    // spec 3 §7: any 2xx is success; the body says some records failed
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [inB, nope] = (res.json() as { records: Rec[] }).records;
    expect(inB!._status.code).toBe(200);
    expect(inB!._objects![0]!._identification.best_match).toBeNull();
    // said, not a bare OK (h279)
    expect(inB!._status.text).toMatch(/^OK; set_code "tsc": no card of that set matches what was read/);
    expect(nope!._status).toMatchObject({ code: 400 });
    expect(nope!._status.text).toMatch(/Unknown set_code "NOPE"/);
    // a hint of the wrong type or length is its record's own 400, the good record beside it read (h258: the request's 400)
    for (const wrong of [{ set_code: 5 }, { 'Top Category': 5 }, { Side: true }, { Rotation: ['x'] }, { Category: 'x'.repeat(101) }, { Autograph: 3 }]) {
      const mixed = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _id: 'good', _base64: photoCard, set_code: 'tsc' }, { _id: 'wrong', _base64: photoCard, ...wrong }] } });
      const [good, bad] = (mixed.json() as { records: Rec[] }).records;
      expect([mixed.statusCode, good!._status.code, bad!._status.code], JSON.stringify(wrong)).toEqual([200, 200, 400]);
      expect(bad!._status.text).toMatch(new RegExp(`^${Object.keys(wrong)[0]!.replace('/', '\\/')} must be (a boolean or )?a string of at most \\d+ characters$`));
      expect(bad).toMatchObject({ _id: 'wrong', ...wrong });
    }
    // a Category hint naming a game searches that game's catalogs only: MTG's gives this Pokémon card no match
    const hinted = await h.request('POST', '/collectibles/v2/tcg_id', {
      body: { records: [{ _id: 'mtg', _base64: photoCard, Category: 'Trading Card Game/Magic The Gathering' }, { _id: 'pkm', _base64: photoCard, Subcategory: 'Pokémon' }] },
    });
    const [asMtg, asPokemon] = (hinted.json() as { records: Rec[] }).records;
    expect(asMtg!._status.code).toBe(200);
    expect(asMtg!._objects![0]!._identification.best_match).toBeNull();
    expect(asMtg!.Category).toBe('Trading Card Game/Magic The Gathering');
    // an option on a record (an asynchronous request's records copied as they are) is refused, not lost
    const copied = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard, price_stats: true }] } });
    expect(copied.statusCode).toBe(400);
    expect(copied.body).toContain('records[0].price_stats: the synchronous endpoints take their options beside the records, for the whole call; only asynchronous requests take them on each record.');
    // and the reverse: a record's hint beside the records is refused, not ignored and charged (h175)
    for (const hint of [{ set_code: 'ZZZQ' }, { Category: 'Trading Card Game/Pokemon' }]) {
      const beside = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }], ...hint } });
      expect([beside.statusCode, beside.json().status?.text ?? beside.json().detail], JSON.stringify(hint)).toEqual([400, expect.stringMatching(/is a record's hint: send it on each record it is for/)]);
    }
    // an option or hint written another way is refused, naming it, not ignored and the call charged (h270)
    for (const [body, text] of [
      [{ priceStats: true }, /^priceStats is not an option: it is `price_stats`, beside "records"\.$/],
      [{ price_stat: true }, /^price_stat is not an option: it is `price_stats`/],
      [{ analyzeAll: true }, /^analyzeAll is not an option: it is `analyze_all`/],
      [{ 'slab-id': true }, /^slab-id is not an option: it is `slab_id`/],
      [{ setcode: 'tsc' }, /^setcode is not a hint: it is `set_code`, on each record it is for\.$/],
    ] as const) {
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard }], ...body } });
      expect([res.statusCode, res.json().detail], JSON.stringify(body)).toEqual([400, expect.stringMatching(text)]);
    }
    for (const [rec, text] of [
      [{ setcode: 'tsc' }, /^records\[0\]\.setcode is not a hint: it is `set_code`, on each record it is for\.$/],
      [{ top_category: 'Trading Card Game' }, /^records\[0\]\.top_category is not a hint: it is `Top Category`/],
      [{ Price_Stats: true }, /^records\[0\]\.Price_Stats is not an option: it is `price_stats`, beside "records"\.$/],
    ] as const) {
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard, ...rec }] } });
      expect([res.statusCode, res.json().detail], JSON.stringify(rec)).toEqual([400, expect.stringMatching(text)]);
    }
    // other fields a shop keeps on its records are left be
    const own = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard, sku: 'A-1', set_name: 'x', price: 3, shelf: 'B' }] } });
    expect(own.statusCode).toBe(200);
    // no MTG catalog is imported here: said, or the empty answer reads as a card missing from the catalog
    expect(asMtg!._status.text).toBe('OK; no imported Magic The Gathering catalog: the game the Category hint names (loupe catalog import)');
    expect(asPokemon!._status.text).toBe('OK');
    expect(asPokemon!._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86' });
    // 036/190 is also a number in the made-up set of 190 below, but Japanese sets are numbered apart
    await importSet({ id: 'tsj', name: 'Test J', printedTotal: 190, releaseDate: '2020/11/20' }, [{ id: 'tsj-36', name: 'Jmon', number: '036', subtypes: ['Basic'], hp: '130' }]);
    const ja = (await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoBase64(`cards/${japanese}`) }] } })).json() as { records: Rec[] };
    expect(ja.records[0]!._status.text).toBe('OK; the imported Pokémon catalogs hold no Japanese, Korean or Chinese printings');
    expect(ja.records[0]!._objects![0]!._identification.best_match).toBeNull();
    // the katakana name reads as look-alike kanji (`才一力`), and no word only Chinese cards print is read: Japanese
    expect(ja.records[0]!._objects![0]!._tags.Language![0]!.name).toBe('ja');
    // ignore_non_ascii leaves the lines read in CJK characters out of the text too
    expect(ja.records[0]!._objects![0]!._ocr.full_text).toMatch(/[\u4e00-\u9fff]/);
    const ascii = (await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoBase64(`cards/${japanese}`) }], ignore_non_ascii: true } })).json() as { records: Rec[] };
    const ocr = ascii.records[0]!._objects![0]!._ocr;
    expect(ocr.full_text).not.toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    expect(ocr.texts.length).toBeGreaterThan(0);
    expect(ocr.texts.some((t) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(t.text))).toBe(false);
  }, 120_000);

  it('takes an Alphabet hint as its pre-filled tag, other leaving out the Latin-only catalogs; an unknown word is the record\'s 400 (h333)', async () => {
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _id: 'other', _base64: photoCard, Alphabet: 'other' }, { _id: 'latin', _base64: photoCard, Alphabet: 'Latin' }, { _id: 'ja', _base64: photoCard, Alphabet: 'japanese' }, { _id: 'plain', _base64: photoCard }] } });
    const [other, latin, ja, plain] = (res.json() as { records: Rec[] }).records;
    // the client's word, pre-filled, as Side, Foil/Holo and Rotation come back (it was echoed, and the tag said the measured `latin`)
    expect(other!._objects![0]!._tags.Alphabet).toEqual([{ id: 1, name: 'other', prob: 1, 'pre-filled': true }]);
    expect(other!._objects![0]!._tags_simple).toContain('other');
    // a hint narrows the search: the Pokémon data project's printings are all Latin, so none is this card's
    expect(other!._objects![0]!._identification.best_match).toBeNull();
    expect(other!._status).toMatchObject({ code: 200, text: 'OK; Alphabet "other": the imported Pokémon catalogs hold Latin-alphabet printings only, and were not searched (sent without it, they are)' });
    expect(latin!._objects![0]!._tags.Alphabet).toEqual([{ id: 1, name: 'Latin', prob: 1, 'pre-filled': true }]);
    expect(latin!._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86' });
    expect(latin!._status.text).toBe('OK');
    // no tag of ours says `japanese`: refused naming the words it takes, the records beside it answered
    expect(ja!._status).toMatchObject({ code: 400, text: 'Alphabet must be "latin" or "other" (the words of the Alphabet tag), not "japanese"' });
    expect(ja).toMatchObject({ _id: 'ja', Alphabet: 'japanese' });
    expect(plain!._objects![0]!._tags.Alphabet).toEqual([{ id: 1, name: 'latin', prob: 1 }]);
    // the asynchronous type refuses it at submit, as any malformed hint
    const queued = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'tcg_id', records: [{ _base64: photoCard, Alphabet: 'cyrillic' }] } });
    expect([queued.statusCode, queued.json().detail]).toEqual([400, 'records[0].Alphabet must be "latin" or "other" (the words of the Alphabet tag), not "cyrillic".']);
  }, 120_000);

  it('keeps to a game a Category path names that no imported catalog is of, finding nothing and saying so; free text naming no game searches every game (h333)', async () => {
    const records = [
      { _id: 'db', _base64: photoCard, Category: 'Trading Card Game/Dragon Ball' },
      { _id: 'sub', _base64: photoCard, Subcategory: 'TCG/One Piece' },
      ...['Trading Card Game', 'TCG', 'card', 'Trading Card Game/Other', 'Trading Card Game/'].map((Category) => ({ _id: Category, _base64: photoCard, Category })),
    ];
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records } });
    const [db, sub, ...free] = (res.json() as { records: Rec[] }).records;
    // it was ignored: the card matched to a Pokémon card and the hint replaced by `Trading Card Game/Pokemon`
    expect(db!._objects![0]!._identification).toMatchObject({ best_match: null, alternatives: [] });
    expect(db!._status).toMatchObject({ code: 200, text: 'OK; no imported catalog of "Dragon Ball": the game the Category hint names (loupe catalog import --kind csv)' });
    expect(db!.Category).toBe('Trading Card Game/Dragon Ball');
    expect(sub!._status.text).toBe('OK; no imported catalog of "One Piece": the game the Subcategory hint names (loupe catalog import --kind csv)');
    for (const r of free) {
      expect(r._objects![0]!._identification.best_match, r._id).toMatchObject({ id: 'tsa-86' });
      expect([r._status.text, r.Category], r._id).toEqual(['OK', 'Trading Card Game/Pokemon']);
    }
    // a set_code beside such a hint names the game it looked in
    const set = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard, Category: 'Trading Card Game/Dragon Ball', set_code: 'SVI' }] } });
    expect(set.json().records[0]._status).toMatchObject({ code: 400, text: 'Unknown set_code "SVI": no imported Dragon Ball catalog (the game the Category hint names) has that set.' });
  }, 120_000);

  it('reads a French card\'s species name as the English name the catalog prints (Vrombi is Varoom), with no collector number to go by', async () => {
    // numbers no card prints: only the name can find these two
    await importSet({ id: 'tsv', name: 'Test V', printedTotal: 999, releaseDate: '2024/09/13' }, [
      { id: 'tsv-998', name: 'Varoom', number: '998', subtypes: ['Basic'], hp: '70' },
      { id: 'tsv-997', name: 'Vroomy', number: '997', subtypes: ['Basic'], hp: '70' },
    ]);
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoBase64('cards/single-1730725065_jpg.rf.5aa7b5900986b3415d793e41319ff73b.jpg') }] } });
    const o = (res.json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(o._ocr.full_text).toMatch(/Vrombi/i);
    const listed = [o._identification.best_match, ...o._identification.alternatives].filter((m) => m !== null).map((m) => m!.id);
    expect(listed[0]).toBe('tsv-998');
  }, 120_000);

  it('names a small card whose name line is misread by the species name the recogniser most likely saw (Phneline is Plumeline, Oricorio)', async () => {
    await importSet({ id: 'tsp', name: 'Test S', printedTotal: 999, releaseDate: '2024/09/13' }, [
      { id: 'tsp-996', name: 'Oricorio', number: '996', subtypes: ['Basic'], hp: '90' },
      { id: 'tsp-995', name: 'Orbeetle', number: '995', subtypes: ['Stage 2'], hp: '90' },
    ]);
    const spot = fsSync.readdirSync(path.join(photosDir, 'cards')).find((f) => f.startsWith('spot-'))!;
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoBase64(`cards/${spot}`) }] } });
    const o = (res.json() as { records: Rec[] }).records[0]!._objects![0]!;
    // what was read is said as read
    expect(o._ocr.full_text).not.toMatch(/Plumeline/);
    expect(o._identification.best_match?.id).toBe('tsp-996');
  }, 120_000);

  // a real photo (../shared/datasets/real_card_photos, where present) on a 3000 x 4000 grey frame, as a helper sent it:
  // the whole photo's first stage (256 px) gives no card, its tiles do
  const dubwool = path.resolve(import.meta.dirname, '../../../shared/datasets/real_card_photos/shrey_pokemon_card_outliner/416068153_901421341416462_1373495215544760001_n_jpg.rf.3635747a5806a2dfe525a3120f934eb8.jpg');
  it.runIf(fsSync.existsSync(dubwool))('finds a small card in a large frame, as grading does, through the tiles where nothing else found a card', async () => {
    const photoFile = await sharp(dubwool).resize(1080, 1440).toBuffer();
    const frame = await sharp({ create: { width: 3000, height: 4000, channels: 3, background: '#808080' } })
      .composite([{ input: photoFile, left: 900, top: 1200 }])
      .jpeg({ quality: 90 })
      .toBuffer();
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: frame.toString('base64') }] } });
    const rec = (res.json() as { records: Rec[] }).records[0]!;
    expect(rec._status.code, JSON.stringify(rec._status)).toBe(200);
    const [x0, y0, x1, y1] = rec._objects![0]!.bound_box as [number, number, number, number];
    expect([x0 >= 900, y0 >= 1200, x1 <= 1980, y1 <= 2640]).toEqual([true, true, true, true]);
  }, 120_000);

  it('gives each bad record its own status: no card 404, broken image 400; analyze_all takes one record', async () => {
    const wide = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const res = await h.request('POST', '/collectibles/v2/tcg_id', {
      body: { records: [{ _id: 'blank', _base64: wide.toString('base64') }, { _id: 'text', _base64: Buffer.from('not an image').toString('base64'), _objects: 'x', _width: '1024' }, { _id: 'card', _base64: photoCard }], slab_id: true },
    });
    // spec 3 §7: any 2xx is success; the body says some records failed
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [blank, text, card] = (res.json() as { records: Rec[] }).records;
    expect(blank!._status).toMatchObject({ code: 404, text: 'No card was found in the image' });
    expect(blank!._objects).toEqual([]);
    expect(text!._status.code).toBe(400);
    expect(text!._status.text).toMatch(/^Error Loading Image/);
    // the client's own _objects and _width are no answer of the server's (h271: a 500 losing the identified card)
    expect([text!._objects, text!._width]).toEqual([undefined, undefined]);
    // cards found but each too small to read are said to be there (localize lists them)
    const few = (await fs.readdir(path.join(photosDir, 'cards'))).find((f) => f.startsWith('few-'))!;
    const small = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoBase64(`cards/${few}`) }] } });
    expect(small.json().records[0]._status).toMatchObject({ code: 404, text: 'No card was found in the image that is large enough to read (120 px across at least); 1 smaller card was found: send a closer photo' });
    expect(card!._status).toMatchObject({ code: 200, text: 'OK; slab_id: no grading label was found beside the card' });
    // A 3:4 photo with no card is card-shaped, so it is read whole; its frame is no card's outline and its text names nothing.
    const leopard = await sharp(Buffer.from(photoBase64('caltech101/Leopards/image_0001.jpg'), 'base64')).resize(300, 400, { fit: 'fill' }).jpeg().toBuffer();
    for (const url of ['/collectibles/v2/tcg_id', '/collectibles/v2/card_ocr_id']) {
      const photo = await h.request('POST', url, { body: { records: [{ _id: 'leopard', _base64: leopard.toString('base64') }] } });
      expect(photo.statusCode, url).toBe(404);
      expect((photo.json() as { records: Rec[] }).records[0]!._status).toMatchObject({ code: 404, text: 'No card was found in the image' });
    }
    // A card-shaped picture that is no card, whose text holds a number the catalog's cards carry (86): a stray
    // number brings alternatives, not a card. A drawn card of no imported game, its print code read: a card, unmatched.
    const font = 'font-family="DejaVu Sans, sans-serif"';
    const poster = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800"><rect width="600" height="800" fill="#e8e0d0"/><circle cx="300" cy="330" r="200" fill="#4a7a4a"/><text x="60" y="700" ${font} font-size="44" fill="#222">Gallery room 86</text></svg>`)).jpeg({ quality: 92 }).toBuffer();
    const outOfCatalog = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880"><rect width="630" height="880" fill="#6e2a2a"/><rect x="30" y="30" width="570" height="70" fill="#e9d9b4"/><text x="45" y="80" ${font} font-size="40" font-weight="bold" fill="#111">Zorblax the Unseen</text><rect x="75" y="150" width="480" height="470" fill="#4a6fa5"/><text x="420" y="652" ${font} font-size="22" fill="#111">ZZQX-EN999</text><rect x="40" y="670" width="550" height="170" fill="#efe3c4"/><text x="55" y="720" ${font} font-size="18" fill="#222">A shadow that walks between the stars.</text><text x="300" y="812" ${font} font-size="24" fill="#111">ATK/2100  DEF/1300</text><text x="40" y="866" ${font} font-size="18" fill="#111">12345678</text></svg>`)).jpeg({ quality: 92 }).toBuffer();
    const pictures = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _id: 'poster', _base64: poster.toString('base64') }, { _id: 'zorblax', _base64: outOfCatalog.toString('base64') }] } });
    const [posterRec, zorblaxRec] = (pictures.json() as { records: Rec[] }).records;
    expect(posterRec!._status, JSON.stringify(posterRec)).toMatchObject({ code: 404, text: 'No card was found in the image' });
    // the rule for an image read whole whose frame is no card's outline: a card when something was identified or only cards print what was read
    const whole = { whole: true, wholeIsCard: false };
    const unnamed = [{ _identification: { best_match: null } }];
    expect([wholeReadIsNoCard(whole, false, unnamed), wholeReadIsNoCard(whole, true, unnamed), wholeReadIsNoCard(whole, false, [{ _identification: { best_match: {} } }])]).toEqual([true, false, false]);
    expect([wholeReadIsNoCard({ whole: true, wholeIsCard: true }, false, unnamed), wholeReadIsNoCard({}, false, unnamed)]).toEqual([false, false]);
    // a best match tied with alternatives is said to be one of them, not a plain OK
    const id = (best: unknown, distances: number[], n = 1) => ({ id: n, _identification: { best_match: best, distances } });
    expect(tieNotes([id({}, [0.1969, 0.1969, 0.1969, 0.25])])).toEqual(['best_match ties with 2 alternatives at the same distance: the text read and the artwork do not tell these printings apart']);
    expect(tieNotes([id({}, [0.1, 0.2]), id(null, [0.3, 0.3], 2)])).toEqual([]);
    // no best match because printings close enough to be one tie: said (h119: LOB-EN001's two printings, "OK")
    expect(tieNotes([id(null, [0.1572, 0.1572, 0.3])])).toEqual(['no best_match: 2 alternatives tie at the same distance, close enough to be one; the text read and the artwork do not tell these printings apart']);
    expect(tieNotes([id(null, [0.1572, 0.2])])).toEqual([]);
    expect(tieNotes([id({}, [0.1, 0.2]), id({}, [0.3, 0.3], 2)])).toEqual(['best_match (card 2) ties with 1 alternative at the same distance: the text read and the artwork do not tell these printings apart']);
    expect(zorblaxRec!._status.code, JSON.stringify(zorblaxRec)).toBe(200);
    expect(zorblaxRec!._objects![0]!._ocr.full_text).toMatch(/ZZQX-EN999/);
    expect(zorblaxRec!._objects![0]!._identification.best_match).toBeNull();
    // a number JSON cannot keep as sent is that record's 400, not echoed altered (12345678901234567000)
    const wideB64 = wide.toString('base64');
    const inexact = await h.request('POST', '/collectibles/v2/tcg_id', { payload: `{"records":[{"_id":12345678901234567890,"_base64":"${wideB64}"},{"_id":"plain","price":9007199254740993,"_base64":"${wideB64}"},{"_id":"fine","_base64":"${wideB64}"}]}`, headers: { 'content-type': 'application/json' } });
    const [big, price, fine] = (inexact.json() as { records: Rec[] }).records;
    expect(big!._status).toMatchObject({ code: 400, text: expect.stringMatching(/^_id \(read as 12345678901234567000\) cannot be kept exactly/) });
    expect(price!._status).toMatchObject({ code: 400, text: expect.stringMatching(/^price \(read as 9007199254740992\) cannot be kept exactly/) });
    expect(fine!._status.code).toBe(404);
    const two = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: 'a' }, { _base64: 'b' }], analyze_all: true } });
    expect(two.statusCode).toBe(400);
    expect(JSON.stringify(two.json())).toMatch(/analyze_all takes 1 record/);
    const many = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: Array.from({ length: 11 }, () => ({ _base64: 'a' })) } });
    expect(many.statusCode).toBe(400);
  }, 120_000);

  it('echoes a record\'s _id and _url of any form as the OpenAPI document says it may (h315: a list _id came back against the document)', async () => {
    const blank = (await sharp({ create: { width: 400, height: 200, channels: 3, background: '#808080' } }).jpeg().toBuffer()).toString('base64');
    // h.request holds every collectibles answer to the document's schema for its status: it threw on these before
    const res = await h.request('POST', '/collectibles/v2/detect', { body: { records: [{ _id: true, _base64: blank }, { _id: ['a', 'b'], _base64: blank }, { _id: { n: 1 }, _url: 5, _base64: blank }] } });
    const records = (res.json() as { records: { _id: unknown; _status: { code: number; text: string } }[] }).records;
    expect(records.map((r) => r._id)).toEqual([true, ['a', 'b'], { n: 1 }]);
    expect(records.map((r) => r._status.code)).toEqual([404, 404, 400]);
    expect(records[2]!._status.text).toBe('Error Loading Image: _url must be a string, not number');
  });

  it('runs as the asynchronous type collectibles-recognition, options on each record', async () => {
    const [fr, bad] = await recognised('/tcg_id', [{ _id: 'fr', _base64: photoCard, lang: true, set_code: 'SVI', analyze_all: true }, { _id: 'bad', _base64: '%%' }]);
    expect(fr).toMatchObject({ _id: 'fr', _status: { code: 200 } });
    expect(fr!._status.text).toMatch(/; analyze_all: not applied in asynchronous requests \(the largest card only\)$/);
    expect(fr).not.toHaveProperty('_base64');
    // the record as sent, as the synchronous endpoint echoes it (only _id was kept: hints and options were lost)
    expect(fr).toMatchObject({ set_code: 'SVI', lang: true });
    expect(fr!._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86' });
    expect(fr!._objects![0]!._ocr.lang).toBe('fr');
    expect(bad!._status.code).toBe(400);
    const wrong = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'detect', records: [{ _base64: 'a' }] } });
    expect(wrong.statusCode).toBe(400);
    // A record's options are held to the synchronous endpoint's types, and magic_ai to its 2 records, before anything is charged.
    const before = (await h.app.loupe.accounts.getAccount(h.account.account)).credits;
    for (const [endpoint, records, message] of [
      ['tcg_id', [{ _base64: photoCard, set_code: 5 }], 'records[0].set_code must be a string of at most 50 characters.'],
      ['tcg_id', [{ _base64: photoCard }, { _base64: photoCard, price_stats: 'yes' }], 'records[1].price_stats must be boolean.'],
      ['tcg_id', [{ _base64: photoCard, Category: 'x'.repeat(101) }], 'records[0].Category must be a string of at most 100 characters.'],
      ['sport_id', [1, 2, 3].map(() => ({ _base64: photoCard, magic_ai: true })), 'magic_ai takes at most 2 records per request; 3 were sent.'],
      ['comics_id', [{ _base64: photoCard, lang: 5 }], 'records[0].lang must be a string of at most 20 characters.'],
    ] as const) {
      const bad = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint, records } });
      expect(bad.statusCode, endpoint).toBe(400);
      expect(JSON.stringify(bad.json())).toContain(message);
      // magic_ai's 2 records are a record limit (spec 3 §8), refused with the code /sport_id gives it (h329: invalid_request)
      expect(bad.json().code, message).toBe(message.startsWith('magic_ai') ? 'too_many_records' : 'invalid_request');
    }
    // a synchronous body copied whole: its options beside the records would reach no record
    for (const option of [{ price_stats: true }, { magic_ai: true }, { set_code: 'SVI' }]) {
      const bad = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'sport_id', records: [{ _base64: photoCard }], ...option } });
      expect([bad.statusCode, bad.json().detail]).toEqual([400, expect.stringContaining(`\`${Object.keys(option)[0]}\` is an option of each record`)]);
    }
    // an option or hint written another way, in a record or beside the records, is refused, not read as nothing (h270)
    for (const [body, message] of [
      [{ records: [{ _base64: photoCard, priceStats: true }] }, 'records[0].priceStats is not an option: it is `price_stats`, on the record.'],
      [{ records: [{ _base64: photoCard, 'Foil-Holo': 'Foil' }] }, 'records[0].Foil-Holo is not a hint: it is `Foil/Holo`, on the record.'],
      [{ records: [{ _base64: photoCard }], analyzeAll: true }, 'analyzeAll is not an option: it is `analyze_all`, on each record it applies to'],
    ] as const) {
      const bad = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'tcg_id', ...body } });
      expect([bad.statusCode, bad.json().detail], message).toEqual([400, expect.stringContaining(message)]);
    }
    // analyze_all beside the records is told what it does in a record: the largest card only (h108: moved there as told, it was ignored)
    const every = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'tcg_id', records: [{ _base64: photoCard }], analyze_all: true } });
    expect([every.statusCode, every.json().detail]).toEqual([400, expect.stringMatching(/^`analyze_all` is not applied in asynchronous requests: each record is read for its largest card/)]);
    // a comics request is told of comics and /comics_id (h249: pointed to binder pages and /tcg_id)
    const comics = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'comics_id', records: [{ _base64: photoCard }], analyze_all: true } });
    expect(comics.json().detail).toMatch(/its largest comic .*For every comic of a photo, call \/collectibles\/v2\/comics_id with analyze_all/);
    expect((await h.app.loupe.accounts.getAccount(h.account.account)).credits).toBe(before);
    // no endpoint: the spec marks only type and records required, and shows none for this type; trading cards are read
    // (h270: refused), and the request says so
    const [plain] = await recognised(undefined, [{ _id: 'plain', _base64: photoCard }]);
    expect(plain).toMatchObject({ _id: 'plain', _status: { code: 200 } });
    expect((plain as Rec)._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86' });
    const grader = await h.request('POST', '/account/v2/request/', { body: { type: 'card-grader', records: [{ _base64: photoCard }] } });
    expect([grader.statusCode, grader.json().detail]).toEqual([400, expect.stringMatching(/^An endpoint is required for card-grader/)]);
    // `mode` and `front_weight`, which a request builder sends always, are left be as on every endpoint they say nothing to (h257: refused here alone)
    const builder = await h.newAccount();
    const built = await h.request('POST', '/account/v2/request/', { token: builder.token, body: { type: 'collectibles-recognition', endpoint: 'card_ocr_id', records: [{ _base64: photoCard }], mode: 'default', front_weight: 0.7 } });
    expect([built.statusCode, built.json().request]).toEqual([201, expect.objectContaining({ mode: 'default', front_weight: 0.7 })]);
    const [slab] = (await recognised('card_ocr_id', [{ _id: 'slab', _base64: photoBase64('cards/slab-counterspell_bgs.jpg') }])) as [Rec];
    expect(slab).toMatchObject({ _id: 'slab', _status: { code: 200 } });
    expect((slab._objects as unknown as Obj[])[1]).toMatchObject({ name: 'Slab Label', _identification: { best_match: { grade: 7.5, certificate_number: '0010538585' } } });
  }, 180_000);

  it("refuses an identification option or hint asked of an endpoint that takes only records, before anything is charged (s74: ignored, so price_stats came back without prices)", async () => {
    const before = (await h.app.loupe.accounts.getAccount(h.account.account)).credits;
    for (const [url, body, text] of [
      ['card_ocr_id', { price_stats: true }, '`price_stats` is an option of /tcg_id, /sport_id, /comics_id: /card_ocr_id takes only "records" and would answer without it.'],
      ['card_ocr_id', { priceStats: true }, 'priceStats (`price_stats`) is an option of'],
      ['slab_id', { analyze_all: true }, '`analyze_all` is an option of /tcg_id, /sport_id, /comics_id: /slab_id takes only "records"'],
      ['detect', { set_code: 'MEW' }, '`set_code` is a hint of /tcg_id, /sport_id, /comics_id: /detect takes only "records"'],
      ['process', { magic_ai: true }, '`magic_ai` is an option of /sport_id: /process'],
      ['slab_grade', { records: [{ _base64: photoCard, include_mtg_digital: true }] }, 'records[0].include_mtg_digital is an option of /tcg_id: /slab_grade takes only "records"'],
    ] as const) {
      const res = await h.request('POST', `/collectibles/v2/${url}`, { body: { records: [{ _base64: photoCard }], ...body } });
      expect([res.statusCode, res.json().detail], `${url} ${text}`).toEqual([400, expect.stringContaining(text)]);
    }
    // asynchronously too, beside the records or in one, where a record's options are otherwise read
    for (const [body, text] of [
      [{ records: [{ _base64: photoCard, price_stats: true }] }, 'records[0].price_stats is an option of /tcg_id, /sport_id, /comics_id: /card_ocr_id takes only "records"'],
      [{ records: [{ _base64: photoCard }], lang: true }, '`lang` is an option of /tcg_id, /comics_id: /card_ocr_id takes only "records"'],
    ] as const) {
      const res = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'card_ocr_id', ...body } });
      expect([res.statusCode, res.json().detail], text).toEqual([400, expect.stringContaining(text)]);
    }
    expect((await h.app.loupe.accounts.getAccount(h.account.account)).credits).toBe(before);
    // a record's own fields are the shop's (false asks for nothing), and a slab endpoint asked in a record for the slab
    // answers it: none is refused
    const blank = (await sharp({ create: { width: 300, height: 200, channels: 3, background: '#808080' } }).jpeg().toBuffer()).toString('base64');
    for (const [url, body] of [
      ['card_ocr_id', { records: [{ _base64: blank, sku: 'A-1', set_code: 'MEW', lang: 'en', price_stats: false }] }],
      ['slab_id', { records: [{ _base64: blank, slab_grade: true, slab_id: true }] }],
    ] as const) {
      const res = await h.request('POST', `/collectibles/v2/${url}`, { body });
      expect([res.statusCode, res.json().records?.[0]?._status.code], `${url} ${res.body.slice(0, 300)}`).toEqual([404, 404]);
    }
  });

  it('card_ocr_id: the card and a slab label read, and what their text says; fields not read are null', async () => {
    const res = await h.request('POST', '/collectibles/v2/card_ocr_id', { body: { records: [{ _id: 'slab', _base64: photoBase64('cards/slab-counterspell_bgs.jpg') }, { _id: 'card', _base64: photoCard }] } });
    expect(res.statusCode).toBe(200);
    const [slab, card] = (res.json() as { records: Rec[] }).records;
    const [slabCard, label] = slab!._objects! as unknown as Obj[];
    expect(slab!['Graded Slab']).toEqual([{ id: 1, name: 'yes', prob: 1 }]);
    expect(slabCard!.name).toBe('Card');
    // the object fields of document 3 §2, as /tcg_id and /slab_id give them
    expect(slabCard).toMatchObject({ 'Top Category': [{ name: 'Trading Card' }] });
    expect(label).toMatchObject({ name: 'Slab Label', id: 2, 'Top Category': [{ name: 'Slab Label' }], _tags: { Company: [{ name: 'BGS' }] } });
    expect((label as unknown as { area: number }).area).toBeGreaterThan(0);
    expect((label as unknown as { area: number }).area).toBeLessThan(0.5);
    // a BGS label on a 1993 Alpha Counterspell (../shared/datasets/graded_slabs, labelled by its source)
    expect(label!._identification.best_match).toMatchObject({ year: '1993', grade: 7.5, certificate_number: '0010538585', subcategory: null });
    expect(label!.bound_box[1]).toBeLessThan(slabCard!.bound_box[1]!);
    const o = card!._objects![0]!;
    expect(card!._objects).toHaveLength(1);
    expect(o._identification.best_match).toMatchObject({ name: 'Alphamon', full_name: 'Alphamon 086/198 Test Alpha', year: '2023', grade: null, certificate_number: null, subcategory: 'Pokemon' });
    expect(o._ocr.lang).toBe('fr');
    // the game, as /tcg_id gives it, on the record and the card (h211)
    expect(card!.Category).toBe('Trading Card Game/Pokemon');
    expect(o._tags).toMatchObject({ Category: [{ name: 'Pokemon' }], Graded: [{ name: 'no' }] });
    expect(slabCard!._tags).toMatchObject({ Graded: [{ name: 'yes' }] });
  }, 120_000);

  it('detect and process: every card found, a slab\'s label as its own object; process adds the Graded tag; no card is a 404', async () => {
    const multi = (await fs.readdir(path.join(photosDir, 'cards'))).find((f) => f.startsWith('multi-'))!;
    const blank = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const res = await h.request('POST', '/collectibles/v2/detect', { body: { records: [{ _base64: photoBase64(`cards/${multi}`) }, { _base64: photoBase64('cards/slab-counterspell_bgs.jpg') }, { _base64: blank.toString('base64') }] } });
    // spec 3 §7: any 2xx is success; the body says some records failed
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [m, slab, none] = (res.json() as { records: Rec[] }).records;
    const cards = m!._objects!.filter((o) => o.name === 'Card');
    expect(cards.length).toBeGreaterThanOrEqual(2);
    expect(cards.map((o) => o.id)).toEqual(cards.map((_, i) => i + 1));
    expect(cards[0]!.area).toBeGreaterThanOrEqual(cards[1]!.area);
    expect(cards[0]).not.toHaveProperty('_tags');
    const label = slab!._objects!.find((o) => o.name === 'Slab Label')!;
    expect(label.bound_box[3]).toBeLessThan(slab!._objects![0]!.bound_box[1]! + 5);
    expect(slab!['Graded Slab']).toEqual([{ id: 1, name: 'yes', prob: 1 }]);
    expect(none!._status).toMatchObject({ code: 404 });
    const processed = await h.request('POST', '/collectibles/v2/process', { body: { records: [{ _base64: photoBase64('cards/slab-counterspell_bgs.jpg') }] } });
    expect((processed.json() as { records: Rec[] }).records[0]!._objects![0]!._tags.Graded).toEqual([{ id: 1, name: 'yes', prob: 1 }]);
  }, 120_000);

  it('analyze: every card read and identified, with language and prices; one record', async () => {
    const res = await h.request('POST', '/collectibles/v2/analyze', { body: { records: [{ _base64: photoCard }] } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { records: Rec[]; analyze_all: boolean };
    expect(body.analyze_all).toBe(true);
    const o = body.records[0]!._objects![0]!;
    expect(o._ocr.lang).toBe('fr');
    expect(o._identification.best_match).toMatchObject({ id: 'tsa-86', price_stats: expect.any(Array) });
    expect((await h.request('POST', '/collectibles/v2/analyze', { body: { records: [{ _base64: 'a' }, { _base64: 'b' }] } })).statusCode).toBe(400);
    // an option /analyze fixes, sent with another value, is refused: it was run and echoed as true, each card charged (h245)
    const turnedOff = await h.request('POST', '/collectibles/v2/analyze', { body: { records: [{ _base64: photoCard }], analyze_all: false, lang: true } });
    expect([turnedOff.statusCode, (turnedOff.json() as { errors?: { field: string }[] }).errors?.map((e) => e.field)]).toEqual([400, ['analyze_all']]);
    // a record's hint beside the records is refused as on /tcg_id, and /tcg_id's other options are taken (h246)
    const hint = await h.request('POST', '/collectibles/v2/analyze', { body: { records: [{ _base64: photoCard }], set_code: 'sv1' } });
    expect([hint.statusCode, (hint.json() as { detail?: string }).detail]).toEqual([400, expect.stringMatching(/^set_code is a record's hint/)]);
    const withOption = (await h.request('POST', '/collectibles/v2/analyze', { body: { records: [{ _base64: photoCard }], ignore_non_ascii: true } })).json() as { ignore_non_ascii?: boolean; analyze_all: boolean };
    expect([withOption.ignore_non_ascii, withOption.analyze_all]).toEqual([true, true]);
  }, 120_000);

  it('sport_id: a drawn sport card identified by its player name and number in an imported checklist; magic_ai takes 2 records and does nothing', async () => {
    // no checklist yet, a comics catalog imported: the 503 says which endpoint reads the catalogs there are (h316: a
    // sport and comics shop's /analyze was told only to import a trading-card catalog)
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'marvel', files: { file: path.resolve(import.meta.dirname, '../fixtures/catalogs/comics/marvel_comics.json') } });
    const none = await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: 'a' }] } });
    expect(none.statusCode).toBe(503);
    expect(none.json().detail).toMatch(/^No sport-card catalog is imported on this server: .* The catalogs imported here are read by .*\/comics_id \(marvel\)/);
    // /tcg_id and /analyze on a shop of sport cards and comics alone
    expect(catalogsElsewhere(TCG, [{ name: 'comics', kind: 'comics' }, { name: 'pokemon', kind: 'pokemon' }, { name: 'topps-2022', kind: 'sports' }, { name: 'panini', kind: 'sports' }])).toBe(' The catalogs imported here are read by /comics_id (comics) and /sport_id (topps-2022, panini).');
    const checklist = [
      'year,brand,set_name,subset,card_number,players,teams,attributes,card_type,sport',
      '2022,Topps,2022 Topps Update Series,base,50,Marcus Stroman,Chicago Cubs,,base,baseball',
      '2022,Topps,2022 Topps Series 1,base,212,Marcus Stroman,Toronto Blue Jays,,base,baseball',
      '2022,Topps,2022 Topps Series 1,base,1,Mookie Betts,Los Angeles Dodgers,,base,baseball',
      '2018,Topps,2018 Topps Update Series,base,US250,Ronald Acuña Jr.,Atlanta Braves,Rookie,base,baseball',
      '2022,Topps,2022 Topps Series 1,base,200,Ronald Acuña Jr.,Atlanta Braves,,base,baseball',
    ].join('\n');
    await fs.writeFile(path.join(dir, 'checklist.csv'), checklist + '\n');
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'sports', catalog: 'topps', files: { csv: path.join(dir, 'checklist.csv') } });
    const font = 'font-family="DejaVu Sans, sans-serif"';
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880"><rect width="630" height="880" fill="#1d4e9e"/><rect x="30" y="30" width="570" height="820" fill="#fff"/><rect x="50" y="50" width="530" height="680" fill="#8a9bb0"/><text x="60" y="800" ${font} font-size="40" font-weight="bold" fill="#111">MARCUS STROMAN</text><text x="60" y="838" ${font} font-size="24" fill="#333">CHICAGO CUBS #50</text></svg>`;
    const card = (await sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _id: 's', _base64: card, Autograph: 'no' }], magic_ai: true } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { records: Rec[]; magic_ai: boolean };
    expect(body.magic_ai).toBe(true);
    const r = body.records[0]!;
    expect(r._status.text).toBe('OK; magic_ai is not available on this server (not charged)');
    expect(r.Category).toBe('Sport Card/Baseball');
    // a sport hint narrows the search: basketball finds no baseball card, baseball finds it
    const hinted2 = (await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: card, Category: 'Sport Card/Basketball' }, { _base64: card, Subcategory: 'Baseball' }] } })).json() as { records: Rec[] };
    expect(hinted2.records[0]!._objects![0]!._identification.best_match).toBeNull();
    expect(hinted2.records[0]!.Category).toBe('Sport Card/Basketball');
    // and says so, as a set_code does (h329: a bare OK)
    expect(hinted2.records[0]!._status.text).toBe('OK; Category "Sport Card/Basketball": no basketball card matches what was read (sent without it, every sport is searched)');
    expect(hinted2.records[1]!._status.text).toBe('OK');
    expect(hinted2.records[1]!._objects![0]!._identification.best_match).toMatchObject({ name: 'Marcus Stroman', card_number: '50' });
    // another name of the sport is the sport (MLB, Ice Hockey / hockey)
    expect([sportOfHints({ Category: 'Sport Card/MLB' }), sportOfHints({ Subcategory: 'Ice Hockey' }), sportOfHints({ Category: 'American Football' }), sportOfHints({ Category: 'Sport Card' })]).toEqual(['baseball', 'hockey', 'football', undefined]);
    const o = r._objects![0]!;
    expect(o['Top Category']).toEqual([{ id: 1, name: 'Sport Card', prob: 1 }]);
    expect(o._tags.Autograph).toEqual([{ id: 1, name: 'no', prob: 1, 'pre-filled': true }]);
    expect(o._identification.best_match).toMatchObject({ name: 'Marcus Stroman', set_name: '2022 Topps Update Series', card_number: '50', year: '2022', company: 'Topps', sub_set: 'base', card_type: 'base', subcategory: 'Baseball', full_name: '2022 Topps Update Series #50 Marcus Stroman' });
    // the checklist's team and attributes, which a breaker sorts by (h137: read and dropped)
    expect(o._identification.best_match).toMatchObject({ teams: ['Chicago Cubs'], attributes: [] });
    expect(o._identification.alternatives.map((a) => a.id)).toContain('2022 Topps Series 1|base|212');
    // brought in by a number alone and outweighed (distance 1): not listed
    expect(o._identification.alternatives.map((a) => a.id)).not.toContain('2022 Topps Series 1|base|1');
    expect(o._identification.distances.every((d) => d < 1)).toBe(true);
    // a player not in the checklist, on a card whose set line and number name one that is: no match (h103: John
    // Fakeplayer #77 was named Josh Naylor #77, with his price)
    const fakeSvg = svg.replace('MARCUS STROMAN', 'JOHN FAKEPLAYER').replace('CHICAGO CUBS #50', '2022 TOPPS UPDATE SERIES #50');
    const fake = (await sharp(Buffer.from(fakeSvg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const stranger = ((await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: fake }] } })).json() as { records: Rec[] }).records[0]!;
    expect(stranger._objects![0]!._ocr.full_text).toMatch(/FAKEPLAYER/);
    expect(stranger._objects![0]!._identification.best_match).toBeNull();
    // cropped tight, read whole: still a card not identified, not "no card" (h110: a 404 once a player's name no longer matched)
    const tight = (await sharp(Buffer.from(fakeSvg)).extract({ left: 30, top: 30, width: 570, height: 820 }).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const cropped = ((await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: tight }] } })).json() as { records: Rec[] }).records[0]!;
    expect(cropped._status.code).toBe(200);
    expect(cropped._objects![0]!._identification.best_match).toBeNull();
    // a base front prints no number (Topps prints it on the back): cropped tight, its player on a line of his own and his
    // team on another are a card's print, answered with his cards as alternatives, not "no card" (h316: a 404); a player
    // read without his team stays no card
    const frontSvg = svg.replace('CHICAGO CUBS #50', 'CUBS · PITCHER');
    const front = (await sharp(Buffer.from(frontSvg)).extract({ left: 30, top: 30, width: 570, height: 820 }).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const bare = (await sharp(Buffer.from(svg.replace('CHICAGO CUBS #50', 'PITCHER'))).extract({ left: 30, top: 30, width: 570, height: 820 }).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const [fronted, unteamed] = ((await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: front }, { _base64: bare }] } })).json() as { records: Rec[] }).records;
    expect(fronted!._status.code).toBe(200);
    expect(fronted!._objects![0]!._identification.alternatives.map((a) => a.id)).toEqual(expect.arrayContaining(['2022 Topps Update Series|base|50', '2022 Topps Series 1|base|212']));
    expect(unteamed!._status).toMatchObject({ code: 404, text: 'No card was found in the image' });
    // the checklist's cards carry a set name and no code: a set_code hint names the set by it, any case
    const hinted = await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _id: 'a', _base64: card, set_code: '2022 topps update series' }, { _id: 'b', _base64: card, set_code: 'NOPE' }] } });
    // spec 3 §7: any 2xx is success; the body says some records failed
    expect(hinted.statusCode).toBe(200);
    expect(hinted.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [named, unknown] = (hinted.json() as { records: Rec[] }).records;
    expect(named!._objects![0]!._identification.best_match).toMatchObject({ name: 'Marcus Stroman', card_number: '50' });
    expect(named!._objects![0]!._identification.alternatives.map((a) => a.id)).not.toContain('2022 Topps Series 1|base|212');
    expect(unknown!._status).toMatchObject({ code: 400, text: expect.stringMatching(/^Unknown set_code "NOPE"/) });
    // a number printed with its set's letters (Update's #US250) names its card: read as digits alone it named none (h224)
    const rookieSvg = svg.replace('MARCUS STROMAN', 'RONALD ACUÑA JR.').replace('CHICAGO CUBS #50', 'ATLANTA BRAVES #US250');
    const rookie = (await sharp(Buffer.from(rookieSvg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const acuna = ((await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: rookie }] } })).json() as { records: Rec[] }).records[0]!;
    expect(acuna._objects![0]!._identification.best_match).toMatchObject({ name: 'Ronald Acuña Jr.', card_number: 'US250', year: '2018' });
    const three = await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: card }, { _base64: card }, { _base64: card }], magic_ai: true } });
    expect(three.statusCode).toBe(400);
    // The asynchronous type says the same of a record's magic_ai.
    const [queued] = await recognised('sport_id', [{ _id: 's', _base64: card, magic_ai: true }]);
    expect(queued!._status.text).toBe('OK; magic_ai is not available on this server (not charged)');
    // the tags §4 promises on every sport result are there unhinted too: empty lists, since nothing here measures them
    expect(queued!._objects![0]!._tags).toMatchObject({ Autograph: [], 'Foil/Holo': [], Graded: [{ name: 'no' }] });
    // Autograph: a yes-or-no hint, or words; another type is a 400, synchronously and at submit
    const signed = await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _id: 's', _base64: card, Autograph: true }] } });
    expect((signed.json() as { records: Rec[] }).records[0]!._objects![0]!._tags.Autograph).toEqual([{ id: 1, name: 'Yes', prob: 1, 'pre-filled': true }]);
    expect((signed.json() as { records: (Rec & { Autograph?: unknown })[] }).records[0]!.Autograph).toBe(true);
    for (const Autograph of [5, { on: 'card' }, ['yes'], 'x'.repeat(101)]) {
      const bad = await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _id: 's', _base64: card, Autograph }] } });
      expect(bad.statusCode, JSON.stringify(Autograph).slice(0, 20)).toBe(400);
      const submitted = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'sport_id', records: [{ _id: 's', _base64: card, Autograph }] } });
      expect([submitted.statusCode, submitted.json().detail]).toEqual([400, 'records[0].Autograph must be a boolean or a string of at most 100 characters.']);
    }
    // a first name set small over the last name (Topps Chrome, Bowman, Prizm) is one name (h137: no card was named)
    const stackedSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880"><rect width="630" height="880" fill="#1d4e9e"/><rect x="30" y="30" width="570" height="820" fill="#fff"/><text x="60" y="80" ${font} font-size="26" fill="#333">2022 TOPPS SERIES 1</text><rect x="50" y="100" width="530" height="620" fill="#8a9bb0"/><text x="60" y="770" ${font} font-size="26" fill="#111">MOOKIE</text><text x="60" y="822" ${font} font-size="46" font-weight="bold" fill="#111">BETTS</text><text x="500" y="822" ${font} font-size="30" fill="#111">#1</text></svg>`;
    const stacked = (await sharp(Buffer.from(stackedSvg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const two = ((await h.request('POST', '/collectibles/v2/sport_id', { body: { records: [{ _base64: stacked }] } })).json() as { records: Rec[] }).records[0]!;
    expect(two._objects![0]!._ocr.full_text).toMatch(/MOOKIE\nBETTS/);
    expect(two._objects![0]!._identification.best_match).toMatchObject({ name: 'Mookie Betts', card_number: '1', set_name: '2022 Topps Series 1' });
  }, 120_000);

  it('tcg_id: a drawn Yu-Gi-Oh! card identified to its printing by the print code under its artwork', async () => {
    // two printings of one card (yaml-yugi's format, one row per print code and rarity): only the code tells them apart
    const ygo = [
      { password: 89631139, name: 'Blue-Eyes White Dragon', card_type: 'Monster', monster_type_line: 'Dragon / Normal', attribute: 'LIGHT', level: 8, atk: 3000, def: 2500, sets_en: [['LOB-EN001', 'Legend of Blue Eyes White Dragon', ['Ultra Rare']], ['SDBE-EN001', 'Saga of Blue-Eyes White Dragon Structure Deck', ['Ultra Rare', 'Common']]] },
      { password: 46986414, name: 'Dark Magician', card_type: 'Monster', monster_type_line: 'Spellcaster / Normal', attribute: 'DARK', level: 7, atk: 2500, def: 2100, sets_en: [['LOB-EN005', 'Legend of Blue Eyes White Dragon', ['Ultra Rare']]] },
    ];
    await fs.writeFile(path.join(dir, 'ygo.json'), JSON.stringify(ygo));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'yugioh', catalog: 'yugioh', files: { cards: path.join(dir, 'ygo.json') } });
    const font = 'font-family="DejaVu Sans, sans-serif"';
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880"><rect width="630" height="880" fill="#c8762a"/><rect x="30" y="30" width="570" height="70" fill="#e9d9b4"/><text x="45" y="80" ${font} font-size="40" font-weight="bold" fill="#111">Blue-Eyes White Dragon</text><rect x="75" y="150" width="480" height="470" fill="#4a6fa5"/><text x="420" y="652" ${font} font-size="22" fill="#111">SDBE-EN001</text><rect x="40" y="670" width="550" height="170" fill="#efe3c4"/><text x="55" y="720" ${font} font-size="18" fill="#222">This legendary dragon is a powerful engine of destruction.</text><text x="300" y="812" ${font} font-size="24" fill="#111">ATK/3000  DEF/2500</text><text x="40" y="866" ${font} font-size="18" fill="#111">89631139</text></svg>`;
    const card = (await sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: card }] } });
    expect(res.statusCode).toBe(200);
    const o = (res.json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(o._ocr.full_text).toMatch(/SDBE-EN001/);
    expect(o._identification.best_match).toMatchObject({ name: 'Blue-Eyes White Dragon' });
    expect(JSON.stringify(o._identification.best_match)).toMatch(/SDBE-EN001/);
    // the other rarity of the same printing is the first alternative; the other set's printing is ranked below
    expect(JSON.stringify(o._identification.alternatives[0])).toMatch(/SDBE-EN001/);
    // a game hint that leaves out the card read says so, as a set_code does (h329: a bare OK, read as "not in the
    // catalog"); a hint of the card's own game says nothing more
    const hinted = (await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photoCard, Category: 'Yu-Gi-Oh!' }, { _base64: card, Subcategory: 'Yu-Gi-Oh!' }] } })).json() as { records: Rec[] };
    expect(hinted.records[0]!._objects![0]!._identification.best_match).toBeNull();
    expect(hinted.records[0]!._status.text).toBe('OK; Category "Yu-Gi-Oh!": no Yu-Gi-Oh! card matches what was read (sent without it, every game is searched)');
    expect(hinted.records[1]!._objects![0]!._identification.best_match).toMatchObject({ name: 'Blue-Eyes White Dragon' });
    expect(hinted.records[1]!._status.text).toBe((res.json() as { records: Rec[] }).records[0]!._status.text);
  }, 120_000);

  it("tcg_id: a shop's own game imported with --kind csv is searched, named by its catalog", async () => {
    await fs.writeFile(
      path.join(dir, 'lorcana.csv'),
      'Card Name,No.,Set,Set Name,Rarity,Released\nMickey Mouse - Brave Little Tailor,1,TFC,The First Chapter,Legendary,2023\nElsa - Spirit of Winter,42,TFC,The First Chapter,Legendary,2023\nStitch - Rock Star,23,TFC,The First Chapter,Super Rare,2023\n',
    );
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'csv', catalog: 'lorcana', files: { csv: path.join(dir, 'lorcana.csv') }, map: parseColumnMap('name=Card Name,number=No.,set_code=Set,set_name=Set Name,rarity=Rarity,year=Released') });
    const font = 'font-family="DejaVu Sans, sans-serif"';
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="630" height="880"><rect width="630" height="880" fill="#2a2a6e"/><rect x="30" y="30" width="570" height="520" fill="#8fb3d9"/><rect x="30" y="560" width="570" height="90" fill="#f2ecdc"/><text x="45" y="615" ${font} font-size="40" font-weight="bold" fill="#111">Elsa - Spirit of Winter</text><rect x="30" y="660" width="570" height="180" fill="#f2ecdc"/><text x="45" y="862" ${font} font-size="22" fill="#fff">42/204 · TFC · EN · 2023</text></svg>`;
    const card = (await sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: card }, { _base64: card, set_code: 'TFC' }] } });
    expect(res.statusCode, res.body).toBe(200);
    for (const rec of (res.json() as { records: Rec[] }).records) {
      const o = rec._objects![0]!;
      expect(o._identification.best_match, o._ocr.full_text).toMatchObject({ name: 'Elsa - Spirit of Winter', card_number: '42', set_code: 'TFC', subcategory: 'lorcana' });
    }
    // a Category hint naming the shop's game as its matches' Category does keeps to its catalog, as a hint naming
    // Pokémon keeps to Pokémon's (h329: not read, so the Pokémon card below was the match, its Category replacing the hint)
    const hinted = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: card, Category: 'Trading Card Game/lorcana' }, { _base64: photoCard, Category: 'Trading Card Game/lorcana' }, { _base64: photoCard }, { _base64: card, Subcategory: 'Lorcana', set_code: 'SVI' }] } });
    const [elsa, notLorcana, plain, wrongSet] = (hinted.json() as { records: Rec[] }).records;
    expect(elsa!._objects![0]!._identification.best_match).toMatchObject({ name: 'Elsa - Spirit of Winter', catalog: 'lorcana' });
    expect(elsa!.Category).toBe('Trading Card Game/lorcana');
    expect(plain!._objects![0]!._identification.best_match).toMatchObject({ catalog: 'pokemon' });
    expect(notLorcana!._objects![0]!._identification.best_match).toBeNull();
    expect(notLorcana!._objects![0]!._identification.alternatives.every((a) => a.catalog === 'lorcana')).toBe(true);
    expect(notLorcana!.Category).toBe('Trading Card Game/lorcana');
    expect(notLorcana!._status.text).toBe('OK; Category "Trading Card Game/lorcana": no lorcana card matches what was read (sent without it, every game is searched)');
    // a set of another game is unknown to the game the hint names
    expect(wrongSet!._status).toMatchObject({ code: 400, text: 'Unknown set_code "SVI": no imported lorcana catalog (the game the Subcategory hint names) has that set.' });
  }, 120_000);

  it('comics_id: a drawn cover identified by its title and issue number; another language finds no match', async () => {
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'marvel', files: { file: path.resolve(import.meta.dirname, '../fixtures/catalogs/comics/marvel_comics.json') } });
    const font = 'font-family="DejaVu Sans, sans-serif"';
    // a comic's shape (6.625 x 10.25 in): the title across the top, the issue number beside it
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#c8102e"/><rect x="20" y="150" width="620" height="850" fill="#3a5a8c"/><text x="30" y="70" ${font} font-size="48" font-weight="bold" fill="#fff">AMAZING TESTER</text><text x="30" y="125" ${font} font-size="36" font-weight="bold" fill="#fff">#4</text></svg>`;
    const cover = (await sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _id: 'en', _base64: cover }, { _id: 'de', _base64: cover, lang: 'de' }, { _id: 'us', _base64: cover, lang: 'en-US' }] } });
    expect(res.statusCode).toBe(200);
    const [en, de, us] = (res.json() as { records: Rec[] }).records;
    // a comic's `lang` is its record's: beside the records it reached none, and the English issue was matched (h270)
    const beside = await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: cover }], lang: 'de' } });
    expect([beside.statusCode, beside.json().detail]).toEqual([400, expect.stringMatching(/^lang is a record's hint: send it on each record it is for/)]);
    // a `lang` of another type or length is its record's own 400, as every other hint's: the schema refused the whole
    // request, and the good record beside it went unread (h329)
    const wrongLang = await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _id: 'n', _base64: cover, lang: 5 }, { _id: 'long', _base64: cover, lang: 'e'.repeat(21) }, { _id: 'ok', _base64: cover, lang: 'en' }] } });
    expect(wrongLang.statusCode, wrongLang.body).toBe(200);
    const [n, long, ok] = (wrongLang.json() as { status: { code: number }; records: Rec[] }).records;
    expect(wrongLang.json().status.code).toBe(300);
    expect([n!._status, long!._status]).toEqual([expect.objectContaining({ code: 400, text: 'lang must be a string of at most 20 characters' }), expect.objectContaining({ code: 400, text: 'lang must be a string of at most 20 characters' })]);
    expect(n).toMatchObject({ _id: 'n', lang: 5 });
    expect(ok).toMatchObject({ _id: 'ok', _status: { code: 200 } });
    // a locale is its language (h103: en-US found no English comic)
    expect(us!._status.text).toBe(en!._status.text);
    expect(us!._objects![0]!._identification.alternatives.map((m) => m.id)).toEqual(en!._objects![0]!._identification.alternatives.map((m) => m.id));
    const o = en!._objects![0]!;
    expect(o).toMatchObject({ name: 'Comics', 'Top Category': [{ name: 'Comics' }] });
    // the regular issue and its variant share title and number: listed, not guessed (until the fortieth session the
    // newer was the best match, with its own prices)
    expect(o._identification.best_match).toBeNull();
    expect(o._identification.alternatives.map((m) => m.id)).toEqual(expect.arrayContaining(['100002', '100003']));
    expect(o._identification.alternatives.find((a) => a.id === '100002')).toMatchObject({ name: 'Amazing Tester', number: '4', publisher: 'Marvel', origin_date: '2014', title: 'Amazing Tester (2014) #4' });
    // no match, so no category from one
    expect(en!.Category).toBeUndefined();
    expect(de!.Category).toBeUndefined();
    expect(de!._status.text).toBe('OK; no imported catalog holds "de" editions');
    expect(de!._objects![0]!._identification.best_match).toBeNull();
    // a cover of another series with the same issue number: #4 alone names no comic, so it lists none (every series has a #4)
    const other = await sharp(Buffer.from(svg.replace('AMAZING TESTER', 'ZORBLAX QUARTERLY'))).jpeg({ quality: 92 }).toBuffer();
    const unknown = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: other.toString('base64') }] } })).json() as { records: Rec[] }).records[0]!;
    expect(unknown._objects![0]!._ocr.full_text).toMatch(/#4/);
    expect(unknown._objects![0]!._identification).toMatchObject({ best_match: null, alternatives: [], distances: [] });
    // a photo with nothing to read on it: no comic, not an "OK" with nothing in it
    const blank = await sharp({ create: { width: 660, height: 1020, channels: 3, background: '#3a5a8c' } }).jpeg().toBuffer();
    const none = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: blank.toString('base64') }] } })).json() as { records: Rec[] }).records[0]!;
    expect(none._status).toMatchObject({ code: 404, text: expect.stringMatching(/^No comic was found in the image/) });
    // a photo where no cover is found says "comic" too, not "card" (h103)
    const leopard = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: photoBase64('caltech101/Leopards/image_0001.jpg') }] } })).json() as { records: Rec[] }).records[0]!;
    expect(leopard._status).toMatchObject({ code: 404, text: expect.stringMatching(/^No comic was found in the image/) });
  }, 120_000);

  it('comics_id: a variant named on the cover is the best match among the covers of its issue (h249: tied with the regular cover); a logo on two lines is one name', async () => {
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'marvel', files: { file: path.resolve(import.meta.dirname, '../fixtures/catalogs/comics/marvel_comics.json') } });
    const font = 'font-family="DejaVu Sans, sans-serif"';
    const cover = async (extra: string) => (await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#c8102e"/><rect x="20" y="150" width="620" height="850" fill="#3a5a8c"/><text x="30" y="70" ${font} font-size="48" font-weight="bold" fill="#fff">AMAZING TESTER</text><text x="30" y="125" ${font} font-size="36" font-weight="bold" fill="#fff">#4</text>${extra}</svg>`)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const variant = await cover(`<text x="380" y="125" ${font} font-size="36" font-weight="bold" fill="#fff">VARIANT</text>`);
    const rec = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: variant }] } })).json() as { records: Rec[] }).records[0]!;
    const id = rec._objects![0]!._identification;
    expect(id.best_match, rec._objects![0]!._ocr.full_text).toMatchObject({ id: '100003', title: 'Amazing Tester (2014) #4 (Variant)' });
    expect(id.alternatives.map((m) => m.id)).toContain('100002');
    expect(id.distances[0]).toBeLessThan(id.distances[1]!);
    // a logo set on two lines, the small word over the large (h249: THE AMAZING over SPIDER-MAN found nothing)
    const twoLines = (await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#1d3f9e"/><text x="60" y="45" ${font} font-size="26" font-weight="bold" fill="#ff0">AMAZING</text><text x="40" y="115" ${font} font-size="64" font-weight="bold" fill="#e00">TESTER</text><text x="560" y="45" ${font} font-size="28" fill="#fff">#4</text><rect x="20" y="160" width="620" height="840" fill="#445"/></svg>`)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const stacked = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: twoLines }] } })).json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(stacked._identification.alternatives.map((m) => m.id), stacked._ocr.full_text).toEqual(expect.arrayContaining(['100002', '100003']));
    // a blurb's two stacked lines are no name: the series' line is still searched (h256: it was pushed out, nothing found)
    const blurb = (await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#c8102e"/><text x="30" y="70" ${font} font-size="60" font-weight="bold" fill="#fff">HULK</text><text x="30" y="130" ${font} font-size="40" font-weight="bold" fill="#fff">AMAZING TESTER</text><text x="520" y="130" ${font} font-size="36" font-weight="bold" fill="#fff">#4</text><rect x="20" y="160" width="620" height="840" fill="#3a5a8c"/><text x="60" y="900" ${font} font-size="26" font-weight="bold" fill="#ff0">SMASH</text><text x="60" y="932" ${font} font-size="26" font-weight="bold" fill="#ff0">HOUSE</text></svg>`)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const blurbed = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: blurb }] } })).json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(blurbed._identification.alternatives.map((m) => m.id), blurbed._ocr.full_text).toEqual(expect.arrayContaining(['100002', '100003']));
    // the corner box's issue printed bare, between the price and the month, as Marvel's covers print it (h316: an
    // Uncanny X-Men #300 read `300` and listed the series' first issues instead, no best match)
    await fs.writeFile(path.join(dir, 'uncanny.csv'), 'title,series,issue_number,series_start_year,publisher\nUncanny Testers (1963) #299,Uncanny Testers,299,1963,Marvel\nUncanny Testers (1963) #300,Uncanny Testers,300,1963,Marvel\nUncanny Testers (1963) #301,Uncanny Testers,301,1963,Marvel\n');
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'shop-comics', files: { file: path.join(dir, 'uncanny.csv') } });
    const corner = (await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#c8102e"/><rect width="120" height="160" fill="#fff"/><text x="10" y="40" ${font} font-size="22" font-weight="bold" fill="#c8102e">MARVEL</text><text x="10" y="80" ${font} font-size="20" fill="#111">$3.95</text><text x="10" y="110" ${font} font-size="22" fill="#111">300</text><text x="10" y="140" ${font} font-size="18" fill="#111">MAY</text><text x="140" y="100" ${font} font-size="54" font-weight="bold" fill="#ffd400">UNCANNY TESTERS</text><rect x="20" y="180" width="620" height="820" fill="#3a5a8c"/></svg>`)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const boxed = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: corner }] } })).json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(boxed._identification.best_match, boxed._ocr.full_text).toMatchObject({ title: 'Uncanny Testers (1963) #300', number: '300' });
    // a bare `12` alone, no price read beside it, may be the price with its ¢ lost and the issue unread: no issue is
    // named from it (h318: the series' #12 was the best match, where a cover reading no number named none)
    await fs.writeFile(path.join(dir, 'tales.csv'), 'title,series,issue_number,series_start_year,publisher\nTester Tales (1963) #11,Tester Tales,11,1963,Marvel\nTester Tales (1963) #12,Tester Tales,12,1963,Marvel\nTester Tales (1963) #13,Tester Tales,13,1963,Marvel\n');
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'shop-comics', files: { file: path.join(dir, 'tales.csv') } });
    const priced = (await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#c8102e"/><rect width="120" height="160" fill="#fff"/><text x="10" y="40" ${font} font-size="22" font-weight="bold" fill="#c8102e">MARVEL</text><text x="10" y="80" ${font} font-size="20" fill="#111">12</text><text x="10" y="140" ${font} font-size="18" fill="#111">MAY</text><text x="140" y="100" ${font} font-size="54" font-weight="bold" fill="#ffd400">TESTER TALES</text><rect x="20" y="180" width="620" height="820" fill="#3a5a8c"/></svg>`)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const twelve = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: priced }] } })).json() as { records: Rec[] }).records[0]!;
    expect(twelve._objects![0]!._ocr.full_text).toMatch(/^12$/m);
    expect(twelve._objects![0]!._identification.best_match, twelve._objects![0]!._ocr.full_text).toBeNull();
    expect(twelve._objects![0]!._identification.alternatives.map((m) => m.title)).toContain('Tester Tales (1963) #12');
    // a series titled with digits alone, set large across the top, its issue in the corner box by the price: the title
    // is the series, not the issue (h322: `1602` was taken as the issue and never searched as a name)
    await fs.writeFile(path.join(dir, 'sixteen.csv'), 'title,series,issue_number,series_start_year,publisher\n1602 (2003) #2,1602,2,2003,Marvel\n1602 (2003) #3,1602,3,2003,Marvel\n1602 (2003) #4,1602,4,2003,Marvel\n');
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'shop-comics', files: { file: path.join(dir, 'sixteen.csv') } });
    const titled = (await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="660" height="1020"><rect width="660" height="1020" fill="#2b2b2b"/><rect width="120" height="160" fill="#fff"/><text x="10" y="40" ${font} font-size="22" font-weight="bold" fill="#c8102e">MARVEL</text><text x="10" y="80" ${font} font-size="20" fill="#111">$3.50</text><text x="10" y="110" ${font} font-size="22" fill="#111">3</text><text x="10" y="140" ${font} font-size="18" fill="#111">NOV</text><text x="180" y="130" ${font} font-size="110" font-weight="bold" fill="#e8c547">1602</text><rect x="20" y="190" width="620" height="810" fill="#5a3a2c"/></svg>`)).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const sixteen = ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: titled }] } })).json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(sixteen._identification.best_match, sixteen._ocr.full_text).toMatchObject({ title: '1602 (2003) #3', number: '3' });
  }, 120_000);

  it('analyze_all charges each further card at the call\'s price; without the credits only the largest card is analyzed', async () => {
    const multi = (await fs.readdir(path.join(photosDir, 'cards'))).find((f) => f.startsWith('multi-'))!;
    const rich = await h.newAccount(100);
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: photoBase64(`cards/${multi}`) }], analyze_all: true } });
    expect(res.statusCode).toBe(200);
    const cards = (res.json() as { records: Rec[] }).records[0]!._objects!.length;
    expect(cards).toBeGreaterThanOrEqual(2);
    expect((await h.app.loupe.accounts.getAccount(rich.account)).credits).toBe(100 - cards);
    const poor = await h.newAccount(1);
    const one = await h.request('POST', '/collectibles/v2/tcg_id', { token: poor.token, body: { records: [{ _base64: photoBase64(`cards/${multi}`) }], analyze_all: true } });
    const r = (one.json() as { records: Rec[] }).records[0]!;
    expect(r._objects).toHaveLength(1);
    expect(r._status.text).toMatch(new RegExp(`^OK; analyze_all: ${cards - 1} more cards? found, not analyzed: not enough credits$`));
    expect((await h.app.loupe.accounts.getAccount(poor.account)).credits).toBe(0);
    // credits for some of the further cards: those are analyzed, not none (h245: all or nothing). Three cards drawn on
    // a page, and credits for the call and one more (the photo above has two: it could not tell, h247)
    const spec = standardCard();
    const card = await sharp(await makeCard(spec), { raw: { width: spec.width, height: spec.height, channels: 4 } }).resize(300).png().toBuffer();
    const page = (await sharp({ create: { width: 1140, height: 560, channels: 3, background: '#2b3040' } }).composite([0, 1, 2].map((i) => ({ input: card, left: 40 + i * 360, top: 40 }))).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const onPage = ((await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: page }], analyze_all: true } })).json() as { records: Rec[] }).records[0]!._objects!.length;
    expect(onPage).toBe(3);
    const some = await h.newAccount(2);
    const part = ((await h.request('POST', '/collectibles/v2/tcg_id', { token: some.token, body: { records: [{ _base64: page }], analyze_all: true } })).json() as { records: Rec[] }).records[0]!;
    expect(part._objects).toHaveLength(2);
    expect(part._status.text).toBe('OK; analyze_all: 1 more card found, not analyzed: not enough credits');
    expect((await h.app.loupe.accounts.getAccount(some.account)).credits).toBe(0);
  }, 120_000);

  it('analyze_all says how many cards past the twelve a record reads were left out', async () => {
    const spec = standardCard();
    const card = await sharp(await makeCard(spec), { raw: { width: spec.width, height: spec.height, channels: 4 } }).resize(180).png().toBuffer();
    const cells = Array.from({ length: 16 }, (_, i) => ({ input: card, left: 30 + (i % 4) * 230, top: 30 + Math.floor(i / 4) * 300 }));
    const grid = await sharp({ create: { width: 960, height: 1230, channels: 3, background: '#2b3040' } }).composite(cells).jpeg({ quality: 92 }).toBuffer();
    const found = ((await h.request('POST', '/collectibles/v2/detect', { body: { records: [{ _base64: grid.toString('base64') }] } })).json() as { records: Rec[] }).records[0]!._objects!.filter((o) => o.name === 'Card').length;
    expect(found).toBeGreaterThan(12);
    const rich = await h.newAccount(100);
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: grid.toString('base64') }], analyze_all: true } });
    const r = (res.json() as { records: Rec[] }).records[0]!;
    expect(r._objects).toHaveLength(12);
    expect(r._status.text).toBe(`OK; analyze_all: ${found - 12} more card${found - 12 > 1 ? 's' : ''} found, not analyzed: at most 12 cards a record (send the rest as crops)`);
    expect((await h.app.loupe.accounts.getAccount(rich.account)).credits).toBe(100 - 12);
  }, 120_000);

  it('analyze_all says how many cards it found too small to read (h245: a plain OK for 3 of 6)', async () => {
    const spec = standardCard();
    const card = await sharp(await makeCard(spec), { raw: { width: spec.width, height: spec.height, channels: 4 } }).png().toBuffer();
    const [large, small] = await Promise.all([sharp(card).resize(300).png().toBuffer(), sharp(card).resize(100).png().toBuffer()]);
    const cells = [
      ...[0, 1, 2].map((i) => ({ input: large, left: 40 + i * 360, top: 40 })),
      ...[0, 1, 2].map((i) => ({ input: small, left: 120 + i * 360, top: 560 })),
    ];
    const page = (await sharp({ create: { width: 1140, height: 760, channels: 3, background: '#2b3040' } }).composite(cells).jpeg({ quality: 92 }).toBuffer()).toString('base64');
    const found = ((await h.request('POST', '/collectibles/v2/detect', { body: { records: [{ _base64: page }] } })).json() as { records: Rec[] }).records[0]!._objects!.filter((o) => o.name === 'Card').length;
    const rich = await h.newAccount(100);
    const r = ((await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: page }], analyze_all: true } })).json() as { records: Rec[] }).records[0]!;
    const read = r._objects!.length;
    expect(found).toBeGreaterThan(read);
    // the photo is read at its own size here (1140 px): 120 px of it
    expect(r._status.text).toContain(`analyze_all: ${found - read} smaller card${found - read > 1 ? 's' : ''} found (under 120 px across in this image), not analyzed: send a closer photo, or crops of them`);
    expect((await h.app.loupe.accounts.getAccount(rich.account)).credits).toBe(100 - read);
  }, 120_000);

  it('answers a record that is not an object with its own 400 on every recognition endpoint, the records beside it read (h333)', async () => {
    const blank = (await sharp({ create: { width: 400, height: 200, channels: 3, background: '#808080' } }).jpeg().toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [null, { _id: 'card', _base64: photoCard }, 5, 'x', [1], true] } });
    // it was the request's 400, `records[0] must be object`, and the card beside it unread
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [nul, card, num, str, list, bool] = (res.json() as { records: Rec[] }).records;
    expect(card!._objects![0]!._identification.best_match).toMatchObject({ id: 'tsa-86' });
    // nothing of it to echo: its status alone, saying where it stood and what it was
    expect(nul).toEqual({ _status: { code: 400, text: 'Error Loading Image: records[0] must be an object (an image record with _url, _base64 or _file), not null', request_id: expect.any(String) } });
    expect([num, str, list, bool].map((r) => r!._status.text.replace(/^.* not /, ''))).toEqual(['a number', 'a string', 'a list', 'a boolean']);
    expect(str!._status.text).toMatch(/^Error Loading Image: records\[3\] must be an object/);
    for (const url of ['sport_id', 'comics_id', 'card_ocr_id', 'slab_id', 'slab_grade', 'detect', 'process']) {
      const mixed = await h.request('POST', `/collectibles/v2/${url}`, { body: { records: [{ _id: 'blank', _base64: blank }, null] } });
      // the blank image holds no card nor label: every record failed, each in its own words
      expect([mixed.statusCode, mixed.json().status.text], `${url}: ${mixed.body}`).toEqual([400, "Every record failed: see each record's _status"]);
      const [read, bad] = (mixed.json() as { records: Rec[] }).records;
      expect([read!._id, read!._status.code, bad!._status.code], url).toEqual(['blank', 404, 400]);
      expect(bad!._status.text, url).toBe('Error Loading Image: records[1] must be an object (an image record with _url, _base64 or _file), not null');
    }
    const alone = await h.request('POST', '/collectibles/v2/analyze', { body: { records: [null] } });
    expect([alone.statusCode, alone.json().status.text, alone.json().records[0]._status.code]).toEqual([400, 'Error Loading Image', 400]);
    // no records at all is still the request's 400
    for (const records of [undefined, null, 5, {}, [], Array.from({ length: 11 }, () => null)]) {
      const whole = await h.request('POST', '/collectibles/v2/tcg_id', { body: records === undefined ? {} : { records } });
      expect([whole.statusCode, whole.json().detail ? 'detail' : 'none'], JSON.stringify(records)).toEqual([400, 'detail']);
    }
  }, 120_000);

  it('is a service an account can be refused, synchronously and as an asynchronous request', async () => {
    const other = await h.newAccount(100, ['descriptor', 'requests']);
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { token: other.token, body: { records: [{ _base64: photoCard }] } });
    expect(res.statusCode).toBe(403);
    const queued = await h.request('POST', '/account/v2/request/', { token: other.token, body: { type: 'collectibles-recognition', endpoint: 'tcg_id', records: [{ _base64: photoCard }] } });
    expect([queued.statusCode, (queued.json() as { code: string }).code]).toEqual([403, 'service_not_enabled']);
    expect((await h.app.loupe.accounts.getAccount(other.account)).credits).toBe(100);
    // the same account may still queue what it is allowed
    const flows = await h.request('POST', '/account/v2/request/', { token: other.token, body: { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: '!!' }] } });
    expect(flows.statusCode).toBe(201);
  });
});
