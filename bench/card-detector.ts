/**
 * The card detector (issue 17) with its corner refiner, on real photos first, generated scenes
 * beside; the detector's first version (edge fit or outline search) and the classical outline
 * search of issue 7 as columns of the same run:
 *  - corner error (% of the card's width) on real single-card photos whose corners were labelled
 *    by eye from zoomed crops (test/fixtures/card-detector/real-corners.json; the photos are the
 *    validation split of ../shared/datasets/real_card_photos, never trained on, and the graded
 *    slabs), share within 1 % and 2 %;
 *  - cards found / missed / extra on the multi-card photos (labelled corners, and the boxes of the
 *    real_card_photos validation split's video stills);
 *  - "no card" false positives on the Caltech-101 photos;
 *  - slab vs raw on the slabs; Loupe's final grade against the label's (Spearman);
 *  - detection time per 12-MP photo, against decoding it, in the same run.
 *
 *   npm run bench -- card-detector          # BENCH_GENERATED=N generated scenes (60 by default)
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { gradesOf } from '../src/services/grading-rules.ts';
import { seededRandom } from '../src/util/seeded-random.ts';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { loadCv, locateCard, type Quad } from '../src/vision/cards/card-geometry.ts';
import { decodeCardPhoto, runCardTask } from '../src/vision/cards/card-tasks.ts';
import { loadOcrReader } from '../src/vision/models/ocr-reader.ts';
import { findSlabLabel } from '../src/vision/cards/slab-label.ts';
import { makeScene } from '../test/helpers/card-scenes.ts';
import { photoOptions } from './lib-card-scenes.ts';
import { median } from './lib-server.ts';
import { cornerErrors, sameCard, shortSide, widthOf } from './lib-card-match.ts';

interface LabelledCard {
  corners: Quad;
  kind: 'raw' | 'holder' | 'slab';
  hidden?: number[];
  confidence?: string;
  grade?: string;
}
interface LabelledPhoto {
  file: string;
  set: 'single' | 'multi' | 'slab' | 'none';
  cards: LabelledCard[];
}

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
if (!fs.existsSync(datasets)) {
  console.log('../shared/datasets is not here: the card-detector bench needs the real photos.');
  process.exit(0);
}
const labels = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/card-detector/real-corners.json'), 'utf8')) as { photos: LabelledPhoto[] };
const { cv } = await loadCv();
const detector = await CardDetector.load(1);
const ocr = await loadOcrReader({ threads: 1 });
const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]! : NaN);
const share = (xs: number[], limit: number, of = xs.length) => `${((100 * xs.filter((e) => e <= limit).length) / Math.max(1, of)).toFixed(0)} %`;
type Method = 'detector' | 'search' | 'classical';
const METHODS = ['detector', 'search', 'classical'] as const;
const empty = <T,>(f: () => T): Record<Method, T> => ({ detector: f(), search: f(), classical: f() });
async function locate(method: Method, bytes: Buffer): Promise<{ quads: Quad[]; kinds: string[]; ms: number; scale: [number, number] }> {
  const img = await decodeCardPhoto(bytes, 100e6);
  const pixels = { data: img.data, width: img.width, height: img.height };
  const sx = img.originalWidth / img.width;
  const sy = img.originalHeight / img.height;
  let t0 = performance.now();
  let quads: Quad[];
  let kinds: string[];
  if (method !== 'classical') {
    const found = await detector.detect(pixels, method === 'detector' ? 'refine' : 'search');
    quads = found.map((c) => c.quad);
    kinds = found.map((c) => c.kind);
    // grading's rule (card-tasks.ts): the measured card is a slab's when the strip beside it reads as a label; outside the detection time
    const t1 = performance.now();
    if (found[0] && kinds[0] !== 'slab' && (await findSlabLabel(ocr, pixels, found[0].quad))) kinds[0] = 'slab';
    labelMs.push(performance.now() - t1);
    t0 += performance.now() - t1;
  } else {
    const found = locateCard(cv, pixels);
    quads = found ? [found.quad] : [];
    kinds = quads.map(() => 'raw');
  }
  const ms = performance.now() - t0;
  const toStored = (q: Quad) => q.map(([x, y]) => [(x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5]) as Quad;
  return { quads: quads.map(toStored), kinds, ms, scale: [sx, sy] };
}

const labelMs: number[] = [];
/** Raw against held (sleeve, top-loader, pocket) on the real photos, by the labels' kind: the detector's matched cards. */
const heldTally = { single: { held: 0, heldSaid: 0, raw: 0, rawSaid: 0 }, multi: { held: 0, heldSaid: 0, raw: 0, rawSaid: 0 } };
const tallyHeld = (set: 'single' | 'multi', truthKind: string, said: string | undefined) => {
  if (truthKind === 'slab' || said === undefined) return;
  const t = heldTally[set];
  if (truthKind === 'raw') {
    t.raw++;
    if (said !== 'raw') t.rawSaid++;
  } else {
    t.held++;
    if (said !== 'raw') t.heldSaid++;
  }
};
const rows: string[] = [];
const row = (measure: string, detectorValue: string, searchValue: string, classicalValue: string, target = '') => rows.push(`| ${measure} | ${detectorValue} | ${searchValue} | ${classicalValue} | ${target} |`);

// ---------------------------------------------------------------- real single-card photos and slabs
for (const set of ['single', 'slab'] as const) {
  const photos = labels.photos.filter((p) => p.set === set && p.cards.length >= 1);
  const result = empty(() => ({ errs: [] as number[], missed: 0, kindOk: 0 }));
  for (const photo of photos) {
    const bytes = fs.readFileSync(path.join(datasets, photo.file));
    const truth = [...photo.cards].sort((a, b) => widthOf(b.corners) * shortSide(b.corners) - widthOf(a.corners) * shortSide(a.corners))[0]!;
    for (const method of METHODS) {
      const r = await locate(method, bytes);
      const hidden = new Set(truth.hidden ?? []);
      if (!r.quads[0]) {
        result[method].missed++;
        result[method].errs.push(...truth.corners.filter((_, k) => !hidden.has(k)).map(() => Infinity));
        continue;
      }
      const errs = cornerErrors(r.quads[0], truth.corners).filter((_, k) => !hidden.has(k));
      result[method].errs.push(...errs);
      if ((r.kinds[0] === 'slab') === (truth.kind === 'slab')) result[method].kindOk++;
      if (method === 'detector' && set === 'single') tallyHeld('single', truth.kind, r.kinds[0]);
    }
  }
  const name = set === 'single' ? `real single-card photos (${photos.length})` : `graded slabs, the card inside (${photos.length})`;
  const fmt = (m: Method) => {
    const e = result[m].errs;
    const finite = e.filter(Number.isFinite);
    return `≤ 1 %: ${share(e, 1)}, ≤ 2 %: ${share(e, 2)}; p50 ${median(finite).toFixed(2)} %, p90 ${pct(e, 0.9).toFixed(2)} %; no card: ${result[m].missed}`;
  };
  row(`${name}: corners`, fmt('detector'), fmt('search'), fmt('classical'), set === 'single' ? '≥ 90 % within 1 %, ≥ 98 % within 2 %' : '');
  if (set === 'slab') row('slab told from raw, slabs (the detector column reads the label, as grading does)', `${result.detector.kindOk} of ${photos.length}`, `${result.search.kindOk} of ${photos.length}`, 'n/a');
  else {
    const found = (m: Method) => photos.length - result[m].missed;
    row('raw single cards taken for a slab (of those found)', `${found('detector') - result.detector.kindOk} of ${found('detector')}`, `${found('search') - result.search.kindOk} of ${found('search')}`, 'n/a');
  }
}

// ---------------------------------------------------------------- the same photos as a phone's large photo
{
  // The real photos here are at most 960 px on their long side; a phone's 12-MP photo, decoded, shows a close-up card
  // 800-1,500 px wide. Enlarged (Lanczos) to a long edge of 2,000 px they lack a large photo's fine detail, so this
  // row measures scale alone: the networks learnt cards 150-700 px wide (docs/card-detector.md, "Large photos").
  const photos = labels.photos.filter((p) => p.set === 'single' && p.cards.length >= 1);
  const errs: number[] = [];
  let missed = 0;
  for (const photo of photos) {
    const file = path.join(datasets, photo.file);
    const meta = await sharp(file).metadata();
    const k = 2000 / Math.max(meta.width!, meta.height!);
    const bytes = await sharp(file).resize(Math.round(meta.width! * k), Math.round(meta.height! * k), { kernel: 'lanczos3' }).jpeg({ quality: 92 }).toBuffer();
    const truth = [...photo.cards].sort((a, b) => widthOf(b.corners) * shortSide(b.corners) - widthOf(a.corners) * shortSide(a.corners))[0]!;
    const hidden = new Set(truth.hidden ?? []);
    const r = await locate('detector', bytes);
    if (!r.quads[0]) {
      missed++;
      errs.push(...truth.corners.filter((_, i) => !hidden.has(i)).map(() => Infinity));
      continue;
    }
    const enlarged = truth.corners.map(([x, y]) => [(x + 0.5) * k - 0.5, (y + 0.5) * k - 0.5]) as Quad;
    errs.push(...cornerErrors(r.quads[0], enlarged).filter((_, i) => !hidden.has(i)));
  }
  row(`real single-card photos enlarged to 2,000 px (${photos.length}; scale alone)`, `≤ 1 %: ${share(errs, 1)}, ≤ 2 %: ${share(errs, 2)}; no card: ${missed}`, 'not run', 'not run', '');
}

// ---------------------------------------------------------------- centering on real designs
{
  // How often grading can measure centering on a real card it found (the issue: about one in six).
  const photos = labels.photos.filter((p) => p.set === 'single');
  let found = 0;
  let measured = 0;
  const why = new Map<string, number>();
  for (const photo of photos) {
    const r = await runCardTask({ kind: 'card', image: ab(fs.readFileSync(path.join(datasets, photo.file))), maxPixels: 100e6, op: 'centering', options: { noImageOutput: true } });
    if ('refused' in r || !r.found) continue;
    found++;
    if (r.centering) measured++;
    else {
      const reason = /not straight/.test(r.centeringUnmeasurable ?? '') ? 'inner edge not straight' : /no uniform/.test(r.centeringUnmeasurable ?? '') ? 'no uniform border' : 'other';
      why.set(reason, (why.get(reason) ?? 0) + 1);
    }
  }
  row(`centering measured on real single-card photos with a card found (${found} of ${photos.length})`, `${measured} of ${found}; not measured: ${[...why].map(([k, v]) => `${k} ${v}`).join(', ')}`, '', '', '');
}

// ---------------------------------------------------------------- multi-card photos
{
  const photos = labels.photos.filter((p) => p.set === 'multi');
  const count = empty(() => ({ found: 0, missed: 0, extra: 0, ms: [] as number[] }));
  let cards = 0;
  for (const photo of photos) {
    const bytes = fs.readFileSync(path.join(datasets, photo.file));
    cards += photo.cards.length;
    for (const method of METHODS) {
      const r = await locate(method, bytes);
      count[method].ms.push(r.ms);
      const used = new Set<number>();
      for (const t of photo.cards) {
        const k = r.quads.findIndex((q, i) => !used.has(i) && sameCard(q, t.corners));
        if (k >= 0) {
          used.add(k);
          count[method].found++;
          if (method === 'detector') tallyHeld('multi', t.kind, r.kinds[k]);
        } else count[method].missed++;
      }
      count[method].extra += r.quads.length - used.size;
    }
  }
  // the detector looks at tiles of a photo where it finds several cards: its time on these photos
  const fmt = (m: Method) => `found ${count[m].found}, missed ${count[m].missed}, extra ${count[m].extra}; detection ${median(count[m].ms).toFixed(0)} ms a photo (median)`;
  row(`multi-card photos (${photos.length} photos, ${cards} cards)`, fmt('detector'), fmt('search'), fmt('classical'), '');
  const t = (k: 'single' | 'multi') => heldTally[k];
  const all = { held: t('single').held + t('multi').held, heldSaid: t('single').heldSaid + t('multi').heldSaid, raw: t('single').raw + t('multi').raw, rawSaid: t('single').rawSaid + t('multi').rawSaid };
  const balanced = (x: typeof all) => (x.heldSaid / Math.max(1, x.held) + (x.raw - x.rawSaid) / Math.max(1, x.raw)) / 2;
  row(
    'in a sleeve or top-loader, or bare (cards found on the real single and multi-card photos, kinds labelled by eye)',
    `single: held ${t('single').heldSaid} of ${t('single').held} called held, bare ${t('single').rawSaid} of ${t('single').raw} called held; multi: held ${t('multi').heldSaid} of ${t('multi').held}, bare ${t('multi').rawSaid} of ${t('multi').raw}; balanced accuracy ${balanced(all).toFixed(2)}`,
    '',
    'n/a',
    '',
  );
}

// Video stills with many small cards (box labels; a card counts as found when a quad's box overlaps its box by IoU ≥ 0.5).
{
  const manifest = JSON.parse(fs.readFileSync(path.join(datasets, 'real_card_photos/manifest.json'), 'utf8')) as { files: { file: string; split: string; labels: { cards: { box: number[] }[] } }[] };
  const stills = manifest.files.filter((f) => f.split === 'val' && f.file.startsWith('brunodf05'));
  let found = 0;
  let boxes = 0;
  let extra = 0;
  for (const f of stills) {
    const r = await locate('detector', fs.readFileSync(path.join(datasets, 'real_card_photos', f.file)));
    const qb = r.quads.map((q) => [Math.min(...q.map((p) => p[0])), Math.min(...q.map((p) => p[1])), Math.max(...q.map((p) => p[0])), Math.max(...q.map((p) => p[1]))]);
    const used = new Set<number>();
    for (const c of f.labels.cards) {
      boxes++;
      const k = qb.findIndex((b, i) => !used.has(i) && iou(b, c.box) >= 0.5);
      if (k >= 0) {
        used.add(k);
        found++;
      }
    }
    extra += qb.length - used.size;
  }
  row(`video stills, many small cards (${stills.length} stills, ${boxes} boxed cards; labels incomplete)`, `found ${found} (${((100 * found) / Math.max(1, boxes)).toFixed(0)} %), unmatched detections ${extra}`, 'the same cards', 'not run', '');
}

function iou(a: number[], b: number[]): number {
  const ix = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!));
  const iy = Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
  const inter = ix * iy;
  return inter / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter);
}

// ---------------------------------------------------------------- no card: Caltech photos and the labelled negatives
{
  const root = path.join(datasets, 'caltech101_subset');
  const files = fs.readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.jpg')).sort();
  const fp = empty(() => 0);
  for (const f of files) {
    const bytes = fs.readFileSync(path.join(root, f));
    for (const method of METHODS) if ((await locate(method, bytes)).quads.length) fp[method]++;
  }
  const fmt = (m: Method) => `${fp[m]} of ${files.length} (${((100 * fp[m]) / files.length).toFixed(1)} %)`;
  row('"card" found in photos with no card (Caltech-101)', fmt('detector'), fmt('search'), fmt('classical'), '≤ 1 %');
  const negatives = labels.photos.filter((p) => p.set === 'none');
  const nfp = empty(() => 0);
  for (const p of negatives) {
    const bytes = fs.readFileSync(path.join(datasets, p.file));
    for (const method of METHODS) if ((await locate(method, bytes)).quads.length) nfp[method]++;
  }
  row(`"card" found in card-shop photos with no card (${negatives.length}: booster packs, deck box)`, `${nfp.detector} of ${negatives.length}`, `${nfp.search} of ${negatives.length}`, `${nfp.classical} of ${negatives.length}`, '');
}

// ---------------------------------------------------------------- generated scenes (issue 7's generator, not the training one)
{
  const n = Number(process.env.BENCH_GENERATED ?? 60);
  const rand = seededRandom(171);
  const caltech = path.join(datasets, 'caltech101_subset');
  const backgrounds = fs.readdirSync(caltech, { recursive: true }).map(String).filter((f) => f.endsWith('.jpg')).sort();
  const faces = ['pokemon_sv151_reference/images', 'mtg_gatherer_reference/cards'].flatMap((d) => fs.readdirSync(path.join(datasets, d)).sort().map((f) => path.join(datasets, d, f)));
  const errs = empty(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    const spec = i % 2 ? { width: 630, height: 880, margins: [0, 0, 0, 0] as [number, number, number, number], border: [0, 0, 0] as [number, number, number], face: fs.readFileSync(faces[(i * 13) % faces.length]!) } : { width: 630, height: 880, margins: [30, 24, 34, 28] as [number, number, number, number], border: [[240, 205, 40], [235, 235, 235], [40, 60, 140]][i % 3] as [number, number, number] };
    const scene = await makeScene(spec, 9100 + i, {
      ...photoOptions(rand, fs.readFileSync(path.join(caltech, backgrounds[(i * 7) % backgrounds.length]!))),
      ...(i % 5 === 4 ? { holder: i % 10 === 4 ? ('sleeve' as const) : ('toploader' as const) } : {}),
    });
    const jpeg = await sharp(Buffer.from(scene.image.data), { raw: { width: scene.image.width, height: scene.image.height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    for (const method of METHODS) {
      const r = await locate(method, jpeg);
      errs[method].push(...(r.quads[0] ? cornerErrors(r.quads[0], scene.quad) : [Infinity, Infinity, Infinity, Infinity]));
    }
  }
  const fmt = (m: Method) => `≤ 1 %: ${share(errs[m], 1)}, ≤ 2 %: ${share(errs[m], 2)}; p50 ${median(errs[m].filter(Number.isFinite)).toFixed(2)} %`;
  row(`generated scenes (${n}, issue 7's generator on Caltech backgrounds): corners`, fmt('detector'), fmt('search'), fmt('classical'), '');
}

// ---------------------------------------------------------------- grades on slabs against their labels
{
  const photos = labels.photos.filter((p) => p.set === 'slab' && p.cards[0]?.grade);
  const pairs: [number, number][] = [];
  const shifts: number[] = [];
  const finalOf = async (bytes: Buffer): Promise<number | null> => {
    const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'grade', options: { noImageOutput: true } });
    if ('refused' in r || !r.found || !r.wear || !r.surface) return null;
    return gradesOf({ corners: r.wear.corners.map((c) => c.grade), edges: r.wear.edges.map((e) => e.grade), surface: r.surface.grade, centering: r.centering?.grade ?? null }).final;
  };
  for (const photo of photos) {
    const bytes = fs.readFileSync(path.join(datasets, photo.file));
    const full = await finalOf(bytes);
    if (full === null) continue;
    pairs.push([full, Number(photo.cards[0]!.grade)]);
    // The same slab at half the resolution, as a second scan or a smaller phone photo gives it.
    const meta = await sharp(bytes).metadata();
    const half = await finalOf(await sharp(bytes).resize(Math.round(meta.width! / 2)).jpeg({ quality: 92 }).toBuffer());
    if (half !== null) shifts.push(Math.abs(full - half));
  }
  row(`Loupe's final grade vs the slab label's grade (${pairs.length} slabs graded of ${photos.length})`, `Spearman ${spearman(pairs).toFixed(2)}; mean grade ${(pairs.reduce((s, p) => s + p[0], 0) / Math.max(1, pairs.length)).toFixed(1)} vs label ${(pairs.reduce((s, p) => s + p[1], 0) / Math.max(1, pairs.length)).toFixed(1)}`, '', '(issue: −0.29 before)', '');
  row('same slab at full and half resolution: final grade difference', `median ${median(shifts).toFixed(2)}, max ${Math.max(...shifts).toFixed(2)}; within 0.5 in ${shifts.filter((d) => d <= 0.5).length} of ${shifts.length}`, '', '', '≤ 0.5');
}

// ---------------------------------------------------------------- the same card at two resolutions (official scans)
{
  // Every tenth SV151 reference scan on a dark page, as a flatbed scan gives it, graded at full and half resolution.
  const dir = path.join(datasets, 'pokemon_sv151_reference/images');
  const files = fs.readdirSync(dir).sort().filter((_, i) => i % 10 === 3);
  const shifts: number[] = [];
  for (const file of files) {
    const card = await sharp(path.join(dir, file)).toBuffer();
    const meta = await sharp(card).metadata();
    const scan = await sharp({ create: { width: meta.width! + 167, height: meta.height! + 226, channels: 3, background: { r: 25, g: 28, b: 32 } } }).composite([{ input: card, left: 84, top: 113 }]).jpeg({ quality: 92 }).toBuffer();
    const grade = async (bytes: Buffer) => {
      const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'grade', options: { noImageOutput: true } });
      if ('refused' in r || !r.found || !r.wear || !r.surface) return null;
      return gradesOf({ corners: r.wear.corners.map((c) => c.grade), edges: r.wear.edges.map((e) => e.grade), surface: r.surface.grade, centering: r.centering?.grade ?? null }).final;
    };
    const full = await grade(scan);
    const half = await grade(await sharp(scan).resize(Math.round((meta.width! + 167) / 2)).jpeg({ quality: 92 }).toBuffer());
    if (full !== null && half !== null) shifts.push(Math.abs(full - half));
  }
  row(`same official scan (SV151, ${files.length}) at full and half resolution: final grade difference`, `median ${median(shifts).toFixed(2)}, max ${Math.max(...shifts).toFixed(2)}; within 0.5 in ${shifts.filter((d) => d <= 0.5).length} of ${shifts.length}`, '', '', '≤ 0.5');
}

// ---------------------------------------------------------------- official scans cropped to the card (no margin)
{
  // As a seller's flatbed crop or a catalog scan comes: the card's edges are the image's. Centering
  // of the same scans on a dark page (above) is the reference; `skip-location` gives the frame itself.
  const dir = path.join(datasets, 'pokemon_sv151_reference/images');
  const files = fs.readdirSync(dir).sort().filter((_, i) => i % 10 === 3);
  let onFrame = 0;
  const apart: number[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(dir, file));
    const located = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'centering', options: { noImageOutput: true } });
    const given = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'centering', options: { noImageOutput: true, skipLocation: true } });
    if ('refused' in located || 'refused' in given || !located.found || !located.quad) continue;
    if (located.quad.every(([x, y], i) => Math.hypot(x - [-0.5, located.width - 0.5][i === 1 || i === 2 ? 1 : 0]!, y - [-0.5, located.height - 0.5][i >= 2 ? 1 : 0]!) <= 1)) onFrame++;
    const top = (r: typeof located) => (r.centering ? Number(r.centering.topBottom.split('/')[0]) : null);
    const [a, b] = [top(located), top(given)];
    if (a !== null && b !== null) apart.push(Math.abs(a - b));
  }
  row(`official scan cropped to its card (SV151, ${files.length}): outline on the image's frame; centering top share vs skip-location`, `${onFrame} of ${files.length}; apart median ${median(apart).toFixed(1)}, max ${Math.max(...apart).toFixed(1)} points (${apart.length} measured)`, '', '', '');
}

function spearman(pairs: [number, number][]): number {
  const rank = (xs: number[]) => {
    const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(xs.length);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
      for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const a = rank(pairs.map((p) => p[0]));
  const b = rank(pairs.map((p) => p[1]));
  const ma = a.reduce((s, x) => s + x, 0) / a.length;
  const mb = b.reduce((s, x) => s + x, 0) / b.length;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i]! - ma) * (b[i]! - mb);
    da += (a[i]! - ma) ** 2;
    db += (b[i]! - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

// ---------------------------------------------------------------- time per 12-MP photo
{
  // A photo whose card is found: with no card the detector stops after the network and would look fast.
  let big: Buffer = Buffer.alloc(0);
  for (const p of labels.photos.filter((p) => p.set === 'single')) {
    big = await sharp(path.join(datasets, p.file)).resize(3000, 4000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    if ((await locate('detector', big)).quads.length) break;
  }
  const decodeMs: number[] = [];
  const ms = empty(() => [] as number[]);
  labelMs.length = 0;
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    await decodeCardPhoto(big, 100e6);
    decodeMs.push(performance.now() - t0);
    for (const method of METHODS) ms[method].push((await locate(method, big)).ms);
  }
  row('time per 12-MP photo with a card found (median of 8; decode alone ' + median(decodeMs).toFixed(0) + ' ms)', `${median(ms.detector).toFixed(0)} ms`, `${median(ms.search).toFixed(0)} ms`, `${median(ms.classical).toFixed(0)} ms`, '≤ 150 ms');
  row('reading the strips beside the measured card for a slab label (grading, not detection; same photo)', `${median(labelMs).toFixed(0)} ms`, '', '', '');
}

console.log(`# card-detector bench — ${new Date().toISOString().slice(0, 10)}\n`);
console.log('| measure | detector + corner refiner | detector, first version (edge fit or search) | classical outline search (issue 7) | target |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
