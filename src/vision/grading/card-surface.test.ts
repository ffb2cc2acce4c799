import { describe, expect, it } from 'vitest';
import { loadCv, locateCard, warpCard } from '../cards/card-geometry.ts';
import { measureSurface, surfaceGrade } from './card-surface.ts';
import sharp from 'sharp';
import { measureCentering } from './card-centering.ts';
import { runCardTask } from '../cards/card-tasks.ts';
import { makeScene, standardCard, type CardSpec } from '../../../test/helpers/card-scenes.ts';

async function surfaceOf(scratches: number[], seed = 41) {
  const { cv } = await loadCv();
  const scene = await makeScene({ ...standardCard(), damage: { scratches } }, seed, { rotationDeg: 4, noise: 4 });
  const found = locateCard(cv, scene.image)!;
  return measureSurface(cv, warpCard(cv, scene.image, found.quad, 750));
}

/** A blue-bordered card with `damage`, measured with its border found (as `grade` does). */
async function damagedSurface(damage: CardSpec['damage'], border: [number, number, number] = [40, 60, 140]) {
  const { cv } = await loadCv();
  const scene = await makeScene({ ...standardCard(), border, damage }, 41, { rotationDeg: 4, noise: 4 });
  const found = locateCard(cv, scene.image)!;
  const upright = warpCard(cv, scene.image, found.quad, 750);
  const c = measureCentering(upright);
  if (!('measured' in c)) throw new Error('border not found');
  return measureSurface(cv, upright, 0.06, c.measured.pixels);
}

describe('card surface', () => {
  it('grades fall with the length of line defects', () => {
    expect(surfaceGrade(0)).toBe(10);
    expect(surfaceGrade(1 / 3)).toBe(7.4);
    expect(surfaceGrade(1)).toBe(4.3);
    expect(surfaceGrade(0, 1)).toBe(3);
    expect(surfaceGrade(0, 0, 0.05)).toBe(6.5);
  });

  it('a fold across the card is a crease, not a scratch; a longer and a second fold grade lower', async () => {
    const clean = await damagedSurface(undefined);
    expect(clean).toMatchObject({ lines: 0, creases: 0, grade: 10 });
    const corner = await damagedSurface({ creases: [[0, 0.25, 0.35, 0]] });
    const across = await damagedSurface({ creases: [[0, 0.3, 1, 0.45]] });
    const two = await damagedSurface({ creases: [[0, 0.3, 1, 0.45], [0.2, 1, 0.9, 0]] });
    // The corner fold is 0.49 widths long, the one across 1.0; each is one crease.
    expect(corner.creases).toBeGreaterThan(0.4);
    expect(corner.creases).toBeLessThan(0.6);
    expect(across.creases).toBeGreaterThan(0.9);
    expect(across.creases).toBeLessThan(1.1);
    expect(across.lines).toBe(0);
    expect(two.creases).toBeGreaterThan(2.2);
    expect(corner.grade).toBeLessThan(clean.grade);
    expect(across.grade).toBeLessThan(corner.grade);
    expect(two.grade).toBeLessThan(across.grade);
  });

  it('printed frames and rules that stop at the border are not creases', async () => {
    // The generated design has a text box and an art panel with straight sides; none reaches the edge.
    for (const border of [[240, 205, 40], [235, 235, 235], [200, 60, 50]] as [number, number, number][]) expect((await damagedSurface(undefined, border)).creases).toBe(0);
  });

  it('glare is measured as a share of the card and kept out of the defects', async () => {
    const { cv } = await loadCv();
    const scene = await makeScene({ ...standardCard(), border: [40, 60, 140] }, 41, { rotationDeg: 4, noise: 4 });
    const upright = warpCard(cv, scene.image, locateCard(cv, scene.image)!.quad, 750);
    const c = measureCentering(upright);
    if (!('measured' in c)) throw new Error('border not found');
    // A soft, colourless highlight over the art, as a lamp leaves on a glossy card: a bright core
    // fading out over its rim, so its edge is a ring of gradient a line finder could take.
    const lit = { ...upright, data: Uint8Array.from(upright.data) };
    const [cx, cy, radius] = [upright.width * 0.5, upright.height * 0.4, upright.width * 0.18];
    for (let y = 0; y < lit.height; y++) {
      for (let x = 0; x < lit.width; x++) {
        const d = Math.hypot(x - cx, (y - cy) * 1.4) / radius;
        const k = d < 0.8 ? 1 : d < 1.2 ? (1.2 - d) / 0.4 : 0;
        for (let ch = 0; ch < 3; ch++) lit.data[(y * lit.width + x) * 3 + ch] = Math.round(lit.data[(y * lit.width + x) * 3 + ch]! * (1 - k) + 250 * k);
      }
    }
    const plain = measureSurface(cv, upright, 0.06, c.measured.pixels);
    const glared = measureSurface(cv, lit, 0.06, c.measured.pixels);
    expect(plain.glare).toBe(0);
    expect(glared.glare).toBeGreaterThan(0.03);
    expect(glared).toMatchObject({ lines: 0, creases: 0, stains: 0 });
    expect(glared.grade).toBe(plain.grade);
  });

  it('a light line along the card\'s axis counts only when it crosses the whole art: a printed rule that stops short does not', async () => {
    const { cv } = await loadCv();
    const scene = await makeScene({ ...standardCard(), border: [40, 60, 140] }, 41, { noise: 4 });
    const upright = warpCard(cv, scene.image, locateCard(cv, scene.image)!.quad, 750);
    const c = measureCentering(upright);
    if (!('measured' in c)) throw new Error('border not found');
    const inset = 0.06;
    const x0 = Math.round(upright.width * inset);
    const span = upright.width - 2 * x0;
    const ruled = (from: number, to: number) => {
      const img = { ...upright, data: Uint8Array.from(upright.data) };
      const y = Math.round(upright.height * 0.62);
      for (let x = Math.round(x0 + from * span); x < Math.round(x0 + to * span); x++) for (let ch = 0; ch < 3; ch++) img.data[(y * img.width + x) * 3 + ch] = 215;
      return measureSurface(cv, img, inset, c.measured.pixels);
    };
    expect(measureSurface(cv, upright, inset, c.measured.pixels).lines).toBe(0);
    // An attack's rule on a Pokémon card: 0.92 of the art's span, centred (a slab photo at half size
    // counted two of them as scratches, 1.67 widths, surface 2.7).
    expect(ruled(0.04, 0.96).lines).toBe(0);
    // A print line from the press runs on from edge to edge.
    expect(ruled(0, 1).lines).toBeGreaterThan(0.8);
  });

  it('a stain on the border is measured by its area, and a bigger one grades lower', async () => {
    const grades: number[] = [];
    const shares: number[] = [];
    for (const r of [0, 0.02, 0.04, 0.06]) {
      const s = await damagedSurface(r ? { stains: [[0.02, 0.5, r]] } : undefined, [235, 235, 235]);
      grades.push(s.grade);
      shares.push(s.stains!);
    }
    expect(shares[0]).toBeLessThan(0.002);
    for (let i = 1; i < grades.length; i++) {
      expect(shares[i]!).toBeGreaterThan(shares[i - 1]!);
      expect(grades[i]!).toBeLessThan(grades[i - 1]!);
    }
  });

  it('grade measures stains on the border centering found, and none (null, never guessed) without one', async () => {
    const gradeOf = async (margins: [number, number, number, number]) => {
      const scene = await makeScene({ ...standardCard(margins), border: [235, 235, 235], damage: { stains: [[0.02, 0.5, 0.06]] } }, 41, { rotationDeg: 4, noise: 4 });
      const jpeg = await sharp(Buffer.from(scene.image.data), { raw: { width: scene.image.width, height: scene.image.height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
      const r = await runCardTask({ kind: 'card', image: jpeg.buffer.slice(jpeg.byteOffset, jpeg.byteOffset + jpeg.byteLength) as ArrayBuffer, maxPixels: 100e6, op: 'grade', options: { noImageOutput: true, locator: 'classical' } });
      if ('refused' in r) throw new Error('refused');
      return r;
    };
    const bordered = await gradeOf([30, 30, 30, 30]);
    expect(bordered.surface!.stains).toBeGreaterThan(0.01);
    const borderless = await gradeOf([0, 0, 0, 0]);
    expect(borderless.centeringUnmeasurable).toBeTruthy();
    expect(borderless.surface!.stains).toBeNull();
  });

  it('a clean card has a clean surface; scratches of growing length grade strictly lower', async () => {
    const clean = await surfaceOf([]);
    expect(clean.grade).toBeGreaterThanOrEqual(9.5);
    const grades = [clean.grade];
    for (const scratches of [[120], [200, 150], [300, 250, 200]]) {
      const s = await surfaceOf(scratches);
      expect(s.segments).toBeGreaterThan(0);
      grades.push(s.grade);
    }
    for (let i = 1; i < grades.length; i++) expect(grades[i]!).toBeLessThan(grades[i - 1]!);
  });
});
