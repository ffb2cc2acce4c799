import type { Migration } from './index.ts';

/**
 * A sale deleted with `loupe prices delete --price` remembers its price and currency (each one deleted at its place,
 * one a line: `USD 1`), so an import skips only those again: the corrected price of its card and day, in the same
 * place of the file, was skipped too (h155); a volume or a note changed beside the deleted price does not bring it
 * back (h156). Deletions made before hold none, and keep skipping whatever comes in their place.
 */
export const priceDeletionContents: Migration = {
  name: '031-price-deletion-contents',
  sqlite: [`ALTER TABLE catalog_price_deletions ADD COLUMN deleted_prices TEXT`],
  postgres: [`ALTER TABLE catalog_price_deletions ADD COLUMN deleted_prices TEXT`],
};
