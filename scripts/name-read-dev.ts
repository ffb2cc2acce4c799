/**
 * How often the printed name is read from a card's top band, on the train split's photos shrunk to a
 * listing photo's size (and those small already), under variants of the band's preparation: what
 * a second reading of the name band was chosen on (docs/recognition.md, "Tried and not kept": a
 * contrast-stretched second read). Never the validation photos. `sure` says whether the first read
 * gave a line of four letters at 0.97 or more.
 *
 *   npx tsx scripts/name-read-dev.ts     # VARIANTS=base,norm to run some; VERBOSE=1 photo by photo
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { CardDetector } from '../src/vision/cards/card-detector.ts';
import { decodeCardPhoto } from '../src/vision/cards/card-tasks.ts';
import { loadCv, warpCardParts } from '../src/vision/cards/card-geometry.ts';
import { portrait } from '../src/vision/cards/card-verifier.ts';
import { loadOcrReader } from '../src/vision/models/ocr-reader.ts';
import { normalizeName } from '../src/catalog/card-keys.ts';
import { nameLikeness } from '../src/services/recognition/identify.ts';
import type { RgbPixels } from '../src/vision/engine/tfjs-runtime.ts';

interface Photo { file: string; split: string | null; width: number; printed_name?: string; catalog_id: string | null }
const photos = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/recognition/real-identities.json'), 'utf8')) as { photos: Photo[] }).photos.filter((p) => p.split === 'train' && p.printed_name);
const det = await CardDetector.load(1);
const ocr = await loadOcrReader({ threads: 1 });
const { cv } = await loadCv();

async function sharpen(img: RgbPixels, sigma: number): Promise<RgbPixels> {
  const { data, info } = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).sharpen({ sigma }).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}
async function normalise(img: RgbPixels): Promise<RgbPixels> {
  const { data, info } = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).normalise().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}
const variants: Record<string, (cardQuad: Parameters<typeof portrait>[0], img: RgbPixels) => Promise<RgbPixels>> = {
  base: async (q, img) => warpCardParts(cv, img, portrait(q), [{ width: 1000, y0: 0, y1: 0.14 }])[0]!,
  w700: async (q, img) => warpCardParts(cv, img, portrait(q), [{ width: 700, y0: 0, y1: 0.14 }])[0]!,
  w1400: async (q, img) => warpCardParts(cv, img, portrait(q), [{ width: 1400, y0: 0, y1: 0.14 }])[0]!,
  sharp1: async (q, img) => sharpen(warpCardParts(cv, img, portrait(q), [{ width: 1000, y0: 0, y1: 0.14 }])[0]!, 1.5),
  norm: async (q, img) => normalise(warpCardParts(cv, img, portrait(q), [{ width: 1000, y0: 0, y1: 0.14 }])[0]!),
};
const only = process.env.VARIANTS?.split(',');
const names = Object.keys(variants).filter((v) => !only || only.includes(v));
const hits: Record<string, number> = Object.fromEntries(names.map((v) => [v, 0]));
let union = 0;
let n = 0;
for (const p of photos) {
  let bytes: Buffer = fs.readFileSync(path.join('/work/shared/datasets', p.file));
  if (p.width >= 600) bytes = await sharp(bytes).rotate().resize({ width: 400 }).jpeg({ quality: 80 }).toBuffer();
  const img = await decodeCardPhoto(bytes, 50_000_000);
  const [found] = await det.detect(img, 'refine', { secondLook: false }); // as recognition's read before it took the second look (2026-11-29)
  if (!found) continue;
  n++;
  const want = normalizeName(p.printed_name!);
  const got: string[] = [];
  for (const v of names) {
    const lines = await ocr.read(await variants[v]!(found.quad, img));
    if (v === 'base') got.push(`sure ${lines.some((l) => l.prob >= 0.97 && /[A-Za-zÀ-ÿ]{4,}/.test(l.text)) ? 1 : 0}`);
    const best = Math.max(0, ...lines.map((l) => nameLikeness(normalizeName(l.text), want)));
    if (best >= 0.8) hits[v]!++;
    got.push(`${v} ${best.toFixed(2)}`);
  }
  if (got.some((g) => !g.startsWith('sure') && Number(g.split(' ')[1]) >= 0.8)) union++;
  if (process.env.VERBOSE) console.log(path.basename(p.file).slice(0, 24), want, got.join(' | '));
}
console.log(`${n} cards (train, at most 400 px wide): name read (likeness >= 0.8) ${names.map((v) => `${v} ${hits[v]}`).join(', ')}; any variant ${union}`);
