import type { Migration } from './index.ts';

/**
 * An uploaded image of an asynchronous request kept in parts of 1 MiB (`part`, from 0), each written, read and deleted
 * by a statement of its own with the event loop let go between: a 44 MB submit's images, one statement each, held the
 * server's event loop for 190–240 ms on SQLite (better-sqlite3 is synchronous), and PostgreSQL's driver wrote each as
 * hex text on the loop (h286). Images stored before are part 0. SQLite cannot change a primary key: the table is made
 * again, its rows (the images of requests not yet done) copied.
 */
export const requestInputParts: Migration = {
  name: '043-request-input-parts',
  sqlite: [
    `CREATE TABLE async_request_inputs_parts (
      request_id TEXT NOT NULL REFERENCES async_requests(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      part INTEGER NOT NULL DEFAULT 0,
      bytes BLOB NOT NULL,
      PRIMARY KEY (request_id, idx, part)
    )`,
    `INSERT INTO async_request_inputs_parts (request_id, idx, part, bytes) SELECT request_id, idx, 0, bytes FROM async_request_inputs`,
    `DROP TABLE async_request_inputs`,
    `ALTER TABLE async_request_inputs_parts RENAME TO async_request_inputs`,
  ],
  postgres: [
    `ALTER TABLE async_request_inputs ADD COLUMN part INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE async_request_inputs DROP CONSTRAINT async_request_inputs_pkey`,
    `ALTER TABLE async_request_inputs ADD PRIMARY KEY (request_id, idx, part)`,
  ],
};
