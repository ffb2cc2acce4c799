/**
 * Where the `read` task's time goes on listing-size photos, model by model: the card reading of
 * recognition (card-tasks.ts `read`) run in this process, one thread, on the 28 train photos of
 * 310 × 430 px and 20 larger train photos shrunk to 330 px, each onnxruntime run timed and
 * grouped by model (its input and output names) and input size.
 *
 *   npx tsx scripts/read-time-profile.ts            # PASSES=3 by default
 *
 * Prints each pass's p50 / p90 / mean per photo, then per model and input size (the line
 * recogniser's by its height alone): ms a photo, runs a photo, ms a run, mean width. Train photos only (the validation split is the bench's). Times are this
 * machine's and move with what else runs on it: compare two codes in one sitting, in turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { InferenceSession } from 'onnxruntime-node';
import { runCardTask } from '../src/vision/cards/card-tasks.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
interface Photo { file: string; split: string | null; width: number; set?: string }
const photos = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Photo[] }).photos.filter((p) => p.split === 'train' && p.set !== 'slab');
const inputs: Buffer[] = [];
for (const p of photos.filter((q) => q.width === 310)) inputs.push(fs.readFileSync(path.join(datasets, p.file)));
for (const p of photos.filter((q) => q.width >= 600).slice(0, 20)) inputs.push(await sharp(path.join(datasets, p.file)).rotate().resize({ width: 330 }).jpeg({ quality: 80 }).toBuffer());

// every model run timed: onnxruntime-node runs a session after a `setImmediate`, on this thread, so a
// CPU profile shows its time under no caller
const byModel = new Map<string, { ms: number; runs: number; width: number }>();
type Run = (this: InferenceSession, ...args: unknown[]) => Promise<InferenceSession.ReturnType>;
// the factory's type hides the class the sessions are made of
const sessions = InferenceSession as unknown as { prototype: { run: Run } };
const run = sessions.prototype.run;
// Runs asked for at once (the slab-label strips are looked at while the bands are read) queue in
// this one thread: each is timed from when the one before it ended, not from when it was asked for.
let queue: Promise<unknown> = Promise.resolve();
sessions.prototype.run = async function (this: InferenceSession, ...args: unknown[]) {
  const before = queue;
  let done!: () => void;
  queue = new Promise<void>((resolve) => (done = resolve));
  await before;
  const t = performance.now();
  const out = await run.apply(this, args).finally(done);
  const first = Object.values(args[0] as Record<string, { dims?: readonly number[] }>)[0];
  // the line recogniser's input is as wide as its line: grouped by height, its mean width said
  const [height, width] = [first?.dims?.[2] ?? 0, first?.dims?.[3] ?? 0];
  const key = `${this.inputNames.join(',')} → ${this.outputNames.join(',')} ${height === 48 ? '48 high' : `${height}×${width}`}`;
  const e = byModel.get(key) ?? { ms: 0, runs: 0, width: 0 };
  e.ms += performance.now() - t;
  e.runs++;
  e.width += width;
  byModel.set(key, e);
  return out;
};

const passes = Number(process.env.PASSES ?? 3);
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
for (let pass = 0; pass < passes; pass++) {
  const ms: number[] = [];
  for (const bytes of inputs) {
    const t = performance.now();
    const image = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    await runCardTask({ kind: 'card', image, maxPixels: 100e6, op: 'read', options: { names: true } });
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(`pass ${pass + 1}: ${ms.length} photos, p50 ${quantile(ms, 0.5).toFixed(0)} ms, p90 ${quantile(ms, 0.9).toFixed(0)} ms, mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(0)} ms`);
}
const n = inputs.length * passes;
for (const [key, e] of [...byModel].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(`${(e.ms / n).toFixed(1).padStart(7)} ms a photo ${(e.runs / n).toFixed(1).padStart(5)} runs a photo ${(e.ms / e.runs).toFixed(1).padStart(6)} ms a run  ${key}, ${(e.width / e.runs).toFixed(0)} wide on average`);
}
