import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Short statements with few parameters have one shape per call site; long ones (multi-row inserts, IN lists) vary with their data. */
const maxParams = 12;
const maxLength = 4000;

/**
 * Kysely sends every query as an unnamed statement, which PostgreSQL parses and plans each time.
 * Naming the fixed-shape hot statements (by a hash of their text) makes each connection prepare
 * them once. Only short statements with few parameters are named, so the number of prepared
 * statements per connection stays small whatever the data.
 */
export function prepareHotStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (text: unknown, values?: unknown, ...rest: unknown[]) => {
      if (typeof text === 'string' && Array.isArray(values) && values.length <= maxParams && text.length <= maxLength && rest.length === 0) {
        const name = `k${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
        return query({ name, text, values });
      }
      return query(text, values, ...rest);
    };
  });
}
