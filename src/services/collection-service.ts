import { randomUUID } from 'node:crypto';
import { collectionTypes, type CollectionRecord, type CollectionStore, type CollectionType } from '../store/collection-store.ts';
import type { CollectionQueries } from '../index/collection-queries.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { AccountService } from './account-service.ts';
import type { LockBudgetWatch } from './lock-budget-watch.ts';
import { lockBudgetWarning, suggestedMaxLocks, type LockBudget } from '../store/pg-lock-budget.ts';
import { ServiceError, isUuid } from './errors.ts';
import { filesHere } from './media-housekeeping.ts';

/** How far the server's start has read the collections' indexes (logs, ping). */
export interface IndexLoadProgress {
  state: 'loading' | 'loaded';
  collections: number;
  collectionsDone: number;
  records: number;
  recordsRead: number;
  ms: number;
  /** The collection being read, where its saved index could not be used and its graph is being rebuilt (h362). */
  rebuilding?: { collection: string; inserted: number; of: number; reason: string };
}

/** The collection types, for the routes' schemas: routes reach the store only through services (docs/architecture.md, Layers). */
export { collectionTypes, type CollectionType };

/** Records a collection may hold when `--capacity` is not given. */
export const defaultCapacity = 1_000_000;
/** Most records a collection may be given room for: far past what one server's index holds, short of what a store cannot count. */
export const maxCapacity = 1_000_000_000;

/**
 * Product and fashion collections group images of one product by `product_id` unless the
 * administrator names another field (spec 2, "product_field"); other types have none.
 */
const defaultProductField: Record<CollectionType, string | null> = { photo: null, product: 'product_id', custom: null, fashion: 'product_id', homedecor: 'product_id' };

/** What an administrator sees of a collection (CLI output). */
export function describeCollection(c: CollectionRecord) {
  return {
    collection_id: c.id,
    account: c.accountId,
    type: c.type,
    name: c.name,
    product_field: c.productField,
    capacity: c.capacity,
    records: c.recordCount,
    model: c.model,
    dimensions: c.dimensions,
    created_at: c.createdAt,
  };
}

/**
 * PostgreSQL's lock-table figures as `loupe collection list` shows them (store/pg-lock-budget.ts): what this process's
 * pool may hold against the table's size, and the warning the server logs when it passes half.
 */
export function describeLockBudget(b: LockBudget): Record<string, unknown> {
  const warning = lockBudgetWarning(b);
  return {
    hnsw_indexes: b.hnswIndexes,
    locks_per_statement: b.locksPerStatement,
    pool_size: b.poolSize,
    locks_of_a_full_pool: b.needed,
    lock_table_entries: b.capacity,
    max_locks_per_transaction: b.maxLocksPerTransaction,
    max_connections: b.maxConnections,
    max_prepared_transactions: b.maxPreparedTransactions,
    suggested_max_locks_per_transaction: Math.max(b.maxLocksPerTransaction, suggestedMaxLocks(b)),
    ...(warning ? { warning } : {}),
  };
}

/** Visual-search collections: administration now; the search methods build on it. */
export class CollectionService {
  constructor(
    private readonly collections: CollectionStore,
    private readonly accounts: AccountService,
    private readonly queries: CollectionQueries,
    /** Where the records' thumbnails are (migration 047), removed with the collection. */
    private readonly media?: MediaStore,
    /** PostgreSQL: whether the collections' indexes may fill its lock table, checked after each create (h369). */
    private readonly lockWatch?: LockBudgetWatch,
  ) {}

  async create(input: { accountId: string; type: string; name: string; productField?: string | undefined; capacity?: number | undefined }): Promise<CollectionRecord> {
    await this.accounts.getAccount(input.accountId);
    if (!(collectionTypes as readonly string[]).includes(input.type)) {
      throw new ServiceError(400, 'invalid_collection_type', `Unknown collection type "${input.type}"; use one of ${collectionTypes.join(', ')}.`);
    }
    const type = input.type as CollectionType;
    const name = input.name.trim();
    if (!name || name.length > 200) throw new ServiceError(400, 'invalid_request', 'The collection name must be 1 to 200 characters.');
    const capacity = input.capacity ?? defaultCapacity;
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > maxCapacity) throw new ServiceError(400, 'invalid_request', `The capacity must be an integer from 1 to ${maxCapacity}.`);
    const productField = input.productField?.trim() || defaultProductField[type];
    if (productField !== null && (productField.length > 200 || productField.startsWith('$'))) throw new ServiceError(400, 'invalid_request', 'The product field must be a field name of at most 200 characters, not starting with $.');
    const made = await this.collections.create({ id: randomUUID(), accountId: input.accountId, type, name, productField, capacity });
    // its HNSW index comes with its first insert: counted now, so the create that passes the mark is the one told
    await this.lockWatch?.check(1);
    return made;
  }

  /** PostgreSQL's lock-table figures for `loupe collection list`; undefined on SQLite. */
  lockBudget(): Promise<LockBudget | undefined> {
    return this.lockWatch?.check() ?? Promise.resolve(undefined);
  }

  async list(accountId?: string): Promise<CollectionRecord[]> {
    if (accountId !== undefined) await this.accounts.getAccount(accountId);
    return this.collections.list(accountId);
  }

  /**
   * Every collection made ready to search, read in the background as the server takes requests (since h353: read
   * before it listened, 100,000 records kept a restarted server's port closed about 8 s; and read on first use, the
   * first search at 50,000 records took 8.5 s with every request waiting). Smallest collections first, so most are
   * ready soonest; a request for one not read yet starts its read at once and waits for it (bounded, then 503). A
   * collection that fails to load is left to its first use (which says why) and counted. `removed`: the collections
   * whose index files a delete killed part way left (h293). `progress` is told at the start and after each collection;
   * `stopped`: asked before each (the server's stop).
   */
  async loadIndexes(options: { progress?: (p: IndexLoadProgress) => void; stopped?: () => boolean } = {}): Promise<{ collections: number; failed: number; removed: number }> {
    let failed = 0;
    const removed = await this.queries.removeLeftovers();
    const all = (await this.collections.list()).sort((a, b) => a.recordCount - b.recordCount);
    const p = (this.loading = { collections: all.length, done: 0, records: all.reduce((n, c) => n + c.recordCount, 0), recordsDone: 0, current: undefined as CollectionRecord | undefined, startedAt: Date.now(), finishedAt: undefined as number | undefined });
    options.progress?.(this.indexProgress()!);
    for (const c of all) {
      if (options.stopped?.()) break;
      p.current = c;
      const ok = await this.queries.load(c).then(
        () => true,
        () => false,
      );
      p.current = undefined;
      // cut short by the stop: neither done nor failed (the stop's log line said 5/5 and every record read, h359)
      if (!ok && options.stopped?.()) break;
      if (!ok) failed++;
      p.done++;
      p.recordsDone += c.recordCount;
      options.progress?.(this.indexProgress()!);
    }
    p.finishedAt = Date.now();
    return { collections: all.length, failed, removed };
  }

  private loading: { collections: number; done: number; records: number; recordsDone: number; current: CollectionRecord | undefined; startedAt: number; finishedAt: number | undefined } | undefined;

  /** How far the start's index load is (logs, ping); undefined before it began, or where the database holds the indexes. */
  indexProgress(): IndexLoadProgress | undefined {
    const p = this.loading;
    if (!p) return undefined;
    const now = p.current ? this.queries.loadState(p.current) : undefined;
    const reading = now?.state === 'loading' ? now.records : 0;
    const rebuilding = now?.state === 'loading' && now.rebuilding && p.current ? { rebuilding: { collection: p.current.id, ...now.rebuilding } } : {};
    return { state: p.finishedAt === undefined ? 'loading' : 'loaded', collections: p.collections, collectionsDone: p.done, records: p.records, recordsRead: p.recordsDone + reading, ms: (p.finishedAt ?? Date.now()) - p.startedAt, ...rebuilding };
  }

  /** For administrators: any account's collection. */
  async get(collectionId: string): Promise<CollectionRecord> {
    const c = isUuid(collectionId) ? await this.collections.get(collectionId) : undefined;
    if (!c) throw new ServiceError(404, 'collection_not_found', `Collection ${collectionId} not found.`);
    return c;
  }

  /**
   * What deleted records left in the collection's keyword index written out of the database file (`loupe collection
   * compact`, docs/operations.md "Erasure"): SQLite's FTS5 keeps a deleted row's words until its segments merge.
   */
  async compact(collectionId: string): Promise<{ compacted: string; keyword_index: 'rewritten' | 'none' | 'postgresql' }> {
    await this.get(collectionId);
    const rewritten = await this.collections.rewriteText(collectionId);
    return { compacted: collectionId, keyword_index: rewritten ? 'rewritten' : this.collections.store.dialect === 'postgres' ? 'postgresql' : 'none' };
  }

  /** The files {@link delete} would remove: its records' thumbnails (an account's erasure plan counts them with the rest). */
  async thumbnailKeys(collectionId: string): Promise<string[]> {
    await this.get(collectionId);
    return this.collections.thumbnailKeys(collectionId);
  }

  /** What {@link delete} would remove (`loupe collection delete --dry-run`): its thumbnails, those this media folder holds and those it does not. */
  async deletePlan(collectionId: string): Promise<{ files: number; files_not_found: number }> {
    const keys = await this.thumbnailKeys(collectionId);
    const files = this.media ? await filesHere(this.media, keys) : 0;
    return { files, files_not_found: keys.length - files };
  }

  /** `files`: the records' thumbnails removed; one not in this process's media folder stays named for the server's sweep. */
  async delete(collectionId: string): Promise<{ deleted: string; files: number }> {
    await this.get(collectionId);
    const { media } = await this.collections.deleteWithMedia(collectionId);
    await this.queries.forget(collectionId);
    // a file not found here stays named in media_deletions, for the sweep of the server whose folder holds it (a CLI
    // run with another LOUPE_DATA_DIR, as a workspace's erasure, h100)
    const { removed } = this.media ? await this.media.remove(media) : { removed: [] };
    await this.collections.mediaRemoved(removed);
    return { deleted: collectionId, files: removed.length };
  }

  /**
   * The collection a request names, as its account sees it: another account's collection is a
   * 404 like an unknown one (its existence is not revealed), and a base path of another
   * collection type is a 400 naming the right one.
   */
  async forRequest(collectionId: string | undefined, accountId: string, acceptedTypes: readonly CollectionType[], pathsOf?: (type: CollectionType) => string[]): Promise<CollectionRecord> {
    if (!collectionId) throw new ServiceError(400, 'missing_collection_id', 'The collection-id header is required.');
    // UUIDs are case-insensitive (RFC 9562); ours are stored in lower case.
    const c = isUuid(collectionId) ? await this.collections.get(collectionId.toLowerCase()) : undefined;
    // a header of any length is named by its start: the answer does not grow with it
    if (!c || c.accountId !== accountId) throw new ServiceError(404, 'collection_not_found', `Collection ${collectionId.length > 100 ? `${collectionId.slice(0, 100)}…` : collectionId} not found.`);
    if (!acceptedTypes.includes(c.type)) {
      // The paths of the same method for its type (text search names its own), else its bases.
      const own = pathsOf?.(c.type) ?? basesOf(c.type);
      const what = pathsOf ? (own.length ? `use ${own.join(' or ')}` : 'no path of this method serves it') : `use its base path (${own.join(' or ')})`;
      throw new ServiceError(400, 'collection_type_mismatch', `Collection ${collectionId} is a ${c.type} collection; ${what}.`);
    }
    return c;
  }
}

/** The request bases of each collection type (spec 2 §4), deprecated ones last. */
export function basesOf(type: CollectionType): string[] {
  switch (type) {
    case 'photo':
      return ['/similarity/photos/v2', '/photo/search/v2'];
    case 'product':
      return ['/similarity/products-new/v2'];
    case 'custom':
      return ['/similarity/custom/v2'];
    case 'fashion':
      return ['/similarity/fashion-new/v2', '/similarity/fashion/v2'];
    case 'homedecor':
      return ['/similarity/homedecor-new/v2', '/similarity/homedecor/v2'];
  }
}
