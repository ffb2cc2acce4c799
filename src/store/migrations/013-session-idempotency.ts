import type { Migration } from './index.ts';

/**
 * A session create's `Idempotency-Key` (docs/api-decisions.md "Retries of a session create"): kept
 * on the session with a hash of what was sent, unique per workspace while the session lives, so a
 * scanner app's retry of a create whose answer was lost finds its session instead of making (and
 * charging) a second one.
 */
export const sessionIdempotency: Migration = {
  name: '013-session-idempotency',
  sqlite: [
    `ALTER TABLE card_sessions ADD COLUMN idempotency_key TEXT`,
    `ALTER TABLE card_sessions ADD COLUMN body_hash TEXT`,
    `CREATE UNIQUE INDEX card_sessions_idempotency ON card_sessions(workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
  ],
  postgres: [
    `ALTER TABLE card_sessions ADD COLUMN idempotency_key text`,
    `ALTER TABLE card_sessions ADD COLUMN body_hash text`,
    `CREATE UNIQUE INDEX card_sessions_idempotency ON card_sessions(workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
  ],
};
