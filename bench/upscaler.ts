/**
 * Upscaler quality and speed (issue 6): real photos are cut to a 192-px square, shrunk by the
 * factor (sharp, area average), then enlarged back by ESRGAN slim and by plain Lanczos3 (the
 * baseline, same run). PSNR and SSIM are measured on luma against the original square.
 *
 *   npm run bench -- upscaler        # BENCH_PHOTOS=12 for more photos
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { loadUpscaler, type UpscaleFactor } from '../src/vision/models/super-resolution.ts';

const datasets = path.resolve(import.meta.dirname, '../../shared/datasets');
const count = Number(process.env.BENCH_PHOTOS ?? 8);
const SIDE = 192;

function photos(): string[] {
  const out: string[] = [];
  for (const dir of ['near_duplicates_ukbench', 'caltech101_subset', 'faces_persons']) {
    const root = path.join(datasets, dir);
    if (!fs.existsSync(root)) continue;
    const files = fs.readdirSync(root, { recursive: true }).map(String).filter((f) => /\.jpe?g$/i.test(f) && !/_(gray|hflip|resize|crop|rot|blur|corrupt)/.test(f)).sort();
    // Spread over the folder rather than the first few of one class.
    for (let i = 0; i < files.length && out.length < count; i += Math.max(1, Math.floor(files.length / 4))) out.push(path.join(root, files[i]!));
  }
  return out.slice(0, count);
}

/** Luma (BT.601) of 8-bit RGB. */
function luma(rgb: Buffer): Float64Array {
  const y = new Float64Array(rgb.length / 3);
  for (let i = 0; i < y.length; i++) y[i] = 0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!;
  return y;
}

function psnr(a: Float64Array, b: Float64Array): number {
  let se = 0;
  for (let i = 0; i < a.length; i++) se += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (se / a.length));
}

/** Mean SSIM over 8×8 windows with stride 4 (Wang et al. constants). */
function ssim(a: Float64Array, b: Float64Array, w: number, h: number): number {
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let sum = 0;
  let n = 0;
  for (let y = 0; y + 8 <= h; y += 4) {
    for (let x = 0; x + 8 <= w; x += 4) {
      let ma = 0, mb = 0;
      for (let j = 0; j < 8; j++) for (let i = 0; i < 8; i++) { ma += a[(y + j) * w + x + i]!; mb += b[(y + j) * w + x + i]!; }
      ma /= 64; mb /= 64;
      let va = 0, vb = 0, cov = 0;
      for (let j = 0; j < 8; j++) for (let i = 0; i < 8; i++) {
        const da = a[(y + j) * w + x + i]! - ma, db = b[(y + j) * w + x + i]! - mb;
        va += da * da; vb += db * db; cov += da * db;
      }
      va /= 63; vb /= 63; cov /= 63;
      sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      n++;
    }
  }
  return sum / n;
}

const list = photos();
console.log(`# upscaler bench — ${new Date().toISOString().slice(0, 10)}, ${list.length} photos, ${SIDE}-px squares\n`);
console.log('| factor | ESRGAN slim PSNR / SSIM | Lanczos3 PSNR / SSIM | ESRGAN ms per output MP | Lanczos ms per output MP |');
console.log('|---|---|---|---|---|');
for (const factor of [2, 4] as UpscaleFactor[]) {
  const up = await loadUpscaler(factor);
  const acc = { ep: 0, es: 0, lp: 0, ls: 0, et: 0, lt: 0 };
  for (const file of list) {
    const original = await sharp(file).rotate().resize(SIDE, SIDE, { fit: 'cover' }).removeAlpha().toColourspace('srgb').raw().toBuffer();
    const small = await sharp(original, { raw: { width: SIDE, height: SIDE, channels: 3 } }).resize(SIDE / factor, SIDE / factor, { kernel: 'cubic' }).raw().toBuffer();
    let t = performance.now();
    const sr = await up.upscale({ data: new Uint8Array(small), width: SIDE / factor, height: SIDE / factor });
    acc.et += performance.now() - t;
    t = performance.now();
    const lz = await sharp(small, { raw: { width: SIDE / factor, height: SIDE / factor, channels: 3 } }).resize(SIDE, SIDE, { kernel: 'lanczos3' }).raw().toBuffer();
    acc.lt += performance.now() - t;
    const yo = luma(original);
    const ye = luma(Buffer.from(sr.data));
    const yl = luma(lz);
    acc.ep += psnr(yo, ye); acc.es += ssim(yo, ye, SIDE, SIDE);
    acc.lp += psnr(yo, yl); acc.ls += ssim(yo, yl, SIDE, SIDE);
  }
  const n = list.length;
  const mp = (n * SIDE * SIDE) / 1e6;
  console.log(`| ${factor}× | ${(acc.ep / n).toFixed(2)} dB / ${(acc.es / n).toFixed(3)} | ${(acc.lp / n).toFixed(2)} dB / ${(acc.ls / n).toFixed(3)} | ${(acc.et / mp).toFixed(0)} | ${(acc.lt / mp).toFixed(0)} |`);
  up.dispose();
}
