import type { Migration } from './index.ts';

/**
 * A collection record's thumbnail (a JPEG of long edge 256 px in the media folder, named by its key), made from the image
 * it was inserted or last updated with: the console's search showed "no stored image" for every record sent as
 * `_base64` or `_file`, and hot-linked a shop's `_url` for the others (h357). Null for records stored before, and where
 * `LOUPE_RECORD_THUMBNAILS` is off. The partial index lets `loupe media check` and backups read the keys without a scan
 * of records that have none.
 */
export const recordThumbnails: Migration = {
  name: '047-record-thumbnails',
  sqlite: [`ALTER TABLE collection_records ADD COLUMN thumbnail_key TEXT`, `CREATE INDEX IF NOT EXISTS collection_records_thumbnail ON collection_records(key) WHERE thumbnail_key IS NOT NULL`],
  postgres: [`ALTER TABLE collection_records ADD COLUMN IF NOT EXISTS thumbnail_key text`, `CREATE INDEX IF NOT EXISTS collection_records_thumbnail ON collection_records(key) WHERE thumbnail_key IS NOT NULL`],
};
