import type { Migration } from './index.ts';

/**
 * Media files whose rows are gone, written in the transaction that removes the rows, and removed
 * when the files are: a process killed between the two (a session delete, an image replaced, the
 * retention sweep) left customers' photos on disk that no row named and nothing would ever remove.
 * `due` is when the file may go (epoch milliseconds).
 */
export const mediaDeletions: Migration = {
  name: '016-media-deletions',
  sqlite: [`CREATE TABLE media_deletions (key TEXT PRIMARY KEY, due INTEGER NOT NULL)`, `CREATE INDEX media_deletions_due ON media_deletions (due)`],
  postgres: [`CREATE TABLE media_deletions (key text PRIMARY KEY, due bigint NOT NULL)`, `CREATE INDEX media_deletions_due ON media_deletions (due)`],
};
