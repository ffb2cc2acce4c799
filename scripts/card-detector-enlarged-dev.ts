/**
 * The card detector on the hand-labelled photos at least 600 px wide (training/card-detector/train-corners.json, train
 * and dev alike), as taken and enlarged (Lanczos, JPEG q92, at most 4,032 px on a side): whether the largest card is
 * outlined and kept by the verifier (0.85) when the card is 2-3 times the size the networks learnt, as in a phone's
 * 12-MP photo (docs/card-detector.md, "Large photos"). Enlarged photos lack a large photo's fine detail: scale alone.
 * Never the validation photos (the bench has its own enlarged row).
 *
 *   K=1,2,3 npx tsx scripts/card-detector-enlarged-dev.ts
 *
 * Env: K (the factors, comma-separated), VERIFIER and DETECTOR (other .onnx files), N (at most this many photos).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { decodeCardPhoto } from '../src/vision/cards/card-tasks.ts';
import type { Quad } from '../src/vision/geometry/plane-geometry.ts';
import { area, sameCard } from '../bench/lib-card-match.ts';
const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const labels = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../training/card-detector/train-corners.json'), 'utf8')).photos as { file: string; cards: { corners: Quad }[] }[];
const det = await CardDetector.load(1, { maxSpread: 0.032, minVerified: 0, ...(process.env.VERIFIER ? { verifier: process.env.VERIFIER } : {}), ...(process.env.DETECTOR ? { detector: process.env.DETECTOR } : {}) });
// the detector runs at 0 so every outline's score is seen; a card counts as kept at the shipped threshold
const MIN_VERIFIED = 0.85;
const MAX_SIDE = 4032;
const factors = (process.env.K ?? '1,2,3').split(',').map(Number);
const limit = Number(process.env.N ?? Infinity);
const tally = new Map(factors.map((k) => [k, { photos: 0, outlined: 0, kept: 0 }]));
let n = 0;
for (const p of labels) {
  const file = path.resolve(datasets, p.file);
  const meta = await sharp(file).metadata();
  if ((meta.width ?? 0) < 600 || !p.cards.length) continue;
  if (n++ >= limit) break;
  const biggest = [...p.cards].sort((a, b) => area(b.corners) - area(a.corners))[0]!;
  const row: string[] = [];
  for (const k of factors) {
    let bytes: Buffer = fs.readFileSync(file);
    let scale = 1;
    if (k !== 1) {
      const w = Math.round(meta.width! * k), h = Math.round(meta.height! * k);
      const out = await sharp(file).resize({ width: Math.min(MAX_SIDE, w), height: Math.min(MAX_SIDE, h), fit: 'inside', kernel: 'lanczos3' }).jpeg({ quality: 92 }).toBuffer({ resolveWithObject: true });
      bytes = out.data;
      scale = out.info.width / meta.width!;
    }
    const img = await decodeCardPhoto(bytes, 50_000_000);
    const found = await det.detect({ data: img.data, width: img.width, height: img.height });
    // back to the labelled photo's pixels
    const sx = img.originalWidth / img.width / scale, sy = img.originalHeight / img.height / scale;
    const t = tally.get(k)!;
    t.photos++;
    const hit = found
      .map((c) => ({ verified: c.verified ?? 1, q: c.quad.map(([x, y]) => [(x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5]) as Quad }))
      .find((f) => sameCard(f.q, biggest.corners));
    if (hit) t.outlined++;
    if (hit && hit.verified >= MIN_VERIFIED) t.kept++;
    row.push(`x${k} ${img.width} px: ${hit ? hit.verified.toFixed(2) : '-'}`);
  }
  console.log(path.basename(p.file).slice(0, 30), row.join(', '));
}
for (const [k, t] of tally) console.log(`x${k}: photos ${t.photos}, largest card outlined ${t.outlined}, kept (verifier >= ${MIN_VERIFIED}) ${t.kept}`);
