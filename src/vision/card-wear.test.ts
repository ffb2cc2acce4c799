import { describe, expect, it } from 'vitest';
import { loadCv, locateCard, warpCard } from './card-geometry.ts';
import { measureWear, wearGrade } from './card-wear.ts';
import { makeScene, standardCard, type CardSpec } from '../../test/helpers/card-scenes.ts';

async function wearOf(damage: CardSpec['damage'], seed = 31) {
  const { cv } = await loadCv();
  const scene = await makeScene({ ...standardCard(), border: [40, 60, 140], damage }, seed, { rotationDeg: 5, noise: 4 });
  const found = locateCard(cv, scene.image)!;
  return measureWear(warpCard(cv, scene.image, found.quad, 750));
}

describe('card wear', () => {
  it('grades fall with the damage shares and stay within 1–10', () => {
    expect(wearGrade(0, 0)).toBe(10);
    expect(wearGrade(0.1, 0)).toBe(8);
    expect(wearGrade(0.3, 0)).toBe(5.3);
    expect(wearGrade(0, 0.2)).toBe(wearGrade(0.3, 0));
    expect(wearGrade(1, 1)).toBeLessThan(wearGrade(1, 0));
    expect(wearGrade(1, 1)).toBeGreaterThanOrEqual(1);
  });

  it('a clean card has clean corners and edges', async () => {
    const w = await wearOf(undefined);
    for (const c of [...w.corners, ...w.edges]) expect(c.grade).toBeGreaterThanOrEqual(9.5);
  });

  it('the upper-left corner grades strictly lower as its whitening grows, the others stay', async () => {
    const grades: number[] = [];
    for (const r of [0, 10, 18, 28]) {
      const w = await wearOf(r ? { whitenedCorner: r } : undefined);
      grades.push(w.corners[0].grade);
      expect(w.corners[2].grade).toBeGreaterThanOrEqual(9.5);
    }
    for (let i = 1; i < grades.length; i++) expect(grades[i]!).toBeLessThan(grades[i - 1]!);
  });

  it('a chipped corner is lost shape, and more chip grades lower', async () => {
    const small = await wearOf({ chippedCorner: 8 });
    const big = await wearOf({ chippedCorner: 20 });
    expect(small.corners[0].loss).toBeGreaterThan(0.02);
    expect(big.corners[0].grade).toBeLessThan(small.corners[0].grade);
    expect(small.corners[0].grade).toBeLessThan(9.5);
  });

  it('the upper edge grades strictly lower with more and bigger nicks', async () => {
    const grades: number[] = [];
    for (const [nicks, size] of [[0, 0], [2, 6], [4, 10], [7, 14]]) {
      const w = await wearOf(nicks ? { nicks, nickSize: size } : undefined);
      grades.push(w.edges[0].grade);
      expect(w.edges[2].grade).toBeGreaterThanOrEqual(9.5);
    }
    for (let i = 1; i < grades.length; i++) expect(grades[i]!).toBeLessThan(grades[i - 1]!);
  });

  it('a thin border: with the measured margins the band stays in the border and a clean card is clean', async () => {
    const { cv } = await loadCv();
    // 14 px of 630 is a 2.2 % border: the fixed colour strip would sit in the art.
    const scene = await makeScene({ ...standardCard([14, 14, 14, 14]), border: [40, 60, 140] }, 33, { rotationDeg: 3, noise: 4 });
    const upright = warpCard(cv, scene.image, locateCard(cv, scene.image)!.quad, 750);
    const margin = (14 / 630) * 750;
    const measured = measureWear(upright, [margin, margin, margin, margin]);
    for (const c of [...measured.corners, ...measured.edges]) expect(c.grade).toBeGreaterThanOrEqual(9.5);
  });
});
