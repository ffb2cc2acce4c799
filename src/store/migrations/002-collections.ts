import type { Migration } from './index.ts';

/**
 * Visual-search collections (spec 2). A record's `key` is the vector index's key (the client's
 * `_id` is `record_id`). Every change takes the collection's next `seq`; deletions leave a
 * tombstone with theirs, so a saved vector index can catch up on exactly what it missed.
 */
export const collections: Migration = {
  name: '002-collections',
  sqlite: [
    `CREATE TABLE collections (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      name TEXT NOT NULL,
      product_field TEXT,
      capacity INTEGER NOT NULL,
      model TEXT,
      dimensions INTEGER,
      record_count INTEGER NOT NULL DEFAULT 0,
      seq INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`,
    `CREATE INDEX collections_account ON collections(account_id)`,
    `CREATE TABLE collection_records (
      key INTEGER PRIMARY KEY AUTOINCREMENT,
      collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      record_id TEXT NOT NULL,
      data TEXT NOT NULL,
      vector BLOB,
      seq INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (collection_id, record_id)
    )`,
    `CREATE INDEX collection_records_seq ON collection_records(collection_id, seq)`,
    `CREATE TABLE collection_tombstones (
      collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      key INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      PRIMARY KEY (collection_id, key)
    )`,
  ],
  postgres: [
    // Needs a superuser once per database (or pgvector marked trusted); see README.
    `CREATE EXTENSION IF NOT EXISTS vector`,
    `CREATE TABLE collections (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      name TEXT NOT NULL,
      product_field TEXT,
      capacity INTEGER NOT NULL,
      model TEXT,
      dimensions INTEGER,
      record_count INTEGER NOT NULL DEFAULT 0,
      seq BIGINT NOT NULL DEFAULT 0,
      created_at TIMESTAMPTZ NOT NULL
    )`,
    `CREATE INDEX collections_account ON collections(account_id)`,
    // The vector column has no fixed dimension: each collection gets its own partial HNSW index
    // over an expression cast to its dimension when its first vector arrives.
    `CREATE TABLE collection_records (
      key BIGSERIAL PRIMARY KEY,
      collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      record_id TEXT NOT NULL,
      data JSONB NOT NULL,
      embedding vector,
      seq BIGINT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      UNIQUE (collection_id, record_id)
    )`,
    `CREATE INDEX collection_records_seq ON collection_records(collection_id, seq)`,
    `CREATE TABLE collection_tombstones (
      collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      key BIGINT NOT NULL,
      seq BIGINT NOT NULL,
      PRIMARY KEY (collection_id, key)
    )`,
  ],
};
