import fs from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { cosineDistance } from '../util/cosine-distance.ts';
import path from 'node:path';
import type { CollectionRecord, CollectionStore, StoredRecord } from '../store/collection-store.ts';
import { sumVarints, type Database } from '../store/database.ts';
import { sql, type Kysely } from 'kysely';
import { compileFilter } from '../store/filters/mongo-filter.ts';
import { ftsTable, collectionLangs } from '../store/collection-text-store.ts';
import { bm25Idf, fts5Idf, fts5String, inflectedWords, toFts5Match, toFts5PhraseGroups, type Inflections } from '../text-search/query-compile.ts';
import { inflectedForms, stemLanguages } from '../text-search/inflections.ts';
import type { ParsedQuery } from '../text-search/query.ts';
import { IndexLoadingError, type Change, type CollectionQueries, type Filter, type Hit, type IndexLoadState, type TextHit } from './collection-queries.ts';

/** FTS5 column weights (seen content, the record's words, OCR text): what the image shows counts most. */
const bm25Weights = '2.0, 1.0, 0.5';
/** FTS5's bm25() constants (fixed in its C code), PostgreSQL's ranking's too. */
const k1 = 1.2;
const b = 0.75;
import { HnswIndex, type RebuildProgress } from './hnsw-index.ts';
import { ArenaFill, ArenaFillLost } from './arena-fill.ts';
import { bitsApart, blank, packHash, unpackHash } from './packed-hash.ts';

/**
 * The row count and token total FTS5's `bm25()` takes N and the average length from: its averages
 * record (`_data` row 1, part of FTS5's on-disk format: a varint of rows, then one of tokens per
 * column). A contentless table's deletes leave both as they were, so `bm25()` ranks with them and
 * they are needed to take its figures back out.
 */
export async function fts5Averages(db: Kysely<Database>, table: string): Promise<{ rows: number; tokens: number }> {
  const row = (await sql<{ block: Uint8Array }>`SELECT block FROM ${sql.raw(`${table}_data`)} WHERE id = 1`.execute(db)).rows[0];
  if (!row?.block?.length) return { rows: 0, tokens: 0 };
  const all = sumVarints(row.block);
  const rows = sumVarints(row.block.subarray(0, varintLength(row.block)));
  return { rows, tokens: all - rows };
}

/** Bytes of the SQLite varint at the start of `b`. */
function varintLength(b: Uint8Array): number {
  for (let i = 0; i < 9 && i < b.length; i++) if (!(b[i]! & 0x80)) return i + 1;
  return Math.min(9, b.length);
}

/** Changes between index checkpoints; the database has them all, so a crash only costs a catch-up. */
const checkpointEvery = 2000;
const checkpointAfterMs = 30_000;

interface Loaded {
  /** Every record's attributes, in key (insertion) order: filters run over these. */
  docs: Map<number, StoredRecord>;
  /** The key of each client `_id`. */
  keys: Map<string, number>;
  /** Each record's `bmh1` visual hash, packed in 8 words (records stored before migration 014 have none). */
  hashes: Map<number, Uint32Array>;
  index: HnswIndex | undefined;
  unsaved: number;
  /**
   * Every change numbered up to this is applied: the tag a save may claim. Not the highest number applied: requests
   * apply their changes in the order they get to it, not their numbers' (an update awaits its old thumbnail's removal
   * after its commit, while a later insert is applied), and a save tagged with a later change's number, made before an
   * earlier one was applied, left that one out after a crash for good (h361: a record's new image never replayed).
   */
  appliedTo: number;
  /** Ranges of numbers applied above `appliedTo + 1` (first → last), waiting for the numbers between. */
  ahead: Map<number, number>;
  timer: NodeJS.Timeout | undefined;
  /** Bumped by every change: cached filter results of an older version are stale. */
  version: number;
  /** Matching records per filter (its JSON), for the version they were computed at. */
  filtered: Map<string, { version: number; records: StoredRecord[]; keys: Set<number> }>;
}

/**
 * Filters a client repeats (a shop's "in stock", a category) are scanned once per change of the
 * collection instead of once per query: a scan of 100k documents costs 8–30 ms, a hit nothing.
 */
const filterCacheSize = 64;

export interface IndexLoadOptions {
  /**
   * The longest a request waits for a collection's index still loading before it is answered 503 `index_loading`
   * (30 s: a client's own timeout is often 30–60 s; 100,000 records load in about 10 s here).
   */
  waitMs?: number;
  /** Tests' seam: awaited before a collection's index is read, so a test holds the load instead of timing it. */
  beforeLoad?: (collectionId: string) => Promise<void>;
  /** Tests' seam: awaited after each batch of a rebuild's inserts, so a test holds a rebuild part way. */
  duringRebuild?: (collectionId: string, progress: RebuildProgress) => Promise<void>;
  /** Tests' seam: vectors per batch of a rebuild (512). */
  rebuildBatch?: number;
  /** Tests' seam: the worker thread reading a load's vectors fails after this many (the rest then read on the server's thread). */
  fillFailsAfter?: number;
  /** Tests' seam: the least records whose vectors a load reads on a worker thread (`workerFillFrom`). */
  workerFillFrom?: number;
}

/**
 * A collection's load as it goes: rows read (attributes, then vectors: twice the records) and when the read began;
 * then, where the saved index cannot be used, the rebuild of its graph (vectors inserted, when it began): the longer
 * part by far (h362: 20,000 records of 1792-d read in a few seconds, rebuilt in tens), told apart so ping, the log and
 * Retry-After say it.
 */
interface LoadProgress {
  rows: number;
  of: number;
  startedAt: number;
  rebuild?: { inserted: number; of: number; reason: string; startedAt: number };
}

/** A load's progress in records (its rows count each twice: attributes, then vector), and its rebuild's where one runs. */
function soFar(p: LoadProgress | undefined): { records: number; of: number; rebuilding?: { inserted: number; of: number; reason: string } } {
  const rows = p?.rows ?? 0;
  const r = p?.rebuild;
  return { records: Math.floor(rows / 2), of: Math.floor(Math.max(rows, p?.of ?? 0) / 2), ...(r ? { rebuilding: { inserted: r.inserted, of: r.of, reason: r.reason } } : {}) };
}

/** Records read a statement while an index loads (the attributes' pages give way after each: 40–60 ms at 1792-d). */
const loadPage = 1000;
/**
 * Vectors taken into the index between turns of the event loop: each is also coded to int8 for the exact search (about
 * 0.1–0.3 ms a vector on a busy 2-core machine), so 1,000 held other requests 150–350 ms.
 */
const vectorsPerTurn = 200;
/**
 * The least records whose vectors a load reads on a worker thread: the worker's first rows come 0.2–0.5 s after its start
 * here (tsx's loader, a connection), in which the server's thread reads and codes 5,000–14,000 vectors of 1792-d itself
 * (35–40 µs each); a server with many small collections would start one for each, and wait for it, for nothing.
 */
const workerFillFrom = 8192;

/**
 * The embedded backend's reads: each collection's documents and usearch HNSW index live in memory
 * once first used, the index persisted in `<dataDir>/indexes/<collection>.usearch` (crash-safe:
 * see docs/vector-index.md). All work on one collection is chained, so a change applied while the
 * collection loads lands after the load, and queries see every change acknowledged before them.
 */
export class EmbeddedCollectionQueries implements CollectionQueries {
  private readonly loaded = new Map<string, Promise<Loaded>>();
  private readonly textCounts = new Map<string, { seq: number; at: number; rows: number; tokens: number; langs: string[] }>();
  /**
   * A query word's other forms that find records (`inflections`), by collection, change number, languages and word; for
   * a minute at most, as the backfill writes rows without a change number.
   */
  private readonly inflected = new Map<string, { at: number; forms: string[] }>();
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Collections whose index is held in memory (their `loaded` promise resolved). */
  private readonly held = new Set<string>();
  /** Collections being read (or their index rebuilt), and how far. */
  private readonly reading = new Map<string, LoadProgress>();
  private closing = false;
  private readonly waitMs: number;

  constructor(
    private readonly store: CollectionStore,
    private readonly dir: string,
    private readonly log: (level: 'info' | 'warn', message: string, details?: Record<string, unknown>) => void = () => {},
    private readonly options: IndexLoadOptions = {},
  ) {
    this.waitMs = options.waitMs ?? 30_000;
  }

  private chain<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(collectionId) ?? Promise.resolve();
    const next = prev.then(work, work);
    this.chains.set(collectionId, next.catch(() => undefined));
    return next;
  }

  /**
   * The collection's documents, hashes and index, read once. The reads give way to other requests every page (the
   * server takes requests while it loads its indexes), and changes applied meanwhile wait on the collection's chain
   * behind the load: each is applied once the load is done, over whatever the load read (an insert read by the load
   * and applied again replaces its own entry: `HnswIndex.add` and the Maps hold a key once), so none is lost or doubled.
   */
  private state(c: CollectionRecord): Promise<Loaded> {
    let s = this.loaded.get(c.id);
    if (!s) {
      const progress: LoadProgress = { rows: 0, of: 2 * c.recordCount, startedAt: performance.now() };
      this.reading.set(c.id, progress);
      s = (async () => {
        await this.options.beforeLoad?.(c.id);
        // read before any row: every change up to this number is in what the load reads (attributes, vectors, hashes),
        // so it is the tag the index's open may save at and `appliedTo`; changes after it applied after the load are
        // applied again (each replaces its own entry)
        const fresh = await this.store.get(c.id);
        const seq = fresh?.seq ?? 0;
        const docs = new Map<number, StoredRecord>();
        const keys = new Map<string, number>();
        const hashes = new Map<number, Uint32Array>();
        // the vectors (and hashes) read on a worker thread beside the attributes read here (h367)
        const fill = fresh?.dimensions && fresh.recordCount >= (this.options.workerFillFrom ?? workerFillFrom) ? this.arenaFill(c.id, fresh.dimensions) : undefined;
        try {
          for await (const page of this.store.docPages(c.id, loadPage)) {
            for (const r of page) {
              docs.set(r.key, { key: r.key, recordId: r.recordId, data: r.data });
              keys.set(r.recordId, r.key);
            }
            progress.rows += page.length;
            await this.giveWay();
          }
          const state: Loaded = { docs, keys, hashes, index: undefined, unsaved: 0, appliedTo: seq, ahead: new Map(), timer: undefined, version: 0, filtered: new Map() };
          // the records' count as read, for the vectors' part of the progress (inserts meanwhile change it)
          progress.of = progress.rows + docs.size;
          if (fresh?.dimensions) state.index = await this.openIndex(fresh.id, fresh.dimensions, hashes, progress, { seq, fill });
          return state;
        } finally {
          await fill?.close();
        }
      })();
      const settled = s;
      s.then(
        () => {
          if (this.loaded.get(c.id) === settled) this.held.add(c.id);
        },
        () => {
          if (this.loaded.get(c.id) === settled) this.loaded.delete(c.id);
        },
      ).finally(() => {
        if (this.reading.get(c.id) === progress) this.reading.delete(c.id);
      });
      this.loaded.set(c.id, s);
    }
    return s;
  }

  /** A turn of the event loop for the requests waiting; a load under way when the server stops ends here. */
  private async giveWay(): Promise<void> {
    await nextTurn();
    if (this.closing) throw new Error('the server is stopping: index load abandoned');
  }

  /**
   * The collection's vectors read on a worker thread (arena-fill.ts), begun now; none where the database is no file.
   * On the server's thread the read, the copies and the int8 codes of 100,000 records of 1792-d took 5–10 s of its event
   * loop, in steps of up to 150–230 ms on a busy machine (docs/vector-index.md, "Open").
   */
  private arenaFill(collectionId: string, dimensions: number): ArenaFill | undefined {
    const file = this.store.store.file;
    if (!file || file === ':memory:' || file.startsWith('file:')) return undefined;
    try {
      return new ArenaFill({ file, collectionId, dimensions, busyMs: 10_000, ...(this.options.fillFailsAfter !== undefined ? { failAfter: this.options.fillFailsAfter } : {}) });
    } catch (err) {
      this.log('warn', "vector index: its vectors read on the server's thread (no worker thread)", { collection: collectionId, err: String(err) });
      return undefined;
    }
  }

  /**
   * `hashes` takes the records' hashes, read with their vectors. `read`: the load's change number, read before its
   * rows, and the worker reading them (where none, or where it is lost part way, they are read here, from after the
   * last key it gave).
   */
  private async openIndex(collectionId: string, dimensions: number, hashes: Map<number, Uint32Array>, progress?: LoadProgress, read?: { seq: number; fill: ArenaFill | undefined }): Promise<HnswIndex> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const giveWay = () => this.giveWay();
    const store = this.store;
    const log = this.log;
    const duringRebuild = this.options.duringRebuild;
    return HnswIndex.open({
      file: path.join(this.dir, `${collectionId}.usearch`),
      dimensions,
      log: (message, details) => this.log(message === 'vector index not saved' ? 'warn' : 'info', message, details),
      ...(this.options.rebuildBatch ? { buildBatch: this.options.rebuildBatch } : {}),
      onRebuild: async (r) => {
        if (progress) {
          progress.rebuild ??= { inserted: 0, of: r.total, reason: r.reason, startedAt: performance.now() };
          progress.rebuild.inserted = r.inserted;
          progress.rebuild.of = r.total;
        }
        await duringRebuild?.(collectionId, r);
        // a rebuild under way when the server stops ends here, as a read does
        if (this.closing) throw new Error('the server is stopping: index rebuild abandoned');
      },
      source: {
        dimensions,
        all: async function* () {
          let after = 0;
          if (read?.fill) {
            try {
              for await (const part of read.fill) {
                const n = part.keys.length;
                for (let i = 0; i < n; i++) if (part.hashed[i]) hashes.set(part.keys[i]!, part.hashes.subarray(i * 8, i * 8 + 8));
                yield { keys: part.keys, vectors: part.vectors, codes: part.codes };
                if (n) after = part.keys[n - 1]!;
                if (progress) progress.rows += n;
                await giveWay();
              }
              return;
            } catch (err) {
              if (!(err instanceof ArenaFillLost)) throw err;
              log('warn', "vector index: the rest of its vectors read on the server's thread (the worker thread reading them was lost)", { collection: collectionId, after, err: err.message });
            }
          }
          let n = 0;
          for await (const row of store.allVectors(collectionId, loadPage, after)) {
            if (row.hash) hashes.set(row.key, packHash(row.hash));
            yield row;
            if (progress) progress.rows++;
            if (++n % vectorsPerTurn === 0) await giveWay();
          }
        },
        changesSince: (seq) => this.store.changesSince(collectionId, seq),
        currentSeq: async () => read?.seq ?? (await this.store.get(collectionId))?.seq ?? 0,
      },
    });
  }

  /**
   * Reads wait for the collection's pending changes, and for its index while it loads: never answered from a part of
   * it. A wait past `waitMs` is an IndexLoadingError (503 with Retry-After), the load going on for the next request.
   */
  private ready(c: CollectionRecord): Promise<Loaded> {
    const work = this.chain(c.id, () => this.state(c));
    if (this.held.has(c.id)) return work;
    return new Promise<Loaded>((resolve, reject) => {
      const t0 = performance.now();
      const stillLoading = () => {
        const p = this.reading.get(c.id);
        const rows = p?.rows ?? 0;
        const of = Math.max(rows, p?.of ?? 0);
        const now = performance.now();
        // the time the rest takes at the rate so far, within 1–60 s (10 s when nothing is done yet); a rebuild's at its
        // own rate: the read's said 1 s through a rebuild of tens of seconds (h362)
        const r = p?.rebuild;
        const rest = (done: number, total: number, since: number) => (done > 0 && now > since ? ((total - done) * (now - since)) / done / 1000 : 10);
        const left = r ? rest(r.inserted, r.of, r.startedAt) : rest(rows, of, p?.startedAt ?? now);
        return new IndexLoadingError(c.id, now - t0, Math.min(60, Math.max(1, Math.ceil(left))), soFar(p));
      };
      const timer = setTimeout(() => reject(stillLoading()), this.waitMs);
      // a load the server's stop cut short is the same answer: retry (on this node once it is back, or another)
      work.then(resolve, (err: unknown) => reject(this.closing ? stillLoading() : err)).finally(() => clearTimeout(timer));
    });
  }

  async load(c: CollectionRecord): Promise<void> {
    // the server loads its collections after its port opens: the text search's read worker starts beside them
    this.store.store.reads?.warm();
    await this.chain(c.id, () => this.state(c));
  }

  loadState(c: CollectionRecord): IndexLoadState {
    if (this.held.has(c.id)) return { state: 'loaded' };
    const p = this.reading.get(c.id);
    if (!p) return { state: 'not loaded' };
    return { state: 'loading', ...soFar(p) };
  }

  applied(c: CollectionRecord, change: Change): void {
    void this.chain(c.id, async () => {
      const s = await this.state(c);
      try {
        if (change.kind === 'delete') {
          for (const key of change.keys) {
            const gone = s.docs.get(key);
            if (gone && s.keys.get(gone.recordId) === key) s.keys.delete(gone.recordId);
            s.docs.delete(key);
            s.hashes.delete(key);
            s.index?.remove(key);
          }
        } else {
          s.docs.set(change.record.key, change.record);
          s.keys.set(change.record.recordId, change.record.key);
          // a new image brings its hash (or none); an update of the attributes alone keeps the one held
          if (change.hash) s.hashes.set(change.record.key, packHash(change.hash));
          else if (change.hash === null) s.hashes.delete(change.record.key);
          if (change.vector) {
            s.index ??= await this.openIndex(c.id, change.vector.length, s.hashes);
            s.index.add(change.record.key, change.vector);
          }
        }
        s.version++;
        settle(s, change.kind === 'delete' ? (change.from ?? change.seq) : change.seq, change.seq);
      } catch (err) {
        // committed, so in the database, but not in memory: its number would hold every later save's tag below it
        // until a restart (a crash then replays or rebuilds more), and searches would miss it. The collection is read
        // again instead, from its saved index and the database's changes since (this one among them), at the next use.
        this.log('warn', 'vector index change not applied: the collection is read again from the database', { collection: c.id, seq: change.seq, err: String(err) });
        await this.unload(c.id, s);
        return;
      }
      s.unsaved++;
      if (s.unsaved >= checkpointEvery) await this.checkpoint(c.id, s);
      else if (!s.timer) {
        s.timer = setTimeout(() => void this.chain(c.id, () => this.checkpoint(c.id, s)), checkpointAfterMs);
        s.timer.unref();
      }
    });
  }

  /**
   * The collection's memory let go without a save (its files stay as last saved): the next use reads it again. Run on
   * the collection's chain, so no change is applied to it meanwhile.
   */
  private async unload(collectionId: string, s: Loaded): Promise<void> {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    s.unsaved = 0;
    // the collection's memory as this change found it, not one a delete and a use of the collection made since
    const current = this.loaded.get(collectionId);
    if (current && (await current.catch(() => undefined)) === s) {
      this.loaded.delete(collectionId);
      this.held.delete(collectionId);
    }
    // its index is not closed: a read that took it before may still be searching it (it holds no file open; the
    // collector frees it)
  }

  private async checkpoint(collectionId: string, s: Loaded): Promise<void> {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    if (!s.unsaved || !s.index) return;
    // deleted meanwhile by another process (`loupe collection delete` beside the server), which
    // removed the files: saving would write its vectors back, for good
    if (!(await this.store.get(collectionId))) {
      await this.dropLoaded(collectionId, s);
      return;
    }
    const unsaved = s.unsaved;
    s.unsaved = 0;
    const seq = s.appliedTo;
    try {
      await s.index.checkpoint(seq);
      // the deletions the saved index holds are no longer replayed: their tombstones only grew the table, one a
      // deleted record for good, and the scan of a start with them (h169)
      await this.store.pruneTombstones(collectionId, seq).catch((err: unknown) => this.log('warn', 'deleted records\' marks not pruned', { collection: collectionId, err: String(err) }));
    } catch (err) {
      // the index keeps working from memory and the database; a folder that cannot be written (full,
      // read-only) only makes the next start rebuild it. Tried again with the next changes.
      s.unsaved += unsaved;
      this.log('warn', 'vector index not saved', { file: s.index.file, err: String(err) });
      return;
    }
    // deleted while it was being written: the other process removed the files before this save put them back
    const still = await this.store.get(collectionId).catch(() => true);
    if (!still) await this.dropLoaded(collectionId, s);
  }

  private matching(s: Loaded, filter?: Filter): StoredRecord[] {
    if (!filter || !Object.keys(filter).length) return [...s.docs.values()];
    return this.filtered(s, filter).records;
  }

  private filtered(s: Loaded, filter: Filter): { records: StoredRecord[]; keys: Set<number> } {
    const id = JSON.stringify(filter);
    const hit = s.filtered.get(id);
    if (hit && hit.version === s.version) {
      // Re-inserted: the Map's order is then least recently used first.
      s.filtered.delete(id);
      s.filtered.set(id, hit);
      return hit;
    }
    const test = compileFilter(filter);
    const records: StoredRecord[] = [];
    for (const r of s.docs.values()) if (test(r.data)) records.push(r);
    // A Set, built once: the index would otherwise build one from an array on every query.
    const entry = { version: s.version, records, keys: new Set(records.map((r) => r.key)) };
    s.filtered.delete(id);
    s.filtered.set(id, entry);
    if (s.filtered.size > filterCacheSize) s.filtered.delete(s.filtered.keys().next().value!);
    return entry;
  }

  async count(c: CollectionRecord, filter?: Filter): Promise<number> {
    const s = await this.ready(c);
    return filter && Object.keys(filter).length ? this.matching(s, filter).length : s.docs.size;
  }

  async find(c: CollectionRecord, filter: Filter | undefined, limit: number, offset: number, after?: number): Promise<StoredRecord[]> {
    const s = await this.ready(c);
    if (filter && Object.keys(filter).length) {
      const records = this.filtered(s, filter).records;
      // in key order: the first after `after` by bisection
      let from = 0;
      if (after !== undefined) {
        let hi = records.length;
        while (from < hi) {
          const mid = (from + hi) >> 1;
          if (records[mid]!.key <= after) from = mid + 1;
          else hi = mid;
        }
      }
      return records.slice(from + offset, from + offset + limit);
    }
    // Unfiltered pages (allRecords) walk the documents without copying all of them per page.
    const out: StoredRecord[] = [];
    let i = 0;
    for (const r of s.docs.values()) {
      if (after !== undefined && r.key <= after) continue;
      if (i++ < offset) continue;
      if (out.length === limit) break;
      out.push(r);
    }
    return out;
  }

  async random(c: CollectionRecord, count: number, filter?: Filter): Promise<StoredRecord[]> {
    // A copy: the shuffle below must not reorder a cached filter result.
    const pool = [...this.matching(await this.ready(c), filter)];
    // Partial Fisher–Yates: the first `count` places get a uniform sample.
    for (let i = 0; i < Math.min(count, pool.length); i++) {
      const j = i + Math.floor(Math.random() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, count);
  }

  async lookup(c: CollectionRecord, recordId: string): Promise<{ record: StoredRecord; vector: Float32Array; hash?: string } | undefined> {
    const s = await this.ready(c);
    const key = s.keys.get(recordId);
    const record = key === undefined ? undefined : s.docs.get(key);
    const vector = key === undefined ? undefined : s.index?.vectorOf(key);
    const hash = key === undefined ? undefined : s.hashes.get(key);
    return record && vector ? { record, vector, ...(hash ? { hash: unpackHash(hash) } : {}) } : undefined;
  }

  async knn(c: CollectionRecord, query: Float32Array, k: number, filter?: Filter): Promise<Hit[]> {
    const s = await this.ready(c);
    if (!s.index || query.length !== s.index.dimensions) return [];
    const allowedKeys = filter && Object.keys(filter).length ? this.filtered(s, filter).keys : undefined;
    const found = s.index.search(query, k, allowedKeys ? { allowedKeys } : {});
    return found.keys.flatMap((key, i) => {
      const record = s.docs.get(key);
      return record ? [{ record, distance: found.distances[i]! }] : [];
    });
  }

  async range(c: CollectionRecord, query: Float32Array, maxDistance: number, limit: number, filter?: Filter): Promise<Hit[]> {
    return (await this.knn(c, query, limit, filter)).filter((h) => h.distance <= maxDistance);
  }

  async neighbours(c: CollectionRecord, records: StoredRecord[], maxDistance: number, limit: number, filter?: Filter): Promise<Map<number, Hit[]>> {
    const s = await this.ready(c);
    const out = new Map<number, Hit[]>();
    for (const r of records) {
      const vector = s.index?.vectorOf(r.key);
      const hits = vector ? await this.range(c, vector, maxDistance, limit, filter) : [];
      if (hits.length) out.set(r.key, hits);
    }
    return out;
  }

  async nearHashes(c: CollectionRecord, hash: string, maxBits: number, query: Float32Array, limit: number, filter?: Filter): Promise<Hit[]> {
    if (!/^[01]{256}$/.test(hash)) return [];
    const s = await this.ready(c);
    const allowed = filter && Object.keys(filter).length ? this.filtered(s, filter).keys : undefined;
    const q = packHash(hash);
    const hits: Hit[] = [];
    for (const [key, h] of s.hashes) {
      if (allowed && !allowed.has(key)) continue;
      if (bitsApart(q, h) > maxBits) continue;
      // a hash within reach of a blank image's (all 0 or all 1) tells nothing the blank's would not (h273)
      const ones = bitsApart(h, blank);
      if (ones <= maxBits || ones >= 256 - maxBits) continue;
      const record = s.docs.get(key);
      const vector = s.index?.vectorOf(key);
      if (record && vector && vector.length === query.length) hits.push({ record, distance: cosineDistance(query, vector) });
    }
    return hits.sort((a, b) => a.distance - b.distance || a.record.key - b.record.key).slice(0, limit);
  }

  private async hasText(c: CollectionRecord): Promise<boolean> {
    const res = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${ftsTable(c.id)}`.execute(this.store.store.db);
    return Number(res.rows[0]?.n) > 0;
  }

  /**
   * BM25 over the collection's FTS5 table with an idf that stays positive (`bm25Idf`), and N and the
   * average length of the rows there now: FTS5's own `bm25()` floors a phrase in half the rows or
   * more at 1e-6, which it cannot be told otherwise, and a contentless table's deletes leave the N
   * and average it ranks with as they were (distances then differed from PostgreSQL's after any
   * delete). Its score of one phrase is its idf times the phrase's term-frequency part, computed with
   * its average; so each phrase is matched on its own, its idf taken out, the weighted term
   * frequency solved from the rest with the row's length, and the phrase scored again with ours;
   * the best phrase of each word's group (a term and its other forms) taken, the groups summed per record, in one statement. Read in growing windows until `k` pass the filter.
   */
  async text(c: CollectionRecord, q: ParsedQuery, k: number, filter?: Filter): Promise<TextHit[]> {
    if (!toFts5PhraseGroups(q).length || k <= 0 || !(await this.hasText(c))) return [];
    const s = await this.ready(c);
    const allowed = filter && Object.keys(filter).length ? this.filtered(s, filter).keys : undefined;
    // once the index holds every change acknowledged before the search: the snapshot begun now holds them too
    return this.reads((db) => this.ranked(db, c, q, k, s, allowed));
  }

  /** `text`'s statements, on `db`: the word look, the counts, the stats and the ranking read one snapshot. */
  private async ranked(db: Kysely<Database>, c: CollectionRecord, q: ParsedQuery, k: number, s: Loaded, allowed: Set<number> | undefined): Promise<TextHit[]> {
    const table = ftsTable(c.id);
    const fts = sql.raw(table);
    const groups = toFts5PhraseGroups(q, await this.inflections(db, c, q));
    // what bm25() ranks with, then what is there now (read before the counts: rows added between
    // make df > N possible, which both idfs clamp)
    const kept = await fts5Averages(db, table);
    const now = await this.textStats(db, c, table);
    // Until a delete the two agree, and only the idf needs replacing (the row lengths are not read: twice as fast)
    const same = kept.rows === now.rows && kept.tokens === now.tokens;
    const num = (x: number) => sql.raw(String(x));
    const parts = [];
    const consts = [];
    const phrases = groups.flatMap((group, g) => group.map((phrase) => [g, phrase] as const));
    // every phrase's count in one statement: on a read worker each statement is a trip between the threads
    const counts = phrases.length ? (await sql<Record<string, number>>`SELECT ${sql.join(phrases.map(([, phrase], i) => sql`(SELECT count(*) FROM ${fts} WHERE ${fts} MATCH ${phrase}) AS ${sql.raw(`n${i}`)}`))}`.execute(db)).rows[0] : undefined;
    for (const [i, [g, phrase]] of phrases.entries()) {
      const df = Number(counts?.[`n${i}`] ?? 0);
      if (!df) continue;
      const theirs = fts5Idf(df, kept.rows);
      const ours = bm25Idf(df, now.rows);
      if (!(theirs > 0) || !Number.isFinite(ours)) continue;
      const p: number = parts.length;
      parts.push(
        same
          ? sql`SELECT ${num(g)} AS g, ${fts}.rowid AS key, -bm25(${fts}, ${sql.raw(bm25Weights)}) * ${num(ours / theirs)} AS s FROM ${fts} WHERE ${fts} MATCH ${phrase}`
          : sql`SELECT ${num(p)} AS p, ${num(g)} AS g, ${fts}.rowid AS key, -bm25(${fts}, ${sql.raw(bm25Weights)}) AS raw, fts5_row_tokens(d.sz) AS dl FROM ${fts} JOIN ${sql.raw(`${table}_docsize`)} d ON d.id = ${fts}.rowid WHERE ${fts} MATCH ${phrase}`,
      );
      consts.push(sql`(${num(p)}, ${num(theirs)}, ${num(ours)})`);
    }
    if (!parts.length) return [];
    const keptAvg = Math.max(1e-9, kept.tokens / Math.max(1, kept.rows));
    const nowAvg = Math.max(1e-9, now.tokens / Math.max(1, now.rows));
    const union = sql.join(parts, sql` UNION ALL `);
    for (let window = allowed ? 4 * k + 50 : k; ; window *= 4) {
      // MATERIALIZED: flattened into the aggregate, a lone phrase's bm25() would be out of its MATCH's context.
      // t = the phrase's term-frequency part; w, its weighted term frequency: t = w(k1+1) / (w + k1·L)
      const res = same
        ? await sql<{ key: number; s: number }>`WITH m AS MATERIALIZED (${union}), best AS (SELECT key, max(s) AS s FROM m GROUP BY key, g) SELECT key, sum(s) AS s FROM best GROUP BY key ORDER BY s DESC, key LIMIT ${window}`.execute(db)
        : await sql<{ key: number; s: number }>`
        WITH m AS MATERIALIZED (${union}),
        k(p, theirs, ours) AS (VALUES ${sql.join(consts)}),
        x AS (SELECT m.key, m.g, m.dl, k.ours, m.raw / k.theirs AS t FROM m JOIN k ON k.p = m.p),
        y AS (SELECT x.key, x.g, x.dl, x.ours, x.t * ${num(k1)} * (1 - ${num(b)} + ${num(b)} * x.dl / ${num(keptAvg)}) / max(1e-12, ${num(k1 + 1)} - x.t) AS w FROM x),
        best AS (SELECT y.key, max(y.ours * y.w * ${num(k1 + 1)} / (y.w + ${num(k1)} * (1 - ${num(b)} + ${num(b)} * y.dl / ${num(nowAvg)}))) AS s FROM y GROUP BY y.key, y.g)
        SELECT key, sum(s) AS s FROM best GROUP BY key ORDER BY s DESC, key LIMIT ${window}`.execute(db);
      const hits: TextHit[] = [];
      for (const r of res.rows) {
        const key = Number(r.key);
        if (allowed && !allowed.has(key)) continue;
        const record = s.docs.get(key);
        if (record) hits.push({ record, score: Number(r.s) });
        if (hits.length === k) break;
      }
      if (hits.length === k || res.rows.length < window) return hits;
    }
  }

  /**
   * The collection's text rows now and their tokens (a scan of its FTS5 size table), and the languages its records are
   * in, per change number; also read again after a minute, as the backfill writes rows without one (as PostgreSQL's statsOf).
   */
  private async textStats(db: Kysely<Database>, c: CollectionRecord, table: string): Promise<{ rows: number; tokens: number; langs: string[] }> {
    let held = this.textCounts.get(c.id);
    if (!held || held.seq !== c.seq || Date.now() - held.at > 60_000) {
      const r = (await sql<{ n: number; t: number | null }>`SELECT count(*) AS n, sum(fts5_row_tokens(sz)) AS t FROM ${sql.raw(`${table}_docsize`)}`.execute(db)).rows[0];
      const langs = await collectionLangs(db, c.id);
      held = { seq: c.seq, at: Date.now(), rows: Number(r?.n ?? 0), tokens: Number(r?.t ?? 0), langs };
      this.textCounts.set(c.id, held);
    }
    return held;
  }

  /**
   * The other inflected forms of the query's words (`inflectedWords`) that find records the word does not, made in the
   * languages PostgreSQL would stem them in (the query's, and those of the collection's records): SQLite's stand-in for
   * its stemmers, where a bare prefix found any longer word (h292: "jackal" found "Jackpot", "carpet" "Carpenter").
   * The forms go through the table's own tokenizer, as a record's words did, so a form matches where the record's word
   * is that form. Held a while, as a search asks twice (`present`, then `text`).
   */
  private async inflections(db: Kysely<Database>, c: CollectionRecord, q: ParsedQuery): Promise<Inflections> {
    const words = inflectedWords(q);
    const found = new Map<string, string[]>();
    if (!words.length) return found;
    const table = ftsTable(c.id);
    const langs = stemLanguages(q.language, (await this.textStats(db, c, table)).langs);
    for (const word of words) {
      const key = `${c.id} ${c.seq} ${langs.join(',')} ${word}`;
      let held = this.inflected.get(key);
      if (!held || Date.now() - held.at > 60_000) {
        held = { at: Date.now(), forms: await this.formsFinding(db, table, word, inflectedForms(word, langs)) };
        this.inflected.delete(key);
        if (this.inflected.size >= 1000) this.inflected.delete(this.inflected.keys().next().value!);
        this.inflected.set(key, held);
      }
      if (held.forms.length) found.set(word, held.forms);
    }
    return found;
  }

  /**
   * Those of `forms` that match a record the word and the forms kept before it do not. A form porter stems as the word
   * (`binoculare`) adds nothing, nor two forms that are one stem; and one OR of the forms asks for them all at once, then
   * halves find the one that adds (a few queries where a word has one other form in the collection, one where none).
   */
  private async formsFinding(db: Kysely<Database>, table: string, word: string, forms: string[]): Promise<string[]> {
    const fts = sql.raw(table);
    const kept: string[] = [];
    const adds = async (some: string[]) => {
      const match = `(${some.map(fts5String).join(' OR ')}) NOT (${[word, ...kept].map(fts5String).join(' OR ')})`;
      return (await sql`SELECT 1 AS one FROM ${fts} WHERE ${fts} MATCH ${match} LIMIT 1`.execute(db)).rows.length > 0;
    };
    let rest = forms;
    while (rest.length && (await adds(rest))) {
      let lo = 0;
      let hi = rest.length;
      // one of rest[lo..hi) adds: the first half's, or else the second's
      while (hi - lo > 1) {
        const mid = (lo + hi) >>> 1;
        if (await adds(rest.slice(lo, mid))) hi = mid;
        else lo = mid;
      }
      kept.push(rest[lo]!);
      rest = rest.slice(lo + 1);
    }
    return kept;
  }

  async present(c: CollectionRecord, q: ParsedQuery): Promise<Set<string>> {
    if (!(await this.hasText(c))) return new Set();
    return this.reads(async (db) => {
      const out = new Set<string>();
      const fts = sql.raw(ftsTable(c.id));
      const inflections = await this.inflections(db, c, { ...q, literals: [] });
      const terms = [...q.codes.map((x) => x.code), ...q.terms];
      if (!terms.length) return out;
      // The term as the search matches it (with its other forms where the compiler adds them); all in one statement, as
      // a read worker's every statement is a trip between the threads.
      const matches = terms.map((term) => toFts5Match({ ...q, codes: [], literals: [], terms: [term] }, inflections) ?? fts5String(term));
      const found = (await sql<Record<string, number>>`SELECT ${sql.join(matches.map((match, i) => sql`EXISTS (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ${match}) AS ${sql.raw(`t${i}`)}`))}`.execute(db)).rows[0];
      terms.forEach((term, i) => {
        if (found?.[`t${i}`]) out.add(term);
      });
      return out;
    });
  }

  /**
   * Text search's reads in one snapshot on a read worker of the store (sqlite-read-pool.ts), off the event loop: an
   * FTS5 statement runs to its end once begun ("red car" 58 ms at 25,000 records), and every other request waited. A store without the pool (made by hand in a test) reads on its own connection.
   */
  private reads<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    const { reads, db } = this.store.store;
    return reads ? reads.snapshot(work) : work(db);
  }

  async forget(collectionId: string): Promise<void> {
    await this.dropLoaded(collectionId, await this.loaded.get(collectionId)?.catch(() => undefined));
  }

  private async dropLoaded(collectionId: string, s: Loaded | undefined): Promise<void> {
    if (s?.timer) clearTimeout(s.timer);
    if (s) s.timer = undefined;
    await s?.index?.close();
    this.loaded.delete(collectionId);
    this.held.delete(collectionId);
    this.chains.delete(collectionId);
    // with what a save cut short left
    for (const suffix of indexFileSuffixes) fs.rmSync(path.join(this.dir, `${collectionId}${suffix}`), { force: true });
  }

  /**
   * Removes the index files of collections the database no longer holds: a process killed between a collection's
   * delete, committed, and the removal of its files (`loupe collection delete`, `loupe account delete`) left them, its
   * records' vectors in them, and nothing named them again (h293: a second delete answers 404). The folder is read
   * before the database: files are only made for a collection that exists, under an id never given again, so one
   * listed whose collection is not found after is a deleted collection's. The server runs it before it takes requests.
   */
  async removeLeftovers(): Promise<number> {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return 0;
    }
    const ids = new Set(names.map((n) => indexFileName.exec(n)?.[1]).filter((id): id is string => id !== undefined));
    let removed = 0;
    for (const id of ids) {
      if (this.loaded.has(id) || (await this.store.get(id))) continue;
      for (const suffix of indexFileSuffixes) fs.rmSync(path.join(this.dir, `${id}${suffix}`), { force: true });
      removed++;
    }
    return removed;
  }

  /** Saves every index that has unsaved changes (a clean shutdown then needs no catch-up). */
  async close(): Promise<void> {
    this.closing = true;
    for (const [id, p] of this.loaded) {
      // a load under way is not waited for (a rebuild can take minutes): it stops at its next page of reads, or ends in
      // memory; all it writes is the open's checkpoint, at the change number read before its rows, which a stop may cut
      // short (the next open removes the part and reads the index again)
      if (!this.held.has(id)) continue;
      await this.chain(id, async () => {
        const s = await p.catch(() => undefined);
        if (!s) return;
        // one collection's save failing (its row unreadable) leaves the others to be saved and closed
        await this.checkpoint(id, s).catch((err: unknown) => this.log('warn', 'vector index not saved at close', { collection: id, err: String(err) }));
        await s.index?.close();
      });
    }
    this.loaded.clear();
    this.held.clear();
  }
}

/** Numbers `first`…`last` applied: `appliedTo` moves up over every run of numbers now all applied. */
function settle(s: Loaded, first: number, last: number): void {
  if (last <= s.appliedTo) return;
  if (first > s.appliedTo + 1) {
    s.ahead.set(first, Math.max(last, s.ahead.get(first) ?? last));
    return;
  }
  s.appliedTo = last;
  for (let next = s.ahead.get(s.appliedTo + 1); next !== undefined; next = s.ahead.get(s.appliedTo + 1)) {
    s.ahead.delete(s.appliedTo + 1);
    s.appliedTo = Math.max(s.appliedTo, next);
  }
}

/** A collection's files in the indexes folder: the index, its sidecar, and the parts of a checkpoint cut short. */
const indexFileSuffixes = ['.usearch', '.usearch.json', '.usearch.tmp', '.usearch.json.tmp'];
const indexFileName = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.usearch(?:\.json)?(?:\.tmp)?$/;
