/**
 * `npm run bench -- recognition`: `/collectibles/v2/tcg_id` through the real server process
 * (SQLite), against the full Pokémon and MTG catalogs of ../shared/catalogs, on real photos and on
 * generated photos of the reference scans, first by text alone (no reference images attached),
 * then with the reference scans attached (text and artwork fused), in the same run.
 *
 * Real photos: those of ../shared/datasets/real_card_photos whose identity was labelled by eye in
 * test/fixtures/recognition/real-identities.json. Validation first: the rules of identification
 * were set on the train split only.
 *
 * Generated photos: each of the 207 SV151 and 22 MTG reference scans printed into one scene
 * (tilt, perspective, light, blur, noise, a Caltech photo behind, a sleeve on one in five). The
 * designs are split by a hash of their id into quarters: two to tune on, one held out (its
 * cards in the catalog), one out of the catalog (its SV151 cards removed from the Pokémon
 * catalog, with their references): those must get no best match. Artwork alone (the nearest
 * reference by the artwork hash; by a MobileNetV2 embedding of the art box) is computed in this
 * process on the same detector outline (or the whole image when no card is found and the image
 * is about a card's shape, as the read op does), for comparison.
 *
 * Counted per photo of a card in the catalog: identified right, wrong (another card), no match,
 * and whether the right card is among the best match and the alternatives; per photo of a card
 * not in the catalog: whether a best match was given (it should not be). Time per request, one
 * at a time, with the first call after start apart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loupeCli } from '../test/helpers/processes.ts';
import { cardDetector, decodeCardPhoto } from '../src/vision/cards/card-tasks.ts';
import { aspectError, loadCv, warpCard, type Quad } from '../src/vision/cards/card-geometry.ts';
import { portrait } from '../src/vision/cards/card-verifier.ts';
import { artBox, artDistance, artworkHash, hashWords, turnedOver } from '../src/vision/recognition/card-artwork.ts';
import { loadEmbedder } from '../src/vision/models/embedding-models.ts';
import { artScore, MIN_LEAD, MIN_SCORE } from '../src/services/recognition/identify.ts';
import { generatedScenes, referenceDesigns } from './lib-recognition-designs.ts';
import { startServer } from './lib-server.ts';
import { openStore } from '../src/store/database.ts';
import { CatalogStore } from '../src/store/catalog-store.ts';
import { normalizeName } from '../src/catalog/card-keys.ts';

const shared = path.resolve(import.meta.dirname, '../../shared');
const datasets = path.join(shared, 'datasets');
const catalogs = path.join(shared, 'catalogs');
if (!fs.existsSync(path.join(catalogs, 'pokemon/cards.json')) || !fs.existsSync(path.join(datasets, 'real_card_photos'))) {
  console.log('recognition bench: ../shared/catalogs/pokemon and ../shared/datasets/real_card_photos are needed; skipped.');
  process.exit(0);
}

interface Identity {
  file: string;
  split: 'train' | 'val' | null;
  width: number;
  set?: string;
  in_catalog: boolean;
  catalog_id: string | null;
  catalog_name?: string;
}
const identities = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Identity[] }).photos.filter((p) => p.set !== 'slab' && p.split);

// ---------------------------------------------------------------- the reference designs and their quarters
const designs = referenceDesigns(datasets);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-recognition-bench-'));
const removed = new Set(designs.filter((d) => d.kind === 'pokemon' && d.quarter === 'out').map((d) => d.id));
const removedCount = removed.size;
/** The MTG catalog keys its cards by Scryfall id; the bench knows them by multiverse id, resolved after import. */
const mtgKeyOf = new Map<string, string>();
/** Each design's catalog name, for the top-1 name. */
const designNames = new Map<string, string>();

// The Pokémon catalog without the out quarter's cards; references for the rest.
const cardsFile = path.join(work, 'cards.json');
const pokemonCards = JSON.parse(fs.readFileSync(path.join(catalogs, 'pokemon/cards.json'), 'utf8')) as { id: string; name: string }[];
for (const c of pokemonCards) if (designs.some((d) => d.id === c.id)) designNames.set(c.id, c.name);
fs.writeFileSync(cardsFile, JSON.stringify(pokemonCards.filter((c) => !removed.has(c.id))));
fs.mkdirSync(path.join(work, 'sv151-refs'));
for (const d of designs) if (d.kind === 'pokemon' && !removed.has(d.id)) fs.copyFileSync(d.file, path.join(work, 'sv151-refs', `${d.id}.jpg`));

// ---------------------------------------------------------------- generated photos
const scenes = await generatedScenes(designs, datasets);

// ---------------------------------------------------------------- artwork alone, in this process
const { cv } = await loadCv();
const detector = await cardDetector();
const embedder = await loadEmbedder();
type Px = { data: Uint8Array; width: number; height: number };
const wholeQuad = (p: Px): Quad => [[-0.5, -0.5], [p.width - 0.5, -0.5], [p.width - 0.5, p.height - 0.5], [-0.5, p.height - 0.5]];
let references: { id: string; words: Uint32Array; vector: Float32Array }[] = [];
for (const d of designs) {
  if (removed.has(d.id)) continue;
  const img = await decodeCardPhoto(fs.readFileSync(d.file), 100e6);
  const up = warpCard(cv, img, wholeQuad(img), 500);
  references.push({ id: d.id, words: hashWords(artworkHash(up)), vector: await embedder.embed(artBox(up)) });
}
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);
/** Nearest reference by hash (a match when its score alone would make one) and by embedding (always the nearest). */
async function artworkAlone(jpeg: Buffer): Promise<{ found: boolean; hash: string | null; embedding: string | null }> {
  const img = await decodeCardPhoto(jpeg, 100e6);
  // as the read op did before it took the second look (2026-11-29): with no card found, an image of about a card's shape is read whole
  const quad = (await detector.detect(img, 'refine', { secondLook: false }))[0]?.quad ?? (aspectError(wholeQuad(img)) <= 0.1 ? wholeQuad(img) : null);
  if (!quad) return { found: false, hash: null, embedding: null };
  const up = warpCard(cv, img, portrait(quad), 1000);
  const hashes = [hashWords(artworkHash(up)), hashWords(artworkHash(turnedOver(up)))];
  const byHash = references.map((r) => ({ id: r.id, d: Math.min(...hashes.map((h) => artDistance(h, r.words))) })).sort((a, b) => a.d - b.d);
  const [a, b] = byHash;
  const hashMatch = a && artScore(a.d) >= MIN_SCORE && (!b || artScore(a.d) - artScore(b.d) >= MIN_LEAD) ? a.id : null;
  const vectors = [await embedder.embed(artBox(up)), await embedder.embed(artBox(turnedOver(up)))];
  const byEmbedding = references.map((r) => ({ id: r.id, s: Math.max(...vectors.map((v) => dot(v, r.vector))) })).sort((x, y) => y.s - x.s);
  return { found: true, hash: hashMatch, embedding: byEmbedding[0]?.id ?? null };
}

// ---------------------------------------------------------------- the server
// the server's own default warm-up (every model and the card detector), as `npm start` runs it: the first call below is a user's first scan
const server = await startServer('sqlite', { LOUPE_FILE_ROOT: datasets, LOUPE_VISION_WARM: 'all' });
const cli = (...args: string[]) => loupeCli({ ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: '' }, ...args);
type Best = { id: string; name?: string } | null;
type Answer = { _status: { code: number }; _objects?: { _ocr?: { full_text: string }; _identification: { best_match: Best; alternatives: { id: string }[]; distances: number[] } }[] };
const call = async (record: Record<string, string>) => {
  const t = performance.now();
  const res = await fetch(`${server.url}/collectibles/v2/tcg_id`, { method: 'POST', headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: [record] }) });
  const body = (await res.json()) as { records?: Answer[] };
  return { ms: performance.now() - t, record: body.records?.[0] };
};

interface Tally {
  photos: number;
  inCatalog: number;
  right: number;
  /** Best matches naming the card (its name, whichever printing): the top-1 name. */
  nameRight: number;
  wrong: number;
  /** Of the wrong ones, those naming another card (the rest are another printing of the card's name). */
  wrongCard: number;
  none: number;
  listed: number;
  notIn: number;
  notInMatched: number;
  noCard: number;
  large: { n: number; right: number };
  small: { n: number; right: number };
  ms: number[];
}
const newTally = (): Tally => ({ photos: 0, inCatalog: 0, right: 0, nameRight: 0, wrong: 0, wrongCard: 0, none: 0, listed: 0, notIn: 0, notInMatched: 0, noCard: 0, large: { n: 0, right: 0 }, small: { n: 0, right: 0 }, ms: [] });
/** Each wrong match on stderr (what was photographed, what was matched, at what distance), to look at. */
function wrongMatch(label: string, truth: string | null, best: NonNullable<Best>, obj: NonNullable<Answer['_objects']>[number]) {
  const d = obj._identification.distances[0];
  process.stderr.write(`recognition bench: ${label}: ${truth ?? 'not in catalog'} matched ${best.id} (${best.name ?? ''}) at ${d}; read: ${JSON.stringify(obj._ocr?.full_text ?? '')}\n`);
}

function count(t: Tally, truth: string | null, record: Answer | undefined, width: number, label = '', truthName?: string) {
  t.photos++;
  const obj = record?._objects?.[0];
  if (!obj) t.noCard++;
  const best = obj?._identification.best_match ?? null;
  if (best && best.id !== truth) wrongMatch(label, truth, best, obj!);
  if (truth === null) {
    t.notIn++;
    if (best) t.notInMatched++;
    return;
  }
  t.inCatalog++;
  const size = width >= 600 ? t.large : t.small;
  size.n++;
  const sameName = !!best?.name && !!truthName && normalizeName(best.name) === normalizeName(truthName);
  if (sameName) t.nameRight++;
  if (!best) t.none++;
  else if (best.id === truth) {
    t.right++;
    size.right++;
  } else {
    t.wrong++;
    if (!sameName) t.wrongCard++;
  }
  if (best?.id === truth || obj?._identification.alternatives.some((a) => a.id === truth)) t.listed++;
}
const pct = (a: number, b: number) => `${a} of ${b} (${b ? Math.round((100 * a) / b) : 0} %)`;
const q = (ms: number[], f: number) => {
  const s = [...ms].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * f))] ?? 0);
};
const realRow = (label: string, t: Tally) =>
  `| ${label} | ${t.photos} | ${pct(t.right, t.inCatalog)} | ${pct(t.nameRight, t.inCatalog)} | ${t.wrongCard} / ${t.wrong - t.wrongCard} | ${t.none} | ${pct(t.listed, t.inCatalog)} | ${pct(t.large.right, t.large.n)} / ${pct(t.small.right, t.small.n)} | ${t.notIn - t.notInMatched} of ${t.notIn} | ${t.noCard} | ${q(t.ms, 0.5)} / ${q(t.ms, 0.9)} ms |`;
const genRow = (label: string, held: Tally, out: Tally) =>
  `| ${label} | ${pct(held.right, held.inCatalog)} | ${pct(held.nameRight, held.inCatalog)} | ${held.wrongCard} / ${held.wrong - held.wrongCard} | ${held.none} | ${pct(held.listed, held.inCatalog)} | ${pct(out.notIn - out.notInMatched, out.notIn)} | ${held.noCard + out.noCard} of ${held.photos + out.photos} | ${q([...held.ms, ...out.ms], 0.5)} ms |`;

try {
  const t0 = performance.now();
  await cli('catalog', 'import', '--kind', 'pokemon', '--cards', cardsFile, '--sets', path.join(catalogs, 'pokemon/sets.json'));
  await cli('catalog', 'import', '--kind', 'mtg', '--cards', path.join(catalogs, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(catalogs, 'mtg/mtgjson_sets.json'));
  const importS = (performance.now() - t0) / 1000;
  {
    const store = await openStore({ dataDir: server.dataDir });
    const catalogStore = new CatalogStore(store);
    const catalog = (await catalogStore.get('mtg'))!;
    for (const d of designs.filter((x) => x.kind === 'mtg')) {
      const found = await catalogStore.cardsByIdentifier(catalog.id, d.id);
      if (found.length === 1) {
        mtgKeyOf.set(d.id, found[0]!.key);
        designNames.set(d.id, found[0]!.name);
      }
      // a scan of a card the catalog lacks (2 of 22) is out of the catalog, and no reference
      else d.quarter = 'out';
    }
    await store.close();
    references = references.filter((r) => designs.some((d) => d.id === r.id && d.quarter !== 'out'));
  }

  let first: number | undefined;
  const realTruth = (p: Identity) => (p.in_catalog && p.catalog_id && !removed.has(p.catalog_id) ? p.catalog_id : null);
  const passes: Record<'text' | 'fused', { real: Record<'val' | 'train', Tally>; tune: Tally; held: Tally; out: Tally }> = {
    text: { real: { val: newTally(), train: newTally() }, tune: newTally(), held: newTally(), out: newTally() },
    fused: { real: { val: newTally(), train: newTally() }, tune: newTally(), held: newTally(), out: newTally() },
  };
  let attachS = 0;
  for (const pass of ['text', 'fused'] as const) {
    if (pass === 'fused') {
      const t = performance.now();
      await cli('catalog', 'images', '--catalog', 'pokemon', '--dir', path.join(work, 'sv151-refs'));
      await cli('catalog', 'images', '--catalog', 'mtg', '--dir', path.join(datasets, 'mtg_gatherer_reference/cards'));
      attachS = (performance.now() - t) / 1000;
    }
    const p = passes[pass];
    for (const split of ['val', 'train'] as const) {
      for (const photo of identities.filter((x) => x.split === split)) {
        const { ms, record } = await call({ _file: photo.file });
        if (first === undefined) first = ms;
        else p.real[split].ms.push(ms);
        count(p.real[split], realTruth(photo), record, photo.width, `${pass} ${split} ${path.basename(photo.file).slice(0, 24)}`, photo.catalog_name);
      }
    }
    for (const s of scenes) {
      const { ms, record } = await call({ _base64: s.jpeg.toString('base64') });
      const t = s.design.quarter === 'out' ? p.out : s.design.quarter === 'tune' ? p.tune : p.held;
      t.ms.push(ms);
      count(t, s.design.quarter === 'out' ? null : s.design.kind === 'mtg' ? (mtgKeyOf.get(s.design.id) ?? null) : s.design.id, record, 1600, `${pass} generated ${s.design.quarter} ${s.design.id}`, designNames.get(s.design.id));
    }
  }

  // artwork alone on the same photos
  const alone = { hash: { right: 0, wrong: 0, outMatched: 0 }, embedding: { right: 0 }, held: 0, out: 0, noCard: 0 };
  for (const s of scenes.filter((x) => x.design.quarter !== 'tune')) {
    const a = await artworkAlone(s.jpeg);
    if (!a.found) alone.noCard++;
    if (s.design.quarter === 'out') {
      alone.out++;
      if (a.hash) alone.hash.outMatched++;
      continue;
    }
    alone.held++;
    if (a.hash === s.design.id) alone.hash.right++;
    else if (a.hash) alone.hash.wrong++;
    if (a.embedding === s.design.id) alone.embedding.right++;
  }
  const realAlone = { n: 0, right: 0, others: 0, othersMatched: 0 };
  for (const photo of identities.filter((x) => x.split === 'val')) {
    const a = await artworkAlone(fs.readFileSync(path.join(datasets, photo.file)));
    const truth = realTruth(photo);
    if (truth && references.some((r) => r.id === truth)) {
      realAlone.n++;
      if (a.hash === truth) realAlone.right++;
    } else {
      realAlone.others++;
      if (a.hash) realAlone.othersMatched++;
    }
  }

  console.log(`# recognition bench — ${new Date().toISOString().slice(0, 10)}

/collectibles/v2/tcg_id through the server process (SQLite), full Pokémon catalog less ${removedCount} SV151 cards held out of it, and the full MTG catalog (imports ${importS.toFixed(1)} s; references attached in ${attachS.toFixed(1)} s), one request at a time.

## Real photos (labelled by eye)

| split, method | photos | cards in catalog identified right | best match names the card (top-1 name, target >= 95 %) | wrong: another card / another printing of its name | no match | right card among best + alternatives | right, photos >= 600 px / 310x430 px | not in catalog: no best match (target >= 90 %) | no card found | time per photo p50 / p90 (target <= 300 ms) |
|---|---|---|---|---|---|---|---|---|---|---|
${realRow('**validation**, text only', passes.text.real.val)}
${realRow('**validation**, text + artwork', passes.fused.real.val)}
${realRow('train, text only', passes.text.real.train)}
${realRow('train, text + artwork', passes.fused.real.train)}

First call after start (the server's default warm-up, \`LOUPE_VISION_WARM=all\`, done before it): ${Math.round(first ?? 0)} ms.
Artwork alone on the validation photos: ${realAlone.right} of ${realAlone.n} whose card has a reference identified; ${realAlone.othersMatched} of ${realAlone.others} whose card has none given a match.

## Generated photos of the reference scans (${scenes.length} designs; ${scenes.filter((s) => s.design.quarter === 'held-out').length} held out in the catalog, ${scenes.filter((s) => s.design.quarter === 'out').length} out of it)

| method | held-out designs identified right | top-1 name | wrong: another card / another printing of its name | no match | right card among best + alternatives | out of catalog: no best match | no card found | time p50 |
|---|---|---|---|---|---|---|---|---|
${genRow('text only', passes.text.held, passes.text.out)}
${genRow('text + artwork (fused)', passes.fused.held, passes.fused.out)}
| artwork alone: hash, match when its score alone makes one | ${pct(alone.hash.right, alone.held)} | | ${alone.hash.wrong} | ${alone.held - alone.hash.right - alone.hash.wrong} | | ${pct(alone.out - alone.hash.outMatched, alone.out)} | ${alone.noCard} of ${alone.held + alone.out} | |
| artwork alone: MobileNetV2 embedding of the art box, nearest | ${pct(alone.embedding.right, alone.held)} | | ${alone.held - alone.embedding.right} | 0 | | 0 of ${alone.out} (always answers) | ${alone.noCard} of ${alone.held + alone.out} | |

Designs to tune on (${scenes.filter((s) => s.design.quarter === 'tune').length}, all in the catalog): text only ${pct(passes.text.tune.right, passes.text.tune.inCatalog)} right, ${passes.text.tune.wrongCard} / ${passes.text.tune.wrong - passes.text.tune.wrongCard} wrong (another card / printing); text + artwork ${pct(passes.fused.tune.right, passes.fused.tune.inCatalog)} right, ${passes.fused.tune.wrongCard} / ${passes.fused.tune.wrong - passes.fused.tune.wrongCard} wrong.`);
} finally {
  await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
