import type { Migration } from './index.ts';

/**
 * PostgreSQL: a GIN index over each collection record's `jsonb` copy (`jsonb_path_ops`), which serves the `@?` tests
 * the filters write for equality and `$in` (src/store/filters/pg-filter.ts). Without it a filter naming one SKU of a
 * collection of 100,000 records read every one of them (h348: 52 ms a query, against 0.3 ms with it; docs/benchmarks.md).
 * `fastupdate` off, as for the text index (migration 005): a pending list would be scanned by every filtered query until
 * a vacuum. SQLite filters records in JavaScript over the collection's cached rows (docs/filters.md): nothing to add.
 */
export const recordDataIndex: Migration = {
  name: '045-record-data-index',
  sqlite: [],
  postgres: [`CREATE INDEX IF NOT EXISTS collection_records_data_path ON collection_records USING gin (data_b jsonb_path_ops) WITH (fastupdate = off)`],
};
