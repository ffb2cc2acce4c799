import { sql, type RawBuilder } from 'kysely';
import { filterToSql } from '../store/filters/pg-filter.ts';
import type { CollectionRecord, StoredRecord } from '../store/collection-store.ts';
import { fromJson, type Store } from '../store/database.ts';
import type { CollectionQueries, Filter, Hit } from './collection-queries.ts';

const pgVector = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

/**
 * HNSW search breadth: pgvector's default ef_search (40) bounds how many rows one scan returns,
 * so it must grow with k; iterative scans (pgvector 0.8) keep scanning when a filter rejects
 * candidates, up to max_scan_tuples. Filtered scans get a wider beam: at ef 64 a 50 % filter gave
 * recall@30 0.89 on 5k records (bench/collections.ts).
 */
const overfetch = (limit: number) => Math.min(2000, 2 * limit + 20);
const efSearch = (k: number, filtered: boolean) => Math.min(1000, filtered ? Math.max(200, 4 * k) : Math.max(64, 2 * k));

/**
 * Collections on PostgreSQL: filters become SQL over the `data` JSONB column, vectors are
 * searched with the collection's own partial HNSW index (created with its first vector). The
 * index's predicate names the collection id as a literal, so queries must too: the id is a UUID
 * validated before it gets here.
 */
export class PgCollectionQueries implements CollectionQueries {
  constructor(private readonly store: Store) {}

  private where(c: CollectionRecord, filter?: Filter): RawBuilder<unknown> {
    const own = sql`collection_id = ${sql.lit(c.id)}`;
    return filter && Object.keys(filter).length ? sql`${own} AND (${filterToSql(filter)})` : own;
  }

  private rows(rows: { key: number | string; record_id: string; data: unknown }[]): StoredRecord[] {
    return rows.map((r) => ({ key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }));
  }

  async count(c: CollectionRecord, filter?: Filter): Promise<number> {
    const res = await sql<{ n: number }>`SELECT count(*) AS n FROM collection_records WHERE ${this.where(c, filter)}`.execute(this.store.db);
    return Number(res.rows[0]?.n ?? 0);
  }

  async find(c: CollectionRecord, filter: Filter | undefined, limit: number, offset: number): Promise<StoredRecord[]> {
    const res = await sql<{ key: number; record_id: string; data: unknown }>`SELECT key, record_id, data FROM collection_records WHERE ${this.where(c, filter)} ORDER BY key LIMIT ${limit} OFFSET ${offset}`.execute(this.store.db);
    return this.rows(res.rows);
  }

  async random(c: CollectionRecord, count: number, filter?: Filter): Promise<StoredRecord[]> {
    const res = await sql<{ key: number; record_id: string; data: unknown }>`SELECT key, record_id, data FROM collection_records WHERE ${this.where(c, filter)} ORDER BY random() LIMIT ${count}`.execute(this.store.db);
    return this.rows(res.rows);
  }

  async lookup(c: CollectionRecord, recordId: string): Promise<{ record: StoredRecord; vector: Float32Array } | undefined> {
    const res = await sql<{ key: number; record_id: string; data: unknown; v: string | null }>`SELECT key, record_id, data, embedding::text AS v FROM collection_records WHERE ${this.where(c)} AND record_id = ${recordId}`.execute(this.store.db);
    const row = res.rows[0];
    if (!row?.v) return undefined;
    return { record: this.rows([row])[0]!, vector: Float32Array.from(JSON.parse(row.v) as number[]) };
  }

  private async nearest(c: CollectionRecord, query: Float32Array, limit: number, filter?: Filter): Promise<Hit[]> {
    if (!c.dimensions || query.length !== c.dimensions) return [];
    const dims = sql.raw(String(c.dimensions));
    const q = pgVector(query);
    return this.store.db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('hnsw.ef_search', ${String(efSearch(limit, filter !== undefined && Object.keys(filter).length > 0))}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`.execute(trx);
      // relaxed_order may return rows slightly out of order, so the first `limit` rows are not
      // the best `limit`: take more, sort, then cut.
      const res = await sql<{ key: number; record_id: string; data: unknown; distance: number }>`
        WITH hits AS MATERIALIZED (
          SELECT key, record_id, data, (embedding::vector(${dims})) <=> ${q}::vector(${dims}) AS distance
          FROM collection_records
          WHERE ${this.where(c, filter)}
          ORDER BY (embedding::vector(${dims})) <=> ${q}::vector(${dims})
          LIMIT ${overfetch(limit)}
        )
        SELECT * FROM hits ORDER BY distance, key LIMIT ${limit}`.execute(trx);
      return res.rows.map((r) => ({ record: { key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }, distance: Number(r.distance) }));
    });
  }

  knn(c: CollectionRecord, query: Float32Array, k: number, filter?: Filter): Promise<Hit[]> {
    return this.nearest(c, query, k, filter);
  }

  async range(c: CollectionRecord, query: Float32Array, maxDistance: number, limit: number, filter?: Filter): Promise<Hit[]> {
    return (await this.nearest(c, query, limit, filter)).filter((h) => h.distance <= maxDistance);
  }

  applied(): void {
    // The table is the index.
  }

  async forget(): Promise<void> {}

  async close(): Promise<void> {}
}
