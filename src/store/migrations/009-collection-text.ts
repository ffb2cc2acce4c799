import type { Migration } from './index.ts';

/**
 * Text search (issue 20): one row per collection record with what the server saw in its image
 * (concept codes, OCR text), the record's own words, and the colours for the `_dominant_colors`
 * boost. `observed` keeps the raw detections, so a lexicon change re-tokenises without models.
 * `seen_version` 0 means the image has not been looked at yet (the backfill's work list).
 *
 * The full-text indexes are per collection, made by the store with the collection's first text
 * row: BM25 takes its document count and average length from the index it runs on, and one
 * shared by every tenant would rank a shop's records by everybody's statistics.
 * - SQLite: a contentless FTS5 table `collection_fts_<id>` (rowid = key) per collection.
 * - PostgreSQL: `tsv` here, and a partial GIN index `collection_text_gin_<id>` per collection.
 */
export const collectionText: Migration = {
  name: '009-collection-text',
  sqlite: [
    `CREATE TABLE collection_text (
      key INTEGER PRIMARY KEY REFERENCES collection_records(key) ON DELETE CASCADE,
      collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      seen TEXT NOT NULL,
      body TEXT NOT NULL,
      ocr TEXT NOT NULL,
      lang TEXT NOT NULL,
      colors TEXT NOT NULL,
      observed TEXT,
      seen_version INTEGER NOT NULL,
      seen_state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT,
      updated_at TEXT NOT NULL
    )`,
    `CREATE INDEX collection_text_backfill ON collection_text(collection_id, seen_version)`,
  ],
  postgres: [
    `CREATE TABLE collection_text (
      key bigint PRIMARY KEY REFERENCES collection_records(key) ON DELETE CASCADE,
      collection_id uuid NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      seen text NOT NULL,
      body text NOT NULL,
      ocr text NOT NULL,
      lang text NOT NULL,
      colors jsonb NOT NULL,
      observed jsonb,
      seen_version integer NOT NULL,
      seen_state text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      updated_at timestamptz NOT NULL,
      tsv tsvector NOT NULL,
      doc_len integer NOT NULL
    )`,
    `CREATE INDEX collection_text_backfill ON collection_text(collection_id, seen_version)`,
    // Document count and average length for BM25 from the index alone.
    `CREATE INDEX collection_text_len ON collection_text(collection_id) INCLUDE (doc_len)`,
  ],
};
