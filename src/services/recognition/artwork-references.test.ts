import { describe, expect, it } from 'vitest';
import { hashWords } from '../../vision/recognition/card-artwork.ts';
import { artEvidence, type ArtworkIndex } from './artwork-references.ts';

/** A hash whose first `ones` bits are set: the distance between two is the difference of their counts. */
const hash = (ones: number): string => {
  const bits = '1'.repeat(ones).padEnd(256, '0');
  let hex = '';
  for (let i = 0; i < 256; i += 4) hex += parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
};
function indexOf(refs: Record<string, number>): ArtworkIndex {
  const keys = Object.keys(refs);
  const words = new Uint32Array(keys.length * 8);
  keys.forEach((k, i) => words.set(hashWords(hash(refs[k]!)), i * 8));
  return { keys, at: new Map(keys.map((k, i) => [k, i])), words };
}

describe('artwork evidence', () => {
  it('gives each reference its distance, the nearer of the two ways up, and the nearest under 60 bits in order', () => {
    const index = indexOf({ a: 10, b: 40, c: 100, d: 12, e: 200 });
    const art = artEvidence(index, [hash(0), hash(190)]);
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => art.distance(k))).toEqual([10, 40, 90, 12, 10]);
    expect(art.distance('unknown')).toBeNull();
    // ties by key; c is 90 bits from either way up
    expect(art.nearest).toEqual(['a', 'e', 'd', 'b']);
  });

  it('takes at most five references as candidates', () => {
    const index = indexOf(Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((n) => [`k${n}`, n])));
    expect(artEvidence(index, [hash(0)]).nearest).toEqual(['k1', 'k2', 'k3', 'k4', 'k5']);
  });
});
