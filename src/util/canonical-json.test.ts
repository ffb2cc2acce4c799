import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonSha256 } from './canonical-json.ts';
import { loopTurnsDuring } from '../../test/helpers/loop-turns.ts';

const digest = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('hex');

describe('canonicalJsonSha256', () => {
  it('is the digest of canonicalJson, whatever the slices: escapes, surrogate pairs on a slice edge, lone surrogates, key order, undefined', async () => {
    const texts = ['plain', 'quote " back \\ slash', 'line\nfeed\ttab\u0001\u2028', '😀😀😀😀😀', 'a😀b😀c😀', '\ud83d lone high', 'lone low \ude00 x', 'é'.repeat(9), 'x'.repeat(40)];
    const values: unknown[] = [
      ...texts,
      ['ws-1', { type: 'flows', records: [{ _id: 7, _base64: 'QUJD'.repeat(20) }, { _url: 'https://e.x/a?b=c' }], webhook: undefined, mode: null }],
      { z: 1, a: [1, undefined, null, true, 2.5e-7, { y: '😀'.repeat(7), b: texts }], '😀': { '': '' } },
      [],
      {},
    ];
    for (const v of values) {
      for (const step of [2, 3, 5, 16, 1 << 20]) expect(await canonicalJsonSha256(v, step), `${JSON.stringify(v).slice(0, 60)} step ${step}`).toBe(digest(v));
    }
  });

  it('lets the event loop turn while it hashes a long string', async () => {
    const value = { records: [{ _base64: 'QUJD'.repeat(1 << 20) }] };
    const { result, turns } = await loopTurnsDuring(() => canonicalJsonSha256(value));
    expect(result).toBe(digest(value));
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('lets the event loop turn while it hashes many small values, their text short of a step', async () => {
    const value = { records: [{ _url: 'https://e.x/a.jpg', list: new Array(100_000).fill(0) }] };
    const { result, turns } = await loopTurnsDuring(() => canonicalJsonSha256(value));
    expect(result).toBe(digest(value));
    // 200,000 pieces (a number and a comma each): let go every 20,000, where 200 KB of text alone lets it go never
    expect(turns).toBeGreaterThanOrEqual(9);
  });
});
