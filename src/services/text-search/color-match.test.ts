import { describe, expect, it } from 'vitest';
import { colorPalette } from '../../vision/models/color-palette.ts';
import { srgbToLuv } from '../../vision/models/dominant-colors.ts';
import { colorWordShare } from './color-match.ts';

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
