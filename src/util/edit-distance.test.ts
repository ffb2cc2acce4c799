import { describe, expect, it } from 'vitest';
import { editDistance, oneEditIndex } from './edit-distance.ts';

describe('edit distance', () => {
  it('counts the letters changed, added or lost', () => {
    expect(editDistance('pikachu', 'pikachv')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('oneEditIndex', () => {
  it('finds the words one letter changed, lost or added away, and no others', () => {
    const near = oneEditIndex(['chewtle', 'chewtla', 'drednaw', 'sally']);
    expect(near('chewtle').sort()).toEqual(['chewtla']);
    expect(near('chewtl').sort()).toEqual(['chewtla', 'chewtle']);
    expect(near('xchewtle')).toEqual(['chewtle']);
    expect(near('wally')).toEqual(['sally']);
    expect(near('walley')).toEqual([]);
  });
});
