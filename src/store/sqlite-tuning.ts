import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely prepares every statement anew; with a server issuing the same few shapes of SQL, a
 * small cache of prepared statements removes most of that cost. Statements run to completion
 * synchronously, so sharing one between calls is safe.
 */
export function cachePreparedStatements(db: SQLite.Database, size = 256): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt) {
      // Refresh its place so the least recently used statement is the one dropped.
      cache.delete(source);
    } else {
      stmt = prepare(source);
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, stmt);
    return stmt;
  }) as typeof db.prepare;
  return db;
}

const checkpointerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: next time */ }
}, workerData.intervalMs);
`;

/**
 * A WAL checkpoint fsyncs the WAL and the database file; run from the server's connection it
 * stalls the event loop (and every request) for as long as the disk takes. A worker thread with
 * its own connection checkpoints instead; the server connection keeps a large automatic
 * threshold only as a safety net in case the worker stops.
 */
export function startCheckpointer(db: SQLite.Database, file: string, intervalMs = 1000): () => Promise<void> {
  db.pragma('wal_autocheckpoint = 20000');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(checkpointerSource, { eval: true, workerData: { file, driver, intervalMs } });
  worker.unref();
  worker.on('error', () => undefined);
  // Stopping mid-checkpoint is safe: SQLite checkpoints survive being cut off like any crash.
  return async () => {
    await worker.terminate();
  };
}

/**
 * Kysely begins SQLite transactions deferred: the write lock is taken at the first write. A
 * transaction that reads first then meets a write another process (the admin CLI, the server)
 * committed after its read cannot take the lock without losing that read, and SQLite fails it at
 * once with SQLITE_BUSY, whatever the busy timeout: a price import failed so while the server
 * wrote (bench/catalog-import.ts). Begun IMMEDIATE, a transaction takes the lock at its start and
 * waits for it under the busy timeout like any single write. Within one process Kysely's one
 * SQLite connection runs one transaction at a time anyway.
 */
export class ImmediateTransactionsDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionsDriver(this.#config);
  }
}

class ImmediateTransactionsDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
