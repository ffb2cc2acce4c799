import type { Migration } from './index.ts';

/**
 * The languages a collection's records are in (text search stems a query in each of them) from an index: read by a
 * skip scan (`collectionLangs`, collection-text-store.ts), where `SELECT DISTINCT lang` read every text row of the
 * collection on the first search of each minute (114 ms at 25,000 records on PostgreSQL, s75). On PostgreSQL the index
 * also carries `doc_len`, so BM25's document count and average length still come from it alone: it replaces
 * `collection_text_len` (migration 009), whose column it leads with.
 */
export const collectionTextLangs: Migration = {
  name: '046-collection-text-langs',
  sqlite: [`CREATE INDEX IF NOT EXISTS collection_text_lang ON collection_text(collection_id, lang)`],
  postgres: [`CREATE INDEX IF NOT EXISTS collection_text_lang ON collection_text(collection_id, lang) INCLUDE (doc_len)`, `DROP INDEX IF EXISTS collection_text_len`],
};
