import type { Migration } from './index.ts';

/**
 * Reference images of catalog cards (issue 18, `loupe catalog images`): what identification
 * compares a photographed card's artwork against. One reference per card; the image itself is
 * not kept, only what is compared:
 * - `artwork` is the artwork hash (vision/recognition/card-artwork.ts, 64 hex digits) and
 *   `artwork_version` the version of the method that made it: a reference made by another
 *   version is not compared until the command is run again.
 * - `source_file` is the file's path as given (relative to the folder imported) and
 *   `content_hash` the SHA-1 of its bytes: a re-run over the same files changes nothing.
 * - No foreign key to the card: an import never removes cards, and a reference outlives a
 *   catalog update that re-reads the card's row.
 */
export const catalogImages: Migration = {
  name: '007-catalog-images',
  sqlite: [
    `CREATE TABLE catalog_images (
      catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      card_key TEXT NOT NULL,
      source_file TEXT NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      artwork TEXT NOT NULL,
      artwork_version TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (catalog_id, card_key)
    )`,
  ],
  postgres: [
    `CREATE TABLE catalog_images (
      catalog_id uuid NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
      card_key text NOT NULL,
      source_file text NOT NULL,
      width integer NOT NULL,
      height integer NOT NULL,
      artwork text NOT NULL,
      artwork_version text NOT NULL,
      content_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (catalog_id, card_key)
    )`,
  ],
};
