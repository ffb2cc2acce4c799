import type { Migration } from './index.ts';

/**
 * A sale deleted with `loupe prices delete --price` remembers what it held, so an import skips only that sale again:
 * the corrected price of its card and day, in the same place of the file, was skipped too (h155). Deletions made
 * before hold none, and keep skipping whatever comes in their place.
 */
export const priceDeletionContents: Migration = {
  name: '031-price-deletion-contents',
  sqlite: [`ALTER TABLE catalog_price_deletions ADD COLUMN content_hash TEXT`],
  postgres: [`ALTER TABLE catalog_price_deletions ADD COLUMN content_hash TEXT`],
};
