import type { CollectionRecord, StoredRecord } from '../store/collection-store.ts';
import type { ParsedQuery } from '../text-search/query.ts';

/** A filter already checked by `validateFilter` (src/store/filters). */
export type Filter = Record<string, unknown>;

/** A text search answer: higher `score` is better (BM25, each engine's own). */
export interface TextHit {
  record: StoredRecord;
  score: number;
}

/** What a backend keeps between one request's calls of one text query (CollectionQueries.text): empty at first. */
export interface TextMemo {
  held?: unknown;
}

export interface Hit {
  record: StoredRecord;
  /** Cosine distance, 1 − cos, in [0, 2]; the API scales it (see docs/api-decisions.md). */
  distance: number;
}

/**
 * The reads of a collection that depend on the backend: the embedded one keeps each collection's
 * documents and HNSW index in memory (filters run in JS), PostgreSQL runs them as SQL over JSONB
 * with pgvector. Writes go through CollectionStore first; `applied` then tells the embedded
 * backend what changed (PostgreSQL needs nothing: its index is the table's).
 */
export interface CollectionQueries {
  count(c: CollectionRecord, filter?: Filter): Promise<number>;
  /** Matching records in insertion order; `after`: only those after that record key (a page that deletes before it do not shift). */
  find(c: CollectionRecord, filter: Filter | undefined, limit: number, offset: number, after?: number): Promise<StoredRecord[]>;
  random(c: CollectionRecord, count: number, filter?: Filter): Promise<StoredRecord[]>;
  /** A record and its vector by the client's `_id` (the query of visualKNN and kin). */
  lookup(c: CollectionRecord, recordId: string): Promise<{ record: StoredRecord; vector: Float32Array; hash?: string } | undefined>;
  /** The `k` nearest records, closest first; never fewer than k when k records match. */
  knn(c: CollectionRecord, query: Float32Array, k: number, filter?: Filter): Promise<Hit[]>;
  /** Every record within `maxDistance` (cosine distance), closest first, at most `limit`. */
  range(c: CollectionRecord, query: Float32Array, maxDistance: number, limit: number, filter?: Filter): Promise<Hit[]>;
  /**
   * For each of `records` (by key), the records within `maxDistance` of its own vector, closest first, at most `limit`,
   * itself among them; a record with none (stored without a vector, or outside the filter) has no entry. One pass over a page of records, as `range` of
   * each would answer (allNearDupPairs: one round trip a page on PostgreSQL instead of two a record).
   */
  neighbours(c: CollectionRecord, records: StoredRecord[], maxDistance: number, limit: number, filter?: Filter): Promise<Map<number, Hit[]>>;
  /**
   * Records whose `bmh1` visual hash lies within `maxBits` of `hash` (records stored without one are
   * not among them, nor those within `maxBits` of a blank image's hash, all 0 or all 1: a flat image's tells
   * nothing of its colour), at most `limit`, each with its descriptor distance from `query`, closest first.
   */
  nearHashes(c: CollectionRecord, hash: string, maxBits: number, query: Float32Array, limit: number, filter?: Filter): Promise<Hit[]>;
  /**
   * Text search: records whose seen content, own words or OCR text match the query, best first
   * (BM25 over the collection's own full-text index), at most `k` after the filter. `memo`, one per request and query:
   * a backend may keep there what a later call of the same query (a larger `k`) can read on from.
   */
  text(c: CollectionRecord, q: ParsedQuery, k: number, filter?: Filter, memo?: TextMemo): Promise<TextHit[]>;
  /** Which of the query's concept codes and words occur anywhere in the collection's index. */
  present(c: CollectionRecord, q: ParsedQuery): Promise<Set<string>>;
  /** Makes the collection ready to search (the embedded index read from its file, or built); nothing to do where the database holds it. */
  load(c: CollectionRecord): Promise<void>;
  /** How far the collection's in-memory index is read (ping); undefined where the database holds it. */
  loadState(c: CollectionRecord): IndexLoadState | undefined;
  applied(c: CollectionRecord, change: Change): void;
  /** Drops what is held for a collection (after it is deleted). */
  forget(collectionId: string): Promise<void>;
  /** Removes what deleted collections left behind outside the database (the embedded index files); returns how many collections' files went. */
  removeLeftovers(): Promise<number>;
  close(): Promise<void>;
}

/**
 * `seq`: the change's number; `from`…`seq` when it stands for several (a delete of several records: one each). Every
 * number a committed write took is in one change given to `applied`, in whatever order the requests get there.
 */
export type Change =
  | { kind: 'upsert'; record: StoredRecord; vector?: Float32Array; hash?: string | null; seq: number }
  | { kind: 'delete'; keys: number[]; seq: number; from?: number };

/** A collection's in-memory index: not read yet (read on the first request that needs it), being read, or held. */
export type IndexLoadState = { state: 'not loaded' } | { state: 'loading'; records: number; of: number; rebuilding?: IndexRebuilding } | { state: 'loaded' };

/**
 * A load whose saved index could not be used (missing, damaged, other settings, diverged: `reason`) rebuilds the graph
 * after every record is read: vectors inserted of the total (h362).
 */
export interface IndexRebuilding {
  inserted: number;
  of: number;
  reason: string;
}

/**
 * A request that needs a collection's index still loading (after a restart) past the wait allowed: answered 503
 * `index_loading` with Retry-After (src/http/errors.ts), never from a part of the index.
 */
export class IndexLoadingError extends Error {
  readonly code = 'LOUPE_INDEX_LOADING';
  constructor(
    readonly collectionId: string,
    readonly waitedMs: number,
    readonly retryAfterS: number,
    readonly progress: { records: number; of: number; rebuilding?: IndexRebuilding },
  ) {
    const r = progress.rebuilding;
    const far = r ? `rebuilding: ${r.inserted} of ${r.of} vectors inserted` : `${progress.records} of ${progress.of} records read`;
    super(`the vector index of collection ${collectionId} is still loading (${far} after ${Math.round(waitedMs / 1000)} s)`);
    this.name = 'IndexLoadingError';
  }
}
