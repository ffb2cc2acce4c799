import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryCompiler, type QueryResult, type SqliteDialectConfig } from 'kysely';

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

/**
 * Gives free pages back to the file system, a few thousand at a time, where the database has
 * incremental auto-vacuum (every database made since the thirty-second session) and over a
 * quarter of it is free: after a backlog of queued images the file kept its high-water mark for
 * good (147 MB, 98 % free, in the soak tester's run). The checkpointer's worker runs the same
 * steps (its source is below, as text); true when pages were given back.
 */
export function reclaimFreePages(db: SQLite.Database, pages = 4096): boolean {
  if (db.pragma('auto_vacuum', { simple: true }) !== 2) return false;
  const free = Number(db.pragma('freelist_count', { simple: true }));
  const total = Number(db.pragma('page_count', { simple: true }));
  if (free < 1024 || free * 4 < total) return false;
  db.pragma(`incremental_vacuum(${pages})`);
  return true;
}

const checkpointerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
// as the server's connection: what this one frees (the pages an incremental vacuum moves) is overwritten (h243)
db.pragma('secure_delete = ON');
let ticks = 0;
let quiet = 0;
let version = db.pragma('data_version', { simple: true });
setInterval(() => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    // data_version changes when another connection commits: the log's size cannot tell, since after a full checkpoint
    // the next write starts it again at its first frame, and steady writes of one size looked quiet (h238)
    const now = db.pragma('data_version', { simple: true });
    const wrote = now !== version;
    version = now;
    // a log wholly copied back and not written since: emptied once the server has been quiet a while, so the pages of
    // what an API call deleted do not stay in it until a write overwrites them (a quiet server may not for weeks)
    quiet = !wrote && r && r.log > 0 && r.log === r.checkpointed ? quiet + 1 : 0;
    if (quiet * workerData.intervalMs >= workerData.quietMs) {
      quiet = 0;
      // TRUNCATE holds the write lock while it waits for readers (a backup, Litestream, an sqlite3 shell): it does not
      // wait, so the server's writes never do; a reader in the way means another try after another quiet spell
      db.pragma('busy_timeout = 0');
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.pragma('busy_timeout = 1000');
      }
    }
  } catch { /* busy: next time */ }
  // reclaimFreePages, once a minute
  if (++ticks % Math.max(1, Math.round(workerData.reclaimEveryMs / workerData.intervalMs)) !== 0) return;
  try {
    if (db.pragma('auto_vacuum', { simple: true }) !== 2) return;
    const free = Number(db.pragma('freelist_count', { simple: true }));
    const total = Number(db.pragma('page_count', { simple: true }));
    if (free >= 1024 && free * 4 >= total) db.pragma('incremental_vacuum(4096)');
  } catch { /* busy: next time */ }
}, workerData.intervalMs);
`;

/**
 * A WAL checkpoint fsyncs the WAL and the database file; run from the server's connection it
 * stalls the event loop (and every request) for as long as the disk takes. A worker thread with
 * its own connection checkpoints instead; the server connection keeps a large automatic
 * threshold only as a safety net in case the worker stops. After `quietMs` without a write it empties the log
 * (TRUNCATE), as the CLI's erasures do (`flushErased`): a session or record deleted through the API left its text in
 * `loupe.db-wal` for as long as the server stayed quiet (h235).
 */
export function startCheckpointer(db: SQLite.Database, file: string, intervalMs = 1000, reclaimEveryMs = 60_000, quietMs = 5_000): () => Promise<void> {
  db.pragma('wal_autocheckpoint = 20000');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(checkpointerSource, { eval: true, workerData: { file, driver, intervalMs, reclaimEveryMs, quietMs } });
  worker.unref();
  worker.on('error', () => undefined);
  // Stopping mid-checkpoint is safe: SQLite checkpoints survive being cut off like any crash.
  return async () => {
    await worker.terminate();
  };
}

/**
 * How the server's SQLite connection waits for another process's write lock (the admin CLI's
 * import). better-sqlite3 waits synchronously, on the event loop: with SQLite's busy timeout
 * alone every request stalled while a server write waited. The connection's own busy timeout is
 * kept short (`syncMs`); a statement that still finds the lock busy is tried again after an
 * asynchronous pause, the event loop free meanwhile, until `totalMs` have passed.
 */
export interface BusyWait {
  syncMs: number;
  totalMs: number;
}

/**
 * Kysely begins SQLite transactions deferred: the write lock is taken at the first write. A
 * transaction that reads first then meets a write another process (the admin CLI, the server)
 * committed after its read cannot take the lock without losing that read, and SQLite fails it at
 * once with SQLITE_BUSY, whatever the busy timeout: a price import failed so while the server
 * wrote (bench/catalog-import.ts). Begun IMMEDIATE, a transaction takes the lock at its start and
 * waits for it like any single write. Within one process Kysely's one SQLite connection runs one
 * transaction at a time anyway. Queries that meet a busy lock wait as `BusyWait` says.
 *
 * With a `reader` (a second connection to the same file), single reads outside a transaction run
 * on it (`ReadConnectionDriver`), so they never queue behind a write that waits for the lock.
 */
export class ImmediateTransactionsDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #database: SQLite.Database;
  readonly #busy: BusyWait;
  readonly #reader: SQLite.Database | undefined;

  constructor(database: SQLite.Database, busy: BusyWait, reader?: SQLite.Database) {
    const config: SqliteDialectConfig = {
      database,
      onCreateConnection: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw(`pragma busy_timeout = ${Math.round(busy.syncMs)}`));
      },
    };
    super(config);
    this.#config = config;
    this.#database = database;
    this.#busy = busy;
    this.#reader = reader;
  }

  override createDriver(): Driver {
    const writer = new ImmediateTransactionsDriver(this.#config, this.#database, this.#busy.totalMs);
    return this.#reader ? new ReadConnectionDriver(writer, this.#database, this.#reader, this.#busy) : writer;
  }
}

class ImmediateTransactionsDriver extends SqliteDriver {
  #patient: PatientConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly database: SQLite.Database,
    private readonly busyTotalMs: number,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    // One SQLite connection, handed out under Kysely's mutex: one wrapper for it.
    return (this.#patient ??= new PatientConnection(connection, this.database, this.busyTotalMs));
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

const busyCodes = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_SNAPSHOT']);

/**
 * Tries a statement refused with SQLITE_BUSY again after a pause (2, 4, … 50 ms). A refused
 * statement did nothing, so repeating it is safe while the transaction it belongs to is as it
 * was: outside a transaction (a single statement, or `BEGIN`), or inside one that is still open
 * (with transactions begun IMMEDIATE the lock is met at `BEGIN` or, rarely, `COMMIT`, which
 * SQLite says to retry). A transaction SQLite rolled back on the error is never continued: its
 * next statements would run outside it. Inside a transaction SQLITE_BUSY_SNAPSHOT (a read that
 * can no longer become a write) is not retried either.
 */
class PatientConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly database: SQLite.Database,
    private readonly totalMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const start = performance.now();
    const inTransaction = this.database.inTransaction;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        const retryable = typeof code === 'string' && busyCodes.has(code) && (inTransaction ? this.database.inTransaction && code !== 'SQLITE_BUSY_SNAPSHOT' : true);
        if (!retryable || performance.now() - start + pause > this.totalMs) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Statements that may run on the reader: a SELECT (or WITH … SELECT) that SQLite says writes nothing. */
const readStart = /^\s*(?:select|with)\b/i;
/** Reads of the writer connection's own state, which the reader does not share. */
const connectionState = /\b(?:last_insert_rowid|changes|total_changes)\s*\(/i;

/**
 * Kysely's SQLite driver hands its one connection out under a mutex, to a transaction for its
 * whole length and to a single statement for that statement. A statement that waits for another
 * process's write lock (an admin import holds it for a second or two) then holds the mutex, and
 * every read behind it waits too: a session's GET took 2.3 s during an MTG import
 * (bench/catalog-import.ts). Here a second connection serves single reads outside transactions. In
 * WAL mode a reader never waits for a writer, and each statement reads the last commit, so a
 * request still reads what it wrote before. Writes and transactions keep the one writer, under
 * its mutex, as before; a transaction's own reads stay on it and see its uncommitted rows.
 * `db.connection()` no longer pins one connection for its callback: each statement is routed on
 * its own, so work that needs one connection's state (a temporary table, an explicit BEGIN) runs
 * in `db.transaction()` instead.
 */
class ReadConnectionDriver implements Driver {
  readonly #reads: PatientConnection;

  constructor(
    private readonly writer: ImmediateTransactionsDriver,
    private readonly writerDb: SQLite.Database,
    private readonly reader: SQLite.Database,
    private readonly busy: BusyWait,
  ) {
    this.#reads = new PatientConnection(new ReaderConnection(reader), reader, busy.totalMs);
  }

  async init(): Promise<void> {
    this.reader.pragma(`busy_timeout = ${Math.round(this.busy.syncMs)}`);
    // A statement routed here by mistake fails instead of writing beside the writer's lock.
    this.reader.pragma('query_only = ON');
    await this.writer.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    const held = await this.writer.acquireConnection();
    try {
      await this.writer.beginTransaction(held);
    } catch (err) {
      await this.writer.releaseConnection();
      throw err;
    }
    routed.held = held;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    await this.writer.commitTransaction(routed.held!);
    // Kept on failure: Kysely rolls back next, on the same connection.
    await this.#letGo(routed);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    try {
      // SQLite ends a transaction itself on some errors (a full disk, I/O): a rollback then fails with
      // "cannot rollback - no transaction is active", and that error replaced the one that says why
      if (this.writerDb.inTransaction) await this.writer.rollbackTransaction(routed.held!);
    } finally {
      await this.#letGo(routed);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.writer.savepoint((connection as RoutedConnection).held!, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.writer.rollbackToSavepoint((connection as RoutedConnection).held!, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.writer.releaseSavepoint((connection as RoutedConnection).held!, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    if (!routed.held) return;
    // A transaction left open (never committed nor rolled back) must not pass to the next user.
    try {
      if (this.writerDb.inTransaction) await routed.held.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      await this.#letGo(routed);
    }
  }

  async destroy(): Promise<void> {
    this.reader.close();
    await this.writer.destroy();
  }

  async execute<R>(routed: RoutedConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    if (routed.held) return routed.held.executeQuery<R>(query);
    if (this.#isRead(query)) return this.#reads.executeQuery<R>(query);
    const connection = await this.writer.acquireConnection();
    try {
      return await connection.executeQuery<R>(query);
    } finally {
      await this.writer.releaseConnection();
    }
  }

  async *stream<R>(routed: RoutedConnection, query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    // An open iterator keeps its connection busy: streams stay on the writer, under its mutex.
    if (routed.held) {
      yield* routed.held.streamQuery<R>(query, chunkSize);
      return;
    }
    const connection = await this.writer.acquireConnection();
    try {
      yield* connection.streamQuery<R>(query, chunkSize);
    } finally {
      await this.writer.releaseConnection();
    }
  }

  #isRead(query: CompiledQuery): boolean {
    if (!readStart.test(query.sql) || connectionState.test(query.sql)) return false;
    try {
      const stmt = this.reader.prepare(query.sql);
      return stmt.readonly && stmt.reader;
    } catch {
      // Not preparable on the reader (a table only the writer's connection sees): the writer runs it.
      return false;
    }
  }

  async #letGo(routed: RoutedConnection): Promise<void> {
    routed.held = undefined;
    await this.writer.releaseConnection();
  }
}

/** What Kysely holds: every statement asks the driver where to run, until a transaction pins it to the writer. */
class RoutedConnection implements DatabaseConnection {
  held: DatabaseConnection | undefined;

  constructor(private readonly driver: ReadConnectionDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.driver.stream<R>(this, query, chunkSize);
  }
}

class ReaderConnection implements DatabaseConnection {
  constructor(private readonly db: SQLite.Database) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: this.db.prepare(query.sql).all(query.parameters as unknown[]) as R[] };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streams run on the writer connection');
  }
}
