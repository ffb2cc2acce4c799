import { describe, expect, it } from 'vitest';
import { centeringGrade, measureCentering } from './card-centering.ts';
import { loadCv, locateCard, warpCard } from './card-geometry.ts';
import { makeScene, standardCard } from '../../test/helpers/card-scenes.ts';

const truthShares = (m: [number, number, number, number]) => [(100 * m[0]) / (m[0] + m[2]), (100 * m[1]) / (m[1] + m[3])];

describe('card centering', () => {
  it.each([
    ['centred', [30, 30, 30, 30], {}],
    ['off to the right', [42, 30, 18, 30], { rotationDeg: 6 }],
    ['off downwards, in perspective', [30, 20, 30, 44], { rotationDeg: -4, perspective: 0.05 }],
    ['both, dim and noisy', [24, 38, 36, 22], { rotationDeg: 9, light: 0.4, noise: 10, blur: 1 }],
  ] as const)('measures %s within 1 percentage point', async (_label, margins, options) => {
    const { cv } = await loadCv();
    const scene = await makeScene(standardCard([...margins]), 11, options);
    const found = locateCard(cv, scene.image)!;
    const upright = warpCard(cv, scene.image, found.quad, 750);
    const out = measureCentering(upright);
    expect(out).toHaveProperty('measured');
    const c = (out as { measured: { leftRight: string; topBottom: string } }).measured;
    const [lr, tb] = truthShares([...margins]);
    expect(Math.abs(Number(c.leftRight.split('/')[0]) - lr!)).toBeLessThan(1);
    expect(Math.abs(Number(c.topBottom.split('/')[0]) - tb!)).toBeLessThan(1);
  });

  it('says when a card has no border to measure', () => {
    const W = 300;
    const H = 419;
    const data = new Uint8Array(W * H * 3);
    // Full art to the edge: busy texture everywhere, no band of one colour along any side.
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919 + (i >> 7) * 104729) % 251;
    const out = measureCentering({ data, width: W, height: H });
    expect(out).toHaveProperty('unmeasurable');
    expect((out as { unmeasurable: string }).unmeasurable).toMatch(/not measured/);
  });

  it('grades strictly lower the further off-centre, backs more leniently', () => {
    expect(centeringGrade(50, 'front')).toBe(10);
    expect(centeringGrade(55, 'front')).toBe(10);
    const front = [56, 60, 64, 70, 78, 85, 92, 99].map((s) => centeringGrade(s, 'front'));
    for (let i = 1; i < front.length; i++) expect(front[i]!).toBeLessThan(front[i - 1]!);
    expect(centeringGrade(70, 'back')).toBe(10);
    expect(centeringGrade(85, 'back')).toBeGreaterThan(centeringGrade(85, 'front'));
  });
});
