import { describe, expect, it } from 'vitest';
import { median, medianInPlace } from './median.ts';

describe('median', () => {
  it('takes the middle number, or the mean of the two middle ones, in numeric order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([10, 2, 4, 100])).toBe(7);
    // numeric, not string, order (a default sort of plain arrays puts 10 before 9)
    expect(median([9, 10, 8])).toBe(9);
    expect(median([-5, -1.5, 2])).toBe(-1.5);
    expect(median([])).toBeNaN();
  });

  it('leaves a plain array as it was, and reorders a typed one in place', () => {
    const plain = [3, 1, 2];
    median(plain);
    expect(plain).toEqual([3, 1, 2]);
    const typed = Float64Array.from([3, 1, 2]);
    expect(medianInPlace(typed)).toBe(2);
    expect([...typed].sort((a, b) => a - b)).toEqual([1, 2, 3]);
  });

  it('gives what sorting gives, on odd and even counts, ties and negatives', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + Math.floor(next() * 70);
      // few distinct values on some trials, so ties are common
      const values = Array.from({ length: n }, () => (trial % 3 === 0 ? Math.floor(next() * 4) : (next() - 0.5) * 200));
      const sorted = [...values].sort((a, b) => a - b);
      const m = n >> 1;
      const expected = n % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
      expect(medianInPlace(Float64Array.from(values))).toBe(expected);
    }
  });
});
