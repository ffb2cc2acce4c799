import { expect, it } from 'vitest';
import { encodeI8, roundHalfUp } from './arena-layout.ts';
import { seededRandom } from '../util/seeded-random.ts';

/** The doubles next to `x`, `steps` each way. */
function around(x: number, steps: number): number[] {
  const f = new Float64Array(1);
  const bits = new BigInt64Array(f.buffer);
  const out: number[] = [];
  for (let s = -steps; s <= steps; s++) {
    f[0] = x;
    // a double's neighbours are its bit pattern ± 1 (toward and away from zero alike, as a set)
    bits[0] = bits[0]! + BigInt(s);
    out.push(f[0]);
  }
  return out;
}

it('rounds as Math.round over every half-way point of a code, the doubles beside each, and random values', () => {
  const xs = [0, -0, NaN, Infinity, -Infinity, 1e-300, -1e-300, 0.49999999999999994, -0.49999999999999994];
  for (let k = -130; k <= 130; k++) xs.push(...around(k + 0.5, 4), ...around(k, 4));
  const r = seededRandom(367);
  for (let i = 0; i < 200_000; i++) xs.push((r() * 2 - 1) * 130);
  const differ = xs.filter((x) => {
    const [a, b] = [new Int8Array(1), new Int8Array(1)];
    a[0] = Math.round(x);
    b[0] = roundHalfUp(x);
    return a[0] !== b[0] || (Number.isFinite(x) && Math.round(x) !== roundHalfUp(x));
  });
  expect(differ).toEqual([]);
  // the one double whose sum with 0.5 rounds up to the next integer
  expect(Math.floor(0.49999999999999994 + 0.5)).toBe(1);
  expect(roundHalfUp(0.49999999999999994)).toBe(0);
});

it('codes a vector from any offset as the index did before (scale 127/‖v‖, Math.round), code for code', () => {
  const r = seededRandom(368);
  const d = 1792;
  const src = Float32Array.from({ length: 3 * d }, () => (r() - 0.5) * 0.1);
  const out = new Int8Array(3 * d);
  encodeI8(src, d, d, out, 2 * d);
  const v = src.subarray(d, 2 * d);
  let norm = 0;
  for (let i = 0; i < d; i++) norm += v[i]! * v[i]!;
  const scale = 127 / Math.sqrt(norm);
  const before = Int8Array.from(v, (x) => Math.round(x * scale));
  expect(out.subarray(2 * d)).toEqual(before);
  expect(out.subarray(0, 2 * d).every((x) => x === 0)).toBe(true);
  expect(new Set(before).size).toBeGreaterThan(5);
});
