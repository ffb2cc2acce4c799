import type { Migration } from './index.ts';

/**
 * A submit's uploaded images written a few parts a transaction before its request exists (h297): on SQLite, one
 * transaction for all of a 44 MB submit's parts held every other write of the process (queue claims, lease renewals,
 * synchronous calls' debits) for 254–406 ms (h288). The parts of a submit under way wait in `async_request_inputs`
 * beside its row in `async_request_uploads`, which each of its transactions touches; the transaction that makes the
 * request deletes that row. A part therefore no longer needs its request to exist: the foreign key goes (SQLite cannot
 * drop one, so the table is made again and its rows, the images of requests not yet done, copied), and what the
 * cascade did is done by the request's deletion and the sweep (`RequestStore.deleteRequests`, `RequestStore.sweep`).
 * Nothing reads the parts of a request that does not exist, so a worker never sees a submit's images before its request.
 */
export const requestUploadStaging: Migration = {
  name: '044-request-upload-staging',
  sqlite: [
    `CREATE TABLE async_request_uploads (
      id TEXT PRIMARY KEY,
      touched_at INTEGER NOT NULL
    )`,
    `CREATE TABLE async_request_inputs_staged (
      request_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      part INTEGER NOT NULL DEFAULT 0,
      bytes BLOB NOT NULL,
      PRIMARY KEY (request_id, idx, part)
    )`,
    `INSERT INTO async_request_inputs_staged (request_id, idx, part, bytes) SELECT request_id, idx, part, bytes FROM async_request_inputs`,
    `DROP TABLE async_request_inputs`,
    `ALTER TABLE async_request_inputs_staged RENAME TO async_request_inputs`,
  ],
  postgres: [
    `CREATE TABLE async_request_uploads (
      id uuid PRIMARY KEY,
      touched_at BIGINT NOT NULL
    )`,
    `ALTER TABLE async_request_inputs DROP CONSTRAINT async_request_inputs_request_id_fkey`,
  ],
};
