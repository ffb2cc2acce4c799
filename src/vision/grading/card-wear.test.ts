import { describe, expect, it } from 'vitest';
import { loadCv, locateCard, warpCard } from '../cards/card-geometry.ts';
import { measureWear, wearGrade } from './card-wear.ts';
import { makeScene, standardCard, type CardSpec } from '../../../test/helpers/card-scenes.ts';

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

  it('chips out of the upper edge are lost shape, and more and bigger chips grade it lower', async () => {
    const found: { loss: number; grade: number }[] = [];
    for (const [chips, size] of [[0, 0], [2, 8], [4, 12], [6, 18]]) {
      const w = await wearOf(chips ? { edgeChips: chips, edgeChipSize: size } : undefined);
      found.push(w.edges[0]);
      expect(w.edges[2].grade).toBeGreaterThanOrEqual(9.5);
    }
    expect(found[0]!.loss).toBe(0);
    for (let i = 1; i < found.length; i++) {
      expect(found[i]!.loss).toBeGreaterThan(found[i - 1]!.loss);
      expect(found[i]!.grade).toBeLessThan(found[i - 1]!.grade);
    }
  });

  /** An upright 630 × 880 card drawn pixel by pixel: `paint(x, y, outside)` gives each colour. */
  const drawn = (paint: (x: number, y: number, outside: boolean) => readonly number[]) => {
    const W = 630;
    const H = 880;
    const R = W * (3 / 63);
    const data = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const cx = Math.min(Math.max(x + 0.5, R), W - R);
        const cy = Math.min(Math.max(y + 0.5, R), H - R);
        data.set(paint(x, y, Math.hypot(x + 0.5 - cx, y + 0.5 - cy) > R), (y * W + x) * 3);
      }
    }
    return { data, width: W, height: H };
  };

  it('a thin border: the band and the border colour stay in the border, with or without the margins', () => {
    // A 20-px blue border (3 % of the width), red art, and outside the rounded corners a dark
    // blue-grey table, nearer the border's blue than the art's red is.
    const card = drawn((x, y, outside) => (outside ? [50, 60, 100] : x < 20 || y < 20 || x >= 610 || y >= 860 ? [40, 60, 160] : [180, 40, 40]));
    for (const c of [...measureWear(card, [20, 20, 20, 20]).corners, ...measureWear(card, [20, 20, 20, 20]).edges]) expect(c.grade).toBeGreaterThanOrEqual(9.5);
    // Without the margins the global colour strip lies in the red art; each region's own
    // border, read next to it, still holds.
    for (const c of [...measureWear(card).corners, ...measureWear(card).edges]) expect(c.grade).toBeGreaterThanOrEqual(9.5);
  });

  it('a metallic border shading darker toward the corners, with white print in it, is not wear', () => {
    // SV151-like: silver 195 mid-side, 150 at the corners, on a grey table nearer the dark
    // corners' tone than the mid-side's; a white copyright line inside the bottom border.
    const card = drawn((x, y, outside) => {
      if (outside) return [120, 115, 110];
      if (x >= 30 && y >= 30 && x < 600 && y < 850) return [90, 170, 60];
      if (y >= 860 && y <= 866 && x >= 100 && x < 520 && x % 4 !== 0) return [250, 250, 250];
      const t = Math.hypot((x - 315) / 315, (y - 440) / 440) / Math.SQRT2;
      const v = Math.round(195 - 45 * t * t);
      return [v, v + 2, v + 4];
    });
    const w = measureWear(card, [30, 30, 30, 30]);
    for (const c of [...w.corners, ...w.edges]) expect(c.grade).toBeGreaterThanOrEqual(9.5);
  });
});
