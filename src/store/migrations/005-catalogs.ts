import type { Migration } from './index.ts';

/**
 * Card catalogs (issue 18): the cards recognition identifies against, imported by `loupe catalog
 * import`. A card's key is unique in its catalog, so a re-import updates rather than duplicates.
 * - `version` changes with every import that changes a row: caches built from a catalog (the
 *   recognition text index) rebuild when it moves. `card_count` and `set_count` are set in the
 *   import's transaction, so listing catalogs reads no card rows.
 * - `name_norm` and `number_norm` are the folded name and number (`catalog/card-keys.ts`);
 *   lookups by them must match alike on both backends, so they are made once, by the importer.
 * - `content_hash` lets a re-import skip rows that did not change; `source_rank` keeps a less
 *   complete source (MTG booster pools) from replacing a fuller one's row.
 * - `release_date` is a date on PostgreSQL (read back as text, see database.ts) and ISO text on
 *   SQLite.
 */
export const catalogs: Migration = {
  name: '005-catalogs',
  sqlite: [
    `CREATE TABLE catalogs (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL,
      version INTEGER NOT NULL DEFAULT 0,
      card_count INTEGER NOT NULL DEFAULT 0,
      set_count INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE TABLE catalog_sets (
      catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      series TEXT,
      printed_total INTEGER,
      total INTEGER,
      release_date TEXT,
      extra TEXT NOT NULL,
      source TEXT NOT NULL,
      source_rank INTEGER NOT NULL,
      content_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (catalog_id, code)
    )`,
    `CREATE TABLE catalog_cards (
      catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
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
      source TEXT NOT NULL,
      source_rank INTEGER NOT NULL,
      content_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (catalog_id, card_key)
    )`,
    `CREATE INDEX catalog_cards_number ON catalog_cards(catalog_id, number_norm)`,
    `CREATE INDEX catalog_cards_name ON catalog_cards(catalog_id, name_norm)`,
    `CREATE INDEX catalog_cards_set ON catalog_cards(catalog_id, set_code, number_norm)`,
  ],
  postgres: [
    `CREATE TABLE catalogs (
      id uuid PRIMARY KEY,
      name text NOT NULL UNIQUE,
      kind text NOT NULL,
      version integer NOT NULL DEFAULT 0,
      card_count integer NOT NULL DEFAULT 0,
      set_count integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    `CREATE TABLE catalog_sets (
      catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      code text NOT NULL,
      name text NOT NULL,
      series text,
      printed_total integer,
      total integer,
      release_date date,
      extra jsonb NOT NULL,
      source text NOT NULL,
      source_rank integer NOT NULL,
      content_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (catalog_id, code)
    )`,
    `CREATE TABLE catalog_cards (
      catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
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
      source text NOT NULL,
      source_rank integer NOT NULL,
      content_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (catalog_id, card_key)
    )`,
    `CREATE INDEX catalog_cards_number ON catalog_cards(catalog_id, number_norm)`,
    `CREATE INDEX catalog_cards_name ON catalog_cards(catalog_id, name_norm)`,
    `CREATE INDEX catalog_cards_set ON catalog_cards(catalog_id, set_code, number_norm)`,
  ],
};
