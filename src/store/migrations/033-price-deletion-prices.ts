import { sql, SqliteAdapter } from 'kysely';
import type { Migration } from './index.ts';

/**
 * A database that ran migration 031 as it first was (a `content_hash` column, for part of a day of development) gets
 * the `deleted_prices` column 031 adds now (h158: such a database was never migrated again, and every price import
 * failed with "no such column"). Elsewhere the column is there and this does nothing.
 */
export const priceDeletionPrices: Migration = {
  name: '033-price-deletion-prices',
  sqlite: [],
  postgres: [`ALTER TABLE catalog_price_deletions ADD COLUMN IF NOT EXISTS deleted_prices TEXT`],
  run: async (trx) => {
    // SQLite has no ADD COLUMN IF NOT EXISTS: its table's columns are read first
    if (!(trx.getExecutor().adapter instanceof SqliteAdapter)) return;
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM pragma_table_info('catalog_price_deletions') WHERE name = 'deleted_prices'`.execute(trx);
    if (Number(rows[0]!.n) === 0) await sql`ALTER TABLE catalog_price_deletions ADD COLUMN deleted_prices TEXT`.execute(trx);
  },
};
