import type { Migration } from './index.ts';

/**
 * What a synchronous call has been charged while it runs, written in the transaction that debits
 * it and removed when its answer leaves: a process killed mid-call (kill -9, power, out of memory)
 * kept the charge of a call that never answered. The sweep returns a hold's credits once it is
 * `due` (epoch milliseconds), long after any call could still be running.
 */
export const creditHolds: Migration = {
  name: '017-credit-holds',
  sqlite: [
    `CREATE TABLE credit_holds (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, amount INTEGER NOT NULL, due INTEGER NOT NULL)`,
    `CREATE INDEX credit_holds_due ON credit_holds (due)`,
  ],
  postgres: [
    `CREATE TABLE credit_holds (id text PRIMARY KEY, account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, amount bigint NOT NULL, due bigint NOT NULL)`,
    `CREATE INDEX credit_holds_due ON credit_holds (due)`,
  ],
};
