import type { Migration } from './index.ts';

/**
 * What clients send as JSON comes back with its keys in the order sent, on PostgreSQL as on SQLite:
 * `jsonb` keeps keys in an order of its own (shorter first), so a record's attributes, a card's
 * grading, links and price statistics, a session's meta data and a queued request's echo came back
 * reordered there. These columns become `json` (the text as written); a record's attributes keep a
 * `jsonb` copy, `data_b`, which the filters read. Values stored before keep the order `jsonb` gave
 * them. SQLite stores text already.
 */
export const jsonAsSent: Migration = {
  name: '018-json-as-sent',
  sqlite: [],
  postgres: [
    // one statement, so the table (and its vector indexes) is rewritten once
    `ALTER TABLE collection_records ALTER COLUMN data TYPE json USING data::json, ADD COLUMN data_b jsonb GENERATED ALWAYS AS (data::jsonb) STORED`,
    `ALTER TABLE card_identifications
      ALTER COLUMN links TYPE json USING links::json,
      ALTER COLUMN alternatives TYPE json USING alternatives::json,
      ALTER COLUMN price_stats TYPE json USING price_stats::json,
      ALTER COLUMN grading TYPE json USING grading::json,
      ALTER COLUMN original TYPE json USING original::json,
      ALTER COLUMN price_basis TYPE json USING price_basis::json`,
    `ALTER TABLE card_sessions ALTER COLUMN client TYPE json USING client::json, ALTER COLUMN meta_data TYPE json USING meta_data::json`,
    `ALTER TABLE async_requests
      ALTER COLUMN request TYPE json USING request::json,
      ALTER COLUMN options TYPE json USING options::json,
      ALTER COLUMN response TYPE json USING response::json,
      ALTER COLUMN webhook TYPE json USING webhook::json`,
  ],
};
