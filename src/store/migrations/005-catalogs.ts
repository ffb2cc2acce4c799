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
 * - `catalog_names` holds each catalog's distinct folded names with their card counts, for text
 *   search by the engines' own trigram indexes (recognition looks names read by OCR up in it):
 *   SQLite's FTS5 `trigram` tokenizer over a contentless table kept in step by triggers, and
 *   PostgreSQL's pg_trgm. One row per name rather than per card: a name is what OCR reads, and
 *   MTG's Island has 400 printings that would crowd every other candidate out of a result. The
 *   FTS text is the folded name padded as pg_trgm pads a word (two spaces before, one after), so
 *   both engines see the same trigrams and a typo in a short name still leaves its first letters
 *   and its end to match. The importer refreshes the rows in its transaction (catalog-store.ts).
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
    // The integer key is the FTS row id: a rowid that is not an INTEGER PRIMARY KEY may change on VACUUM.
    `CREATE TABLE catalog_names (
      id INTEGER PRIMARY KEY,
      catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      name_norm TEXT NOT NULL,
      name TEXT NOT NULL,
      card_count INTEGER NOT NULL,
      UNIQUE (catalog_id, name_norm)
    )`,
    // Contentless: the names are in catalog_names already; contentless_delete lets triggers remove rows by id.
    `CREATE VIRTUAL TABLE catalog_names_fts USING fts5(padded, content='', contentless_delete=1, tokenize='trigram')`,
    `CREATE TRIGGER catalog_names_fts_insert AFTER INSERT ON catalog_names BEGIN
      INSERT INTO catalog_names_fts (rowid, padded) VALUES (new.id, '  ' || new.name_norm || ' ');
    END`,
    `CREATE TRIGGER catalog_names_fts_delete AFTER DELETE ON catalog_names BEGIN
      DELETE FROM catalog_names_fts WHERE rowid = old.id;
    END`,
    `CREATE TRIGGER catalog_names_fts_update AFTER UPDATE OF name_norm ON catalog_names BEGIN
      DELETE FROM catalog_names_fts WHERE rowid = old.id;
      INSERT INTO catalog_names_fts (rowid, padded) VALUES (new.id, '  ' || new.name_norm || ' ');
    END`,
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
    // Trusted since PostgreSQL 13: a database owner without superuser rights may create it.
    `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    `CREATE TABLE catalog_names (
      catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      name_norm text NOT NULL,
      name text NOT NULL,
      card_count integer NOT NULL,
      PRIMARY KEY (catalog_id, name_norm)
    )`,
    // Without fastupdate an import's names go straight into the index: a pending list of fresh
    // names would be scanned by every search until the next vacuum.
    `CREATE INDEX catalog_names_trgm ON catalog_names USING gin (name_norm gin_trgm_ops) WITH (fastupdate = off)`,
  ],
};
