/**
 * The same card graded at full and at half resolution, on the train split's real photos of 720 px
 * or more (single-card photos of real_card_photos): how far each measure moves. What grading's
 * choices of scale are looked at and set on; never the slabs (the bench's, `npm run bench --
 * card-detector`, "same slab at full and half resolution").
 *
 *   npx tsx scripts/grading-scale-dev.ts
 *
 * Env: LIMIT (photos to look at, in file order); CUT (a share of the card's short side, e.g. 0.03: the
 * second grade is of the photo cut to the labelled card's bounding box widened by it, at full size, a
 * card filling the frame as a shop's tight crop shows it, in place of the half-size photo; photos whose cut
 * would leave the photo are skipped).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { gradesOf } from '../src/services/grading-rules.ts';
import { runCardTask } from '../src/vision/cards/card-tasks.ts';
import type { Quad } from '../src/vision/geometry/plane-geometry.ts';
import { cutAround } from '../bench/lib-card-match.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const labels = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../training/card-detector/train-corners.json'), 'utf8')).photos as { file: string; cards: { corners: Quad; hidden: number[] }[] }[];
const cut = process.env.CUT === undefined ? null : Number(process.env.CUT);
/** The photo cut to its labelled card widened by `m` of the card's short side; null where that leaves the photo. */
async function cutTo(bytes: Buffer, corners: Quad, m: number, width: number, height: number): Promise<Buffer | null> {
  const region = cutAround(corners, m, width, height);
  return region && sharp(bytes).rotate().extract(region).jpeg({ quality: 92 }).toBuffer();
}
const photos = labels.filter((p) => p.cards.length === 1).slice(0, Number(process.env.LIMIT ?? Infinity));
const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
interface Graded { final: number; centering: number | null; corners: number; edges: number; surface: number; width: number }
async function graded(bytes: Buffer): Promise<Graded | null> {
  const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'grade', options: { noImageOutput: true } });
  if ('refused' in r || !r.found || !r.wear || !r.surface) return null;
  const g = gradesOf({ corners: r.wear.corners.map((c) => c.grade), edges: r.wear.edges.map((e) => e.grade), surface: r.surface.grade, centering: r.centering?.grade ?? null });
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const q = r.quad!;
  return { final: g.final, centering: r.centering?.grade ?? null, corners: mean(r.wear.corners.map((c) => c.grade)), edges: mean(r.wear.edges.map((e) => e.grade)), surface: r.surface.grade, width: Math.hypot(q[1][0] - q[0][0], q[1][1] - q[0][1]) };
}
const rows: { file: string; full: Graded; half: Graded }[] = [];
for (const p of photos) {
  const bytes = fs.readFileSync(path.join(datasets, p.file));
  const meta = await sharp(bytes).metadata();
  if (Math.max(meta.width!, meta.height!) < 720) continue;
  const full = await graded(bytes);
  // the labels are in the photo's pixels as shown (its EXIF orientation applied; no train photo has one today)
  const shown = { width: meta.autoOrient?.width ?? meta.width!, height: meta.autoOrient?.height ?? meta.height! };
  const other = cut === null ? await sharp(bytes).resize(Math.round(meta.width! / 2)).jpeg({ quality: 92 }).toBuffer() : p.cards[0]!.hidden.length ? null : await cutTo(bytes, p.cards[0]!.corners, cut, shown.width, shown.height);
  if (!other) continue;
  const half = full && (await graded(other));
  if (!full || !half) continue;
  rows.push({ file: path.basename(p.file).slice(0, 24), full, half });
  const f = (g: Graded) => `${g.final.toFixed(1)} (c ${g.centering?.toFixed(1) ?? '-'} k ${g.corners.toFixed(1)} e ${g.edges.toFixed(1)} s ${g.surface.toFixed(1)}; ${Math.round(g.width)} px)`;
  console.log(`${rows.at(-1)!.file} full ${f(full)} half ${f(half)} shift ${Math.abs(full.final - half.final).toFixed(2)}`);
}
const shifts = rows.map((r) => Math.abs(r.full.final - r.half.final)).sort((a, b) => a - b);
const med = (v: number[]) => v[Math.floor(v.length / 2)] ?? 0;
const moved = (k: 'corners' | 'edges' | 'surface') => med(rows.map((r) => Math.abs(r.full[k] - r.half[k])).sort((a, b) => a - b)).toFixed(2);
console.log(`\n${rows.length} photos graded ${cut === null ? 'at both sizes' : `as taken and cut to the card with a margin of ${cut}`}: final within 0.5 in ${shifts.filter((d) => d <= 0.5).length}, median shift ${med(shifts).toFixed(2)}; median shift of corners ${moved('corners')}, edges ${moved('edges')}, surface ${moved('surface')}; centering measured at both ${rows.filter((r) => r.full.centering !== null && r.half.centering !== null).length}, at one only ${rows.filter((r) => (r.full.centering === null) !== (r.half.centering === null)).length}`);
