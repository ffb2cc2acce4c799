/**
 * Which way up grading measures a card (rule s34 (a), /work/runs/prereg.txt): the train split's
 * single-card real photos of 720 px or more (never the validation split, never the slabs), each as
 * is and turned over in its pixels. Counts the photos whose card grading turned over.
 *
 *   npx tsx scripts/grading-way-up-dev.ts
 *
 * Env: LIMIT (photos, in file order).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { runCardTask } from '../src/vision/cards/card-tasks.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const labels = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../training/card-detector/train-corners.json'), 'utf8')).photos as { file: string; cards: unknown[] }[];
const photos = labels.filter((p) => p.cards.length === 1);
const limit = Number(process.env.LIMIT ?? Infinity);
const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
async function turned(bytes: Buffer): Promise<boolean | null> {
  const r = await runCardTask({ kind: 'card', image: ab(bytes), maxPixels: 100e6, op: 'centering', options: { noImageOutput: true } });
  if ('refused' in r || !r.found || r.unfit) return null;
  return r.turnedOver === true;
}
let n = 0;
const asIs = { turned: 0, kept: 0, none: 0 };
const over = { turned: 0, kept: 0, none: 0 };
const tally = (t: typeof asIs, v: boolean | null) => (v === null ? t.none++ : v ? t.turned++ : t.kept++);
for (const p of photos) {
  const bytes = fs.readFileSync(path.join(datasets, p.file));
  const meta = await sharp(bytes).metadata();
  if (Math.max(meta.width!, meta.height!) < 720) continue;
  if (n++ >= limit) break;
  const a = await turned(bytes);
  const b = await turned(await sharp(bytes).rotate(180).jpeg({ quality: 92 }).toBuffer());
  tally(asIs, a);
  tally(over, b);
  console.log(`${path.basename(p.file).slice(0, 40)} as is ${a === null ? '-' : a ? 'TURNED' : 'kept'} | turned 180: ${b === null ? '-' : b ? 'turned back' : 'kept'}`);
}
console.log(`\n${n} photos. As is: turned over ${asIs.turned}, kept ${asIs.kept}, no card ${asIs.none}. Turned 180 in pixels: turned back ${over.turned}, kept ${over.kept}, no card ${over.none}.`);
