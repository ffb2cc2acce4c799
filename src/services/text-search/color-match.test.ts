import { describe, expect, it } from 'vitest';
import { colorPalette } from '../../vision/models/color-palette.ts';
import { srgbToLuv } from '../../vision/models/dominant-colors.ts';
import { colorMatch, colorWordShare, dominantColorsProblem, luvChromaLimit, SCENE } from './color-match.ts';

const luvOf = (name: string) => {
  const n = Number.parseInt(colorPalette.find((p) => p.name === name)!.hex.slice(1), 16);
  return srgbToLuv(n >> 16, (n >> 8) & 255, n & 255);
};
const stored = (...cs: [string, number][]) => cs.map(([name, share]) => [...luvOf(name), share]);

describe('colorWordShare', () => {
  it('counts every shade of a family for a family word', () => {
    const image = stored(['navy blue', 0.3], ['light blue', 0.2], ['red', 0.5]);
    expect(colorWordShare(['blue'], image)).toBeCloseTo(0.5, 5);
    expect(colorWordShare(['red'], image)).toBeCloseTo(0.5, 5);
    expect(colorWordShare(['green'], image)).toBe(0);
  });

  it('counts a shade fully and the rest of its family by half', () => {
    const image = stored(['navy blue', 0.3], ['light blue', 0.2], ['red', 0.5]);
    expect(colorWordShare(['navy blue'], image)).toBeCloseTo(0.3 + 0.1, 5);
  });

  it('averages over the words, and is 0 with no words or no colours', () => {
    const image = stored(['navy blue', 0.6], ['white', 0.4]);
    expect(colorWordShare(['blue', 'white'], image)).toBeCloseTo(0.5, 5);
    expect(colorWordShare([], image)).toBe(0);
    expect(colorWordShare(['blue'], [])).toBe(0);
  });
});

describe('stored whole-image colours of two kinds', () => {
  it('colour words read the colours with the backdrop (marked), _dominant_colors the ones without; an older row, its one list for both', () => {
    // a red product on white: without the backdrop all red; with it at half weight, white 0.45
    const plain = stored(['red', 1]);
    const scene = stored(['red', 0.55], ['white', 0.45]).map((c) => [...c, SCENE]);
    expect(colorWordShare(['white'], [...plain, ...scene])).toBeCloseTo(0.45, 5);
    expect(colorWordShare(['white'], plain)).toBe(0);
    const query = { luv: [luvOf('red') as [number, number, number]], percentages: [100] };
    expect(colorMatch(query, [...plain, ...scene])).toBeCloseTo(1, 5);
    expect(colorMatch(query, scene)).toBe(0);
  });

  it("counts a subject's colour the scene's five colours left out, up to the scene's smallest (h281: at 100, as no colour)", () => {
    // a navy plane on grass: navy is the subject's 19 %, and the backdrop's greens fill the scene's five
    const plain = stored(['olive', 0.33], ['navy blue', 0.19], ['gold', 0.17], ['dark green', 0.16], ['lime green', 0.15]);
    const scene = stored(['lime green', 0.32], ['charcoal', 0.2], ['olive', 0.19], ['white', 0.16], ['khaki', 0.13]).map((c) => [...c, SCENE]);
    expect(colorWordShare(['blue'], [...plain, ...scene])).toBeCloseTo(0.13, 5);
    expect(colorWordShare(['navy blue'], [...plain, ...scene])).toBeCloseTo(0.13, 5);
    // under the scene's smallest, the subject's own share
    const smallScene = stored(['lime green', 0.5], ['charcoal', 0.3], ['white', 0.2]).map((c) => [...c, SCENE]);
    expect(colorWordShare(['light blue'], [...plain, ...smallScene])).toBeCloseTo(0.095, 5);
    // a colour the scene holds is read there only, and one neither holds is none
    expect(colorWordShare(['green'], [...plain, ...scene])).toBeCloseTo(0.51, 5);
    expect(colorWordShare(['red'], [...plain, ...scene])).toBe(0);
  });

  it("counts a colour the server names as the query colour's name, however far from its palette reference (h105)", () => {
    // rgb(160, 0, 48): named rose, 24.8 ΔE from the palette's rose
    const deepRose = [...srgbToLuv(160, 0, 48), 0.5];
    const rose = { luv: [luvOf('rose') as [number, number, number]], percentages: [100] };
    expect(colorMatch(rose, [deepRose])).toBeCloseTo(0.5, 5);
    // another name stays another colour
    expect(colorMatch(rose, stored(['navy blue', 1]))).toBe(0);
  });
});

describe('dominantColorsProblem', () => {
  it('takes every colour sRGB can show, and refuses u or v past any colour (h311: a u of 1e300 was ranked by)', () => {
    for (const r of [0, 255]) for (const g of [0, 255]) for (const b of [0, 255]) {
      const luv = srgbToLuv(r, g, b);
      expect(Math.max(Math.abs(luv[1]), Math.abs(luv[2]))).toBeLessThan(luvChromaLimit);
      expect(dominantColorsProblem({ luv_colors: [[...luv]], percentages: [50] })).toBeUndefined();
    }
    expect(dominantColorsProblem({ luv_colors: [[50, 1e300, 30]], percentages: [50] })).toMatch(/u and v must be -200 to 200/);
    expect(dominantColorsProblem({ luv_colors: [[50, 0, -250]], percentages: [50] })).toMatch(/u and v/);
  });
});
