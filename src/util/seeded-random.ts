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

/** `n` items of `list` drawn without replacement in a seeded order (a Fisher–Yates shuffle's first `n`): the same draw every run. */
export function seededSample<T>(list: readonly T[], n: number, seed: number): T[] {
  const r = seededRandom(seed);
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}
