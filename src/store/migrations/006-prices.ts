import type { Migration } from './index.ts';

/**
 * Dated prices of catalog cards (issue 18): market prices, sales and graded sales imported by
 * `loupe prices import`, read back per card for `price_stats`.
 * - `row_key` names the observation in its source (a PSA lot URL, a TCGplayer product and
 *   window, a date and MTGJSON uuid), prefixed by the source; a re-import updates rather than
 *   duplicates, and `content_hash` lets it skip rows that did not change.
 * - `card_key` is the catalog's key of the card (prices naming an MTGJSON face uuid are resolved
 *   through the card's aliases at import). No foreign key: a card is never removed by an import,
 *   and prices may be imported before a catalog update that re-keys nothing.
 * - `currency` keeps MTGO tix ('TIX') apart from dollars; `graded` with `grade` (as printed:
 *   `10.0`, `Authentic`) and `qualifier` (`(MK)`) for slab sales; `volume` is the sales a market
 *   price summarises, when the source says.
 * - `date` is a date on PostgreSQL (read back as text) and ISO text on SQLite.
 */
export const prices: Migration = {
  name: '006-prices',
  sqlite: [
    `CREATE TABLE catalog_prices (
      catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      row_key TEXT NOT NULL,
      card_key TEXT NOT NULL,
      source TEXT NOT NULL,
      date TEXT NOT NULL,
      price REAL NOT NULL,
      currency TEXT NOT NULL,
      graded INTEGER NOT NULL,
      grade TEXT,
      qualifier TEXT,
      volume INTEGER,
      extra TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (catalog_id, row_key)
    )`,
    `CREATE INDEX catalog_prices_card ON catalog_prices(catalog_id, card_key, date)`,
  ],
  postgres: [
    `CREATE TABLE catalog_prices (
      catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      row_key text NOT NULL,
      card_key text NOT NULL,
      source text NOT NULL,
      date date NOT NULL,
      price double precision NOT NULL,
      currency text NOT NULL,
      graded boolean NOT NULL,
      grade text,
      qualifier text,
      volume integer,
      extra jsonb NOT NULL,
      content_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (catalog_id, row_key)
    )`,
    `CREATE INDEX catalog_prices_card ON catalog_prices(catalog_id, card_key, date)`,
  ],
};
