import { sql, type Selectable, type Transaction } from 'kysely';
import { pgVector } from './pg-vector.ts';
import type { CollectionsTable, Database, Store } from './database.ts';
import { fromJson, toIso } from './database.ts';
import { CollectionTextStore, type TextRow } from './collection-text-store.ts';
import { forgetMedia, intendMedia, keepMedia, mediaRemoved } from './media-deletions.ts';

export const collectionTypes = ['photo', 'product', 'custom', 'fashion', 'homedecor'] as const;
export type CollectionType = (typeof collectionTypes)[number];

export interface CollectionRecord {
  id: string;
  accountId: string;
  type: CollectionType;
  name: string;
  productField: string | null;
  capacity: number;
  /** Name of the model whose vectors the collection holds (fixed by its first insert). */
  model: string | null;
  dimensions: number | null;
  recordCount: number;
  seq: number;
  createdAt: string;
}

export interface StoredRecord {
  key: number;
  recordId: string;
  data: Record<string, unknown>;
  /** The record's change number as read (`getByIds`): an update given it writes only over that version. */
  seq?: number;
}

/** A stored record's key and its own change number; a refused record takes none. */
export type InsertOutcome = { key: number; seq: number } | { refused: 'duplicate' | 'capacity' };

/** Float32 vectors as stored: a little-endian BLOB in SQLite, pgvector's text form in PostgreSQL. */
export function vectorToBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}
export function blobToVector(b: Uint8Array): Float32Array {
  // Copy: a BLOB's bytes need not be 4-byte aligned.
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

/** Name of a collection's HNSW index in PostgreSQL (identifiers are at most 63 bytes). */
export const pgIndexName = (collectionId: string) => `collection_hnsw_${collectionId.replace(/-/g, '')}`;

/**
 * A collection's own pgvector HNSW index: partial (its rows only) over the vector cast to its
 * dimension. Queries must repeat the expression and the literal predicate to use it.
 */
export const pgIndexDdl = (collectionId: string, dimensions: number) =>
  `CREATE INDEX IF NOT EXISTS ${pgIndexName(collectionId)} ON collection_records USING hnsw ((embedding::vector(${Number(dimensions)})) vector_cosine_ops) WHERE collection_id = '${collectionId.replace(/'/g, "''")}'`;

/** The collection was deleted while a write to it was under way. */
export class CollectionGone extends Error {
  constructor(readonly collectionId: string) {
    super(`collection ${collectionId} was deleted`);
  }
}

/** Collections and their records, on SQLite or PostgreSQL. */
export class CollectionStore {
  /** Text search's rows, written in the same transactions as the records they describe. */
  readonly text: CollectionTextStore;

  constructor(readonly store: Store) {
    this.text = new CollectionTextStore(store.dialect);
  }

  private toCollection(r: Selectable<CollectionsTable>): CollectionRecord {
    return {
      id: r.id,
      accountId: r.account_id,
      type: r.type as CollectionType,
      name: r.name,
      productField: r.product_field,
      capacity: Number(r.capacity),
      model: r.model,
      dimensions: r.dimensions === null ? null : Number(r.dimensions),
      recordCount: Number(r.record_count),
      seq: Number(r.seq),
      createdAt: toIso(r.created_at),
    };
  }

  async create(c: { id: string; accountId: string; type: CollectionType; name: string; productField: string | null; capacity: number }): Promise<CollectionRecord> {
    await this.store.db
      .insertInto('collections')
      .values({ id: c.id, account_id: c.accountId, type: c.type, name: c.name, product_field: c.productField, capacity: c.capacity, model: null, dimensions: null, created_at: new Date().toISOString() })
      .execute();
    return (await this.get(c.id))!;
  }

  async get(id: string): Promise<CollectionRecord | undefined> {
    const row = await this.store.db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.toCollection(row);
  }

  async list(accountId?: string): Promise<CollectionRecord[]> {
    let q = this.store.db.selectFrom('collections').selectAll().orderBy('created_at').orderBy('id');
    if (accountId) q = q.where('account_id', '=', accountId);
    return (await q.execute()).map((r) => this.toCollection(r));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.deleteWithMedia(id)).deleted;
  }

  /**
   * Deletes the collection and answers the thumbnails its records named (migration 047), named in `media_deletions` in
   * the same transaction: the caller removes the files after the commit, and a process stopped before leaves them to
   * the sweep.
   */
  async deleteWithMedia(id: string): Promise<{ deleted: boolean; media: string[] }> {
    return this.store.db.transaction().execute(async (trx) => {
      // the collection's row first, as every write to its records takes it first: dropping the index
      // first (a lock on every record) while a delete of records held the row deadlocked the two
      if (this.store.dialect === 'postgres' && !(await trx.selectFrom('collections').select('id').where('id', '=', id).forUpdate().executeTakeFirst())) return { deleted: false, media: [] };
      if (this.store.dialect === 'postgres') await sql.raw(`DROP INDEX IF EXISTS ${pgIndexName(id)}`).execute(trx);
      await this.text.drop(trx, id);
      // named by the engine in one statement, before the records go: reading 100,000 keys into JS and writing them back
      // 500 a statement held SQLite's write lock 0.93 s in all where this holds it 0.73 s (PostgreSQL's transaction
      // 1.44 → 0.99 s; docs/benchmarks.md, h364); DISTINCT, as PostgreSQL's upsert refuses a key twice in one statement
      const due = Date.now();
      const named = await sql<{ key: string }>`
        INSERT INTO media_deletions (key, due)
        SELECT DISTINCT thumbnail_key, ${this.store.dialect === 'postgres' ? sql`cast(${due} as bigint)` : sql`${due}`} FROM collection_records
        WHERE collection_id = ${id} AND thumbnail_key IS NOT NULL
        ON CONFLICT (key) DO UPDATE SET due = excluded.due
        RETURNING key`.execute(trx);
      const res = await trx.deleteFrom('collections').where('id', '=', id).executeTakeFirst();
      const deleted = Number(res.numDeletedRows) > 0;
      // no collection, no records: nothing was named
      return { deleted, media: deleted ? named.rows.map((r) => r.key) : [] };
    });
  }

  /** Files about to be written for records not yet committed: the sweep removes them unless an insert or update names them. */
  intendMedia(keys: readonly string[]): Promise<void> {
    return intendMedia(this.store.db, keys);
  }

  /** Files removed: their `media_deletions` entries go too. */
  mediaRemoved(keys: readonly string[]): Promise<void> {
    return mediaRemoved(this.store.db, keys);
  }

  /** Every thumbnail the collection's records name: what deleting it would remove. */
  async thumbnailKeys(collectionId: string): Promise<string[]> {
    return (await this.store.db.selectFrom('collection_records').select('thumbnail_key').where('collection_id', '=', collectionId).where('thumbnail_key', 'is not', null).execute()).map((r) => r.thumbnail_key!);
  }

  /** The thumbnail each of these records names (none for a record stored before migration 047, or with thumbnails off). */
  async thumbnails(collectionId: string, recordIds: string[]): Promise<Map<string, string | null>> {
    if (!recordIds.length) return new Map();
    const rows = await this.store.db.selectFrom('collection_records').select(['record_id', 'thumbnail_key']).where('collection_id', '=', collectionId).where('record_id', 'in', recordIds).execute();
    return new Map(rows.map((r) => [r.record_id, r.thumbnail_key ?? null]));
  }

  /** The collection's keyword table without what deleted records left in it (SQLite; false where nothing was rewritten). */
  async rewriteText(id: string): Promise<boolean> {
    return this.store.db.transaction().execute((trx) => this.text.optimize(trx, id));
  }

  /** Takes the collection's next change numbers, locking its row until the transaction ends. */
  private async nextSeq(trx: Transaction<Database>, collectionId: string, count: number): Promise<number> {
    const row = await trx
      .updateTable('collections')
      .set((eb) => ({ seq: eb('seq', '+', count) }))
      .where('id', '=', collectionId)
      .returning(['seq'])
      .executeTakeFirst();
    if (!row) throw new CollectionGone(collectionId);
    return Number(row.seq) - count + 1;
  }

  /**
   * Locks the collection's row before a write reads the records it changes (PostgreSQL; SQLite's
   * transaction holds the write lock from its start): two deletes of the same records each read them
   * before either took the lock, both answered them deleted and the count went down twice (below 0,
   * letting inserts past the capacity); an update read a record a delete then removed.
   */
  private async lock(trx: Transaction<Database>, collectionId: string): Promise<void> {
    const q = trx.selectFrom('collections').select('id').where('id', '=', collectionId);
    if (!(await (this.store.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst())) throw new CollectionGone(collectionId);
  }

  /**
   * Every write returns the change numbers it took, and every number a committed write takes stands for a change the
   * caller applies (numbers taken for refused records are given back): the embedded index saves itself tagged with the
   * highest number below which every change is applied, which it can tell only if no number is left unaccounted for.
   * SQLite commits the writes one after another, in their numbers' order, but a request may be told of its commit
   * after a later one is (it awaits file work between), so the caller may apply them out of that order (h361).
   *
   * Inserts in request order: an `_id` already present is refused as `duplicate`, and records
   * past the capacity as `capacity`. The first vector fixes the collection's model and dimension
   * (and, in PostgreSQL, creates its HNSW index).
   */
  async insert(collectionId: string, rows: { recordId: string; data: Record<string, unknown>; vector: Float32Array; hash?: string | null; text?: TextRow; thumbnailKey?: string | null }[], model: string): Promise<{ outcomes: InsertOutcome[]; seq: number }> {
    return this.store.db.transaction().execute(async (trx) => {
      // Taking the change numbers first locks the collection's row (PostgreSQL) for the capacity
      // check below; SQLite's transaction already holds the write lock. Unused numbers are gaps.
      let seq = rows.length ? await this.nextSeq(trx, collectionId, rows.length) : 0;
      const c = await trx.selectFrom('collections').selectAll().where('id', '=', collectionId).executeTakeFirstOrThrow();
      const dims = rows[0]?.vector.length ?? 0;
      if (c.model === null && rows.length) {
        await trx.updateTable('collections').set({ model, dimensions: dims }).where('id', '=', collectionId).execute();
        if (this.store.dialect === 'postgres') {
          await sql.raw(pgIndexDdl(collectionId, dims)).execute(trx);
        }
      }
      let room = Number(c.capacity) - Number(c.record_count);
      const outcomes: InsertOutcome[] = [];
      const now = new Date().toISOString();
      for (const r of rows) {
        if (room <= 0) {
          outcomes.push({ refused: 'capacity' });
          continue;
        }
        const exists = await trx.selectFrom('collection_records').select('key').where('collection_id', '=', collectionId).where('record_id', '=', r.recordId).executeTakeFirst();
        if (exists) {
          outcomes.push({ refused: 'duplicate' });
          continue;
        }
        const values = {
          collection_id: collectionId,
          record_id: r.recordId,
          data: JSON.stringify(r.data),
          seq: seq++,
          created_at: now,
          updated_at: now,
          hash: r.hash ?? null,
          thumbnail_key: r.thumbnailKey ?? null,
          ...(this.store.dialect === 'postgres' ? { embedding: pgVector(r.vector) } : { vector: vectorToBlob(r.vector) }),
        };
        // The collection's row lock (above) serialises inserts, so the check before is final; a
        // unique violation here would be a bug, and in PostgreSQL it aborts the transaction anyway.
        const inserted = await trx.insertInto('collection_records').values(values).returning('key').executeTakeFirstOrThrow();
        if (r.text) await this.text.write(trx, collectionId, Number(inserted.key), r.text);
        outcomes.push({ key: Number(inserted.key), seq: values.seq });
        room--;
      }
      const added = outcomes.filter((o) => 'key' in o).length;
      // the thumbnails of the records stored are theirs now; a refused record's stays named for removal
      await keepMedia(trx, rows.flatMap((r, i) => ('key' in outcomes[i]! && r.thumbnailKey ? [r.thumbnailKey] : [])));
      // the numbers taken for refused records (the last ones: stored records took theirs in order) go back, so every
      // number committed is a stored record's; the collection's row is this transaction's until it ends (above)
      const unused = rows.length - added;
      if (added || unused) await trx.updateTable('collections').set((eb) => ({ record_count: eb('record_count', '+', added), seq: eb('seq', '-', unused) })).where('id', '=', collectionId).execute();
      return { outcomes, seq: seq - 1 };
    });
  }

  async getByIds(collectionId: string, recordIds: string[]): Promise<StoredRecord[]> {
    if (!recordIds.length) return [];
    const rows = await this.store.db.selectFrom('collection_records').select(['key', 'record_id', 'data', 'seq']).where('collection_id', '=', collectionId).where('record_id', 'in', recordIds).execute();
    return rows.map((r) => ({ key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data), seq: Number(r.seq) }));
  }

  async getByKeys(collectionId: string, keys: number[]): Promise<StoredRecord[]> {
    if (!keys.length) return [];
    const rows = await this.store.db.selectFrom('collection_records').select(['key', 'record_id', 'data']).where('collection_id', '=', collectionId).where('key', 'in', keys).execute();
    return rows.map((r) => ({ key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }));
  }

  /**
   * Deletes by `_id`; returns the deleted records (their keys leave tombstones for the index) and
   * the last change number this transaction took (0 when nothing was deleted).
   */
  /**
   * Deletes the records of these `_id`s; with `still`, only those whose data, read under the collection's lock, it
   * holds for: a record changed since it was found (an update, or deleted and inserted again) is not deleted for what it
   * was (h168: deleteByFilter deleted records an update had just moved out of its filter).
   */
  /** `media`: the deleted records' thumbnails, named for removal in the same transaction (the caller removes them after it). */
  /** `first`…`seq`: the change numbers taken, one a deleted record (0 and 0 when none was). */
  async deleteByIds(collectionId: string, recordIds: string[], still?: (data: Record<string, unknown>) => boolean): Promise<{ deleted: StoredRecord[]; first: number; seq: number; media: string[] }> {
    return this.store.db.transaction().execute(async (trx) => {
      await this.lock(trx, collectionId);
      const read = await trx.selectFrom('collection_records').select(['key', 'record_id', 'data', 'thumbnail_key']).where('collection_id', '=', collectionId).where('record_id', 'in', recordIds.length ? recordIds : ['']).execute();
      const found = still ? read.filter((r) => still(fromJson<Record<string, unknown>>(r.data))) : read;
      if (!found.length) return { deleted: [], first: 0, seq: 0, media: [] };
      const media = found.flatMap((r) => (r.thumbnail_key ? [r.thumbnail_key] : []));
      await forgetMedia(trx, media);
      const first = await this.nextSeq(trx, collectionId, found.length);
      let seq = first;
      await this.text.deleteKeys(trx, collectionId, found.map((r) => Number(r.key)));
      await trx.deleteFrom('collection_records').where('collection_id', '=', collectionId).where('key', 'in', found.map((r) => r.key)).execute();
      // the embedded index catches up from them (changesSince); PostgreSQL's index lives in the table itself
      for (const r of this.store.dialect === 'sqlite' ? found : []) {
        await trx.insertInto('collection_tombstones').values({ collection_id: collectionId, key: Number(r.key), seq: seq++ }).onConflict((oc) => oc.columns(['collection_id', 'key']).doUpdateSet({ seq: (eb) => eb.ref('excluded.seq') })).execute();
      }
      await trx.updateTable('collections').set((eb) => ({ record_count: eb('record_count', '-', found.length) })).where('id', '=', collectionId).execute();
      return { deleted: found.map((r) => ({ key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) })), first, seq: first + found.length - 1, media };
    });
  }

  /**
   * Replaces a record's attributes (and vector, when given); the key stays, so the index entry
   * is updated in place. Returns the stored record, or undefined when the `_id` is unknown.
   */
  /**
   * Writes a record's new content; `readSeq`, the change number the content was merged from: written only over that
   * version, else 'changed' (the caller merges again: two updates of one record at once each lost the other's fields
   * to the later write, h154).
   */
  /**
   * `thumbnailKey`, with a new image: its thumbnail (null: none), which replaces the one the record named; the old one is
   * named for removal in the same transaction and answered as `replacedMedia` (the caller removes it after the commit).
   */
  async update(collectionId: string, recordId: string, data: Record<string, unknown>, vector?: Float32Array, text?: TextRow, hash?: string | null, readSeq?: number, thumbnailKey?: string | null): Promise<{ record: StoredRecord; seq: number; replacedMedia?: string } | 'changed' | undefined> {
    return this.store.db.transaction().execute(async (trx) => {
      await this.lock(trx, collectionId);
      const found = await trx.selectFrom('collection_records').select(['key', 'seq', 'thumbnail_key']).where('collection_id', '=', collectionId).where('record_id', '=', recordId).executeTakeFirst();
      if (!found) return undefined;
      if (readSeq !== undefined && Number(found.seq) !== readSeq) return 'changed';
      const thumbnailChanges = vector !== undefined && thumbnailKey !== undefined;
      if (thumbnailChanges) {
        if (thumbnailKey) await keepMedia(trx, [thumbnailKey]);
        if (found.thumbnail_key) await forgetMedia(trx, [found.thumbnail_key]);
      }
      const seq = await this.nextSeq(trx, collectionId, 1);
      const set = {
        data: JSON.stringify(data),
        seq,
        updated_at: new Date().toISOString(),
        ...(vector ? (this.store.dialect === 'postgres' ? { embedding: pgVector(vector) } : { vector: vectorToBlob(vector) }) : {}),
        // a new image replaces the hash too (none when the task gave none)
        ...(vector ? { hash: hash ?? null } : {}),
        ...(thumbnailChanges ? { thumbnail_key: thumbnailKey } : {}),
      };
      await trx.updateTable('collection_records').set(set).where('key', '=', found.key).execute();
      if (text) await this.text.write(trx, collectionId, Number(found.key), text);
      return { record: { key: Number(found.key), recordId, data }, seq, ...(thumbnailChanges && found.thumbnail_key ? { replacedMedia: found.thumbnail_key } : {}) };
    });
  }

  /**
   * The keys of a page of the collection's records after `after`, in key order. Chosen first from the index alone and
   * the rows then read by key: asked in one statement (`collection_id = ? AND key > ? ORDER BY key LIMIT n`), SQLite
   * read the remaining rows through the (collection_id, seq) index and sorted them, their 7 KB vectors with them, for
   * every page (1,000 of 30,000 records: 46–76 ms a page, 13–39 ms so).
   */
  private pageKeys(collectionId: string, after: number, pageSize: number) {
    return this.store.db.selectFrom('collection_records').select('key').where('collection_id', '=', collectionId).where('key', '>', after).orderBy('key').limit(pageSize);
  }

  /**
   * SQLite only: every record's attributes (the embedded backend holds them in memory), in key order, a page at a time:
   * read in one statement, 100,000 records held the event loop for 0.7–1.3 s, every request of a server taking them
   * waiting. Not the hash, which lies after the 7 KB vector in each row (reaching it walks the vector's overflow pages,
   * another 0.7 s at 100,000 records): it is read with the vector (`allVectors`, `recordVectorRows`).
   */
  async *docPages(collectionId: string, pageSize = 1000): AsyncIterable<{ key: number; recordId: string; data: Record<string, unknown> }[]> {
    let after = 0;
    for (;;) {
      const rows = await this.store.db.selectFrom('collection_records').select(['key', 'record_id', 'data']).where('key', 'in', this.pageKeys(collectionId, after, pageSize)).orderBy('key').execute();
      if (!rows.length) return;
      yield rows.map((r) => ({ key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }));
      after = Number(rows[rows.length - 1]!.key);
    }
  }

  /**
   * SQLite only: live vectors and their records' hashes, in key order from after `after`, on this connection (the
   * embedded index's load where no worker thread reads them: index/arena-fill.ts). Pages of 1,000: a page of 5,000 held
   * the event loop 400–685 ms at 100,000 records, which a server loading its indexes while it takes requests made every
   * request wait.
   */
  async *allVectors(collectionId: string, pageSize = 1000, after = 0): AsyncIterable<{ key: number; vector: Float32Array; hash: string | null }> {
    for (;;) {
      const rows = await this.store.db.selectFrom('collection_records').select(['key', 'vector', 'hash']).where('key', 'in', this.pageKeys(collectionId, after, pageSize)).orderBy('key').execute();
      if (!rows.length) return;
      for (const r of rows) if (r.vector) yield { key: Number(r.key), vector: blobToVector(r.vector), hash: r.hash ?? null };
      after = Number(rows[rows.length - 1]!.key);
    }
  }

  /** SQLite only: upserts (with vectors) and deletions (null vector) after `seq`, in seq order. */
  /** Forgets the deletions up to `seq`, which a saved vector index holds (SQLite: the embedded index replays only later ones). */
  async pruneTombstones(collectionId: string, seq: number): Promise<void> {
    await this.store.db.deleteFrom('collection_tombstones').where('collection_id', '=', collectionId).where('seq', '<=', seq).execute();
  }

  async changesSince(collectionId: string, seq: number): Promise<{ key: number; vector: Float32Array | null; seq: number }[]> {
    const ups = await this.store.db.selectFrom('collection_records').select(['key', 'vector', 'seq']).where('collection_id', '=', collectionId).where('seq', '>', seq).execute();
    const dels = await this.store.db.selectFrom('collection_tombstones').select(['key', 'seq']).where('collection_id', '=', collectionId).where('seq', '>', seq).execute();
    return [...ups.map((r) => ({ key: Number(r.key), vector: r.vector ? blobToVector(r.vector) : null, seq: Number(r.seq) })), ...dels.map((d) => ({ key: Number(d.key), vector: null, seq: Number(d.seq) }))].sort((a, b) => a.seq - b.seq);
  }
}
