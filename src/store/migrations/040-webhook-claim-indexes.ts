import type { Migration } from './index.ts';

/**
 * Pending deliveries by account in the order they fall due, and those in flight by lease: a claim walks each account's
 * first due deliveries and counts the leased ones instead of numbering every pending delivery (100,000 due ones of a
 * receiver that was down cost 313–527 ms a claim on either backend, on SQLite on the event loop). Partial: delivered
 * and failed ones, most of the table, are not in them.
 */
export const webhookClaimIndexes: Migration = {
  name: '040-webhook-claim-indexes',
  sqlite: [
    `CREATE INDEX async_requests_webhook_due ON async_requests(account_id, webhook_next_at, seq) WHERE webhook_state = 'pending'`,
    `CREATE INDEX async_requests_webhook_flying ON async_requests(webhook_lease_until, account_id) WHERE webhook_state = 'pending'`,
  ],
  postgres: [
    `CREATE INDEX async_requests_webhook_due ON async_requests(account_id, webhook_next_at, seq) WHERE webhook_state = 'pending'`,
    `CREATE INDEX async_requests_webhook_flying ON async_requests(webhook_lease_until, account_id) WHERE webhook_state = 'pending'`,
  ],
};
