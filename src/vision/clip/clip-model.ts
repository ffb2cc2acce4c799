import path from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { Tensor } from 'onnxruntime-node';
import sharp from 'sharp';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { openTower, readPackManifest, textFeeds, type PackImageSpec, type PackManifest } from './clip-pack.ts';
import { ClipTokenizer } from './clip-tokenizer.ts';

/** L2-normalised in place; a zero vector stays zero (it has no direction to compare). */
function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/**
 * CLIP's image preprocessing: bicubic resize of the short side to `size`, centre crop, rescale,
 * per-channel normalisation, planar (NCHW) float32. sharp's `cubic` kernel is Catmull-Rom, the
 * kernel of PIL's BICUBIC that transformers uses.
 */
export async function clipPixels(img: RgbPixels, spec: PackImageSpec): Promise<Float32Array> {
  const { width, height, data } = img;
  if (!(width > 0 && height > 0) || data.length !== width * height * 3) throw new Error(`expected ${width}×${height} RGB pixels (${width * height * 3} bytes), got ${data.length} bytes`);
  const { crop } = spec;
  let resized = sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: 3 } });
  if (spec.resize === 'exact') {
    resized = resized.resize(crop, crop, { fit: 'fill', kernel: 'cubic' });
  } else {
    // As transformers computes it: the long side truncated, not rounded.
    const scale = spec.size / Math.min(width, height);
    const w = width <= height ? spec.size : Math.floor(width * scale);
    const h = width <= height ? Math.floor(height * scale) : spec.size;
    resized = resized.resize(w, h, { fit: 'fill', kernel: 'cubic' }).extract({ left: Math.floor((w - crop) / 2), top: Math.floor((h - crop) / 2), width: crop, height: crop });
  }
  const { data: rgb, info } = await resized.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 || info.width !== crop || info.height !== crop) throw new Error(`image preprocessing produced ${info.width}×${info.height}×${info.channels}, expected ${crop}×${crop}×3`);
  const plane = crop * crop;
  const out = new Float32Array(3 * plane);
  for (let c = 0; c < 3; c++) {
    const scale = spec.rescale / spec.std[c]!;
    const shift = spec.mean[c]! / spec.std[c]!;
    for (let p = 0; p < plane; p++) out[c * plane + p] = rgb[p * 3 + c]! * scale - shift;
  }
  return out;
}

/**
 * An installed CLIP pack loaded in one vision worker: image and text embeddings in the same
 * space, both L2-normalised, so their dot product is the cosine similarity.
 */
export class ClipModel {
  private constructor(
    readonly manifest: PackManifest,
    private readonly vision: InferenceSession,
    private readonly text: InferenceSession,
    private readonly tokenizer: ClipTokenizer,
  ) {}

  get name(): string {
    return this.manifest.name;
  }

  get dim(): number {
    return this.manifest.dimension;
  }

  /** Same fingerprint, same vector space (see PackManifest.fingerprint). */
  get fingerprint(): string {
    return this.manifest.fingerprint;
  }

  /** Loads an installed pack (`<dataDir>/models/<name>`, e.g. `activePack(dataDir).dir`). */
  static async load(packDir: string): Promise<ClipModel> {
    const manifest = await readPackManifest(packDir);
    const tokenizer = await ClipTokenizer.load(path.join(packDir, manifest.files.tokenizer.path), { contextLength: manifest.text.context_length });
    const vision = await openTower(path.join(packDir, manifest.files.vision.path));
    const text = await openTower(path.join(packDir, manifest.files.text.path)).catch(async (err: unknown) => {
      await vision.release();
      throw err;
    });
    return new ClipModel(manifest, vision, text, tokenizer);
  }

  async embedImage(img: RgbPixels): Promise<Float32Array> {
    const { crop } = this.manifest.image;
    const pixels = new Tensor('float32', await clipPixels(img, this.manifest.image), [1, 3, crop, crop]);
    const out = await this.vision.run({ pixel_values: pixels }, ['image_embeds']);
    return normalise(Float32Array.from(out.image_embeds!.data as Float32Array));
  }

  async embedText(text: string): Promise<Float32Array> {
    const out = await this.text.run(textFeeds(this.manifest.text, this.tokenizer.encode(text)), ['text_embeds']);
    return normalise(Float32Array.from(out.text_embeds!.data as Float32Array));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.vision.release(), this.text.release()]);
  }
}
