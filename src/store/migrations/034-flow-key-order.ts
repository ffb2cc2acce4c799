import type { Migration } from './index.ts';

/**
 * A flow's definition kept as written on PostgreSQL too (json, not jsonb): `loupe flow list` and `show` gave its keys in
 * jsonb's order (`name`, `steps`, `description`; each step's `as` before `endpoint`) where SQLite keeps the file's (h172);
 * migration 018 did the same for records, rows and requests. Flows stored before keep the order jsonb gave them.
 */
export const flowKeyOrder: Migration = {
  name: '034-flow-key-order',
  sqlite: [],
  postgres: ['ALTER TABLE flows ALTER COLUMN definition TYPE json USING definition::json'],
};
