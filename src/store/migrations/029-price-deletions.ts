import type { Migration } from './index.ts';

/**
 * Sales taken out one by one with `loupe prices delete --price` (a wrong sale: a $1 "Best Offer" of a PSA 10): a
 * re-import of the public file they came from brought them back without a word (h145). Their row keys are kept here,
 * and an import skips them, saying so, unless it asks `--restore-deleted`.
 */
export const priceDeletions: Migration = {
  name: '029-price-deletions',
  sqlite: [
    `CREATE TABLE catalog_price_deletions (
      catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      row_key TEXT NOT NULL,
      card_key TEXT NOT NULL,
      deleted_at TEXT NOT NULL,
      PRIMARY KEY (catalog_id, row_key)
    )`,
  ],
  postgres: [
    `CREATE TABLE catalog_price_deletions (
      catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      row_key text NOT NULL,
      card_key text NOT NULL,
      deleted_at timestamptz NOT NULL,
      PRIMARY KEY (catalog_id, row_key)
    )`,
  ],
};
