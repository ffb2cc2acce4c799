import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { photosDir } from '../../../test/helpers/photos.ts';
import { CARD_CORNERS_FILE, CardCornerRefiner, cornerPatches, PATCH } from './card-corner-refiner.ts';
import type { Quad } from '../geometry/plane-geometry.ts';

/** A light card on a dark table, anti-aliased, with its exact corners. */
function drawn(w: number, h: number, [x0, y0]: [number, number], [x1, y1]: [number, number]) {
  const data = new Uint8Array(w * h * 3);
  const cover = (x: number, y: number) => Math.max(0, Math.min(x + 0.5, x1) - Math.max(x - 0.5, x0)) * Math.max(0, Math.min(y + 0.5, y1) - Math.max(y - 0.5, y0));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.fill(Math.round(30 + 200 * cover(x, y)), (y * w + x) * 3, (y * w + x) * 3 + 3);
  return { data, width: w, height: h };
}

describe('corner patches', () => {
  const img = drawn(300, 400, [60.4, 50.2], [240.6, 300.8]);
  const truth: Quad = [[60.4, 50.2], [240.6, 50.2], [240.6, 300.8], [60.4, 300.8]];

  it('shows every corner as an upper-left one: the card to the lower right, the table to the upper left', () => {
    const { input } = cornerPatches(img, truth, 0.14);
    const plane = PATCH * PATCH;
    for (let k = 0; k < 4; k++) {
      const at = (i: number, j: number) => input[k * 3 * plane + j * PATCH + i]!;
      expect(at(PATCH - 4, PATCH - 4)).toBeGreaterThan(0.8);
      expect(at(3, 3)).toBeLessThan(0.2);
      expect(at(PATCH - 4, 3)).toBeLessThan(0.2);
      expect(at(3, PATCH - 4)).toBeLessThan(0.2);
    }
  });

  it('maps patch units back to the photo: the patch centre is the outline corner, and a step along u follows its side', () => {
    const rough = truth.map(([x, y]) => [x + 3, y - 2]) as Quad;
    const { toImage } = cornerPatches(img, rough, 0.1);
    rough.forEach((p, k) => {
      const [x, y] = toImage(k, 0, 0);
      expect(x).toBeCloseTo(p[0], 6);
      expect(y).toBeCloseTo(p[1], 6);
    });
    // the upper-right corner's u runs leftwards along the top side, by 0.1 x the short side per unit
    const [x, y] = toImage(1, 1, 0);
    expect(x).toBeCloseTo(rough[1][0] - 0.1 * 180.2, 3);
    expect(y).toBeCloseTo(rough[1][1], 6);
  });
});

describe.runIf(fs.existsSync(CARD_CORNERS_FILE))('corner refiner', () => {
  it('brings a drawn card outline 4 % off back within 2 % of its width, the same every time', async () => {
    const refiner = await CardCornerRefiner.load(1);
    const img = drawn(300, 400, [60.4, 50.2], [240.6, 300.8]);
    const truth: Quad = [[60.4, 50.2], [240.6, 50.2], [240.6, 300.8], [60.4, 300.8]];
    const rough = truth.map(([x, y], k) => [x + (k === 0 || k === 3 ? -7 : 5), y + (k < 2 ? 6 : -4)]) as Quad;
    const a = await refiner.refine(img, rough);
    // R-slab (shipped 2026-11-25, fifth session), trained with more real photos, puts three corners
    // of this flat drawn card within 1 % and one at 1.8 % (its predecessor: all four within 1 %)
    const off = a.quad.map((p, k) => Math.hypot(p[0] - truth[k]![0], p[1] - truth[k]![1]));
    expect(off.filter((d) => d < 1.8).length).toBeGreaterThanOrEqual(3);
    off.forEach((d) => expect(d).toBeLessThan(3.6));
    const b = await refiner.refine(img, rough);
    expect(b.quad).toEqual(a.quad);
  });
});

describe('corner patches as the training sampled them', () => {
  it('match training/card-detector/corners.py on a real photo (so the network sees what it learnt on)', async () => {
    const ref = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/card-detector/patch-parity.json'), 'utf8')) as { file: string; quad: Quad; span: number; points: [number, number][]; rgb: number[][][] };
    const { data, info } = await sharp(path.join(photosDir, ref.file.replace(/^photos\//, ''))).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const { input } = cornerPatches({ data: new Uint8Array(data), width: info.width, height: info.height }, ref.quad, ref.span);
    const plane = PATCH * PATCH;
    let worst = 0;
    ref.rgb.forEach((values, k) =>
      values.forEach((rgb, n) => {
        const [i, j] = ref.points[n]!;
        rgb.forEach((v, c) => (worst = Math.max(worst, Math.abs(input[k * 3 * plane + c * plane + j * PATCH + i]! - v))));
      }),
    );
    // OpenCV's remap works in 1/32-pixel steps and the two JPEG decoders may differ by a level
    expect(worst).toBeLessThan(0.02);
  });
});
