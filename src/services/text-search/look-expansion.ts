import type { Hit } from '../../index/collection-queries.ts';
import type { StoredRecord } from '../../store/collection-store.ts';
import { scaled } from '../visual-search/hits.ts';
import { cosineDistance } from '../../util/cosine-distance.ts';

/** Keyword answers whose look seeds the expansion. */
export const SEEDS = 5;
/** Fewer keyword answers than this: no look to go by (one photo's neighbours are that photo's, not the thing's). */
export const MIN_SEEDS = 2;
/** Records nearest the seeds' look that are ranked beside the keyword answers. */
export const LOOK_POOL = 200;
/** Records nearest the look asked for first: where they are not all within the seeds' reach, no more are (a cheaper search). */
export const LOOK_FIRST = 20;
/** Keyword answers fused (and read at least); those after them follow in keyword order, so that every page is a slice of one order. */
export const KEYWORD_POOL = 200;
/** Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher, SIGIR 2009). */
export const RRF_K = 60;
/**
 * Object concepts of one query that get a look of their own (its first ones, in query order); those after them are
 * searched by their keywords alone. Each look costs a neighbour search (up to 200 nearest, ef_search 400 on PostgreSQL).
 */
export const MAX_LOOKS = 3;

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

/**
 * The records near the look that count: those at most as far from it as the farthest seed, so that a record joins (or
 * rises) only where it looks at least as much like the seeds' look as each seed does; in a small collection every
 * record is among the nearest, and "dog" answered every one.
 */
export function withinSeeds(near: readonly Hit[], look: Float32Array, seeds: readonly (Float32Array | undefined)[]): Hit[] {
  const reach = Math.max(...seeds.filter((v): v is Float32Array => v !== undefined && v.length === look.length).map((v) => cosineDistance(v, look)));
  // the index's distances are float32 and approximate: a seed itself is never left out
  const kept = near.filter((h) => h.distance <= reach + 1e-4);
  // ranked by the distance as answers show it, ties by record key: usearch and pgvector differ in the last bits, and two
  // seeds always lie at one distance from their mean, so each backend put another first (h313: "airplane" answered
  // [0, 1.6129] on PostgreSQL and [0.8065, 0.8065] on SQLite)
  return kept.map((h) => ({ h, shown: scaled(h.distance) })).sort((a, b) => a.shown - b.shown || a.h.record.key - b.h.record.key).map(({ h }) => h);
}

/**
 * Keyword answers and the records nearest each object concept's look in one order, by reciprocal rank fusion: a record
 * the detector named that looks like the others rises, one it named that looks like none of them sinks, and one it
 * missed that looks like them joins (docs/text-search.md "Objects by their look"). One look list per concept of the
 * query ("dog cat": the dogs' and the cats', h321: one look of both was the mean of two things and looked like
 * neither). Distances 100·(1 − score / best), best the score of a record first in every list (the keyword list and
 * each look): 0 for such a record, ascending; ties by record key.
 *
 * Only the first KEYWORD_POOL keyword answers are fused; those after them follow in keyword order, each scored by its
 * keyword term alone (below every fused one: 1/(RRF_K + KEYWORD_POOL + 1) is less than any fused score), and a record
 * of the look among them is where the look put it. A page that reads more keyword answers than KEYWORD_POOL then only
 * appends to the order a shallower page reads (h313: a record of the look at keyword rank 250 rose by 1/310 once a
 * page read 250, and pages of one query were no slices of one order).
 */
export function fuseByLook(keyword: readonly Ranked[], looks: readonly (readonly Hit[])[]): Ranked[] {
  const score = new Map<number, { record: StoredRecord; score: number }>();
  const add = (record: StoredRecord, rank: number) => {
    const s = score.get(record.key) ?? { record, score: 0 };
    s.score += 1 / (RRF_K + rank);
    score.set(record.key, s);
  };
  keyword.slice(0, KEYWORD_POOL).forEach((h, i) => add(h.record, i + 1));
  for (const look of looks) look.slice(0, LOOK_POOL).forEach((h, i) => add(h.record, i + 1));
  const best = (1 + looks.length) / (RRF_K + 1);
  const distance = (s: number) => Math.round(100 * (1 - s / best) * 10_000) / 10_000;
  const fused = [...score.values()].sort((a, b) => b.score - a.score || a.record.key - b.record.key).map((s) => ({ record: s.record, distance: distance(s.score) }));
  const rest = keyword.flatMap((h, i) => (i < KEYWORD_POOL || score.has(h.record.key) ? [] : [{ record: h.record, distance: distance(1 / (RRF_K + i + 1)) }]));
  return [...fused, ...rest];
}
