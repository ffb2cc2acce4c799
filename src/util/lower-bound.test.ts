import { describe, expect, it } from 'vitest';
import { lowerBound } from './lower-bound.ts';

describe('lowerBound', () => {
  it('finds the first item not below the value, in numbers and in strings', () => {
    expect([0, 1, 5, 6, 7].map((v) => lowerBound([1, 3, 3, 6], v))).toEqual([0, 0, 3, 3, 4]);
    expect(lowerBound([], 1)).toBe(0);
    expect(['a', 'ca', 'cat', 'd'].map((v) => lowerBound(['b', 'cat', 'cats', 'dog'], v))).toEqual([0, 1, 1, 3]);
  });
});
