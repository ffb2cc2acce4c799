/**
 * How near duplicates are told (docs/visual-hashes.md "Near duplicates in collections"): the default
 * descriptor's distance (100·(1−cos)) and the `bmh1` bits between each of 518 photos (the Caltech subset
 * and faces_persons of ../shared/datasets) and nine copies of every third one, and between every two
 * distinct photos; then, for each rule, how many copies it finds and how many distinct pairs it joins.
 * `npx tsx scripts/near-duplicate-study.ts` (about 5 minutes on 2 cores).
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { decodeRgb } from '../src/media/decode-rgb.ts';
import { loadEmbedder } from '../src/vision/models/embedding-models.ts';
import { hammingDistance, visualHashes } from '../src/vision/models/visual-hash.ts';

const root = '../shared/datasets';
const files: string[] = [];
for (const cls of fs.readdirSync(`${root}/caltech101_subset`).sort()) {
  const d = `${root}/caltech101_subset/${cls}`;
  if (!fs.statSync(d).isDirectory()) continue;
  for (const f of fs.readdirSync(d).sort()) if (/\.jpe?g$/i.test(f)) files.push(`${d}/${f}`);
}
const fp = `${root}/faces_persons`;
const walk = (d: string): void => { for (const f of fs.readdirSync(d).sort()) { const p = `${d}/${f}`; if (fs.statSync(p).isDirectory()) walk(p); else if (/\.(jpe?g|png)$/i.test(f)) files.push(p); } };
walk(fp);
const e = await loadEmbedder();
const transforms: Record<string, (b: Buffer) => Promise<Buffer>> = {
  jpeg30: (b) => sharp(b).jpeg({ quality: 30 }).toBuffer(),
  resize75: async (b) => { const m = await sharp(b).metadata(); return sharp(b).resize(Math.round(m.width! * 0.75)).jpeg({ quality: 85 }).toBuffer(); },
  resize50: async (b) => { const m = await sharp(b).metadata(); return sharp(b).resize(Math.round(m.width! * 0.5)).jpeg({ quality: 85 }).toBuffer(); },
  thumb160q50: (b) => sharp(b).resize(160, 160, { fit: 'inside' }).jpeg({ quality: 50 }).toBuffer(),
  bright15: (b) => sharp(b).modulate({ brightness: 1.15 }).jpeg({ quality: 90 }).toBuffer(),
  grey: (b) => sharp(b).greyscale().jpeg({ quality: 90 }).toBuffer(),
  crop90: async (b) => { const m = await sharp(b).metadata(); const w = Math.round(m.width! * 0.9), h = Math.round(m.height! * 0.9); return sharp(b).extract({ left: Math.round((m.width! - w) / 2), top: Math.round((m.height! - h) / 2), width: w, height: h }).jpeg({ quality: 90 }).toBuffer(); },
  mirror: (b) => sharp(b).flop().jpeg({ quality: 90 }).toBuffer(),
  webp: (b) => sharp(b).webp({ quality: 75 }).toBuffer(),
};
const N = Number(process.env.N ?? files.length);
const sig = async (b: Buffer) => {
  const small = await decodeRgb(b, 100e6, { maxEdge: 640 });
  const v = await e.embed({ data: small.data, width: small.width, height: small.height });
  // as a collection insert makes it: from the descriptor's own decode (vision-worker.ts `hashOf`)
  return { v, h: visualHashes(small.data, small.width, small.height, 3, ['bmh1']).bmh1! };
};
const dist = (a: Float32Array, b: Float32Array) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!; return 100 * (1 - s); };
const originals: { v: Float32Array; h: string }[] = [];
const copies: Record<string, [number, number][]> = {};
for (const [i, f] of files.slice(0, N).entries()) {
  const b = fs.readFileSync(f);
  const o = await sig(b);
  originals.push(o);
  if (i % 3 !== 0) continue; // copies of every third photo
  for (const [name, t] of Object.entries(transforms)) {
    const c = await sig(await t(b));
    (copies[name] ??= []).push([dist(o.v, c.v), hammingDistance(o.h, c.h)]);
  }
}
const pairs: [number, number][] = [];
for (let i = 0; i < originals.length; i++) for (let j = i + 1; j < originals.length; j++) pairs.push([dist(originals[i]!.v, originals[j]!.v), hammingDistance(originals[i]!.h, originals[j]!.h)]);
console.log(`${originals.length} photos, ${pairs.length} distinct pairs, copies of ${copies.jpeg30!.length}`);
const rules: [string, (e: number, h: number) => boolean][] = [
  ['descriptor ≤ 5 (before)', (e) => e <= 5],
  ['descriptor ≤ 10', (e) => e <= 10],
  ['descriptor ≤ 5 or bmh1 ≤ 16 (shipped)', (e, h) => e <= 5 || h <= 16],
  ['descriptor ≤ 10 or bmh1 ≤ 32 (radius 10)', (e, h) => e <= 10 || h <= 32],
];
for (const [name, rule] of rules) {
  const recall = Object.entries(copies).map(([t, v]) => [t, v.filter(([e, h]) => rule(e, h)).length / v.length] as const);
  const mean = recall.reduce((s, [, r]) => s + r, 0) / recall.length;
  console.log(`| ${name} | ${pairs.filter(([e, h]) => rule(e, h)).length} | ${mean.toFixed(3)} | ${recall.map(([t, r]) => `${t} ${r.toFixed(2)}`).join(', ')} |`);
}
process.exit(0);
