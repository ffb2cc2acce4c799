import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRgb } from '../media/decode-rgb.ts';
import { defaultEmbedder, loadEmbedder, type Embedder } from './embedding-models.ts';
import type { RgbPixels } from './tfjs-runtime.ts';

const dir = path.resolve(import.meta.dirname, '../../../shared/datasets/near_duplicates_ukbench');
const present = fs.existsSync(path.join(dir, 'ukbench00120.jpg'));
if (!present) console.warn(`embedding-models tests skipped: ${dir} is absent (the shared datasets folder beside the project)`);

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const load = (f: string) => decodeRgb(fs.readFileSync(path.join(dir, f)), 100e6, { maxEdge: 640 });

describe.skipIf(!present)(`default embedder (${defaultEmbedder}) on real photos`, () => {
  let e: Embedder;
  const img: Record<string, RgbPixels> = {};
  const vec: Record<string, Float32Array> = {};

  beforeAll(async () => {
    e = await loadEmbedder();
    for (const f of ['ukbench00120.jpg', 'ukbench00120_hflip.jpg', 'ukbench00120_resize.jpg', 'ukbench08976.jpg', 'ukbench09348.jpg']) {
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
    const o = vec['ukbench00120.jpg']!;
    const unrelated = Math.max(cos(o, vec['ukbench08976.jpg']!), cos(o, vec['ukbench09348.jpg']!));
    expect(cos(o, vec['ukbench00120_hflip.jpg']!)).toBeGreaterThan(unrelated + 0.2);
    expect(cos(o, vec['ukbench00120_resize.jpg']!)).toBeGreaterThan(unrelated + 0.2);
  });

  it('is deterministic and does not leak tensors', async () => {
    const { tfjs } = await import('./tfjs-runtime.ts');
    const tf = await tfjs();
    const before = tf.memory().numTensors;
    const again = await e.embed(img['ukbench00120.jpg']!);
    expect(tf.memory().numTensors).toBe(before);
    expect(cos(again, vec['ukbench00120.jpg']!)).toBeCloseTo(1, 5);
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
