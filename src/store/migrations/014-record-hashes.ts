import type { Migration } from './index.ts';

/**
 * Each collection record's `bmh1` visual hash (256 bits, docs/visual-hashes.md) beside its vector:
 * near duplicates are records within the radius by the descriptor or within a few bits by the hash,
 * which tells re-encoded, resized and greyscale copies the descriptor places far apart
 * (docs/api-decisions.md `nearDuplicates`). Records stored before have none and are compared by the
 * descriptor alone. SQLite keeps the bits as text; PostgreSQL as `bit(256)`, whose `#` and
 * `bit_count` count the bits that differ.
 */
export const recordHashes: Migration = {
  name: '014-record-hashes',
  sqlite: [`ALTER TABLE collection_records ADD COLUMN hash TEXT`],
  postgres: [`ALTER TABLE collection_records ADD COLUMN hash bit(256)`],
};
