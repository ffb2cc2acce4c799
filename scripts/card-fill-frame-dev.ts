/**
 * Cards that fill the frame (issue 17: "when the card fills the frame, the outline lands on the art
 * box"): each hand-labelled train photo of one card with its four corners in view, cut to the card's
 * bounding box widened by a margin (a share of the card's short side), is given to the card detector as
 * grading gives it (`refine`, a raw outline on the image's own frame taken for the frame), and its
 * corners are compared with the labels. The same photos at every margin: those whose widest cut lies
 * inside the photo. Train photos only (training/card-detector/train-corners.json), never validation.
 *
 *   npx tsx scripts/card-fill-frame-dev.ts            (MARGINS=0.01,0.03,0.06,0.12 by default)
 *
 * Env: MARGINS (comma-separated), DUMP=1 (each cut with a corner over 2 % off, with its errors).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { decodeCardPhoto, outlineIsFrame } from '../src/vision/cards/card-tasks.ts';
import type { Quad } from '../src/vision/geometry/plane-geometry.ts';
import { cornerErrors, cutAround } from '../bench/lib-card-match.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const labels = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../training/card-detector/train-corners.json'), 'utf8')).photos as { file: string; cards: { corners: Quad; hidden: number[]; kind?: string }[] }[];
const margins = (process.env.MARGINS ?? '0.01,0.03,0.06,0.12').split(',').map(Number);
const det = await CardDetector.load(1);
const widest = Math.max(...margins);

type Row = { within1: number; within2: number; corners: number; none: number; frame: number; errs: number[] };
const rows = new Map<number, Row>(margins.map((m) => [m, { within1: 0, within2: 0, corners: 0, none: 0, frame: 0, errs: [] }]));
let photos = 0;
for (const p of labels) {
  if (p.cards.length !== 1 || p.cards[0]!.hidden.length || (p.cards[0]!.kind && p.cards[0]!.kind !== 'raw')) continue;
  const file = path.resolve(datasets, p.file);
  const meta = await sharp(file).rotate().metadata();
  const W = meta.autoOrient?.width ?? meta.width!;
  const H = meta.autoOrient?.height ?? meta.height!;
  const truth = p.cards[0]!.corners;
  // the same photos at every margin: the widest cut must lie inside the photo
  if (!cutAround(truth, widest, W, H)) continue;
  photos++;
  for (const m of margins) {
    const { left, top, width, height } = cutAround(truth, m, W, H)!;
    const cut = await sharp(file).rotate().extract({ left, top, width, height }).jpeg({ quality: 92 }).toBuffer();
    const img = await decodeCardPhoto(cut, 50_000_000);
    const found = await det.detect({ data: img.data, width: img.width, height: img.height }, 'refine');
    const row = rows.get(m)!;
    row.corners += 4;
    if (!found[0]) {
      row.none++;
      continue;
    }
    let quad = found[0].quad;
    if (found[0].kind === 'raw' && outlineIsFrame(quad, img)) {
      row.frame++;
      quad = [[-0.5, -0.5], [img.width - 0.5, -0.5], [img.width - 0.5, img.height - 0.5], [-0.5, img.height - 0.5]];
    }
    const sx = img.originalWidth / img.width;
    const sy = img.originalHeight / img.height;
    const inPhoto = quad.map(([x, y]) => [(x + 0.5) * sx - 0.5 + left, (y + 0.5) * sy - 0.5 + top]) as Quad;
    const errs = cornerErrors(inPhoto, truth);
    row.errs.push(...errs);
    row.within1 += errs.filter((e) => e <= 1).length;
    row.within2 += errs.filter((e) => e <= 2).length;
    if (process.env.DUMP && Math.max(...errs) > 2) console.log(`  margin ${m} ${p.file} ${errs.map((e) => e.toFixed(1)).join(' ')}`);
  }
}
console.log(`${photos} train photos of one card, all four corners in view, cut to the card with a margin (share of its short side):`);
console.log('| margin | corners ≤ 1 % | ≤ 2 % | median error | no card | outline on the cut\'s frame |');
console.log('|---|---|---|---|---|---|');
for (const m of margins) {
  const r = rows.get(m)!;
  const sorted = [...r.errs].sort((a, b) => a - b);
  const pct = (n: number) => `${Math.round((100 * n) / r.corners)} %`;
  console.log(`| ${m} | ${pct(r.within1)} | ${pct(r.within2)} | ${(sorted[Math.floor(sorted.length / 2)] ?? NaN).toFixed(2)} % | ${r.none} | ${r.frame} |`);
}
