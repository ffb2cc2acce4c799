import type { Migration } from './index.ts';

/**
 * Where an import puts the card (and price) rows it will write, before it writes them
 * (`CatalogStore.applyImport`, `PriceStore.applyImport`).
 * On SQLite one writer holds the database at a time, and the server's writes wait for it on its
 * event loop: an import that wrote 58,638 MTG cards in one transaction held every server write
 * for 4.4 s (bench/catalog-import.ts). Staged here in short statements first, the rows go into
 * `catalog_cards` with one INSERT … SELECT inside the import's transaction, so the catalog is
 * still either as it was or fully updated, and the lock is held for SQLite's own work only.
 * `created_at` lets a later import remove the rows of one that died before it finished. Price
 * imports stage alike: an MTGO price file held the server's writes for 3.5 s.
 */
export const catalogImportStaging: Migration = {
  name: '011-catalog-import-staging',
  sqlite: [
    `CREATE TABLE catalog_import_rows (
      import_id TEXT NOT NULL,
      card_key TEXT NOT NULL,
      set_code TEXT,
      set_name TEXT,
      name TEXT NOT NULL,
      name_norm TEXT NOT NULL,
      number TEXT,
      number_norm TEXT,
      rarity TEXT,
      year TEXT,
      fields TEXT NOT NULL,
      links TEXT NOT NULL,
      aliases TEXT NOT NULL,
      flags TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (import_id, card_key)
    )`,
    `CREATE TABLE catalog_price_import_rows (
      import_id TEXT NOT NULL,
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
      PRIMARY KEY (import_id, row_key)
    )`,
  ],
  postgres: [
    `CREATE TABLE catalog_import_rows (
      import_id uuid NOT NULL,
      card_key text NOT NULL,
      set_code text,
      set_name text,
      name text NOT NULL,
      name_norm text NOT NULL,
      number text,
      number_norm text,
      rarity text,
      year text,
      fields jsonb NOT NULL,
      links jsonb NOT NULL,
      aliases jsonb NOT NULL,
      flags jsonb NOT NULL,
      content_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (import_id, card_key)
    )`,
    `CREATE TABLE catalog_price_import_rows (
      import_id uuid NOT NULL,
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
      PRIMARY KEY (import_id, row_key)
    )`,
  ],
};
