/**
 * The same card graded from files of one photo as phones and apps write them: re-encoded at JPEG
 * quality 60, shrunk to half, turned a quarter (pixels turned, the card upright to grading either
 * way), on the train split's single-card real photos of 720 px or more (never the validation split,
 * never the slabs). How far the final grade and the surface measure move from the photo's own
 * file: what grading's robustness to encoding is looked at and set on.
 *
 *   npx tsx scripts/grading-variants-dev.ts
 *
 * Env: LIMIT (photos of 720 px or more, in file order), OFFSET (such photos skipped first).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { gradesOf } from '../src/services/grading-rules.ts';
import { runCardTask } from '../src/vision/cards/card-tasks.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const labels = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../training/card-detector/train-corners.json'), 'utf8')).photos as { file: string; cards: unknown[] }[];
const photos = labels.filter((p) => p.cards.length === 1);
const limit = Number(process.env.LIMIT ?? Infinity);
const offset = Number(process.env.OFFSET ?? 0);
let seen = 0;
const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
interface Graded { final: number; surface: number; creases: number; lines: number }
async function graded(bytes: Buffer): Promise<Graded | null> {
  const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'grade', options: { noImageOutput: true } });
  if ('refused' in r || !r.found || !r.wear || !r.surface) return null;
  const g = gradesOf({ corners: r.wear.corners.map((c) => c.grade), edges: r.wear.edges.map((e) => e.grade), surface: r.surface.grade, centering: r.centering?.grade ?? null });
  return { final: g.final, surface: r.surface.grade, creases: r.surface.creases, lines: r.surface.lines };
}
const variants: Record<string, (b: Buffer, w: number) => Promise<Buffer>> = {
  q60: (b) => sharp(b).jpeg({ quality: 60 }).toBuffer(),
  half: (b, w) => sharp(b).resize(Math.round(w / 2)).jpeg({ quality: 92 }).toBuffer(),
  turned: (b) => sharp(b).rotate(90).jpeg({ quality: 92 }).toBuffer(),
};
const shifts: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
const surfaceShifts: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
const originals: number[] = [];
for (const p of photos) {
  const bytes = fs.readFileSync(path.join(datasets, p.file));
  const meta = await sharp(bytes).metadata();
  if (Math.max(meta.width!, meta.height!) < 720) continue;
  if (seen++ < offset) continue;
  if (seen > offset + limit) break;
  const own = await graded(bytes);
  if (!own) continue;
  originals.push(own.surface);
  const line = [`${path.basename(p.file).slice(0, 20)} own ${own.final.toFixed(1)} s ${own.surface.toFixed(1)}`];
  for (const [name, make] of Object.entries(variants)) {
    const g = await graded(await make(bytes, meta.width!));
    if (!g) {
      line.push(`${name} -`);
      continue;
    }
    shifts[name]!.push(Math.abs(g.final - own.final));
    surfaceShifts[name]!.push(Math.abs(g.surface - own.surface));
    line.push(`${name} ${g.final.toFixed(1)} s ${g.surface.toFixed(1)}`);
  }
  console.log(line.join(' | '));
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? 0;
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
console.log(`\n${originals.length} photos; own surface mean ${mean(originals).toFixed(2)}, at 10: ${originals.filter((s) => s >= 10).length}`);
for (const name of Object.keys(variants)) {
  const s = shifts[name]!;
  console.log(`${name}: final within 0.5 in ${s.filter((d) => d <= 0.5).length} of ${s.length}, mean shift ${mean(s).toFixed(2)}, median ${med(s).toFixed(2)}; surface mean shift ${mean(surfaceShifts[name]!).toFixed(2)}`);
}
