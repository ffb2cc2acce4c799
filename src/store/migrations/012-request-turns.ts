import type { Migration } from './index.ts';

/**
 * Each account's oldest waiting request, found by one index seek: the queue takes accounts in
 * turn (`RequestStore.claim`), and without it finding a quiet account's first request meant
 * reading past another account's whole backlog.
 */
export const requestTurns: Migration = {
  name: '012-request-turns',
  sqlite: [`CREATE INDEX async_requests_waiting ON async_requests(account_id, seq) WHERE status = 'CREATED'`],
  postgres: [`CREATE INDEX async_requests_waiting ON async_requests(account_id, seq) WHERE status = 'CREATED'`],
};
