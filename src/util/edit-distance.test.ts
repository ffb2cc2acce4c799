import { describe, expect, it } from 'vitest';
import { editDistance } from './edit-distance.ts';

describe('edit distance', () => {
  it('counts the letters changed, added or lost', () => {
    expect(editDistance('pikachu', 'pikachv')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});
