/**
 * mulberry32: a tiny, fast seeded generator of numbers in [0, 1). Deterministic results (k-means
 * seeding, synthetic benchmark and test data) come from the same seed giving the same sequence.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
