import { describe, expect, it } from 'vitest';
import { decodeRgb } from '../../media/decode-rgb.ts';
import { photoBytes } from '../../../test/helpers/photos.ts';
import { colorPalette } from './color-palette.ts';
import { deltaE, dominantColors, DRAWN_BOX_MIN_OBJECT, luvToSrgb, nameColor, srgbToLab, srgbToLuv } from './dominant-colors.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

type Rgb = [number, number, number];

/** A w×h image of `background`, with rectangles [x0, y0, x1, y1) painted in order; optional ±noise per channel. */
function paint(w: number, h: number, background: Rgb, rects: [number, number, number, number, Rgb][], noise = 0): RgbPixels {
  const data = new Uint8Array(w * h * 3);
  let seed = 1;
  const jitter = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.round(((seed / 2147483648) * 2 - 1) * noise);
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let c = background;
      for (const [x0, y0, x1, y1, rgb] of rects) if (x >= x0 && x < x1 && y >= y0 && y < y1) c = rgb;
      for (let k = 0; k < 3; k++) data[(y * w + x) * 3 + k] = Math.min(255, Math.max(0, c[k]! + jitter()));
    }
  }
  return { data, width: w, height: h };
}

const red: Rgb = [220, 20, 30];
const blue: Rgb = [30, 60, 200];
const white: Rgb = [255, 255, 255];
const navy: Rgb = [28, 39, 72];
const green: Rgb = [47, 154, 69];

describe('CIE L*a*b* conversion', () => {
  it('matches reference values (D65): white, black, sRGB red, a card border yellow', () => {
    expect(srgbToLab(255, 255, 255).map((v) => Math.round(v * 1e6) / 1e6 + 0)).toEqual([100, 0, 0]);
    expect(srgbToLab(0, 0, 0)).toEqual([0, 0, 0]);
    // Bruce Lindbloom's calculator, sRGB D65: (53.2408, 80.0925, 67.2032).
    const r = srgbToLab(255, 0, 0);
    expect(r[0]).toBeCloseTo(53.2408, 3);
    expect(r[1]).toBeCloseTo(80.0925, 3);
    expect(r[2]).toBeCloseTo(67.2032, 3);
    expect(srgbToLab(240, 200, 60)[2]).toBeGreaterThan(60);
  });
});

describe('CIE L*u*v* conversions', () => {
  it('matches reference values (D65): white, black, sRGB red and blue', () => {
    const w = srgbToLuv(255, 255, 255);
    expect(w[0]).toBeCloseTo(100, 6);
    expect(w[1]).toBeCloseTo(0, 6);
    expect(w[2]).toBeCloseTo(0, 6);
    expect(srgbToLuv(0, 0, 0)).toEqual([0, 0, 0]);
    const r = srgbToLuv(255, 0, 0);
    // Bruce Lindbloom's calculator, sRGB D65: (53.2408, 175.0151, 37.7564).
    expect(r[0]).toBeCloseTo(53.2408, 3);
    expect(r[1]).toBeCloseTo(175.0151, 3);
    expect(r[2]).toBeCloseTo(37.7564, 3);
    const b = srgbToLuv(0, 0, 255);
    expect(b[0]).toBeCloseTo(32.3, 1);
    expect(b[1]).toBeCloseTo(-9.4, 1);
    expect(b[2]).toBeCloseTo(-130.34, 1);
    // Mid grey: neutral, L* of Y = 0.2159.
    const g = srgbToLuv(128, 128, 128);
    expect(g[0]).toBeCloseTo(53.59, 2);
    expect(Math.hypot(g[1], g[2])).toBeLessThan(1e-9);
  });

  it('round-trips 8-bit sRGB exactly', () => {
    for (let r = 0; r < 256; r += 17) {
      for (let g = 0; g < 256; g += 17) {
        for (let b = 0; b < 256; b += 17) expect(luvToSrgb(srgbToLuv(r, g, b))).toEqual([r, g, b]);
      }
    }
  });

  it('names colours by the nearest palette entry, and every palette entry by itself', () => {
    const name = (r: number, g: number, b: number) => nameColor(srgbToLuv(r, g, b));
    expect(name(255, 0, 0)).toBe('red');
    expect(name(0, 0, 255)).toBe('blue');
    expect(name(0, 0, 128)).toBe('navy blue');
    expect(name(255, 255, 0)).toBe('yellow');
    expect(name(255, 255, 255)).toBe('white');
    expect(name(0, 0, 0)).toBe('black');
    expect(name(128, 128, 128)).toBe('grey');
    expect(name(128, 0, 128)).toBe('purple');
    expect(name(0, 128, 128)).toBe('teal');
    for (const c of colorPalette) {
      const n = Number.parseInt(c.hex.slice(1), 16);
      expect(nameColor(srgbToLuv(n >> 16, (n >> 8) & 255, n & 255))).toBe(c.name);
    }
    expect(new Set(colorPalette.map((c) => c.name)).size).toBe(colorPalette.length);
  });
});

describe('dominant colours', () => {
  // 160×160 object on a 256×256 white image: left 112 columns red (70 %), right 48 blue (30 %).
  const redBlue = paint(256, 256, white, [
    [48, 48, 160, 208, red],
    [160, 48, 208, 208, blue],
  ]);

  it('70 % red / 30 % blue on white: two colours, white background excluded, shares summing to 100', () => {
    const colors = dominantColors(redBlue);
    expect(colors.map((c) => c.name)).toEqual(['red', 'blue']);
    expect(colors[0]!.percentage).toBeCloseTo(70, -0.5);
    expect(colors[1]!.percentage).toBeCloseTo(30, -0.5);
    expect(colors.reduce((s, c) => s + c.percentage, 0)).toBeCloseTo(100, 6);
    expect(colors[0]!.color).toBe('#dc141e');
    expect(colors[1]!.color).toBe('#1e3cc8');
    expect(deltaE(colors[0]!.luv, srgbToLuv(...red))).toBeLessThan(0.05);
  });

  it('is deterministic', () => {
    const noisy = paint(200, 150, white, [[30, 20, 170, 130, [120, 90, 60]]], 30);
    expect(dominantColors(noisy)).toEqual(dominantColors(noisy));
    expect(dominantColors(redBlue)).toEqual(dominantColors(redBlue));
  });

  it('drops a noisy background too (JPEG-like ±6 per channel)', () => {
    const colors = dominantColors(paint(256, 256, [240, 240, 236], [[64, 64, 192, 192, navy]], 6));
    expect(colors).toHaveLength(1);
    expect(colors[0]).toMatchObject({ name: 'navy blue', percentage: 100 });
  });

  it('keeps background-coloured parts enclosed by the object (a white logo on a navy shirt)', () => {
    // Object 120×120 = 14400 px with a 40×40 white patch: 1600 / 14400 ≈ 11.1 % white.
    const colors = dominantColors(paint(240, 240, white, [[60, 60, 180, 180, navy], [100, 100, 140, 140, white]]));
    expect(colors.map((c) => c.name)).toEqual(['navy blue', 'white']);
    expect(colors[1]!.percentage).toBeCloseTo(11.1, -0.5);
  });

  it('with excludeBackground false, the background counts', () => {
    const colors = dominantColors(redBlue, { excludeBackground: false });
    // 256² − 160² = 40 960 of 65 536 pixels are white: 62.5 %.
    expect(colors.map((c) => c.name)).toEqual(['white', 'red', 'blue']);
    expect(colors[0]!.percentage).toBeCloseTo(62.5, -0.5);
  });

  it('with backgroundKept 0.5, the background counts at half weight', () => {
    const colors = dominantColors(redBlue, { backgroundKept: 0.5 });
    // 40 960 white pixels at half weight beside the 25 600 of the object: 20 480 / 46 080 ≈ 44.4 % white, red 38.9 %
    expect(colors.map((c) => c.name)).toEqual(['white', 'red', 'blue']);
    expect(colors[0]!.percentage).toBeCloseTo(44.4, -0.5);
    expect(colors[1]!.percentage).toBeCloseTo(38.9, -0.5);
    expect(dominantColors(redBlue, { backgroundKept: 0.5 })).toEqual(colors);
    // any share, not only 1/n: 0.25 keeps a quarter (10 240 of 40 960 white beside 25 600: 28.6 %), 1 keeps all
    expect(dominantColors(redBlue, { backgroundKept: 0.25 }).find((c) => c.name === 'white')!.percentage).toBeCloseTo(28.6, -0.5);
    expect(dominantColors(redBlue, { backgroundKept: 0.75 }).find((c) => c.name === 'white')!.percentage).toBeCloseTo(54.5, -0.5);
    expect(dominantColors(redBlue, { backgroundKept: 1 })[0]).toMatchObject({ name: 'white', percentage: expect.closeTo(61.5, -0.5) });
  });

  it('a bound box limits the analysis to one object, its background read around the box', () => {
    const img = paint(300, 200, [200, 200, 200], [
      [20, 40, 120, 160, red],
      [180, 40, 280, 160, green],
    ]);
    const colors = dominantColors(img, { boundBox: [170, 30, 290, 170] });
    expect(colors).toHaveLength(1);
    expect(colors[0]).toMatchObject({ name: 'green', percentage: 100 });
    // A box tight on the object: the object touches every edge, the background band is outside.
    const tight = dominantColors(img, { boundBox: [180, 40, 280, 160] });
    expect(tight).toHaveLength(1);
    expect(tight[0]).toMatchObject({ name: 'green', percentage: 100 });
  });

  it('a box drawn inside an object keeps its colour where the drop would leave little but a print on it (h281)', () => {
    // a navy shirt on white, a white logo on its chest; the box drawn on the chest around the logo
    const img = paint(300, 300, white, [
      [50, 50, 250, 280, navy],
      [130, 120, 170, 150, white],
    ]);
    const box: [number, number, number, number] = [100, 90, 200, 190];
    // the band around the box is navy: read as background, the shirt was dropped and the logo was all that was left
    expect(dominantColors(img, { boundBox: box })[0]).toMatchObject({ name: 'white', percentage: 100 });
    const drawn = dominantColors(img, { boundBox: box, minObjectShare: DRAWN_BOX_MIN_OBJECT });
    expect(drawn[0]).toMatchObject({ name: 'navy blue' });
    expect(drawn[0]!.percentage).toBeGreaterThan(80);
    // a loose box drawn around the shirt still drops the white around it
    expect(dominantColors(img, { boundBox: [30, 30, 270, 295], minObjectShare: DRAWN_BOX_MIN_OBJECT })[0]).toMatchObject({ name: 'navy blue', percentage: expect.closeTo(97.4, -1) });
  });

  it('a mask selects the object exactly, with no background estimate', () => {
    // 80×80 is under the sampling budget, so every pixel counts: mask columns 20..59, red below 30.
    const img = paint(80, 80, white, [[0, 0, 30, 80, red]]);
    const mask = new Uint8Array(80 * 80);
    for (let y = 0; y < 80; y++) for (let x = 20; x < 60; x++) mask[y * 80 + x] = 1;
    const colors = dominantColors(img, { mask });
    expect(colors.map((c) => [c.name, c.percentage])).toEqual([
      ['white', 75],
      ['red', 25],
    ]);
  });

  it('a plain image is its own colour; an empty box gives nothing', () => {
    const plain = paint(64, 48, navy, []);
    expect(dominantColors(plain)).toEqual([{ color: '#1c2748', name: 'navy blue', percentage: 100, luv: expect.any(Array) }]);
    expect(dominantColors(plain, { boundBox: [10, 10, 10, 40] })).toEqual([]);
    expect(dominantColors(plain, { boundBox: [100, 100, 200, 200] })).toEqual([]);
  });

  it('caps the number of colours, merging the smallest into their nearest', () => {
    const stripes: [number, number, number, number, Rgb][] = [red, blue, green, [245, 217, 55], [107, 50, 148], [240, 118, 28]].map((c, i) => [i * 20, 0, i * 20 + 20, 60, c as Rgb]);
    const img = paint(120, 60, white, stripes);
    expect(dominantColors(img, { excludeBackground: false })).toHaveLength(5);
    const three = dominantColors(img, { excludeBackground: false, maxColors: 3 });
    expect(three).toHaveLength(3);
    expect(three.reduce((s, c) => s + c.percentage, 0)).toBeCloseTo(100, 6);
  });

  it('refuses malformed input', () => {
    expect(() => dominantColors({ data: new Uint8Array(5), width: 2, height: 2 })).toThrow(RangeError);
    expect(() => dominantColors(redBlue, { mask: new Uint8Array(3) })).toThrow(RangeError);
  });
});

describe('dominant colours of a product photo', () => {
  it('black headphones on a light grey backdrop: the backdrop is excluded', async () => {
    const img = await decodeRgb(photoBytes('caltech101/headphone/image_0001.jpg'), 100e6, { maxEdge: 256 });
    const colors = dominantColors(img);
    expect(colors[0]!.name).toBe('charcoal');
    expect(colors[0]!.percentage).toBeGreaterThan(80);
    expect(colors.map((c) => c.name)).not.toContain('light grey');
  });
});
