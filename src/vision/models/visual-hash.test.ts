import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellMeans, hammingDistance, lowDct, visualHashes } from './visual-hash.ts';

/** Same synthetic images as scripts/visual-hash-reference.py, an independent implementation of docs/visual-hashes.md. */
function image(kind: string, w: number, h: number): Uint8Array {
  const rgb = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = (y * w + x) * 3;
      if (kind === 'halves') {
        const v = x < Math.floor(w / 2) ? 0 : 255;
        rgb.set([v, v, v], p);
      } else {
        rgb.set([(x * 7 + y * 13) % 256, (x * x + 3 * y) % 256, (x * y + 5 * x + 11) % 256], p);
      }
    }
  }
  return rgb;
}

const vectors = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/visual-hash-vectors.json'), 'utf8')) as Array<{ kind: string; width: number; height: number; bmh1: string; phash: string }>;

describe('visual hashes', () => {
  it('bmh1 of a 16×16 half-black, half-white image, by hand: each row 8 zeros then 8 ones', () => {
    expect(visualHashes(image('halves', 16, 16), 16, 16, 3).bmh1).toBe('0000000011111111'.repeat(16));
  });

  it('a uniform image: bmh1 all zeros (no cell above the mean); phash the DC bit alone, whatever its grey', () => {
    const grey = new Uint8Array(50 * 30 * 3).fill(128);
    const h = visualHashes(grey, 50, 30, 3);
    expect(h.bmh1).toBe('0'.repeat(256));
    // every other coefficient is zero: counted as 0, not as rounding noise whose sign set its bit (h273)
    expect(h.phash).toBe('1' + '0'.repeat(63));
    const white = visualHashes(new Uint8Array(64 * 48 * 3).fill(255), 64, 48, 3);
    expect(white).toEqual(h);
  });

  it('cell means are exact area means with floor(i·H/N) boundaries', () => {
    // 3 columns over a 2-cell grid: cells hold columns {0} and {1, 2}.
    const rgb = new Uint8Array([10, 10, 10, 20, 20, 20, 40, 40, 40]);
    const m = cellMeans(rgb, 3, 1, 3, 2);
    // Height 1 < 2 cells: row cell 0 is empty, so its cells are single pixels at (row 0, column
    // floor(j·3/2)): 10 and 20; row cell 1 covers row 0: means 10 and (20 + 40) / 2.
    expect(Array.from(m)).toEqual([10_000, 20_000, 10_000, 30_000]);
  });

  it('the DCT matches the textbook double sum', () => {
    const f = cellMeans(image('formula', 100, 61), 100, 61, 3, 32);
    const fast = lowDct(f);
    for (let v = 0; v < 8; v++) {
      for (let u = 0; u < 8; u++) {
        let c = 0;
        for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) c += f[y * 32 + x]! * Math.cos(((2 * x + 1) * u * Math.PI) / 64) * Math.cos(((2 * y + 1) * v * Math.PI) / 64);
        expect(fast[v * 8 + u]).toBeCloseTo(c, 3);
      }
    }
  });

  it.each(vectors)('matches the reference implementation: $kind $width×$height', ({ kind, width, height, bmh1, phash }) => {
    const h = visualHashes(image(kind, width, height), width, height, 3);
    expect(h.bmh1).toBe(bmh1);
    // halves too: its many zero coefficients (a symmetry's) are 0 in both, whatever order each sums in
    expect(h.phash).toBe(phash);
  });

  it('reads RGBA (channel stride 4) the same as RGB', () => {
    const rgb = image('formula', 37, 23);
    const rgba = new Uint8Array(37 * 23 * 4);
    for (let i = 0; i < 37 * 23; i++) rgba.set([rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!, 255], i * 4);
    expect(visualHashes(rgba, 37, 23, 4)).toEqual(visualHashes(rgb, 37, 23, 3));
  });

  it('hamming distance counts differing bits', () => {
    expect(hammingDistance('1010', '1010')).toBe(0);
    expect(hammingDistance('1010', '0101')).toBe(4);
    expect(() => hammingDistance('10', '101')).toThrow();
  });
});
