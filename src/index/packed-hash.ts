/**
 * A record's `bmh1` visual hash (256 binary digits) as 8 words, as the embedded backend holds it in memory; packed on
 * the arena's fill worker too (arena-fill-worker.ts), where the hashes are read with the vectors they lie after.
 */

/** 256 binary digits as 8 words. */
export const blank = new Uint32Array(8);

/** `bits` packed into `out` from word `offset` (8 words, zeroed first). */
export function packHashInto(bits: string, out: Uint32Array, offset: number): void {
  out.fill(0, offset, offset + 8);
  for (let i = 0; i < 256; i++) if (bits.charCodeAt(i) === 49) out[offset + (i >>> 5)]! |= 1 << (i & 31);
}

export function packHash(bits: string): Uint32Array {
  const words = new Uint32Array(8);
  packHashInto(bits, words, 0);
  return words;
}

export function unpackHash(words: Uint32Array): string {
  let bits = '';
  for (let i = 0; i < 256; i++) bits += (words[i >>> 5]! >>> (i & 31)) & 1 ? '1' : '0';
  return bits;
}

export function bitsApart(a: Uint32Array, b: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < 8; i++) {
    let x = (a[i]! ^ b[i]!) >>> 0;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}
