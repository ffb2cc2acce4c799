import type { Migration } from './index.ts';

/**
 * Asynchronous requests (spec 3 §1–4): the request row is the job. Lease and schedule times are
 * epoch milliseconds from the application's clock, so both backends compare them the same way.
 * Uploaded images wait in `async_request_inputs` (the database is the one thing every worker
 * node shares) and are dropped once the request is DONE.
 */
export const requests: Migration = {
  name: '003-requests',
  sqlite: [
    `CREATE TABLE async_requests (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      status TEXT NOT NULL,
      request TEXT NOT NULL,
      options TEXT NOT NULL,
      response TEXT,
      charged INTEGER NOT NULL DEFAULT 0,
      attempts INTEGER NOT NULL DEFAULT 0,
      lease_token TEXT,
      lease_until INTEGER,
      last_error TEXT,
      media TEXT NOT NULL DEFAULT '[]',
      webhook TEXT,
      webhook_state TEXT,
      webhook_attempts INTEGER NOT NULL DEFAULT 0,
      webhook_next_at INTEGER,
      webhook_lease_until INTEGER,
      webhook_last_error TEXT,
      webhook_delivered_at TEXT,
      expires_at INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      modified_at TEXT NOT NULL
    )`,
    `CREATE INDEX async_requests_ready ON async_requests(status, seq)`,
    `CREATE INDEX async_requests_account ON async_requests(account_id, seq)`,
    `CREATE INDEX async_requests_webhook ON async_requests(webhook_state, webhook_next_at)`,
    `CREATE INDEX async_requests_expiry ON async_requests(expires_at)`,
    `CREATE TABLE async_request_inputs (
      request_id TEXT NOT NULL REFERENCES async_requests(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      bytes BLOB NOT NULL,
      PRIMARY KEY (request_id, idx)
    )`,
    `ALTER TABLE accounts ADD COLUMN webhook_secret TEXT`,
    `CREATE TABLE flows (
      name TEXT PRIMARY KEY,
      definition TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  ],
  postgres: [
    `CREATE TABLE async_requests (
      seq BIGSERIAL PRIMARY KEY,
      id uuid NOT NULL UNIQUE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      status TEXT NOT NULL,
      request JSONB NOT NULL,
      options JSONB NOT NULL,
      response JSONB,
      charged INTEGER NOT NULL DEFAULT 0,
      attempts INTEGER NOT NULL DEFAULT 0,
      lease_token TEXT,
      lease_until BIGINT,
      last_error TEXT,
      media JSONB NOT NULL DEFAULT '[]',
      webhook JSONB,
      webhook_state TEXT,
      webhook_attempts INTEGER NOT NULL DEFAULT 0,
      webhook_next_at BIGINT,
      webhook_lease_until BIGINT,
      webhook_last_error TEXT,
      webhook_delivered_at TIMESTAMPTZ,
      expires_at BIGINT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      modified_at TIMESTAMPTZ NOT NULL
    )`,
    `CREATE INDEX async_requests_ready ON async_requests(status, seq)`,
    `CREATE INDEX async_requests_account ON async_requests(account_id, seq)`,
    `CREATE INDEX async_requests_webhook ON async_requests(webhook_state, webhook_next_at)`,
    `CREATE INDEX async_requests_expiry ON async_requests(expires_at)`,
    `CREATE TABLE async_request_inputs (
      request_id uuid NOT NULL REFERENCES async_requests(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      bytes BYTEA NOT NULL,
      PRIMARY KEY (request_id, idx)
    )`,
    `ALTER TABLE accounts ADD COLUMN webhook_secret TEXT`,
    `CREATE TABLE flows (
      name TEXT PRIMARY KEY,
      definition JSONB NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    )`,
  ],
};
