import { describe, expect, it } from 'vitest';
import { loadCv, locateCard, warpCard } from './card-geometry.ts';
import { measureSurface, surfaceGrade } from './card-surface.ts';
import { makeScene, standardCard } from '../../test/helpers/card-scenes.ts';

async function surfaceOf(scratches: number[], seed = 41) {
  const { cv } = await loadCv();
  const scene = await makeScene({ ...standardCard(), damage: { scratches } }, seed, { rotationDeg: 4, noise: 4 });
  const found = locateCard(cv, scene.image)!;
  return measureSurface(cv, warpCard(cv, scene.image, found.quad, 750));
}

describe('card surface', () => {
  it('grades fall with the length of line defects', () => {
    expect(surfaceGrade(0)).toBe(10);
    expect(surfaceGrade(1 / 3)).toBe(7.4);
    expect(surfaceGrade(1)).toBe(4.3);
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
