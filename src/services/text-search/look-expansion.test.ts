import { describe, expect, it } from 'vitest';
import { fuseByLook, KEYWORD_POOL, lookOf, LOOK_POOL, RRF_K, withinSeeds } from './look-expansion.ts';

const rec = (key: number) => ({ key, recordId: `r${key}`, data: {} });
const list = (...keys: number[]) => keys.map((k, i) => ({ record: rec(k), distance: i }));

describe('lookOf', () => {
  it('is the normalised mean of the seeds that have a vector', () => {
    const look = lookOf([Float32Array.from([1, 0]), undefined, Float32Array.from([0, 1])])!;
    expect(look[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(look[1]).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it('is no look with fewer than two vectors, or vectors that cancel out', () => {
    expect(lookOf([Float32Array.from([1, 0]), undefined])).toBeNull();
    expect(lookOf([undefined, undefined])).toBeNull();
    expect(lookOf([])).toBeNull();
    expect(lookOf([Float32Array.from([1, 0]), Float32Array.from([-1, 0])])).toBeNull();
  });
});

describe('fuseByLook', () => {
  it('keeps the keyword order when the look adds nothing', () => {
    const out = fuseByLook(list(5, 3, 9), [[]]);
    expect(out.map((h) => h.record.key)).toEqual([5, 3, 9]);
    // ascending distances, the first in both lists at 0 would be 0: here only in one, so 50
    expect(out[0]!.distance).toBeCloseTo(50, 3);
    expect(out.map((h) => h.distance)).toEqual([...out.map((h) => h.distance)].sort((a, b) => a - b));
  });

  it('raises a keyword answer that looks like the first ones and lets in one the keywords missed', () => {
    // keyword: 1, 2 (looks unlike the rest), 3; look: 1, 3, 4 (never named by the detector)
    const out = fuseByLook(list(1, 2, 3), [list(1, 3, 4)]).map((h) => h.record.key);
    expect(out).toEqual([1, 3, 2, 4]);
    const both = fuseByLook(list(1, 2, 3), [list(1, 3, 4)])[0]!;
    expect(both.distance).toBe(0);
  });

  it('breaks ties by record key and reads at most LOOK_POOL of the look', () => {
    expect(fuseByLook(list(8), [list(7)]).map((h) => h.record.key)).toEqual([7, 8]);
    const far = Array.from({ length: LOOK_POOL + 5 }, (_, i) => i + 100);
    const out = fuseByLook([], [list(...far)]);
    expect(out).toHaveLength(LOOK_POOL);
    expect(out.at(-1)!.distance).toBeCloseTo(100 * (1 - (1 / (RRF_K + LOOK_POOL)) / (2 / (RRF_K + 1))), 3);
  });
});

describe('fuseByLook with a look per concept (h321)', () => {
  it('fuses the keyword list with each look, 0 only for a record first in every list', () => {
    // keyword: dogs 1, 2 then cats 3, 4; the dogs' look 1, 2, 5 (a dog unseen); the cats' look 3, 4, 6 (a cat unseen)
    const out = fuseByLook(list(1, 2, 3, 4), [list(1, 2, 5), list(3, 4, 6)]);
    // the first cat (keyword 3rd, its look's 1st) and the second dog (2nd in both) interleave: both objects lead
    expect(out.map((h) => h.record.key)).toEqual([1, 3, 2, 4, 5, 6]);
    // record 1: first in the keyword list and the dogs' look, in no cats' look: 2/61 of the best 3/61
    expect(out[0]!.distance).toBeCloseTo(100 / 3, 3);
    expect(fuseByLook(list(1), [list(1), list(1), list(1)])[0]!.distance).toBe(0);
    // the unseen cats 9 and 6 (2nd and 3rd in their look) rank as keyword answers 2nd and 3rd would, above the 4th
    expect(fuseByLook(list(1, 3, 7, 8), [list(1), list(3, 9, 6)]).map((h) => h.record.key)).toEqual([1, 3, 9, 6, 7, 8]);
  });

  it('scores one look as it did before looks were per concept (one object word answers as it did)', () => {
    const one = fuseByLook(list(5, 3, 9, 2), [list(3, 11, 5)]);
    const rrf = (ranks: number[]) => Math.round(100 * (1 - ranks.reduce((s, r) => s + 1 / (RRF_K + r), 0) / (2 / (RRF_K + 1))) * 10_000) / 10_000;
    expect(one).toEqual([
      { record: rec(3), distance: rrf([2, 1]) },
      { record: rec(5), distance: rrf([1, 3]) },
      { record: rec(11), distance: rrf([2]) },
      { record: rec(9), distance: rrf([3]) },
      { record: rec(2), distance: rrf([4]) },
    ]);
  });
});

describe('withinSeeds', () => {
  it('keeps the records no farther from the look than the farthest seed', () => {
    const seeds = [Float32Array.from([1, 0]), Float32Array.from([0.8, 0.6])];
    const look = lookOf(seeds)!;
    // the seeds lie about 0.051 from the look
    const near = [0, 0.03, 0.0512, 0.2, 0.9].map((distance, i) => ({ record: rec(i), distance }));
    expect(withinSeeds(near, look, seeds).map((h) => h.record.key)).toEqual([0, 1, 2]);
  });

  it('ranks records at one distance as shown by record key, whatever order the index gave (h313)', () => {
    const seeds = [Float32Array.from([1, 0]), Float32Array.from([0, 1])];
    const look = lookOf(seeds)!;
    // both seeds lie 1 − √½ from their mean; the backends differ in the last bits
    const d = 1 - Math.SQRT1_2;
    const near = [{ record: rec(9), distance: d - 1e-9 }, { record: rec(4), distance: d + 1e-9 }];
    expect(withinSeeds(near, look, seeds).map((h) => h.record.key)).toEqual([4, 9]);
  });
});

describe('fuseByLook paging (h313)', () => {
  it('answers every page as a slice of one order, however many keyword answers the page read', () => {
    // 400 keyword answers; the look holds two of the first ones, three of those past KEYWORD_POOL and two of none
    const keyword = list(...Array.from({ length: 400 }, (_, i) => i + 1));
    const look = list(1, 3, 210, 250, 300, 1001, 1002);
    const fused = (m: number) => fuseByLook(keyword.slice(0, Math.max(KEYWORD_POOL, m)), [look]).slice(0, m);
    const whole = fused(400).map((h) => h.record.key);
    for (const m of [1, 30, 100, 199, 200, 201, 220, 260, 310, 399]) expect(fused(m).map((h) => h.record.key), `m ${m}`).toEqual(whole.slice(0, m));
    expect(new Set(whole).size).toBe(whole.length);
    const d = fused(400).map((h) => h.distance);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    expect(d.every((x) => x >= 0 && x < 100)).toBe(true);
  });
});
