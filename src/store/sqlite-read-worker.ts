import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { registerFunctions } from './sqlite-functions.ts';

// An SQLite read worker of sqlite-read-pool.ts: its own read-only connection to the database file, with the functions
// the server's connections have. It runs the statements it is sent one at a time, as they come: those from a statement
// marked `begin` to the next `end` are one read transaction, one snapshot of the database. Waits for a lock here
// (busy_timeout) hold this thread only, not the server's event loop.

/** A statement (the first of a read transaction with `begin`), or the end of the transaction (unanswered). */
export type ReadRequest = { id: number; sql: string; parameters: readonly unknown[]; begin?: true } | { end: true };

export type ReadReply =
  | { id: number; rows: unknown[] }
  /** Rows of numbers only, row after row in one buffer moved to the server's thread (`numericRows`). */
  | { id: number; columns: string[]; values: Float64Array }
  | { id: number; error: { message: string; code?: string } }
  | { ready: true };

/**
 * Rows of numbers alone (a ranking's keys and scores: thousands where a filter widens the window) cross to the server's
 * thread as one buffer, which is moved, not copied: a copy of 26,000 row objects costs the receiving thread about 7 ms
 * of its event loop, the buffer about 1 ms to make the rows from. A Float64Array holds every number SQLite gives
 * exactly (integers to 2^53, every double; SQLite gives no NaN). Under 32 rows the copy costs nothing worth saving.
 */
function numericRows(columns: string[], rows: unknown[][]): Float64Array | undefined {
  if (rows.length < 32) return undefined;
  const values = new Float64Array(rows.length * columns.length);
  let i = 0;
  for (const row of rows) {
    for (const v of row) {
      if (typeof v !== 'number') return undefined;
      values[i++] = v;
    }
  }
  return values;
}

/** Raw rows as better-sqlite3 makes them: an object per row, a later column of a name taking its place. */
const asObjects = (columns: string[], rows: unknown[][]): Record<string, unknown>[] => rows.map((row) => Object.fromEntries(columns.map((c, j) => [c, row[j]])));

const { file, busyMs } = workerData as { file: string; busyMs: number };
const port = parentPort!;
// read-only, as it only ever reads (in WAL mode a reader never waits for the writer); of the server connection's pragmas
// (database.ts) only the ones a reader is affected by apply: foreign keys, synchronous and secure_delete are for writes
const db = new SQLite(file, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${Math.round(busyMs)}`);
registerFunctions(db);
// a file that is no database fails here, at the start, and the pool uses the server's connection instead
db.prepare('SELECT count(*) AS n FROM sqlite_master').get();

// the statements a search repeats, prepared once; not sqlite-tuning.ts's cache, whose kysely took half the thread's
// start (1 s → 0.5 s here)
const prepared = new Map<string, SQLite.Statement>();
const prepare = (source: string): SQLite.Statement => {
  let stmt = prepared.get(source);
  if (stmt) prepared.delete(source);
  else {
    stmt = db.prepare(source);
    if (prepared.size >= 64) prepared.delete(prepared.keys().next().value!);
  }
  prepared.set(source, stmt);
  return stmt;
};

port.on('message', (m: ReadRequest) => {
  if ('end' in m) {
    // a read transaction wrote nothing: its end cannot fail as a commit might, and no later user reads its snapshot
    if (db.inTransaction) db.exec('rollback');
    return;
  }
  let reply: ReadReply;
  try {
    if (m.begin) {
      if (db.inTransaction) db.exec('rollback');
      db.exec('begin');
    }
    const stmt = prepare(m.sql);
    if (stmt.reader) {
      const columns = stmt.columns().map((c) => c.name);
      let rows: unknown[][];
      try {
        rows = stmt.raw(true).all(m.parameters as unknown[]) as unknown[][];
      } finally {
        stmt.raw(false);
      }
      const values = numericRows(columns, rows);
      if (values) {
        port.postMessage({ id: m.id, columns, values } satisfies ReadReply, [values.buffer as ArrayBuffer]);
        return;
      }
      reply = { id: m.id, rows: asObjects(columns, rows) };
    } else {
      stmt.run(m.parameters as unknown[]);
      reply = { id: m.id, rows: [] };
    }
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown };
    reply = { id: m.id, error: { message: String(e.message ?? err), ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true } satisfies ReadReply);
