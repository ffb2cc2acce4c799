import type SQLite from 'better-sqlite3';

/** A record's vector as SQLite holds it (float32 bytes, not necessarily 4-byte aligned) and its `bmh1` hash. */
export interface RecordVectorRow {
  key: number;
  vector: Uint8Array;
  hash: string | null;
}

/**
 * SQLite only: every record of the collection that has a vector, with its hash, in key order, one row at a time, on
 * the connection given: a worker thread's own (index/arena-fill-worker.ts), so a load reads the vectors off the event
 * loop. One statement, so one snapshot. The hash is read here rather than with the attributes (`docPages`): it lies
 * after the 7 KB vector in each row, and reaching it walks the vector's overflow pages, which this read does anyway.
 */
export function* recordVectorRows(db: SQLite.Database, collectionId: string): Generator<RecordVectorRow> {
  // in key order through the (collection_id, key) index (migration 048), named: a plan that sorted instead would sort
  // every row, vectors and all (700 MB at 100,000 records of 1792-d)
  const rows = db.prepare('SELECT key, vector, hash FROM collection_records INDEXED BY collection_records_collection_key WHERE collection_id = ? AND vector IS NOT NULL ORDER BY key').iterate(collectionId) as IterableIterator<{ key: number | bigint; vector: Uint8Array; hash: string | null }>;
  for (const r of rows) yield { key: Number(r.key), vector: r.vector, hash: r.hash };
}
