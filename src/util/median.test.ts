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

  it('leaves a plain array as it was, and sorts a typed one in place', () => {
    const plain = [3, 1, 2];
    median(plain);
    expect(plain).toEqual([3, 1, 2]);
    const typed = Float64Array.from([3, 1, 2]);
    expect(medianInPlace(typed)).toBe(2);
    expect([...typed]).toEqual([1, 2, 3]);
  });
});
