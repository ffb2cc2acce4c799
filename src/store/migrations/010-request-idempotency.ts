import type { Migration } from './index.ts';

/**
 * A submit's `Idempotency-Key` (docs/api-decisions.md "Retries of a submit"): kept on the request
 * row with a hash of what was sent, unique per account while the row lives, so a retry of a submit
 * whose answer was lost finds its request instead of making and charging a second one.
 */
export const requestIdempotency: Migration = {
  name: '010-request-idempotency',
  sqlite: [
    `ALTER TABLE async_requests ADD COLUMN idempotency_key TEXT`,
    `ALTER TABLE async_requests ADD COLUMN body_hash TEXT`,
    `CREATE UNIQUE INDEX async_requests_idempotency ON async_requests(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
  ],
  postgres: [
    `ALTER TABLE async_requests ADD COLUMN idempotency_key text`,
    `ALTER TABLE async_requests ADD COLUMN body_hash text`,
    `CREATE UNIQUE INDEX async_requests_idempotency ON async_requests(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
  ],
};
