import { Worker, type ResourceLimits } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type DatabaseConnection, type CompiledQuery, type Dialect, type Driver, type QueryResult } from 'kysely';
import type { Database } from './database.ts';
import type { ReadReply, ReadRequest } from './sqlite-read-worker.ts';

/**
 * Reads too heavy for the event loop, on worker threads: better-sqlite3 runs a statement synchronously, so a text
 * search's FTS5 statements (58 ms at 25,000 records for "red car") held every other request of the server, `/health`
 * 116 ms (docs/benchmarks.md "A year of data"). Each worker holds its own read-only connection to the database file;
 * in WAL mode readers run beside the writer and never wait for it. `snapshot` sends the statements of one piece of
 * work, in one read transaction, to one worker: they all read one snapshot, which holds every commit made before the
 * work began (a record inserted and acknowledged before a search is in what it reads).
 *
 * Two workers at most, started on first use (or by `warm`): with one, a quick search would queue behind a slow one (a
 * common word at 100,000 records, a quarter of a second); more would only compete for the cores with the event loop
 * and the vision workers on the small machines Loupe runs on (2–4 cores), and each costs about 30 MB (a thread with
 * tsx's loader and its connection's page cache: two took 60–70 MB of the process's RSS here). Where there is no file (`:memory:`) or a worker cannot start or dies, the work
 * runs on the server's own connection as before, said once in the log.
 */
export class SqliteReadPool {
  readonly #db: Kysely<Database>;
  readonly #workers: ReadWorker[] = [];
  readonly #idle: ReadWorker[] = [];
  readonly #waiting: { resolve: (w: ReadWorker) => void; reject: (err: Error) => void }[] = [];
  #warming: Promise<ReadWorker> | undefined;
  #unavailable: string | undefined;
  #said = false;
  #closed = false;

  constructor(
    private readonly main: Kysely<Database>,
    private readonly options: {
      file: string | undefined;
      size?: number;
      busyMs?: number;
      warn?: ((message: string, fields: Record<string, unknown>) => void) | undefined;
      /** Tests' seam: the threads' memory limits (a worker over them is lost, as one that crashed). */
      resourceLimits?: ResourceLimits;
    },
  ) {
    const file = options.file;
    if (!file || file === ':memory:' || file.startsWith('file:')) this.#unavailable = 'the database is not a file';
    this.#db = new Kysely<Database>({ dialect: new ReadPoolDialect(this) });
  }

  /** Workers started and alive (tests, and what the pool holds). */
  get started(): number {
    return this.#workers.filter((w) => !w.gone).length;
  }

  /**
   * `work`'s statements in one read transaction on a worker: one snapshot, the event loop free while they run. `work`
   * must only read, and must not wait for anything else that needs a worker of this pool (it holds one). Where the pool
   * cannot serve it, `work` runs on the server's connection; where a worker is lost part way, it runs there again.
   */
  async snapshot<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    if (!this.#unavailable && !this.#closed) {
      try {
        return await this.#db.transaction().execute(work);
      } catch (err) {
        if (!(err instanceof ReadWorkerGone)) throw err;
      }
    }
    this.#sayOnce();
    return work(this.main);
  }

  /**
   * Starts a worker, where none is, without waiting for it: a thread takes about half a second to start (tsx's loader
   * and the TypeScript it loads), which the first search would otherwise wait.
   */
  warm(): void {
    if (this.#unavailable || this.#closed || this.#workers.length) return;
    const p = this.#ready(this.#start());
    this.#warming = p;
    // left for the first snapshot to take; once up with none taking it, idle
    p.then(
      (w) => {
        if (this.#warming !== p) return;
        this.#warming = undefined;
        this.give(w);
      },
      () => {
        if (this.#warming === p) this.#warming = undefined;
      },
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#rejectWaiting(new ReadWorkerGone('the read pool is closed'));
    await Promise.all(this.#workers.map((w) => w.terminate()));
    this.#workers.length = 0;
    this.#idle.length = 0;
  }

  /** A worker of its own for a transaction or a statement, started if none is free and the pool is not full. */
  async take(): Promise<ReadWorker> {
    if (this.#closed) throw new ReadWorkerGone('the read pool is closed');
    if (this.#unavailable) throw new ReadWorkerGone(this.#unavailable);
    const idle = this.#idle.pop();
    if (idle) return idle;
    // the one `warm` is starting: sooner up than another
    const warming = this.#warming;
    this.#warming = undefined;
    if (warming) return warming;
    if (this.#workers.length < (this.options.size ?? 2)) return this.#ready(this.#start());
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  #start(): ReadWorker {
    const w = new ReadWorker(this.options.file!, this.options.busyMs ?? 10_000, this.options.resourceLimits, (err) => this.#fail(`a read worker stopped: ${err.message}`));
    this.#workers.push(w);
    return w;
  }

  async #ready(w: ReadWorker): Promise<ReadWorker> {
    try {
      await w.ready;
      return w;
    } catch (err) {
      this.#fail(`a read worker did not start: ${(err as Error).message}`);
      throw new ReadWorkerGone(this.#unavailable ?? 'the read pool is closed');
    }
  }

  give(w: ReadWorker): void {
    if (w.gone || this.#unavailable || this.#closed) {
      void w.terminate();
      return;
    }
    const next = this.#waiting.shift();
    if (next) next.resolve(w);
    else this.#idle.push(w);
  }

  #fail(why: string): void {
    if (this.#closed || this.#unavailable) return;
    this.#unavailable = why;
    this.#sayOnce();
    this.#rejectWaiting(new ReadWorkerGone(why));
    for (const w of this.#idle.splice(0)) void w.terminate();
  }

  #rejectWaiting(err: Error): void {
    for (const w of this.#waiting.splice(0)) w.reject(err);
  }

  #sayOnce(): void {
    if (this.#said || this.#closed) return;
    this.#said = true;
    this.options.warn?.("SQLite's read workers are not used: text search reads on the server's own connection, holding other requests while it does", { reason: this.#unavailable ?? 'a read worker was lost' });
  }
}

/** The pool could not run a statement (no worker, or its worker was lost): the work goes to the server's connection. */
class ReadWorkerGone extends Error {}

/** A worker thread and its connection, as Kysely's connection: every statement a message, its rows the answer. */
class ReadWorker implements DatabaseConnection {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (err: Error) => void }>();
  #next = 0;
  #beginWithNext = false;
  #terminating = false;
  gone: Error | undefined;
  readonly ready: Promise<void>;

  constructor(file: string, busyMs: number, resourceLimits: ResourceLimits | undefined, onLost: (err: Error) => void) {
    this.#worker = new Worker(new URL('./sqlite-read-worker-entry.js', import.meta.url), { workerData: { file, busyMs }, ...(resourceLimits ? { resourceLimits } : {}) });
    let started: () => void;
    let failed: (err: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    // an unhandled rejection where nobody awaits a start that failed
    this.ready.catch(() => undefined);
    let up = false;
    this.#worker.on('message', (m: ReadReply) => {
      if ('ready' in m) {
        up = true;
        // held only while it starts or has statements to answer: an idle pool keeps no process alive
        if (!this.#pending.size) this.#worker.unref();
        started();
        return;
      }
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (!this.#pending.size) this.#worker.unref();
      if ('rows' in m) p.resolve(m.rows);
      else if ('values' in m) p.resolve(fromNumbers(m.columns, m.values));
      else p.reject(m.error.code ? new SQLite.SqliteError(m.error.message, m.error.code) : new Error(m.error.message));
    });
    const lost = (err: Error) => {
      if (this.gone) return;
      this.gone = err;
      failed(err);
      for (const p of this.#pending.values()) p.reject(new ReadWorkerGone(err.message));
      this.#pending.clear();
      if (up && !this.#terminating) onLost(err);
    };
    // an error thrown in the thread arrives as a copy: SQLite's own (SqliteError) with its code and without its message
    this.#worker.on('error', (err: unknown) => {
      const e = err as { message?: unknown; code?: unknown } | undefined;
      lost(new Error([e?.code, e?.message].filter((x) => typeof x === 'string').join(': ') || String(err)));
    });
    this.#worker.on('exit', (code) => lost(new Error(`exited with code ${code}`)));
  }

  /**
   * A read transaction's start and end travel with the messages there are anyway (`begin` with its first statement,
   * `end` unanswered: the thread takes messages in order, so the next user's come after it): two trips between the
   * threads fewer a snapshot, of the seven or so a search's had.
   */
  begin(): void {
    this.#beginWithNext = true;
  }

  end(): void {
    // no statement ran: the thread never began it
    if (this.#beginWithNext) this.#beginWithNext = false;
    else if (!this.gone) this.#worker.postMessage({ end: true } satisfies ReadRequest);
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.gone) return Promise.reject(new ReadWorkerGone(this.gone.message));
    const id = this.#next++;
    const begin = this.#beginWithNext;
    this.#beginWithNext = false;
    return new Promise<QueryResult<R>>((resolve, reject) => {
      this.#pending.set(id, { resolve: (rows) => resolve({ rows: rows as R[] }), reject });
      this.#worker.ref();
      this.#worker.postMessage({ id, sql: query.sql, parameters: query.parameters, ...(begin ? { begin } : {}) } satisfies ReadRequest);
    });
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the read pool does not stream');
  }

  async terminate(): Promise<void> {
    this.#terminating = true;
    await this.#worker.terminate();
  }
}

/** The rows of a reply of numbers alone (sqlite-read-worker.ts `numericRows`), as the statement's objects. */
function fromNumbers(columns: string[], values: Float64Array): Record<string, number>[] {
  const n = columns.length;
  const rows = new Array<Record<string, number>>(values.length / n);
  for (let r = 0, i = 0; r < rows.length; r++) {
    const row: Record<string, number> = {};
    for (const c of columns) row[c] = values[i++]!;
    rows[r] = row;
  }
  return rows;
}

class ReadPoolDriver implements Driver {
  constructor(private readonly pool: SqliteReadPool) {}

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    return this.pool.take();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // deferred, begun with the first statement: the snapshot is taken at its first read, after every commit made
    // before the work began
    (connection as ReadWorker).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as ReadWorker).end();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // (a lost worker's transaction went with it; the error that says why is the one the work threw)
    (connection as ReadWorker).end();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.pool.give(connection as ReadWorker);
  }

  async destroy(): Promise<void> {
    await this.pool.close();
  }
}

class ReadPoolDialect implements Dialect {
  constructor(private readonly pool: SqliteReadPool) {}

  createAdapter() {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    return new ReadPoolDriver(this.pool);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
