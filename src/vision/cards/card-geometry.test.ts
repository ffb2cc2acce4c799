import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { cardWidthOf, loadCv, locateCard, order, type Quad } from './card-geometry.ts';
import { photoBytes } from '../../../test/helpers/photos.ts';
import { makeScene, standardCard, type CardSpec, type SceneOptions } from '../../../test/helpers/card-scenes.ts';

const datasets = path.resolve(import.meta.dirname, '../../../../shared/datasets');
const present = fs.existsSync(path.join(datasets, 'pokemon_sv151_reference'));
if (!present) console.warn(`card-geometry tests on official card scans skipped: ${datasets} is absent (the shared datasets folder beside the project)`);

/** A scene through a JPEG, as a photo comes: its ringing is part of what localization sees. */
async function throughJpeg(image: { data: Uint8Array; width: number; height: number }) {
  const { width, height } = image;
  const jpeg = await sharp(Buffer.from(image.data), { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  return { data: new Uint8Array(await sharp(jpeg).raw().toBuffer()), width, height };
}

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
    const found = locateCard(cv, await throughJpeg(scene.image));
    expect(found).not.toBeNull();
    expect(err(found!.quad, scene.quad) / cardWidthOf(scene.quad)).toBeLessThan(0.01);
  });

  // Scenes of the grading bench where something else is as card-shaped as the card's own
  // outline: an art box, a patch of a football, a holder. The first two were found 125 % of a
  // width out before the straight-line outline was weighed against the contours; weighing it
  // without refining other outlines when the corners found are not a card's rounded ones took
  // the last three 6–134 % out.
  const scenes = {
    'Vaporeon on a football': [{ face: 'pokemon_sv151_reference/images/134_Vaporeon.jpg' }, { rotationDeg: -2.611, perspective: 0.001, light: 0.023, noise: 3.337, size: 0.725, background: 'soccer_ball/image_0014.jpg' }, 3035],
    'Bellsprout by a gerenuk': [{ face: 'pokemon_sv151_reference/images/069_Bellsprout.jpg' }, { rotationDeg: -13.167, perspective: 0.014, light: 0.494, blur: 0.788, noise: 0.017, size: 0.686, background: 'gerenuk/image_0007.jpg' }, 3018],
    'white border on a dalmatian': [{ margins: [44, 28, 41, 38], border: [235, 235, 235] }, { rotationDeg: 14.792, perspective: 0.007, light: 0.092, blur: 1.874, noise: 7.746, size: 0.687, background: 'dalmatian/image_0013.jpg' }, 1021],
    'red border on a wild cat': [{ margins: [18, 45, 45, 37], border: [200, 60, 50] }, { rotationDeg: -2.426, perspective: 0.05, light: 0.201, blur: 0.754, noise: 0.867, size: 0.787, background: 'wild_cat/image_0005.jpg' }, 1127],
    'blue border in a top-loader': [{ margins: [45, 43, 15, 14], border: [40, 60, 140] }, { rotationDeg: -5.294, perspective: 0.017, light: 0.011, blur: 0.969, noise: 2.405, size: 0.657, background: 'buddha/image_0002.jpg', holder: 'toploader' }, 7012],
  } as const;
  const findsTheCard = async (label: keyof typeof scenes) => {
    const [card, options, seed] = scenes[label];
    const { cv } = await loadCv();
    const spec: CardSpec = 'face' in card ? { width: 630, height: 880, margins: [0, 0, 0, 0], border: [0, 0, 0], face: fs.readFileSync(path.join(datasets, card.face)) } : { width: 630, height: 880, margins: [...card.margins], border: [...card.border] };
    const scene = await makeScene(spec, seed, { ...options, background: photoBytes(`caltech101/${options.background}`) } as SceneOptions);
    const found = locateCard(cv, await throughJpeg(scene.image));
    expect(found).not.toBeNull();
    expect(err(found!.quad, scene.quad) / cardWidthOf(scene.quad)).toBeLessThan(0.01);
  };
  // The official card scans are not ours to ship: those two scenes need ../shared/datasets.
  it.skipIf(!present).each(['Vaporeon on a football', 'Bellsprout by a gerenuk'] as const)('finds the card, not a more card-shaped outline: %s', findsTheCard);
  it.each(['white border on a dalmatian', 'red border on a wild cat', 'blue border in a top-loader'] as const)('finds the card, not a more card-shaped outline: %s', findsTheCard);

  it('finds nothing in an image without a card', async () => {
    const { cv } = await loadCv();
    const data = new Uint8Array(400 * 300 * 3);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
    expect(locateCard(cv, { data, width: 400, height: 300 })).toBeNull();
  });
});
