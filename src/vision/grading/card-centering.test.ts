import { describe, expect, it } from 'vitest';
import { centeringGrade, measureCentering } from './card-centering.ts';
import { loadCv, locateCard, warpCard } from '../cards/card-geometry.ts';
import { makeScene, standardCard } from '../../../test/helpers/card-scenes.ts';

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

  it('reads past a line of print on the border to its inner edge, and not on into a body of the border colour', () => {
    // An upright 750 x 1047 card: a yellow border 30 px wide on every side, a grey body. Along
    // the bottom border a line of small dark "text" (glyphs 7 px tall, 20 to 13 px from the edge)
    // across the middle two thirds, as on a Pokémon card's copyright line.
    const W = 750;
    const H = 1047;
    const data = new Uint8Array(W * H * 3);
    const set = (x: number, y: number, rgb: readonly number[]) => data.set(rgb, (y * W + x) * 3);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) set(x, y, x < 30 || y < 30 || x >= W - 30 || y >= H - 30 ? [235, 200, 60] : [150, 150, 155]);
    for (let x = 125; x < 625; x++) if (x % 9 < 6) for (let y = H - 20; y < H - 13; y++) set(x, y, [60, 50, 30]);
    const out = measureCentering({ data, width: W, height: H });
    expect(out).toHaveProperty('measured');
    const px = (out as { measured: { pixels: number[] } }).measured.pixels;
    for (const m of px) expect(Math.abs(m - 30)).toBeLessThan(1);

    // The same card's body in the border's yellow, with an art box 60 px in: the lines run on past
    // the border's end into the body; the art box is not taken for the border's inner edge.
    for (let y = 30; y < H - 30; y++) for (let x = 30; x < W - 30; x++) set(x, y, x < 90 || y < 90 || x >= W - 90 || y >= H - 90 ? [235, 200, 60] : [40, 90, 160]);
    const body = measureCentering({ data, width: W, height: H });
    if ('measured' in body) for (const m of body.measured.pixels) expect(m).toBeLessThan(60);
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
