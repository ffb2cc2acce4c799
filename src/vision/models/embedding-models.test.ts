import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { photoBytes } from '../../../test/helpers/photos.ts';
import { decodeRgb } from '../../media/decode-rgb.ts';
import { defaultEmbedder, loadEmbedder, type Embedder } from './embedding-models.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

// A product photo, a mirrored and a resized copy made on the spot, and two unrelated photos.
const photos: Record<string, () => Promise<Buffer>> = {
  original: async () => photoBytes('caltech101/watch/image_0001.jpg'),
  mirrored: () => sharp(photoBytes('caltech101/watch/image_0001.jpg')).flop().jpeg({ quality: 90 }).toBuffer(),
  resized: () => sharp(photoBytes('caltech101/watch/image_0001.jpg')).resize({ width: 150 }).jpeg({ quality: 80 }).toBuffer(),
  pyramid: async () => photoBytes('caltech101/pyramid/image_0001.jpg'),
  leopard: async () => photoBytes('caltech101/Leopards/image_0001.jpg'),
};

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const load = async (f: string) => decodeRgb(await photos[f]!(), 100e6, { maxEdge: 640 });

describe(`default embedder (${defaultEmbedder}) on real photos`, () => {
  let e: Embedder;
  const img: Record<string, RgbPixels> = {};
  const vec: Record<string, Float32Array> = {};

  beforeAll(async () => {
    e = await loadEmbedder();
    for (const f of Object.keys(photos)) {
      img[f] = await load(f);
      vec[f] = await e.embed(img[f]);
    }
  }, 20_000);
  afterAll(() => e?.dispose());

  it('names its vector space and gives unit-length vectors of its dimension', () => {
    expect(e.name).toBe('mobilenet_v2_mid-nsfwjs-4.4.0/feature_vector');
    expect(e.dim).toBe(1792);
    for (const v of Object.values(vec)) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(e.dim);
      expect(Math.sqrt(cos(v, v))).toBeCloseTo(1, 4);
      expect(v.every(Number.isFinite)).toBe(true);
    }
  });

  it('a mirrored and a resized copy are closer to the original than unrelated photos are', () => {
    const o = vec.original!;
    const unrelated = Math.max(cos(o, vec.pyramid!), cos(o, vec.leopard!));
    expect(cos(o, vec.mirrored!)).toBeGreaterThan(unrelated + 0.2);
    expect(cos(o, vec.resized!)).toBeGreaterThan(unrelated + 0.2);
  });

  it('is deterministic and does not leak tensors', async () => {
    const { tfjs } = await import('../engine/tfjs-runtime.ts');
    const tf = await tfjs();
    const before = tf.memory().numTensors;
    const again = await e.embed(img.original!);
    expect(tf.memory().numTensors).toBe(before);
    expect(cos(again, vec.original!)).toBeCloseTo(1, 5);
  });

  it('takes any size, including a 1×1 and a uniform image, without NaN', async () => {
    for (const [w, h] of [[1, 1], [3000, 20]] as const) {
      const v = await e.embed({ data: new Uint8Array(w * h * 3).fill(200), width: w, height: h });
      expect(v.every(Number.isFinite)).toBe(true);
    }
  });

  it('refuses pixels that do not match the stated size', async () => {
    await expect(e.embed({ data: new Uint8Array(10), width: 2, height: 2 })).rejects.toThrow(/bytes/);
  });
});
