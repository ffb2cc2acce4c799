import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidImage, tinyClipColours, writeTinyClipPack } from '../../../test/helpers/tiny-clip.ts';
import { ClipModel, clipPixels } from './clip-model.ts';
import { installPack } from './clip-pack.ts';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('ClipModel on the generated tiny pack', () => {
  let scratch: string;
  let model: ClipModel;

  beforeAll(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-clip-model-'));
    const installed = await installPack(await writeTinyClipPack(path.join(scratch, 'tiny')), path.join(scratch, 'data'));
    model = await ClipModel.load(installed.dir);
  });
  afterAll(async () => {
    await model?.close();
    await fs.rm(scratch, { recursive: true, force: true });
  });

  it('loads name, dimension and fingerprint from the manifest', () => {
    expect(model.name).toBe('tiny');
    expect(model.dim).toBe(8);
    expect(model.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('finds the colour word of a flat-colour image among all colour words', async () => {
    const words = Object.keys(tinyClipColours);
    const texts = await Promise.all(words.map((w) => model.embedText(`a photo of a ${w} thing`)));
    for (const [word, rgb] of Object.entries(tinyClipColours)) {
      const image = await model.embedImage(solidImage(rgb, 61, 45));
      expect(image).toHaveLength(8);
      expect(norm(image)).toBeCloseTo(1, 5);
      const scores = texts.map((t) => dot(image, t));
      expect(words[scores.indexOf(Math.max(...scores))], `nearest text to a ${word} image`).toBe(word);
    }
  });

  it('gives unit text vectors; case, spacing and words without colour do not change them', async () => {
    const red = await model.embedText('RED');
    expect(norm(red)).toBeCloseTo(1, 5);
    expect(Array.from(await model.embedText('  a red   car '))).toEqual(Array.from(red));
  });

  it('preprocesses like CLIP: short side to size, centre crop, normalised planes', async () => {
    // 64×32, left half red, right half blue: the centre 32×32 crop of the 64×32 resize keeps
    // columns 16–47, half of each colour.
    const img = { data: new Uint8Array(64 * 32 * 3), width: 64, height: 32 };
    for (let y = 0; y < 32; y++) for (let x = 0; x < 64; x++) img.data.set(x < 32 ? [255, 0, 0] : [0, 0, 255], (y * 64 + x) * 3);
    const spec = { resize: 'shortest_edge' as const, size: 32, crop: 32, rescale: 1 / 255, mean: [0.5, 0.5, 0.5] as [number, number, number], std: [0.5, 0.5, 0.5] as [number, number, number] };
    const planes = await clipPixels(img, spec);
    expect(planes).toHaveLength(3 * 32 * 32);
    expect(planes[0]).toBeCloseTo(1, 5); // R at (0,0): red
    expect(planes[31]).toBeCloseTo(-1, 5); // R at (31,0): blue
    expect(planes[2 * 1024 + 31]).toBeCloseTo(1, 5); // B at (31,0)
    await expect(clipPixels({ data: new Uint8Array(5), width: 2, height: 2 }, spec)).rejects.toThrow(/expected 2×2 RGB pixels/);
  });
});
