import { describe, expect, it } from 'vitest';
import { artDistance, artworkHash, hashWords, turnedOver } from './card-artwork.ts';

/** A card-sized image of noise, its sides odd and even, so the art box's rounding is tested both ways. */
function noise(width: number, height: number, seed: number) {
  const data = new Uint8Array(width * height * 3);
  let x = seed;
  for (let i = 0; i < data.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    data[i] = x >>> 24;
  }
  return { data, width, height };
}

describe('artwork hash', () => {
  it('hashes the card turned over from its art box alone, bit for bit as the turned card', () => {
    for (const [w, h] of [[1000, 1397], [733, 1023], [500, 698]] as const) {
      const up = noise(w, h, w);
      expect(artworkHash(up, true)).toBe(artworkHash(turnedOver(up)));
      expect(artworkHash(up, true)).not.toBe(artworkHash(up));
    }
  });

  it('counts differing bits between hashes, and refuses what is not a hash', () => {
    const a = artworkHash(noise(500, 698, 1));
    const b = artworkHash(noise(500, 698, 2));
    expect(artDistance(hashWords(a), hashWords(a))).toBe(0);
    const bits = (h: string) => [...h].flatMap((c) => [...parseInt(c, 16).toString(2).padStart(4, '0')]);
    const [ba, bb] = [bits(a), bits(b)];
    expect(artDistance(hashWords(a), hashWords(b))).toBe(ba.filter((x, i) => x !== bb[i]).length);
    expect(() => hashWords('xyz')).toThrow(/not an artwork hash/);
  });
});
