import type { Migration } from './index.ts';

/**
 * A price of 0 is a gap in a source's series, not a sale (`priced` in price-layouts.ts): imports skip
 * such rows now, and the ones stored before go, so a card's `price_stats` no longer reach down to 0.
 */
export const zeroPrices: Migration = {
  name: '023-zero-prices',
  sqlite: [`DELETE FROM catalog_prices WHERE price = 0`],
  postgres: [`DELETE FROM catalog_prices WHERE price = 0`],
};
