import type { Hit } from '../../index/collection-queries.ts';
import type { StoredRecord } from '../../store/collection-store.ts';

/** Keyword answers whose look seeds the expansion. */
export const SEEDS = 5;
/** Fewer keyword answers than this: no look to go by (one photo's neighbours are that photo's, not the thing's). */
export const MIN_SEEDS = 2;
/** Records nearest the seeds' look that are ranked beside the keyword answers. */
export const LOOK_POOL = 200;
/** Records nearest the look asked for first: where they are not all within the seeds' reach, no more are (a cheaper search). */
export const LOOK_FIRST = 20;
/** Keyword answers read at least (the fused order of the first LOOK_POOL is then the same whichever page asks). */
export const KEYWORD_POOL = 200;
/** Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher, SIGIR 2009). */
export const RRF_K = 60;
/** A record first in both lists. */
const BEST = 2 / (RRF_K + 1);

interface Ranked {
  record: StoredRecord;
  distance: number;
}

/** The seeds' look: the mean of their vectors, normalised; null when fewer than MIN_SEEDS have one of the same length. */
export function lookOf(vectors: readonly (Float32Array | undefined)[]): Float32Array | null {
  const first = vectors.find((v) => v !== undefined);
  const got = vectors.filter((v): v is Float32Array => v !== undefined && v.length === first!.length);
  if (got.length < MIN_SEEDS) return null;
  const mean = new Float32Array(got[0]!.length);
  for (const v of got) for (let i = 0; i < v.length; i++) mean[i]! += v[i]!;
  const norm = Math.hypot(...mean);
  if (!(norm > 0)) return null;
  for (let i = 0; i < mean.length; i++) mean[i]! /= norm;
  return mean;
}

/** Cosine distance, as the indexes measure it (1 − cos). */
function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? 1 - dot / Math.sqrt(na * nb) : 1;
}

/**
 * The records near the look that count: those at most as far from it as the farthest seed, so that a record joins (or
 * rises) only where it looks at least as much like the seeds' look as each seed does; in a small collection every
 * record is among the nearest, and "dog" answered every one.
 */
export function withinSeeds(near: readonly Hit[], look: Float32Array, seeds: readonly (Float32Array | undefined)[]): Hit[] {
  const reach = Math.max(...seeds.filter((v): v is Float32Array => v !== undefined && v.length === look.length).map((v) => cosineDistance(v, look)));
  // the index's distances are float32 and approximate: a seed itself is never left out
  return near.filter((h) => h.distance <= reach + 1e-4);
}

/**
 * Keyword answers and the records nearest their first answers' look in one order, by reciprocal rank fusion: a record
 * the detector named that looks like the others rises, one it named that looks like none of them sinks, and one it
 * missed that looks like them joins (docs/text-search.md "Objects by their look"). Distances 100·(1 − score / best):
 * 0 for a record first in both lists, ascending; ties by record key.
 */
export function fuseByLook(keyword: readonly Ranked[], look: readonly Hit[]): Ranked[] {
  const score = new Map<number, { record: StoredRecord; score: number }>();
  const add = (record: StoredRecord, rank: number) => {
    const s = score.get(record.key) ?? { record, score: 0 };
    s.score += 1 / (RRF_K + rank);
    score.set(record.key, s);
  };
  keyword.forEach((h, i) => add(h.record, i + 1));
  look.slice(0, LOOK_POOL).forEach((h, i) => add(h.record, i + 1));
  return [...score.values()]
    .sort((a, b) => b.score - a.score || a.record.key - b.record.key)
    .map((s) => ({ record: s.record, distance: Math.round(100 * (1 - s.score / BEST) * 10_000) / 10_000 }));
}
