import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/container.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64, photosDir } from '../helpers/photos.ts';
import { renderSlab, type SlabTruth } from '../helpers/slab-labels.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

/**
 * `/collectibles/v2/slab_id`, `/slab_grade` and the identification endpoints' slab options, on the
 * real Beckett slab committed as a fixture, on slabs drawn for the companies the real photos lack
 * (test/helpers/slab-labels.ts), and, where ../shared is beside the repository, on a real PSA slab
 * (../shared/datasets/graded_slabs/psa/psa_card.jpg: 2019 POKEMON S & M #SV69 FA/UMBREON GX, MINT 9,
 * certificate 72773169). A made-up Pokémon catalog holds the cards two of the labels name.
 */
const bgs = photoBase64('cards/slab-counterspell_bgs.jpg');
const raw = photoBase64(`cards/${fs.readdirSync(path.join(photosDir, 'cards')).find((f) => f.startsWith('read-416032719'))!}`);
const realPsa = path.resolve(import.meta.dirname, '../../../shared/datasets/graded_slabs/psa/psa_card.jpg');

const drawn = (t: Partial<SlabTruth> & Pick<SlabTruth, 'company' | 'verbal' | 'grade' | 'cert'>): SlabTruth => ({ logo: t.company, qualifier: null, name: 'CHARIZARD EX', number: '199', year: '2023', set: 'POKEMON SV 151', variety: '', ...t });
const psa = drawn({ company: 'PSA', verbal: 'MINT', grade: 9, qualifier: 'OC', cert: '81234567' });
const cgc = drawn({ company: 'CGC', verbal: 'PRISTINE', grade: 10, cert: '4123456001', name: 'PIKACHU', number: '35', year: '2016', set: 'POKEMON EVOLUTIONS' });
const ksa = drawn({ company: 'OTHER', logo: 'KSA', verbal: 'GEM MINT', grade: 10, cert: '5551234' });
const b64 = async (t: SlabTruth) => (await renderSlab(t, { rotation: 1.5, size: 1000 })).toString('base64');

const sets = [
  { id: 'sv3pt5', name: 'Test 151', series: 'Testing', printedTotal: 165, total: 207, releaseDate: '2023/09/22', ptcgoCode: 'MEW' },
  { id: 'tsx', name: 'Test Other', series: 'Testing', printedTotal: 200, total: 230, releaseDate: '2021/02/19', ptcgoCode: null },
  { id: 'sma', name: 'Test Shiny Vault', series: 'Testing', printedTotal: 94, total: 94, releaseDate: '2019/08/23', ptcgoCode: 'HIF' },
];
const cards = [
  { id: 'sv3pt5-199', name: 'Charizard ex', number: '199', set: 'sv3pt5', rarity: 'Special Illustration Rare', supertype: 'Pokémon', subtypes: ['Stage 2', 'ex'], hp: '330', types: ['Fire'] },
  { id: 'tsx-199', name: 'Decoymon', number: '199', set: 'tsx', rarity: 'Rare', supertype: 'Pokémon', subtypes: ['Basic'], hp: '60', types: ['Water'] },
  { id: 'sma-SV69', name: 'Umbreon-GX', number: 'SV69', set: 'sma', rarity: 'Rare Shiny GX', supertype: 'Pokémon', subtypes: ['Stage 1', 'GX'], hp: '200', types: ['Darkness'] },
];

type Obj = { name: string; id: number; bound_box: number[]; area: number; _tags: Record<string, { name: string; prob: number }[]>; _tags_simple: string[]; _ocr?: { full_text: string; lang?: string | null; lang_name?: string | null; texts: { polygon: number[][]; text: string }[] }; _identification: { best_match: Record<string, unknown> | null; distances: number[] } };
type Rec = { _id?: string; _status: { code: number; text: string }; _objects?: Obj[]; 'Graded Slab'?: { name: string }[]; Category?: string };

async function done(h: Harness, id: string): Promise<{ status: string; response?: { records: Rec[] } }> {
  let r: { status: string; response?: { records: Rec[] } } | undefined;
  for (let i = 0; i < 1200 && r?.status !== 'DONE'; i++) {
    r = (await h.request('GET', `/account/v2/request/${id}`)).json() as typeof r;
    if (r?.status !== 'DONE') await new Promise((res) => setTimeout(res, 100));
  }
  return r!;
}

describe.each(backends)('graded slabs (%s)', (backend) => {
  let h: Harness;
  let dir: string;
  const credits = async (account = h.account.account) => (await h.app.loupe.accounts.getAccount(account)).credits;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 60_000, warm: [], embedder: '' }, queue: { workers: 1, pollMs: 200 } });
    await h.app.ready();
    // the same slabs are read again with other options and for the second backend (test/helpers/vision-memo.ts)
    rememberVision(h);
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-slab-'));
  });
  afterAll(async () => {
    await h?.close();
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('slab_id: each image\'s label read (company, grade words and number, qualifier, certificate, card), without any catalog; no label is the record\'s 404', async () => {
    const before = await credits();
    const blank = (await sharp({ create: { width: 400, height: 600, channels: 3, background: '#808080' } }).jpeg().toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/slab_id', {
      body: { records: [{ _id: 'bgs', _base64: bgs }, { _id: 'psa', _base64: await b64(psa) }, { _id: 'cgc', _base64: await b64(cgc) }, { _id: 'ksa', _base64: await b64(ksa) }, { _id: 'raw', _base64: raw }, { _id: 'blank', _base64: blank }, { _id: 'broken', _base64: Buffer.from('no image').toString('base64') }] },
    });
    // spec 3 §7: any 2xx is success; the body says some records failed
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [b, p, c, k, r, blankRec, broken] = (res.json() as { records: Rec[] }).records;
    // the real Beckett slab: 1993 Alpha Counterspell, 7.5 NEAR MINT+, serial 0010538585 (graded_slabs manifest)
    expect(b).toMatchObject({ _id: 'bgs', _status: { code: 200, text: 'OK' }, 'Graded Slab': [{ name: 'yes' }] });
    const o = b!._objects![0]!;
    expect(b!._objects).toHaveLength(1);
    expect(o).toMatchObject({ name: 'Slab Label', id: 1, 'Top Category': [{ name: 'Slab Label' }], _tags: { Company: [{ name: 'BGS', prob: 1 }], Grade: [{ name: '7.5' }] } });
    expect(o._tags_simple).toEqual(['BGS', '7.5']);
    expect(o._identification.best_match).toMatchObject({ company: 'BGS', verbal_grade: 'NEAR MINT+', grade: 7.5, year: '1993', set: 'ALPHA', certificate_number: '0010538585', qualifier: null, lang: null, card: null, links: {} });
    expect((o._identification.best_match!.name as string).replace(/\W/g, '')).toMatch(/^COUNTERSPELL/);
    expect(o._ocr!.full_text).toContain('0010538585');
    // a label that names no language: lang and lang_name null, present (document 3 §2: full_text, lang_name, lang, texts)
    expect(o._ocr).toMatchObject({ lang: null, lang_name: null });
    expect(Object.keys(o._ocr!).sort()).toEqual(['full_text', 'lang', 'lang_name', 'texts']);
    // the label's text lies above the card, in pixels of the photo
    const line = o._ocr!.texts.find((t) => t.text.includes('0010538585'))!;
    for (const [x, y] of line.polygon) {
      expect(x).toBeGreaterThanOrEqual(o.bound_box[0]! - 1);
      expect(y).toBeLessThanOrEqual(o.bound_box[3]! + 1);
    }
    expect(o.area).toBeGreaterThan(0);
    expect(o.area).toBeLessThan(0.3);
    // drawn labels: PSA with its qualifier, CGC's Pristine, a grader outside the seven
    expect(p!._objects![0]!._identification.best_match).toMatchObject({ company: 'PSA', verbal_grade: 'MINT', grade: 9, qualifier: 'OC', certificate_number: '81234567', year: '2023', brand: 'POKEMON', card_no: '199', links: { psacard: 'https://www.psacard.com/cert/81234567' } });
    expect(p!._objects![0]!._tags).toMatchObject({ Company: [{ name: 'PSA' }], Grade: [{ name: '9' }], Qualifier: [{ name: 'OC' }] });
    expect(c!._objects![0]!._identification.best_match).toMatchObject({ company: 'CGC', verbal_grade: 'PRISTINE', grade: 10, certificate_number: '4123456001', card_no: '35', lang: 'en' });
    expect(c!._objects![0]!._ocr).toMatchObject({ lang: 'en', lang_name: 'English' });
    expect(k!._objects![0]!._identification.best_match).toMatchObject({ company: 'OTHER', grade: 10, certificate_number: '5551234' });
    expect(k!._objects![0]!._tags.Company).toEqual([{ id: 1, name: 'OTHER', prob: 1 }]);
    // a raw card and a plain picture have no label; a broken image is a 400
    expect(r).toMatchObject({ _status: { code: 404, text: 'No grading label was found in the image' }, _objects: [] });
    expect(blankRec!._status.code).toBe(404);
    expect(broken!._status.code).toBe(400);
    expect(await credits()).toBe(before - 1);
  }, 180_000);

  it("slab_id: a comic's label whose series is read but whose issue is no catalog issue names none (h110: AMAZING TESTER #999 was the #4)", async () => {
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'marvel', files: { file: path.resolve(import.meta.dirname, '../fixtures/catalogs/comics/marvel_comics.json') } });
    const label = (number: string) => b64(drawn({ company: 'CGC', verbal: 'NM/MINT', grade: 9.8, cert: '4123456003', name: 'AMAZING TESTER', number, year: '2014', set: 'MARVEL COMICS' }));
    const [unknown] = ((await h.request('POST', '/collectibles/v2/slab_id', { body: { records: [{ _base64: await label('999') }] } })).json() as { records: Rec[] }).records;
    expect(unknown!._objects![0]!._ocr!.full_text).toMatch(/AMAZING/);
    expect((unknown!._objects![0]!._identification.best_match as { card?: unknown } | null)?.card ?? null).toBeNull();
  });

  it('slab_id: the catalog card the label names, with its links; slab_grade: company and grade only; no label anywhere is a 404 call, refunded', async () => {
    await fsp.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await fsp.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    const image = await b64(psa);
    const res = await h.request('POST', '/collectibles/v2/slab_id', { body: { records: [{ _base64: image }] } });
    expect(res.statusCode).toBe(200);
    const rec = (res.json() as { records: Rec[] }).records[0]!;
    expect(rec.Category).toBe('Trading Card Game/Pokemon');
    const m = rec._objects![0]!._identification;
    // the label prints no variety: the rarity is the catalog card's
    expect(m.best_match).toMatchObject({ rarity: 'Special Illustration Rare', links: { psacard: 'https://www.psacard.com/cert/81234567' }, card: { id: 'sv3pt5-199', name: 'Charizard ex', card_number: '199', set: 'Test 151', subcategory: 'Pokemon' } });
    expect(m.distances[0]).toBeLessThan(0.23);
    expect(rec._objects![0]!._tags.Category).toEqual([{ id: 1, name: 'Pokemon', prob: 1 }]);
    // the label prints no finish: the catalog's for the card it names (a Special Illustration Rare, foil in every copy);
    // a label's NON-HOLO before it, as a card beside the label carries them
    expect(rec._objects![0]!._tags['Foil/Holo']).toEqual([{ id: 1, name: 'Foil', prob: 1 }]);
    expect(rec._objects![0]!._tags_simple).toContain('Foil');
    const nonHolo = ((await h.request('POST', '/collectibles/v2/slab_id', { body: { records: [{ _base64: await b64({ ...psa, variety: 'NON-HOLO' }) }] } })).json() as { records: Rec[] }).records[0]!;
    expect(nonHolo._objects![0]!._tags['Foil/Holo'], JSON.stringify(nonHolo)).toEqual([{ id: 1, name: 'Non-Foil', prob: 1 }]);

    const before = await credits();
    const simple = await h.request('POST', '/collectibles/v2/slab_grade', { body: { records: [{ _base64: image }, { _base64: bgs }] } });
    expect(simple.statusCode).toBe(200);
    const [g1, g2] = (simple.json() as { records: Rec[] }).records;
    expect(g1!._objects![0]).toMatchObject({ name: 'Slab Label', _tags: { Company: [{ name: 'PSA' }], Grade: [{ name: '9' }] }, _identification: { best_match: { company: 'PSA', grade: 9, verbal_grade: 'MINT', qualifier: 'OC' } } });
    expect(Object.keys(g1!._objects![0]!._identification.best_match!).sort()).toEqual(['company', 'grade', 'qualifier', 'verbal_grade']);
    expect(g1!._objects![0]).not.toHaveProperty('_ocr');
    // company and grade only
    expect(g1!._objects![0]!._tags).not.toHaveProperty('Foil/Holo');
    expect(g2!._objects![0]!._identification.best_match).toMatchObject({ company: 'BGS', grade: 7.5 });
    expect(await credits()).toBe(before - 1);
    const none = await h.request('POST', '/collectibles/v2/slab_grade', { body: { records: [{ _base64: raw }] } });
    expect(none.statusCode).toBe(404);
    expect(await credits()).toBe(before - 1);
  }, 180_000);

  it.skipIf(!fs.existsSync(realPsa))('price_stats of a slab: graded sales of the label\'s company and grade only where the record shows them (a slab option)', async () => {
    await fsp.writeFile(path.join(dir, 'slab-prices.csv'), ['card,date,price,currency,grade,company', 'sma-SV69,2024-01-10,200,USD,MINT 9,PSA', 'sma-SV69,2024-01-11,220,USD,MINT 9,PSA', 'sma-SV69,2024-01-12,900,USD,GEM MT 10,PSA', 'sma-SV69,2024-01-13,250,USD,9,BGS', 'sma-SV69,2024-01-14,40,USD,,'].join('\n'));
    await (h.app.loupe as unknown as Services).catalogs.importPrices({ catalog: 'pokemon', file: path.join(dir, 'slab-prices.csv') });
    const image = fs.readFileSync(realPsa).toString('base64');
    type Entry = { stats_type: string; interval: string; value: { mean: number; min: number; max: number } };
    const graded = async (body: Record<string, unknown>) => {
      const rec = ((await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: image }], price_stats: true, ...body } })).json() as { records: Rec[] }).records[0]!;
      const best = rec._objects![0]!._identification.best_match as { id: string; price_stats?: Entry[] };
      expect(best.id).toBe('sma-SV69');
      return { tags: rec._objects![0]!._tags, all: best.price_stats!.find((e) => e.stats_type === 'graded' && e.interval === 'all')!.value };
    };
    const plain = await graded({});
    expect(plain.tags).not.toHaveProperty('Company');
    expect(plain.all).toMatchObject({ min: 200, max: 900, mean: 392.5 });
    const narrowed = await graded({ slab_grade: true });
    expect(narrowed.tags).toMatchObject({ Company: [{ name: 'PSA' }], Grade: [{ name: '9' }] });
    expect(narrowed.all).toMatchObject({ min: 200, max: 220, mean: 210 });
  }, 180_000);

  it("price_stats of a comic under a CGC label, its cover read whole: graded sales of the label's grade only (h249: the 9.6 sale was in a 9.8's), and the status says when there are none (h250)", async () => {
    const font = 'font-family="DejaVu Sans, sans-serif"';
    await fsp.writeFile(path.join(dir, 'zorblax.json'), JSON.stringify([{ marvel_comic_id: 900323, title: 'Daredevil (1964) #323', publisher: 'Marvel', format: 'Comic', series: 'Daredevil', series_start_year: 1964, issue_number: '323' }]));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'comics', catalog: 'zorblax', files: { file: path.join(dir, 'zorblax.json') } });
    const prices = async (rows: string[]) => {
      await fsp.writeFile(path.join(dir, 'zorblax-prices.csv'), ['card,date,price,currency,grade,company', ...rows].join('\n'));
      await (h.app.loupe as unknown as Services).catalogs.importPrices({ catalog: 'zorblax', file: path.join(dir, 'zorblax-prices.csv') });
    };
    // a raw sale only first
    await prices(['900323,2024-02-12,4,USD,,']);
    const svg = (w: number, hgt: number, body: string) => sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hgt}">${body}</svg>`)).png().toBuffer();
    // a comic's cover as h249 drew it (660 × 1020), shown 760 px high under the label
    const cover = await sharp(await svg(660, 1020, `<rect width="660" height="1020" fill="#c8102e"/><rect x="20" y="150" width="620" height="850" fill="#3a5a8c"/><circle cx="330" cy="560" r="180" fill="#e8c547"/><text x="30" y="70" ${font} font-size="48" font-weight="bold" fill="#fff">DAREDEVIL</text><text x="30" y="125" ${font} font-size="36" font-weight="bold" fill="#fff">#323</text>`)).resize({ height: 760 }).toBuffer();
    const label = await svg(560, 170, `<rect width="560" height="170" fill="#1a4aa8"/><rect x="8" y="8" width="544" height="154" fill="#fff"/><text x="20" y="50" ${font} font-size="40" font-weight="bold" fill="#1a4aa8">CGC</text><text x="440" y="60" ${font} font-size="44" font-weight="bold" fill="#000">9.8</text><text x="430" y="90" ${font} font-size="16" fill="#000">NM/M</text><text x="120" y="45" ${font} font-size="20" font-weight="bold" fill="#000">Daredevil #323</text><text x="120" y="72" ${font} font-size="16" fill="#000">Marvel Comics, 12/93</text><text x="20" y="150" ${font} font-size="16" fill="#000">1234567001</text><text x="200" y="150" ${font} font-size="14" fill="#000">WHITE PAGES</text>`);
    const slab = await sharp({ create: { width: 640, height: 1020, channels: 3, background: '#d8dde2' } }).composite([{ input: label, left: 40, top: 30 }, { input: cover, left: 74, top: 230 }]).jpeg({ quality: 92 }).toBuffer();
    const ask = async () => ((await h.request('POST', '/collectibles/v2/comics_id', { body: { records: [{ _base64: slab.toString('base64') }], slab_id: true, price_stats: true } })).json() as { records: Rec[] }).records[0]!;
    // no sale of the label's company and grade: no graded entries, and the status says why (h250: without a word)
    const unsold = await ask();
    expect(unsold._status.text).toMatch(/price_stats: no CGC 9\.8 sales are known for 900323: no graded entries/);
    await prices(['900323,2024-02-10,45,USD,9.8,CGC', '900323,2024-02-11,40,USD,9.6,CGC', '900323,2024-02-12,4,USD,,']);
    const rec = await ask();
    expect(rec._status.text).not.toMatch(/price_stats/);
    const card = rec._objects!.find((o) => o.name !== 'Slab Label')!;
    // the cover not found by the detector: the photo read whole, the label beside it
    expect(card.bound_box).toEqual([0, 0, 640, 1020]);
    expect(card._tags, JSON.stringify(rec)).toMatchObject({ Company: [{ name: 'CGC' }], Grade: [{ name: '9.8' }] });
    const best = card._identification.best_match as { id: string; price_stats?: { stats_type: string; interval: string; value: { min: number; max: number } }[] };
    expect(best.id).toBe('900323');
    expect(best.price_stats?.find((e) => e.stats_type === 'graded' && e.interval === 'all')?.value).toMatchObject({ min: 45, max: 45 });
  }, 120_000);

  it("a grading label elsewhere in the photo is not the largest card's: a raw card beside a slab stays ungraded (h250: it was a PSA 10)", async () => {
    await fsp.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await fsp.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    // h250's drawing: two sport cards 630 × 880 raw on the table, and a PSA slab of another card to their right
    const font = 'font-family="DejaVu Sans, sans-serif"';
    const text = (x: number, y: number, size: number, t: string, extra = '') => `<text x="${x}" y="${y}" ${font} font-size="${size}" ${extra} fill="#111">${t}</text>`;
    const card = (name: string, line: string) => `<rect width="630" height="880" fill="#1d4e9e"/><rect x="30" y="30" width="570" height="820" fill="#fff"/>${text(60, 80, 26, '2022 TOPPS SERIES 1')}<rect x="50" y="100" width="530" height="620" fill="#8a9bb0"/>${text(60, 800, 40, name, 'font-weight="bold"')}${text(60, 838, 24, line)}`;
    const labelLines = ['2022 TOPPS', 'SHOHEI OHTANI', 'PSA'].map((l, i) => text(20, 40 + i * 32, 22, l, i === 0 ? 'font-weight="bold"' : '')).join('') + ['#1', 'GEM MT 10', '71234567'].map((l, i) => text(640, 40 + i * 34, i === 1 ? 34 : 22, l, 'text-anchor="end" font-weight="bold"')).join('');
    const slab = `<rect width="720" height="1022" rx="26" fill="#d7dbe0"/><rect x="10" y="10" width="700" height="1002" rx="20" fill="#eef1f4"/><g transform="translate(30,30)"><rect width="660" height="170" fill="#fafafa" stroke="#c00" stroke-width="4"/>${labelLines}</g><rect x="68" y="198" width="584" height="806" fill="#1a1a1a"/><g transform="translate(80,210) scale(${560 / 630})">${card('SHOHEI OHTANI', 'ANGELS #1')}</g>`;
    const svg = (w: number, hgt: number, body: string) => sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hgt}">${body}</svg>`));
    const holder = await (await svg(720, 1022, slab).extend({ top: 70, bottom: 70, left: 70, right: 70, background: '#3b3f45' }).png().toBuffer().then((b) => sharp(b).resize({ height: 1040 }).png().toBuffer()));
    const table = `<rect width="2500" height="1100" fill="#6b5a48"/><g transform="translate(80,110)">${card('AARON JUDGE', 'NEW YORK YANKEES #99')}</g><g transform="translate(880,110)">${card('SHOHEI OHTANI', 'ANGELS #1')}</g>`;
    const photo = (await svg(2500, 1100, table).composite([{ input: holder, left: 1650, top: 30 }]).jpeg({ quality: 90 }).toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: photo }], slab_grade: true } });
    const rec = (res.json() as { records: Rec[] }).records[0]!;
    const largest = rec._objects![0]!;
    // the raw card is the largest: its outline on the left of the photo
    expect(largest.bound_box[2], JSON.stringify(rec)).toBeLessThan(900);
    expect(largest._tags.Graded).toEqual([{ id: 1, name: 'no', prob: 1 }]);
    expect(largest._tags.Company).toBeUndefined();
    expect(rec._status.text).toMatch(/slab_grade: no grading label was found beside the card/);
    // /slab_id still reads the label wherever it is
    const label = (await h.request('POST', '/collectibles/v2/slab_grade', { body: { records: [{ _base64: photo }] } })).json() as { records: Rec[] };
    expect(label.records[0]!._objects![0]!._identification.best_match).toMatchObject({ company: 'PSA', grade: 10 });
  }, 120_000);

  it.skipIf(!fs.existsSync(realPsa))('slab_id on a real PSA slab: MINT 9, certificate 72773169, and the Hidden Fates card it names', async () => {
    const res = await h.request('POST', '/collectibles/v2/slab_id', { body: { records: [{ _base64: fs.readFileSync(realPsa).toString('base64') }] } });
    const o = (res.json() as { records: Rec[] }).records[0]!._objects![0]!;
    expect(o._identification.best_match).toMatchObject({ company: 'PSA', grade: 9, verbal_grade: 'MINT', certificate_number: '72773169', card_no: 'SV69', year: '2019', rarity: 'FULL ART', card: { id: 'sma-SV69' } });
  }, 120_000);

  it("Foil/Holo from the label's finish words where it prints them (before the catalog's word, after a client's hint), none from a HOLON name or set", async () => {
    await fsp.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await fsp.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    const reverse = { ...psa, name: 'PIKACHU', number: '35', year: '2016', set: 'POKEMON EVOLUTIONS', variety: 'REV.FOIL' };
    const holon = { ...psa, name: "HOLON'S CASTFORM", number: '44', year: '2006', set: 'POKEMON JAPANESE', variety: 'HOLON PHANTOMS - 1ST ED.' };
    const nonHolo = { ...psa, variety: 'NON-HOLO' };
    const finishOf = (r: Rec) => r._objects![0]!._tags['Foil/Holo'];
    // slab_grade: the detector takes these drawn holders for the card, and only a slab option searches the label inside
    // the outline; a label beside the card is read without one (as for `Graded`)
    // the drawings differ from `psa` in the label's words only, so the detector finds their holders alike
    const res = await h.request('POST', '/collectibles/v2/tcg_id', {
      body: { records: [{ _base64: await b64(reverse) }, { _base64: await b64(holon) }, { _base64: await b64(reverse), 'Foil/Holo': 'Non-Foil' }, { _base64: await b64(nonHolo) }, { _base64: await b64(psa) }], slab_grade: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [rev, hol, hinted, non, none] = (res.json() as { records: Rec[] }).records;
    // a card the catalog does not hold, graded as a reverse foil
    expect(finishOf(rev!), JSON.stringify(rev)).toEqual([{ id: 1, name: 'Foil', prob: 1 }]);
    expect(rev!._objects![0]!._tags_simple).toContain('Foil');
    // read as a graded card whose label names a Holon card of the Holon Phantoms set: no finish said
    expect(hol!._objects![0]!.name, JSON.stringify(hol)).toBe('Card');
    expect(finishOf(hol!), JSON.stringify(hol)).toBeUndefined();
    // the client's hint first, as given
    expect(finishOf(hinted!)).toEqual([{ id: 1, name: 'Non-Foil', prob: 1, 'pre-filled': true }]);
    // the label names the card, a Special Illustration Rare (foil in every copy by the catalog): its NON-HOLO wins; a
    // label printing no finish leaves the catalog's word
    expect(non!._objects![0]!._identification.best_match, JSON.stringify(non)).toMatchObject({ id: 'sv3pt5-199' });
    expect(finishOf(non!)).toEqual([{ id: 1, name: 'Non-Foil', prob: 1 }]);
    expect(none!._objects![0]!._identification.best_match, JSON.stringify(none)).toMatchObject({ id: 'sv3pt5-199' });
    expect(finishOf(none!)).toEqual([{ id: 1, name: 'Foil', prob: 1 }]);
    // slab_id's label object beside the card carries the finish as /slab_id's does: the label's words, else the
    // catalog's for the card it names (h329: it had none, while /slab_id's and a label answered alone had it)
    const withLabel = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: await b64(reverse) }, { _base64: await b64(nonHolo) }, { _base64: await b64(psa) }], slab_id: true } });
    const labelFinish = (r: Rec) => r._objects!.find((o) => o.name === 'Slab Label')?._tags;
    const [revLabel, nonLabel, psaLabel] = (withLabel.json() as { records: Rec[] }).records.map((r) => {
      expect(r._objects!.map((o) => o.name), JSON.stringify(r)).toEqual(['Card', 'Slab Label']);
      return labelFinish(r)!;
    });
    expect(revLabel!['Foil/Holo']).toEqual([{ id: 1, name: 'Foil', prob: 1 }]);
    expect(nonLabel!['Foil/Holo']).toEqual([{ id: 1, name: 'Non-Foil', prob: 1 }]);
    expect(psaLabel).toMatchObject({ Category: [{ name: 'Pokemon' }], 'Foil/Holo': [{ id: 1, name: 'Foil', prob: 1 }] });
    expect((withLabel.json() as { records: Rec[] }).records[2]!._objects![1]!._tags_simple).toContain('Foil');
  }, 240_000);

  it('the slab options of tcg_id: the label\'s company and grade on the card, slab_id adds the label; each charged once a call at its endpoint\'s price, never for no label or without the credits', async () => {
    const rich = await h.newAccount(100);
    const withId = await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: bgs }], slab_id: true } });
    expect(withId.statusCode).toBe(200);
    const r = (withId.json() as { records: Rec[]; slab_id: boolean }).records[0]!;
    expect(r).toMatchObject({ _status: { code: 200, text: 'OK' }, 'Graded Slab': [{ name: 'yes' }] });
    const [card, label] = r._objects!;
    expect(card).toMatchObject({ name: 'Card', id: 1, _tags: { Graded: [{ name: 'yes' }], Company: [{ name: 'BGS' }], Grade: [{ name: '7.5' }] } });
    expect(card!._tags_simple).toEqual(expect.arrayContaining(['BGS', '7.5']));
    expect(label).toMatchObject({ name: 'Slab Label', id: 2, _identification: { best_match: { certificate_number: '0010538585', grade: 7.5 } } });
    expect(await credits(rich.account)).toBe(98);

    const withGrade = await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: bgs }, { _base64: raw }], slab_grade: true } });
    const [slabbed, plain] = (withGrade.json() as { records: Rec[] }).records;
    expect(slabbed!._objects).toHaveLength(1);
    expect(slabbed!._objects![0]!._tags).toMatchObject({ Company: [{ name: 'BGS' }], Grade: [{ name: '7.5' }] });
    expect(plain!._status.text).toBe('OK; slab_grade: no grading label was found beside the card');
    expect(plain!._objects![0]!._tags).not.toHaveProperty('Company');
    expect(await credits(rich.account)).toBe(96);

    const noLabel = await h.request('POST', '/collectibles/v2/tcg_id', { token: rich.token, body: { records: [{ _base64: raw }], slab_id: true } });
    expect(noLabel.statusCode).toBe(200);
    expect(await credits(rich.account)).toBe(95);

    const poor = await h.newAccount(1);
    const short = await h.request('POST', '/collectibles/v2/tcg_id', { token: poor.token, body: { records: [{ _base64: bgs }], slab_id: true } });
    const s = (short.json() as { records: Rec[] }).records[0]!;
    expect(s._status.text).toBe('OK; slab_id: the label was not read: not enough credits');
    expect(s._objects).toHaveLength(1);
    expect(s._objects![0]!._tags).not.toHaveProperty('Company');
    expect(await credits(poor.account)).toBe(0);
  }, 180_000);

  it('a slab option\'s extra is refunded when no successful record carries the label: the call fails, or the labelled record fails beside one without a label', async () => {
    const payer = await h.newAccount(100);
    // the label is read, then the record is a 400 (no imported catalog has that set): the call and its extra are refunded
    const failed = await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _base64: bgs, set_code: 'NOPE' }], slab_id: true } });
    expect(failed.statusCode, failed.body).toBe(400);
    expect((failed.json() as { records: Rec[] }).records[0]!._status.code).toBe(400);
    expect(await credits(payer.account)).toBe(100);
    // the labelled record fails, a raw card succeeds: the call is paid, the label's extra is not
    const mixed = await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _base64: bgs, set_code: 'NOPE' }, { _base64: raw }], slab_grade: true } });
    // spec 3 §7: any 2xx is success; the body says some records failed
    expect(mixed.statusCode, mixed.body).toBe(200);
    expect(mixed.json().status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    const [bad, ok] = (mixed.json() as { records: Rec[] }).records;
    expect(bad!._status.code).toBe(400);
    expect(ok!._objects![0]!._tags).not.toHaveProperty('Company');
    expect(await credits(payer.account)).toBe(99);
  }, 180_000);

  it('card_ocr_id: the label object\'s _ocr has lang and lang_name as /slab_id\'s does, null for a label naming no language', async () => {
    const res = await h.request('POST', '/collectibles/v2/card_ocr_id', { body: { records: [{ _base64: bgs }] } });
    expect(res.statusCode, res.body).toBe(200);
    const label = (res.json() as { records: Rec[] }).records[0]!._objects!.find((x) => x.name === 'Slab Label')!;
    expect(label._ocr).toMatchObject({ lang: null, lang_name: null });
    expect(Object.keys(label._ocr!).sort()).toEqual(['full_text', 'lang', 'lang_name', 'texts']);
  }, 120_000);

  it('card_ocr_id: a slab label read where no card is found is the record\'s answer (it was a 404 that dropped the label), sync and queued', async () => {
    // the label strip of a slab, cut above the card: nothing card-shaped in it
    const slab = await renderSlab(psa, { size: 1000 });
    const meta = await sharp(slab).metadata();
    const strip = (await sharp(slab).extract({ left: 0, top: 0, width: meta.width!, height: Math.round(meta.height! * 0.3) }).jpeg().toBuffer()).toString('base64');
    const res = await h.request('POST', '/collectibles/v2/card_ocr_id', { body: { records: [{ _id: 'strip', _base64: strip }, { _id: 'raw', _base64: raw }] } });
    const [got, card] = (res.json() as { records: Rec[] }).records;
    expect(got, res.body).toMatchObject({ _id: 'strip', _status: { code: 200 }, 'Graded Slab': [{ name: 'yes' }] });
    expect(got!._objects!.map((o) => [o.name, o.id])).toEqual([['Slab Label', 1]]);
    expect(got!._objects![0]!._identification.best_match).toMatchObject({ grade: 9, certificate_number: '81234567' });
    expect(got!._objects![0]!._tags).toMatchObject({ Company: [{ name: 'PSA' }] });
    // a raw card's answer is as before: no label searched for beside it
    expect(card!._objects!.map((o) => o.name)).toEqual(['Card']);
    const queued = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'card_ocr_id', records: [{ _id: 'strip', _base64: strip }] } });
    expect(queued.statusCode, queued.body).toBe(201);
    const out = await done(h, (queued.json() as { id: string }).id);
    expect(out.response!.records[0]).toMatchObject({ _id: 'strip', _status: { code: 200 }, _objects: [{ name: 'Slab Label', _identification: { best_match: { certificate_number: '81234567' } } }] });
  }, 180_000);

  it('tcg_id with a slab option: a label read where no card is found is the record\'s answer, charged as the option is (h136, h137: a 404 /slab_id read), sync and queued', async () => {
    const slab = await renderSlab(psa, { size: 1000 });
    const meta = await sharp(slab).metadata();
    const strip = (await sharp(slab).extract({ left: 0, top: 0, width: meta.width!, height: Math.round(meta.height! * 0.3) }).jpeg().toBuffer()).toString('base64');
    const payer = await h.newAccount(100);
    // without a slab option: no card, as before, and refunded
    const plain = await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _base64: strip }] } });
    expect((plain.json() as { records: Rec[] }).records[0]!._status.code).toBe(404);
    expect(await credits(payer.account)).toBe(100);
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _id: 'strip', _base64: strip }], slab_id: true } });
    expect(res.statusCode, res.body).toBe(200);
    const got = (res.json() as { records: Rec[] }).records[0]!;
    expect(got).toMatchObject({ _id: 'strip', _status: { code: 200, text: 'OK; slab_id: no card was found beside the grading label, which is the answer' }, 'Graded Slab': [{ name: 'yes' }], Category: 'Trading Card Game/Pokemon' });
    expect(got._objects!.map((o) => [o.name, o.id])).toEqual([['Slab Label', 1]]);
    expect(got._objects![0]!._identification.best_match).toMatchObject({ grade: 9, certificate_number: '81234567', card: expect.objectContaining({ id: 'sv3pt5-199' }) });
    // the call and the option's extra, as with a card beside the label
    expect(await credits(payer.account)).toBe(98);
    const graded = await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _base64: strip }], slab_grade: true } });
    expect((graded.json() as { records: Rec[] }).records[0]!._objects![0]!._tags).toMatchObject({ Company: [{ name: 'PSA' }], Grade: [{ name: '9' }] });
    // price_stats: the card the label names priced, its graded sales the label's company and grade (h165: asked, they
    // were left out without a word); slab_grade names no card, and says so
    await fsp.writeFile(path.join(dir, 'strip-prices.csv'), ['card,date,price,currency,grade,company', 'sv3pt5-199,2024-02-10,300,USD,MINT 9,PSA', 'sv3pt5-199,2024-02-11,900,USD,GEM MT 10,PSA', 'sv3pt5-199,2024-02-12,20,USD,,'].join('\n'));
    await (h.app.loupe as unknown as Services).catalogs.importPrices({ catalog: 'pokemon', file: path.join(dir, 'strip-prices.csv') });
    const priced = ((await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _base64: strip }], slab_id: true, price_stats: true } })).json() as { records: Rec[] }).records[0]!;
    const stats = (priced._objects![0]!._identification.best_match as { price_stats?: { stats_type: string; interval: string; value: { min: number; max: number } }[] }).price_stats;
    expect(stats?.find((e) => e.stats_type === 'graded' && e.interval === 'all')?.value, JSON.stringify(priced)).toMatchObject({ min: 300, max: 300 });
    const gradeOnly = ((await h.request('POST', '/collectibles/v2/tcg_id', { token: payer.token, body: { records: [{ _base64: strip }], slab_grade: true, price_stats: true } })).json() as { records: Rec[] }).records[0]!;
    expect(gradeOnly._status.text).toMatch(/price_stats: slab_grade reads the grade alone/);
    // an account that cannot pay for the label is told so, not a bare "no card" (h143)
    const poor = await h.newAccount(1);
    const unpaid = ((await h.request('POST', '/collectibles/v2/tcg_id', { token: poor.token, body: { records: [{ _base64: strip }], slab_id: true } })).json() as { records: Rec[] }).records[0]!;
    expect(unpaid._status).toMatchObject({ code: 404, text: 'No card was found in the image; slab_id: a grading label was found but not read: not enough credits' });
    const queued = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint: 'tcg_id', records: [{ _id: 'strip', _base64: strip, slab_id: true }] } });
    expect(queued.statusCode, queued.body).toBe(201);
    const out = await done(h, (queued.json() as { id: string }).id);
    expect(out.response!.records[0]).toMatchObject({ _id: 'strip', _status: { code: 200 }, _objects: [{ name: 'Slab Label', _identification: { best_match: { certificate_number: '81234567' } } }] });
  }, 180_000);

  it("tcg_id with a slab option: the label answered where no card is found carries the card's Foil/Holo, a hint's (pre-filled) before the label's words before the catalog's (h302: none)", async () => {
    await fsp.writeFile(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await fsp.writeFile(path.join(dir, 'sets.json'), JSON.stringify(sets));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files: { cards: path.join(dir, 'cards.json'), sets: path.join(dir, 'sets.json') } });
    // the label strip of a slab, cut above the card: nothing card-shaped in it
    const strip = async (t: SlabTruth) => {
      const slab = await renderSlab(t, { size: 1000 });
      const meta = await sharp(slab).metadata();
      return (await sharp(slab).extract({ left: 0, top: 0, width: meta.width!, height: Math.round(meta.height! * 0.3) }).jpeg().toBuffer()).toString('base64');
    };
    const nonHolo = await strip({ ...psa, variety: 'NON-HOLO' });
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: nonHolo }, { _base64: await strip(psa) }, { _base64: nonHolo, 'Foil/Holo': 'Foil', Side: 'front', Rotation: 'rotation_ok' }], slab_id: true } });
    expect(res.statusCode, res.body).toBe(200);
    const [non, none, hinted] = (res.json() as { records: Rec[] }).records;
    for (const r of [non, none, hinted]) {
      expect(r!._status.text, JSON.stringify(r)).toMatch(/^OK; slab_id: no card was found beside the grading label, which is the answer/);
      expect(r!._objects!.map((o) => o.name)).toEqual(['Slab Label']);
      // the label names a Special Illustration Rare, foil in every copy by the catalog
      expect(r!._objects![0]!._identification.best_match, JSON.stringify(r)).toMatchObject({ card: expect.objectContaining({ id: 'sv3pt5-199' }) });
    }
    const finishOf = (r: Rec) => r._objects![0]!._tags['Foil/Holo'];
    // the label's NON-HOLO before the catalog's word, with no marker: the server read it
    expect(finishOf(non!), JSON.stringify(non)).toEqual([{ id: 1, name: 'Non-Foil', prob: 1 }]);
    expect(non!._objects![0]!._tags_simple).toContain('Non-Foil');
    // a label printing no finish: the catalog's word
    expect(finishOf(none!), JSON.stringify(none)).toEqual([{ id: 1, name: 'Foil', prob: 1 }]);
    // the client's hint first, as given
    expect(finishOf(hinted!), JSON.stringify(hinted)).toEqual([{ id: 1, name: 'Foil', prob: 1, 'pre-filled': true }]);
    // the other hints a card's object returns, pre-filled, as given (h303: the label answered dropped them)
    expect(hinted!._objects![0]!._tags, JSON.stringify(hinted)).toMatchObject({ Side: [{ id: 1, name: 'front', prob: 1, 'pre-filled': true }], Rotation: [{ id: 1, name: 'rotation_ok', prob: 1, 'pre-filled': true }] });
    expect(hinted!._objects![0]!._tags_simple).toEqual(expect.arrayContaining(['front', 'rotation_ok']));
    expect(non!._objects![0]!._tags).not.toHaveProperty('Side');
  }, 240_000);

  it('runs as the asynchronous type collectibles-recognition: endpoints slab_id and slab_grade, and tcg_id with a record\'s slab_grade', async () => {
    const ids: string[] = [];
    for (const [endpoint, records] of [
      ['slab_id', [{ _id: 'b', _base64: bgs }, { _id: 'r', _base64: raw }]],
      ['/slab_grade', [{ _id: 'b', _base64: bgs }]],
      ['tcg_id', [{ _id: 'b', _base64: bgs, slab_grade: true }]],
    ] as const) {
      const res = await h.request('POST', '/account/v2/request/', { body: { type: 'collectibles-recognition', endpoint, records } });
      expect(res.statusCode, res.body).toBe(201);
      ids.push((res.json() as { id: string }).id);
    }
    const [slabId, slabGrade, tcg] = await Promise.all(ids.map((id) => done(h, id)));
    const [b, r] = slabId!.response!.records;
    expect(b).toMatchObject({ _id: 'b', _status: { code: 200 }, _objects: [{ name: 'Slab Label', _identification: { best_match: { company: 'BGS', grade: 7.5, certificate_number: '0010538585' } } }] });
    expect(r).toMatchObject({ _id: 'r', _status: { code: 404 } });
    expect(slabGrade!.response!.records[0]!._objects![0]!._identification.best_match).toEqual({ company: 'BGS', grade: 7.5, verbal_grade: 'NEAR MINT+', qualifier: null });
    expect(tcg!.response!.records[0]!._objects![0]!._tags).toMatchObject({ Company: [{ name: 'BGS' }], Grade: [{ name: '7.5' }] });
  }, 240_000);
});
