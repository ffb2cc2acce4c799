import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cardWidthOf, loadCv, locateCard, order, type Quad } from './card-geometry.ts';
import { makeScene, standardCard } from '../../test/helpers/card-scenes.ts';

const err = (a: Quad, b: Quad) => Math.max(...a.map((p, i) => Math.hypot(p[0] - b[i]![0], p[1] - b[i]![1])));

describe('card geometry', () => {
  it('orders corners clockwise from the upper-left, upper side short', () => {
    const upright = order([[10, 100], [60, 10], [10, 10], [60, 100]]);
    expect(upright).toEqual([[10, 10], [60, 10], [60, 100], [10, 100]]);
    // Lying sideways: the image's left side becomes the card's upper side.
    expect(order([[0, 0], [100, 0], [100, 60], [0, 60]])).toEqual([[0, 60], [0, 0], [100, 0], [100, 60]]);
  });

  it.each([
    ['upright', { rotationDeg: 0 }],
    ['rotated 12°', { rotationDeg: 12 }],
    ['perspective', { rotationDeg: -5, perspective: 0.06 }],
    ['dim light, blur, noise', { rotationDeg: 7, light: 0.5, blur: 1.5, noise: 12 }],
    ['small in the frame', { size: 0.35, rotationDeg: 3 }],
  ])('finds the corners within 1 %% of the card width: %s', async (_label, options) => {
    const { cv } = await loadCv();
    const scene = await makeScene(standardCard(), 7, options);
    const found = locateCard(cv, scene.image);
    expect(found).not.toBeNull();
    expect(err(found!.quad, scene.quad) / cardWidthOf(scene.quad)).toBeLessThan(0.01);
    expect(found!.prob).toBeGreaterThan(0.5);
  });

  // A top-loader is card-shaped too (3 × 4 in), its rim a bright line with the table behind on
  // both sides; the code before holders were handled took its outline 20 % of a width out.
  it.each([
    ['top-loader', 'toploader', 1],
    ['top-loader', 'toploader', 2],
    ['top-loader', 'toploader', 6],
    ['penny sleeve', 'sleeve', 1],
    // The card resting near the top-loader's bottom: that side was left 2.3–2.5 % of a width out,
    // on the holder's edge, until the corner check (a card's corners are rounded, these were not).
    ['top-loader', 'toploader', 4],
    ['top-loader', 'toploader', 25],
    ['top-loader', 'toploader', 26],
  ] as const)('finds the card inside a %s (%s, seed %i), not the holder', async (_label, holder, seed) => {
    const { cv } = await loadCv();
    const scene = await makeScene(standardCard(), seed, { rotationDeg: 6, holder, size: 0.6 });
    const found = locateCard(cv, scene.image);
    expect(found).not.toBeNull();
    expect(err(found!.quad, scene.quad) / cardWidthOf(scene.quad)).toBeLessThan(0.01);
  });

  // A worn or chipped corner is not a card's rounded corner either, but it is one corner: the
  // outline must stay where it is so the damage is measured (a corner check that moved sides for
  // one wrong corner took these chips out of the card, grading them 10).
  it.each([
    ['chipped', { chippedCorner: 8 }],
    ['chipped', { chippedCorner: 14 }],
    ['chipped', { chippedCorner: 20 }],
    ['whitened', { whitenedCorner: 12 }],
    ['whitened', { whitenedCorner: 28 }],
  ] as const)('keeps the outline at a %s corner (%o)', async (_label, damage) => {
    const { cv } = await loadCv();
    const scene = await makeScene({ ...standardCard([30, 30, 30, 30]), border: [40, 60, 140], damage }, 900, { rotationDeg: 4, noise: 4, perspective: 0.02 });
    // Through a JPEG, as a photo comes: its ringing at the chip is part of what the check sees.
    const { width, height } = scene.image;
    const jpeg = await sharp(Buffer.from(scene.image.data), { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
    const found = locateCard(cv, { data: new Uint8Array(await sharp(jpeg).raw().toBuffer()), width, height });
    expect(found).not.toBeNull();
    expect(err(found!.quad, scene.quad) / cardWidthOf(scene.quad)).toBeLessThan(0.01);
  });

  it('finds nothing in an image without a card', async () => {
    const { cv } = await loadCv();
    const data = new Uint8Array(400 * 300 * 3);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
    expect(locateCard(cv, { data, width: 400, height: 300 })).toBeNull();
  });
});
