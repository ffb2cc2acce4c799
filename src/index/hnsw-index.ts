/**
 * Embedded vector index for one collection: a usearch HNSW graph persisted beside the database,
 * plus an in-memory float32 copy of every live vector (the "arena").
 *
 * The database is the source of truth. The index file is only ever a verified snapshot tagged
 * with the change `seq` it reflects; on open the snapshot is loaded and the database's changes
 * after that seq are replayed, and anything that does not verify is rebuilt from the database.
 * See docs/vector-index.md for the design, the crash-safety argument and the measured defaults.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Index, MetricKind, exactSearch, type Matches, type ScalarKind } from 'usearch';
import { ARENA_CHUNK, encodeI8 } from './arena-layout.ts';

export type Quantization = 'f32' | 'f16' | 'i8';

export interface IndexRow {
  key: number;
  vector: Float32Array;
}

/** A change after a checkpoint: an upsert (vector) or a deletion (null). */
export interface IndexChange {
  key: number;
  vector: Float32Array | null;
  seq: number;
}

/**
 * Rows given whole, as the arena holds them (arena-layout.ts): `keys.length` rows in increasing key order, their vectors
 * and int8 codes in `vectors` and `codes`, each room for `ARENA_CHUNK` rows. Taken as they are where the arena's next
 * slot begins a chunk (a load's fill, made on a worker thread: arena-fill.ts), else copied row by row.
 */
export interface ArenaChunk {
  keys: Float64Array;
  vectors: Float32Array;
  codes: Int8Array;
}

type MaybeAsyncIterable<T> = Iterable<T> | AsyncIterable<T>;

/**
 * What the store provides. Writes may go on during open: each committed after `currentSeq()` is read must be in
 * `changesSince` (or its effect in `all()`), and the caller applies it again after the open (applying is idempotent).
 */
export interface IndexSource {
  dimensions: number;
  /** Every live (key, vector) row, one at a time or a chunk at a time, for filling the arena and for a full rebuild. */
  all(): MaybeAsyncIterable<IndexRow | ArenaChunk>;
  /**
   * Every change with seq > `seq`. Return null when that history is no longer complete
   * (e.g. tombstones pruned): the index is then rebuilt instead of patched.
   */
  changesSince(seq: number): MaybeAsyncIterable<IndexChange> | null | Promise<MaybeAsyncIterable<IndexChange> | null>;
  currentSeq(): number | Promise<number>;
}

export interface HnswOpenOptions {
  /** The usearch file; the sidecar is `${file}.json`. */
  file: string;
  dimensions: number;
  metric?: 'cos';
  quantization?: Quantization;
  connectivity?: number;
  expansionAdd?: number;
  /** Default candidate pool per query (usearch's ef); per-query override via `search(..., { expansion })`. */
  expansionSearch?: number;
  /** Threads for bulk (re)builds only; single adds and searches run on the calling thread. */
  threads?: number;
  source: IndexSource;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /**
   * Told as a rebuild of the graph begins (0 inserted) and after each batch of vectors inserted, and awaited: a
   * server's start says how far a rebuild is and estimates its end from its own rate, not the read's (20,000 records
   * of 1792-d: read in a few seconds, rebuilt in 5–40 s on two cores, h359/h362). A throw abandons the open (the
   * server's stop).
   */
  onRebuild?: (progress: RebuildProgress) => void | Promise<void>;
  /** Vectors per bulk insert of a rebuild (512; tests make it small to watch the count move). */
  buildBatch?: number;
}

/** How far an open's rebuild of the graph is: vectors inserted of the total, and why the saved file was not used. */
export interface RebuildProgress {
  inserted: number;
  total: number;
  reason: string;
}

export interface SearchOptions {
  /** Keys a result may have. A predicate's selectivity is unknown, so it is discovered by oversampling. */
  allowed?: (key: number) => boolean;
  /** The allowed keys themselves; their count picks the strategy up front. Keys not indexed are ignored. */
  allowedKeys?: ReadonlySet<number> | readonly number[];
  /** Brute force when at most this many keys are allowed. */
  exactBelow?: number;
  /** Candidate pool for this query (usearch ef); larger is slower and more accurate. */
  expansion?: number;
}

export type SearchStrategy = 'hnsw' | 'hnsw-filtered' | 'exact';

export interface SearchResult {
  keys: number[];
  /** Cosine distance, 1 − cos, ascending; ties broken by key. */
  distances: number[];
  strategy: SearchStrategy;
  /** The graph's candidate pool, for an unfiltered graph search. */
  pool?: number;
}

export type OpenOutcome = 'created' | 'loaded' | 'caught-up' | 'rebuilt';

/** Measured by bench/hnsw.ts (2026-11-22, 100k × 1792-d); docs/vector-index.md has the table. */
export const HNSW_DEFAULTS = {
  quantization: 'i8' as Quantization,
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 64,
  /** At most this many allowed keys: brute force, cheaper than any useful graph pool and exact. */
  exactBelow: 3000,
};

const SIDECAR_FORMAT = 'loupe-hnsw/1';
/** How much more than the expected number of matches a filtered HNSW pass asks for. */
const OVERSAMPLE = 1.5;
/** Largest filtered pool worth asking the graph for; beyond it brute force over the allowed keys (docs/vector-index.md). */
const MAX_FILTER_POOL = 160;
/**
 * An unfiltered search over at most this many vectors is brute force (about 1–2 ms at 1792-d): the
 * graph's answer is approximate past its pool, so pages walked with `from` (a larger k each time)
 * repeated some records and skipped others (k 25, from 0…125 over 147 records).
 */
const EXACT_UNFILTERED_BELOW = 1024;
/**
 * The graph's pool for k results: twice k, rounded up to a power of two, so that pages asking for
 * nearby k share one pool (and one ordering) and the last places are found with a margin.
 */
const poolFor = (k: number): number => 2 ** Math.ceil(Math.log2(Math.max(2 * k, 1)));
/**
 * The least pool of an unfiltered graph search: pages walked with `from` up to 128 deep (k + from
 * ≤ 128) share it, so one ordering; and near copies (many photos of one product) are found. At
 * poolFor(k) alone, a helper's 50,000 clustered records gave recall@30 0.90, pages at from 0 and
 * 30 that repeated and skipped records (each its own pool: 64, 128…), and an `_id` query without its
 * own record; 256 costs about 1.5 ms more a search at 50,000 × 1792-d (bench/hnsw.ts: 1,592 → 473
 * queries a second on one thread).
 */
const MIN_UNFILTERED_POOL = 256;
const BUILD_BATCH = 512;
/** Vectors per exactSearch call: ~0.9 MB at 1792-d, so the gathered batch stays in L2. */
const EXACT_BATCH = 128;
/**
 * Brute force over more keys than this first ranks them by their int8 codes (a quarter of the
 * bytes, and usearch's i8 kernel is ~3.5× faster than f32 at 1792-d), then rescores the best
 * few in float32, so the answer and its distances are still exact float32 cosine.
 */
const I8_PRESELECT_ABOVE = 1024;
/**
 * Int8 candidates rescored in float32: 4 per wanted result and at least 64, because int8 codes
 * tie often in few dimensions (and near-ties decide the last places of small k).
 */
const I8_RESCORE_FACTOR = 4;
const I8_RESCORE_MIN = 64;
/**
 * Gathered int8 matrices of allowed-key sets kept for repeat queries with the same filter
 * (the filter cache hands back the same Set while the collection is unchanged).
 */
const SUBSET_CACHE_BYTES = 256 << 20;
/** Int8 bytes from which one scan uses two threads. */
const PARALLEL_SCAN_BYTES = 8 << 20;

interface Sidecar {
  format: string;
  seq: number;
  dimensions: number;
  metric: string;
  quantization: Quantization;
  connectivity: number;
  count: number;
  bytes: number;
  sha256: string;
}

/**
 * Live vectors in fixed-size chunks (growing one big Float32Array would copy gigabytes and
 * briefly need twice the memory). Slots of deleted keys are reused.
 */
class VectorArena {
  static readonly CHUNK = ARENA_CHUNK;
  readonly chunks: Float32Array[] = [];
  /** The same vectors L2-normalised and scaled to int8 (x·127), for the coarse brute-force pass. */
  readonly codes: Int8Array[] = [];
  readonly slotOf = new Map<number, number>();
  /** Key per slot, −1 when free. */
  keyOf = new Float64Array(0);
  private readonly free: number[] = [];
  private used = 0;
  /** Bumped by every change, so anything derived from the arena can tell it is stale. */
  version = 0;

  constructor(readonly dims: number) {}

  get count(): number {
    return this.slotOf.size;
  }

  get slotsInUse(): number {
    return this.used;
  }

  set(key: number, vector: Float32Array): void {
    this.version++;
    const slot = this.slotFor(key);
    const o = (slot % VectorArena.CHUNK) * this.dims;
    this.chunkOf(slot).set(vector, o);
    encodeI8(vector, 0, this.dims, this.codes[Math.floor(slot / VectorArena.CHUNK)]!, o);
  }

  /** The key's slot, a free or a new one where it has none. */
  private slotFor(key: number): number {
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.grow();
      this.slotOf.set(key, slot);
      this.keyOf[slot] = key;
    }
    return slot;
  }

  /**
   * A chunk's rows: its buffers become the arena's next chunk where the next slot begins one, nothing is free and its
   * keys are new and increasing (a load's fill: no copy, no coding); else each row is copied with its code.
   */
  adopt(c: ArenaChunk): void {
    const n = c.keys.length;
    const d = this.dims;
    const room = VectorArena.CHUNK * d;
    if (n > VectorArena.CHUNK || c.vectors.length !== room || c.codes.length !== room) throw new Error(`an arena chunk holds ${VectorArena.CHUNK} vectors of ${d} dimensions`);
    let whole = this.used === this.chunks.length * VectorArena.CHUNK && !this.free.length;
    for (let i = 0; i < n && whole; i++) {
      const key = c.keys[i]!;
      checkKey(key);
      if (this.slotOf.has(key) || (i > 0 && key <= c.keys[i - 1]!)) whole = false;
    }
    if (!whole) {
      for (let i = 0; i < n; i++) this.put(c.keys[i]!, c.vectors.subarray(i * d, (i + 1) * d), c.codes.subarray(i * d, (i + 1) * d));
      return;
    }
    this.version++;
    const first = this.used;
    this.chunks.push(c.vectors);
    this.codes.push(c.codes);
    this.used += n;
    this.growKeys(first + VectorArena.CHUNK);
    for (let i = 0; i < n; i++) {
      this.slotOf.set(c.keys[i]!, first + i);
      this.keyOf[first + i] = c.keys[i]!;
    }
  }

  /** `set` with the code given (made as `encodeI8` makes it). */
  private put(key: number, vector: Float32Array, code: Int8Array): void {
    checkKey(key);
    this.version++;
    const slot = this.slotFor(key);
    const o = (slot % VectorArena.CHUNK) * this.dims;
    this.chunkOf(slot).set(vector, o);
    this.codes[Math.floor(slot / VectorArena.CHUNK)]!.set(code, o);
  }

  delete(key: number): boolean {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return false;
    this.version++;
    this.slotOf.delete(key);
    this.keyOf[slot] = -1;
    this.free.push(slot);
    return true;
  }

  vector(slot: number): Float32Array {
    const o = (slot % VectorArena.CHUNK) * this.dims;
    return this.chunkOf(slot).subarray(o, o + this.dims);
  }

  code(slot: number): Int8Array {
    const o = (slot % VectorArena.CHUNK) * this.dims;
    return this.codes[Math.floor(slot / VectorArena.CHUNK)]!.subarray(o, o + this.dims);
  }

  clear(): void {
    this.version++;
    this.chunks.length = 0;
    this.codes.length = 0;
    this.slotOf.clear();
    this.keyOf = new Float64Array(0);
    this.free.length = 0;
    this.used = 0;
  }

  bytes(): number {
    // Map entries cost roughly 80 bytes each in V8 (measured order of magnitude, not exact).
    return this.chunks.length * VectorArena.CHUNK * this.dims * 5 + this.keyOf.byteLength + this.slotOf.size * 80;
  }

  private chunkOf(slot: number): Float32Array {
    return this.chunks[Math.floor(slot / VectorArena.CHUNK)]!;
  }

  private grow(): number {
    const slot = this.used++;
    if (slot >= this.chunks.length * VectorArena.CHUNK) {
      this.chunks.push(new Float32Array(VectorArena.CHUNK * this.dims));
      this.codes.push(new Int8Array(VectorArena.CHUNK * this.dims));
    }
    this.growKeys(slot + 1);
    return slot;
  }

  private growKeys(slots: number): void {
    if (slots <= this.keyOf.length) return;
    const next = new Float64Array(Math.max(VectorArena.CHUNK, this.keyOf.length * 2, slots)).fill(-1);
    next.set(this.keyOf);
    this.keyOf = next;
  }
}

export class HnswIndex {
  private native: Index;
  private readonly arena: VectorArena;
  private readonly dims: number;
  private readonly quantization: Quantization;
  private readonly connectivity: number;
  private readonly expansionAdd: number;
  private readonly expansionSearch: number;
  private readonly threads: number;
  readonly file: string;
  private readonly log: NonNullable<HnswOpenOptions['log']>;
  private readonly onRebuild: HnswOpenOptions['onRebuild'];
  private readonly buildBatch: number;
  private queryBuf: Float32Array;
  private readonly scratch: Float32Array;
  private readonly scratchI8: Int8Array;
  private readonly queryCode: Int8Array;
  /** Gathered int8 matrices per allowed-key set, least recently used first. */
  private readonly subsets = new Map<object, Subset>();
  private subsetBytes = 0;
  private pending: Promise<void> = Promise.resolve();
  private closed = false;
  /** How the last open went, for logs and tests. */
  openOutcome: OpenOutcome = 'created';
  openReason = '';

  private constructor(opts: HnswOpenOptions) {
    if (opts.metric !== undefined && opts.metric !== 'cos') throw new Error(`unsupported metric ${String(opts.metric)}`);
    if (!Number.isInteger(opts.dimensions) || opts.dimensions <= 0) throw new Error('dimensions must be a positive integer');
    if (opts.source.dimensions !== opts.dimensions) throw new Error(`source has ${opts.source.dimensions} dimensions, index ${opts.dimensions}`);
    this.dims = opts.dimensions;
    this.quantization = opts.quantization ?? HNSW_DEFAULTS.quantization;
    this.connectivity = opts.connectivity ?? HNSW_DEFAULTS.connectivity;
    this.expansionAdd = opts.expansionAdd ?? HNSW_DEFAULTS.expansionAdd;
    this.expansionSearch = opts.expansionSearch ?? HNSW_DEFAULTS.expansionSearch;
    // usearch hands out per-thread contexts on reserve; every add passes the same count so a
    // later bulk add never finds fewer contexts than workers ("Reserve capacity ahead of insertions").
    this.threads = Math.max(1, Math.min(opts.threads ?? os.availableParallelism(), os.availableParallelism()));
    this.file = opts.file;
    this.log = opts.log ?? (() => {});
    this.onRebuild = opts.onRebuild;
    this.buildBatch = Math.max(1, Math.floor(opts.buildBatch ?? BUILD_BATCH));
    this.arena = new VectorArena(this.dims);
    this.queryBuf = new Float32Array(this.dims);
    this.scratch = new Float32Array(EXACT_BATCH * this.dims);
    this.scratchI8 = new Int8Array(I8_PRESELECT_ABOVE * this.dims);
    this.queryCode = new Int8Array(this.dims);
    this.native = this.newNative();
  }

  static async open(opts: HnswOpenOptions): Promise<HnswIndex> {
    const index = new HnswIndex(opts);
    await index.init(opts.source);
    return index;
  }

  get size(): number {
    return this.arena.count;
  }

  get dimensions(): number {
    return this.dims;
  }

  has(key: number): boolean {
    return this.arena.slotOf.has(key);
  }

  /** A copy of a stored vector (from memory: queries by a stored record skip the database). */
  vectorOf(key: number): Float32Array | undefined {
    const slot = this.arena.slotOf.get(key);
    return slot === undefined ? undefined : Float32Array.from(this.arena.vector(slot));
  }

  /** Inserts or replaces. Runs on the calling thread (a few ms at 1792-d). */
  add(key: number, vector: Float32Array): void {
    this.assertOpen();
    checkKey(key);
    if (vector.length !== this.dims) throw new Error(`vector has ${vector.length} dimensions, index ${this.dims}`);
    // usearch rejects duplicate keys; removing first turns the old node into a tombstone that the
    // add below reuses, so replacing never grows the graph.
    if (this.arena.slotOf.has(key)) this.native.remove(BigInt(key));
    this.native.add(BigUint64Array.of(BigInt(key)), vector, this.threads);
    this.arena.set(key, vector);
  }

  remove(key: number): boolean {
    this.assertOpen();
    checkKey(key);
    if (!this.arena.delete(key)) return false;
    this.native.remove(BigInt(key));
    return true;
  }

  search(query: Float32Array, k: number, opts: SearchOptions = {}): SearchResult {
    this.assertOpen();
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, index ${this.dims}`);
    const strategyFiltered: SearchStrategy = opts.allowed || opts.allowedKeys ? 'hnsw-filtered' : 'hnsw';
    if (k <= 0 || this.arena.count === 0) return { keys: [], distances: [], strategy: strategyFiltered };
    // usearch's exactSearch reads typed arrays from the start of their ArrayBuffer, ignoring
    // byteOffset, so a query that is a view into a Buffer must be copied.
    this.queryBuf.set(query);
    const q = this.queryBuf;
    const size = this.arena.count;
    const ef = Math.max(k, opts.expansion ?? this.expansionSearch);

    const keySet = opts.allowedKeys;
    if (!opts.allowed && !keySet) {
      if (size <= EXACT_UNFILTERED_BELOW) return this.exactScan(q, k, () => true);
      return this.hnsw(q, k, Math.max(ef, poolFor(k), MIN_UNFILTERED_POOL), null);
    }

    const exactBelow = opts.exactBelow ?? HNSW_DEFAULTS.exactBelow;
    if (keySet) {
      const extra = opts.allowed;
      const n = isSet(keySet) ? keySet.size : keySet.length;
      const exactOverKeys = () => {
        // A predicate on top may differ per query, so only a bare key set is cached.
        const cached = extra ? undefined : this.cachedSubset(keySet);
        if (cached) return this.exactOverSubset(q, k, cached);
        const slots: number[] = [];
        const seen = new Set<number>();
        for (const key of keySet) {
          const slot = this.arena.slotOf.get(key);
          if (slot !== undefined && !seen.has(slot) && (!extra || extra(key))) {
            seen.add(slot);
            slots.push(slot);
          }
        }
        if (!extra && slots.length > I8_PRESELECT_ABOVE) return this.exactOverSubset(q, k, this.cacheSubset(keySet, slots));
        return this.exact(q, k, slots);
      };
      // A small set goes to brute force, exact (docs/vector-index.md): through the graph a large share of a small
      // index was faster (a 50 % filter at 5k records 4×, bench/collections.ts) but approximate, and its pages
      // walked with `from` repeated and skipped records (h87).
      if (n <= exactBelow) return exactOverKeys();
      const set = isSet(keySet) ? keySet : new Set(keySet);
      const allowed = extra ? (key: number) => set.has(key) && extra(key) : (key: number) => set.has(key);
      return this.hnsw(q, k, ef, { allowed, count: Math.min(n, size), exactBelow, exact: exactOverKeys });
    }
    const allowed = opts.allowed!;
    return this.hnsw(q, k, ef, { allowed, count: undefined, exactBelow, exact: () => this.exactScan(q, k, allowed) });
  }

  /**
   * Persists the graph tagged with `seq`. Every change with seq ≤ `seq` must already have been
   * applied to this index; later ones may have been too (catch-up is idempotent). The snapshot
   * is taken no earlier than this call (after any checkpoint still being written), so reading
   * `seq` in the tick that applied the changes is enough. That `seq` is not the highest applied where changes may be
   * applied out of their numbers' order (EmbeddedCollectionQueries' `appliedTo`, h361).
   */
  checkpoint(seq: number): Promise<void> {
    this.assertOpen();
    if (!Number.isSafeInteger(seq) || seq < 0) throw new Error('seq must be a non-negative integer');
    const tmp = `${this.file}.tmp`;
    // Checkpoints serialise on one temp file; a later snapshot than `seq` only means a longer replay.
    const run = this.pending.then(async () => {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      try {
        this.native.save(tmp);
      } catch (err) {
        // a save cut short (a full disk: usearch says only "Failed to serialize into stream") left its part, readable by all (h96)
        await fsp.rm(tmp, { force: true });
        throw err;
      }
      // the index holds descriptors of customers' photos: its owner's only, as the database and media are
      await fsp.chmod(tmp, 0o600);
      const count = this.native.size();
      await this.persist(tmp, seq, count);
    });
    this.pending = run.catch(() => {});
    return run;
  }

  /** usearch's own figure is not exposed to JS, so this is the layout arithmetic (docs/vector-index.md). */
  memoryBytes(): { total: number; graph: number; vectors: number; arena: number } {
    const e = estimateMemory({ count: this.native.size(), capacity: this.native.capacity(), dimensions: this.dims, quantization: this.quantization, connectivity: this.connectivity });
    const arena = this.arena.bytes();
    return { total: e.total + arena, graph: e.graph, vectors: e.vectors, arena };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.pending;
    this.closed = true;
    this.arena.clear();
    this.native = this.newNative();
  }

  // ---------------------------------------------------------------------------------------------

  private async init(source: IndexSource): Promise<void> {
    await this.removeCutShortCheckpoint();
    // Read before the rows: with writes going on during open, a checkpoint at this seq only makes
    // the next open replay more, never less.
    const seqAtOpen = await source.currentSeq();
    for await (const row of source.all()) {
      if ('keys' in row) {
        this.arena.adopt(row);
        continue;
      }
      if (row.vector.length !== this.dims) throw new Error(`row ${row.key} has ${row.vector.length} dimensions, index ${this.dims}`);
      checkKey(row.key);
      this.arena.set(row.key, row.vector);
    }

    const loaded = await this.tryLoad(source, seqAtOpen);
    if (loaded.ok) {
      this.openOutcome = loaded.applied > 0 ? 'caught-up' : 'loaded';
      this.log('vector index loaded', { file: this.file, savedSeq: loaded.savedSeq, applied: loaded.applied, size: this.arena.count });
      if (loaded.applied > 0) await this.saveAtOpen(seqAtOpen);
      return;
    }
    this.openReason = loaded.reason;
    const fresh = loaded.reason === 'missing';
    this.openOutcome = fresh && this.arena.count === 0 ? 'created' : 'rebuilt';
    if (!fresh || this.arena.count > 0) this.log('vector index rebuilding', { file: this.file, reason: loaded.reason, size: this.arena.count });
    await this.rebuild();
    await this.saveAtOpen(seqAtOpen);
  }

  /**
   * A checkpoint cut short by a stop leaves its temp files (as large as the index) until the next
   * checkpoint, which an index opened and loaded with nothing to replay may not write for a long time.
   */
  private async removeCutShortCheckpoint(): Promise<void> {
    for (const tmp of [`${this.file}.tmp`, `${this.file}.json.tmp`]) {
      try {
        await fsp.rm(tmp);
        this.log('vector index: a checkpoint cut short removed', { file: tmp });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log('vector index: a checkpoint cut short not removed', { file: tmp, err: String(err) });
      }
    }
  }

  /**
   * The open's checkpoint: a folder that cannot be written (read-only, full) must not keep the index
   * from opening, as it did (every search of the collection answered 500 after a restart). The graph
   * works from memory; the next start rebuilds or replays it from the database.
   */
  private async saveAtOpen(seq: number): Promise<void> {
    try {
      await this.checkpoint(seq);
    } catch (err) {
      this.log('vector index not saved', { file: this.file, err: String(err) });
    }
  }

  private async tryLoad(source: IndexSource, seqAtOpen: number): Promise<{ ok: true; savedSeq: number; applied: number } | { ok: false; reason: string }> {
    let meta: Sidecar;
    try {
      meta = JSON.parse(await fsp.readFile(`${this.file}.json`, 'utf8')) as Sidecar;
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(this.file);
      return { ok: false, reason: missing ? 'missing' : 'sidecar unreadable' };
    }
    if (meta.format !== SIDECAR_FORMAT) return { ok: false, reason: 'sidecar format' };
    if (meta.dimensions !== this.dims || meta.metric !== 'cos') return { ok: false, reason: 'dimensions or metric changed' };
    if (meta.quantization !== this.quantization || meta.connectivity !== this.connectivity) return { ok: false, reason: 'parameters changed' };
    if (!Number.isSafeInteger(meta.seq) || meta.seq > seqAtOpen) return { ok: false, reason: 'saved seq ahead of the database' };
    // A damaged usearch file can crash the process on search (unchecked node counts), so nothing
    // reaches `load` unless its length and digest match what the checkpoint wrote.
    let stat: fs.Stats;
    try {
      stat = await fsp.stat(this.file);
    } catch {
      return { ok: false, reason: 'index file missing' };
    }
    if (stat.size !== meta.bytes) return { ok: false, reason: 'index file size' };
    if ((await sha256File(this.file)) !== meta.sha256) return { ok: false, reason: 'index file checksum' };
    const native = this.newNative();
    try {
      native.load(this.file);
    } catch (e) {
      return { ok: false, reason: `load failed: ${(e as Error).message}` };
    }
    if (native.dimensions() !== this.dims || native.size() !== meta.count) return { ok: false, reason: 'loaded index disagrees with sidecar' };
    this.native = native;

    const changes = await source.changesSince(meta.seq);
    if (changes === null) return { ok: false, reason: 'change history incomplete' };
    const list: IndexChange[] = [];
    for await (const c of changes) list.push(c);
    // Stores may return upserts and deletions as separate lists; a key deleted and then reused
    // must end up live, so order matters.
    list.sort((a, b) => a.seq - b.seq);
    for (const c of list) {
      if (c.vector) {
        if (native.contains(BigInt(c.key))) native.remove(BigInt(c.key));
        native.add(BigUint64Array.of(BigInt(c.key)), c.vector, this.threads);
      } else {
        native.remove(BigInt(c.key));
      }
      // A change after `seqAtOpen` may have landed while `all()` was read (a server takes writes while it loads its
      // indexes, h353): a row deleted or given a new vector after the read passed it is still in the arena as read, one
      // inserted after the read is not. The arena takes the same changes as the graph, so both hold the database as the
      // changes were read: without this, one delete during the read diverged the two and the open rebuilt the whole
      // graph (20,000 records on a busy 2-core machine: 5 s -> 48 s, h359).
      if (c.seq > seqAtOpen) {
        if (c.vector) this.arena.set(c.key, c.vector);
        else this.arena.delete(c.key);
      }
    }
    // The arena holds the database's live set; the graph must hold exactly the same keys.
    if (native.size() !== this.arena.count) return { ok: false, reason: `diverged: index ${native.size()} vs database ${this.arena.count}` };
    if (this.arena.count > 0) {
      const keys = new BigUint64Array(this.arena.count);
      let i = 0;
      for (const key of this.arena.slotOf.keys()) keys[i++] = BigInt(key);
      const present = native.contains(keys) as boolean[];
      if (present.some((p) => !p)) return { ok: false, reason: 'diverged: keys missing from index' };
    }
    return { ok: true, savedSeq: meta.seq, applied: list.length };
  }

  /** Bulk insert on `threads` threads, yielding between batches so the event loop keeps ticking. */
  private async rebuild(): Promise<void> {
    this.native = this.newNative();
    const total = this.arena.count;
    if (total === 0) return;
    const started = performance.now();
    const size = this.buildBatch;
    const keys = new BigUint64Array(size);
    const batch = new Float32Array(size * this.dims);
    let n = 0;
    let done = 0;
    await this.onRebuild?.({ inserted: 0, total, reason: this.openReason });
    const flush = async () => {
      this.native.add(n === size ? keys : keys.slice(0, n), batch.subarray(0, n * this.dims), this.threads);
      done += n;
      n = 0;
      await new Promise((r) => setImmediate(r));
      await this.onRebuild?.({ inserted: done, total, reason: this.openReason });
    };
    for (let slot = 0; slot < this.arena.slotsInUse; slot++) {
      const key = this.arena.keyOf[slot]!;
      if (key < 0) continue;
      keys[n] = BigInt(key);
      batch.set(this.arena.vector(slot), n * this.dims);
      if (++n === size) await flush();
    }
    if (n > 0) await flush();
    this.log('vector index rebuilt', { file: this.file, size: done, seconds: Math.round((performance.now() - started) / 100) / 10 });
  }

  private async persist(tmp: string, seq: number, count: number): Promise<void> {
    const fh = await fsp.open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    const bytes = (await fsp.stat(tmp)).size;
    const meta: Sidecar = { format: SIDECAR_FORMAT, seq, dimensions: this.dims, metric: 'cos', quantization: this.quantization, connectivity: this.connectivity, count, bytes, sha256: await sha256File(tmp) };
    const metaTmp = `${this.file}.json.tmp`;
    await fsp.writeFile(metaTmp, JSON.stringify(meta), { mode: 0o600 });
    const mh = await fsp.open(metaTmp, 'r+');
    try {
      await mh.sync();
    } finally {
      await mh.close();
    }
    // A crash between the renames leaves a new file beside the old sidecar: the digest no
    // longer matches and the next open rebuilds, which is slow but correct.
    await fsp.rename(tmp, this.file);
    await fsp.rename(metaTmp, `${this.file}.json`);
    await fsyncDir(path.dirname(this.file));
  }

  /**
   * Graph search; with a filter, post-filtering a pool sized from the allowed share. Falls back
   * to brute force when the allowed set turns out small, or the pool would have to cover so much
   * of the collection that scanning is cheaper, or the graph ran dry before k matches.
   */
  private hnsw(q: Float32Array, k: number, ef: number, filter: Filter | null): SearchResult {
    const size = this.arena.count;
    let want = Math.min(size, ef);
    if (filter?.count !== undefined) want = Math.min(size, Math.max(want, Math.ceil((k * size * OVERSAMPLE) / Math.max(filter.count, 1))));
    for (;;) {
      if (filter && want > MAX_FILTER_POOL) return filter.exact();
      const m = this.native.search(q, want, 1);
      const found = m.keys.length;
      const slots: number[] = [];
      for (let i = 0; i < found; i++) {
        const key = Number(m.keys[i]);
        if (filter && !filter.allowed(key)) continue;
        const slot = this.arena.slotOf.get(key);
        if (slot !== undefined) slots.push(slot);
      }
      if (!filter) {
        // Fewer nodes than asked for means the graph did not reach them all (a small collection,
        // or nodes the pruning left unreachable): scanning is cheap then and makes the answer exact.
        if (found < want) return this.exactScan(q, k, () => true);
        // Quantised graph distances are approximate; rescoring the pool in float32 both fixes
        // the order and returns true cosine distances.
        if (this.quantization !== 'f32') return { ...this.exact(q, k, slots), strategy: 'hnsw', pool: want };
        return { ...this.fromMatches(m.keys, m.distances, k), strategy: 'hnsw', pool: want };
      }
      if (slots.length >= k) return { ...this.exact(q, k, slots), strategy: 'hnsw-filtered' };
      if (want >= size || found < want) return filter.exact();
      // Too few matches: the share seen so far sizes the next pool; if that share means few
      // allowed keys overall, brute force over them is both cheaper and exact.
      const share = Math.max(slots.length, 0.5) / Math.max(found, 1);
      if (filter.count === undefined && share * size <= filter.exactBelow) return filter.exact();
      want = Math.min(size, Math.max(want * 2, Math.ceil((k / share) * OVERSAMPLE)));
    }
  }

  private exactScan(q: Float32Array, k: number, allowed: (key: number) => boolean): SearchResult {
    const slots: number[] = [];
    const keyOf = this.arena.keyOf;
    for (let slot = 0; slot < this.arena.slotsInUse; slot++) {
      const key = keyOf[slot]!;
      if (key >= 0 && allowed(key)) slots.push(slot);
    }
    return this.exact(q, k, slots);
  }

  /**
   * Brute force over arena slots with usearch's SIMD kernel, in cache-sized batches so a
   * gathered vector is scored while still in cache (JS dot products are ~5× slower than the
   * kernel). Scattered 7 KB vectors make this memory-bound: ~1–2 µs per key at 1792-d.
   */
  private exact(q: Float32Array, k: number, unordered: readonly number[]): SearchResult {
    if (unordered.length > I8_PRESELECT_ABOVE) return this.exactF32(q, k, this.preselect(q, k, Int32Array.from(unordered).sort()));
    return this.exactF32(q, k, unordered);
  }

  /** Coarse int8 pass over sorted slots, batched through a scratch matrix; returns the best slots. */
  private preselect(q: Float32Array, k: number, slots: Int32Array): number[] {
    const d = this.dims;
    const want = Math.max(k * I8_RESCORE_FACTOR, I8_RESCORE_MIN);
    encodeI8(q, 0, this.dims, this.queryCode, 0);
    const best: { key: number; d: number }[] = [];
    const rows = I8_PRESELECT_ABOVE;
    for (let from = 0; from < slots.length; from += rows) {
      const b = Math.min(rows, slots.length - from);
      for (let i = 0; i < b; i++) this.scratchI8.set(this.arena.code(slots[from + i]!), i * d);
      const count = Math.min(want, b);
      const m = exactSearch(this.scratchI8.subarray(0, b * d), this.queryCode, d, count, MetricKind.Cos, 1) as Matches;
      // `key` holds the slot here; keys come back only after the float32 rescoring.
      for (let i = 0; i < count; i++) best.push({ key: slots[from + Number(m.keys[i])]!, d: m.distances[i]! });
      if (best.length > 4 * want) trim(best, want);
    }
    trim(best, want);
    return best.map((r) => r.key);
  }

  private cachedSubset(keys: object): Subset | undefined {
    const hit = this.subsets.get(keys);
    if (!hit) return undefined;
    this.subsets.delete(keys);
    if (hit.version !== this.arena.version) {
      this.subsetBytes -= hit.matrix.byteLength;
      return undefined;
    }
    this.subsets.set(keys, hit);
    return hit;
  }

  private cacheSubset(keys: object, unordered: readonly number[]): Subset {
    const slots = Int32Array.from(unordered).sort();
    const d = this.dims;
    const matrix = new Int8Array(slots.length * d);
    for (let i = 0; i < slots.length; i++) matrix.set(this.arena.code(slots[i]!), i * d);
    const subset: Subset = { version: this.arena.version, slots, matrix };
    if (matrix.byteLength > SUBSET_CACHE_BYTES) return subset;
    this.subsets.set(keys, subset);
    this.subsetBytes += matrix.byteLength;
    for (const [key, old] of this.subsets) {
      if (this.subsetBytes <= SUBSET_CACHE_BYTES) break;
      this.subsets.delete(key);
      this.subsetBytes -= old.matrix.byteLength;
    }
    return subset;
  }

  private exactOverSubset(q: Float32Array, k: number, subset: Subset): SearchResult {
    const n = subset.slots.length;
    const want = Math.min(n, Math.max(k * I8_RESCORE_FACTOR, I8_RESCORE_MIN));
    encodeI8(q, 0, this.dims, this.queryCode, 0);
    // A large subset is split across two threads: the scan is memory-bound and the event loop
    // waits for it either way (measured 0.95 → 0.67 ms for 10k × 1792 int8).
    const threads = n * this.dims >= PARALLEL_SCAN_BYTES ? 2 : 1;
    const m = exactSearch(subset.matrix, this.queryCode, this.dims, want, MetricKind.Cos, threads) as Matches;
    const candidates: number[] = [];
    for (let i = 0; i < want; i++) candidates.push(subset.slots[Number(m.keys[i])]!);
    return this.exactF32(q, k, candidates);
  }

  private exactF32(q: Float32Array, k: number, unordered: readonly number[]): SearchResult {
    // Visiting slots in memory order lets the prefetcher stream the arena instead of paying a
    // TLB and cache miss per vector.
    const slots = unordered.length > EXACT_BATCH ? Int32Array.from(unordered).sort() : unordered;
    const n = slots.length;
    const d = this.dims;
    const best: { key: number; d: number }[] = [];
    for (let from = 0; from < n; from += EXACT_BATCH) {
      const b = Math.min(EXACT_BATCH, n - from);
      for (let i = 0; i < b; i++) {
        const slot = slots[from + i]!;
        const o = (slot % VectorArena.CHUNK) * d;
        this.scratch.set(this.arena.chunks[Math.floor(slot / VectorArena.CHUNK)]!.subarray(o, o + d), i * d);
      }
      const count = Math.min(k, b);
      // The scratch buffer is its own ArrayBuffer at offset 0: exactSearch ignores byteOffset.
      const m = exactSearch(this.scratch.subarray(0, b * d), q, d, count, MetricKind.Cos, 1) as Matches;
      for (let i = 0; i < count; i++) best.push({ key: this.arena.keyOf[slots[from + Number(m.keys[i])]!]!, d: m.distances[i]! });
      if (best.length > 4 * k) trim(best, k);
    }
    trim(best, k);
    return { keys: best.map((r) => r.key), distances: best.map((r) => r.d), strategy: 'exact' };
  }

  private fromMatches(keys: BigUint64Array, distances: Float32Array, k: number): Omit<SearchResult, 'strategy'> {
    const out: { key: number; d: number }[] = [];
    for (let i = 0; i < keys.length; i++) out.push({ key: Number(keys[i]), d: distances[i]! });
    trim(out, k);
    return { keys: out.map((r) => r.key), distances: out.map((r) => r.d) };
  }

  private newNative(): Index {
    return new Index({
      dimensions: this.dims,
      metric: MetricKind.Cos,
      quantization: this.quantization as ScalarKind,
      connectivity: this.connectivity,
      expansion_add: this.expansionAdd,
      // Kept minimal: usearch uses max(expansion, k), so the pool is chosen per query through k.
      expansion_search: 1,
      multi: false,
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('index is closed');
  }
}

/**
 * usearch layout arithmetic: per node a 10-byte head, a base-layer neighbour list of 2·M
 * 4-byte slots, and on average 1/(M−1) upper layers of M slots; per capacity slot two pointers;
 * the key→slot hash at ~2×16 bytes per entry; plus the stored vector.
 */
export function estimateMemory(o: { count: number; capacity?: number; dimensions: number; quantization: Quantization; connectivity: number }): { total: number; graph: number; vectors: number } {
  const bytesPerScalar = o.quantization === 'f32' ? 4 : o.quantization === 'f16' ? 2 : 1;
  const m = o.connectivity;
  const node = 10 + (2 * m * 4 + 4) + (m * 4 + 4) / (m - 1);
  const capacity = o.capacity ?? o.count;
  const graph = o.count * (node + 32) + capacity * 16;
  const vectors = o.count * o.dimensions * bytesPerScalar;
  return { total: graph + vectors, graph, vectors };
}

interface Subset {
  /** The arena version it was gathered at; any change since makes it stale. */
  version: number;
  /** Arena slots in memory order; row i of `matrix` is slot `slots[i]`. */
  slots: Int32Array;
  matrix: Int8Array;
}

interface Filter {
  allowed: (key: number) => boolean;
  /** Allowed keys present, when known up front. */
  count: number | undefined;
  exactBelow: number;
  exact: () => SearchResult;
}

function trim(rows: { key: number; d: number }[], k: number): void {
  rows.sort((a, b) => a.d - b.d || a.key - b.key);
  if (rows.length > k) rows.length = k;
}

function checkKey(key: number): void {
  if (!Number.isSafeInteger(key) || key < 0) throw new Error(`index keys are non-negative integers, got ${key}`);
}

function isSet(keys: ReadonlySet<number> | readonly number[]): keys is ReadonlySet<number> {
  return !Array.isArray(keys);
}

async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 4 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const dh = await fsp.open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // Not every platform lets a directory be fsynced (Windows); the renames are still atomic.
  }
}
