import { createHash } from 'node:crypto';
import pg from 'pg';

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

/**
 * A statement PostgreSQL takes and never answers (its server stopped, not ended: a SIGSTOP, a hung
 * disk, a network gone silent without a reset) held its request, and the pool's connection, for good.
 * After `limitMs()` without an answer the connection is closed, so the statement fails as a cut
 * connection does (503 `database_unavailable`, Retry-After) and the pool opens a fresh one; a slow
 * statement that would still have answered is lost the same way, so the limit is far above any
 * statement the server runs (a client's filter stops at 5 s: pg-collection-queries.ts). 0: no limit
 * (migrations, the admin CLI's imports).
 */
export function closeStalledConnections(pool: pg.Pool, limitMs: () => number, onStall: (limitMs: number, statement: string) => void): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const ms = limitMs();
      const out = query(...args);
      // a callback or a cursor (none from Kysely's plain queries) goes as it came
      if (ms <= 0 || !(out instanceof Promise)) return out;
      const timer = setTimeout(() => {
        const first = args[0];
        const text = typeof first === 'string' ? first : typeof (first as { text?: unknown } | undefined)?.text === 'string' ? (first as { text: string }).text : '';
        onStall(ms, text.replace(/\s+/g, ' ').slice(0, 120));
        // PostgreSQL notices a closed connection only when it next reads or writes: a statement waiting
        // on a lock ran on, and every cut one kept a backend (31 against a pool of 6). A cancel request
        // (its own short connection, not the pool's) ends it; a stopped server gets it when it wakes.
        cancelStatement(pool, client);
        (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      }, ms);
      return out.finally(() => clearTimeout(timer));
    };
  });
}

/** PostgreSQL's cancel request for the statement a connection runs, sent and not waited for. */
function cancelStatement(pool: pg.Pool, client: pg.PoolClient): void {
  // the field itself: its getter `activeQuery` prints a DeprecationWarning on stderr (h226)
  const active = (client as unknown as { _activeQuery?: unknown })._activeQuery;
  if (!active) return;
  try {
    // pg's own Client.cancel, less its test of the deprecated getter: a cancel connection to the same server, then the
    // backend's key (h226: the getter's DeprecationWarning on stderr at the first stalled statement)
    const canceller = new pg.Client(pool.options) as unknown as { host?: string; port?: number; connection: { on(event: string, fn: () => void): void; connect(...at: unknown[]): void; cancel(pid: number, key: number): void } };
    const target = client as unknown as { processID: number; secretKey: number };
    const con = canceller.connection;
    con.on('error', () => {});
    if (canceller.host && canceller.host.startsWith('/')) con.connect(`${canceller.host}/.s.PGSQL.${canceller.port}`);
    else con.connect(canceller.port, canceller.host);
    con.on('connect', () => con.cancel(target.processID, target.secretKey));
  } catch {
    // a cancel is a courtesy: the connection is closed either way
  }
}
