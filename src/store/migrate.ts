import { sql, type Transaction } from 'kysely';
import type { Database, Store } from './database.ts';
import { migrations } from './migrations/index.ts';

/**
 * Applies pending migrations in order, each in its own transaction, recording them in
 * `loupe_migrations`. Several processes may start at once (server + CLI, many API nodes):
 * PostgreSQL serialises them with an advisory lock, SQLite with its write lock.
 */
export async function migrate(store: Store, options: { upgrade?: boolean; create?: boolean; onWait?: (message: string, fields: Record<string, unknown>) => void; onUpgrade?: (message: string, fields: Record<string, unknown>) => void; waitSayMs?: number } = {}): Promise<string[]> {
  const { db, dialect } = store;
  const applied: string[] = [];
  await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await migrationLock(trx, options.onWait, options.waitSayMs ?? 5_000);
    // in the transaction: a first migration that fails (no right to create pgvector) leaves no empty table behind
    await sql`CREATE TABLE IF NOT EXISTS loupe_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`.execute(trx);
    const done = await sql<{ name: string }>`SELECT name FROM loupe_migrations`.execute(trx);
    const have = new Set(done.rows.map((r) => r.name));
    // a database a newer release upgraded: this release would read tables it does not know as it knows them
    const unknown = [...have].filter((name) => !migrations.some((m) => m.name === name)).sort();
    if (unknown.length) throw new Error(`the database was upgraded by a newer Loupe release (${migrationList(unknown)}, unknown to this one): run that release, or restore a backup made before the upgrade`);
    // rolled back with the table made above: a mistyped DATABASE_URL naming an empty database got a whole schema (h110)
    if (options.create === false && have.size === 0) throw new Error('no Loupe database here: nothing to read or change. Check DATABASE_URL (or LOUPE_DATA_DIR): it names an empty database');
    const pending = migrations.filter((m) => !have.has(m.name)).map((m) => m.name);
    if (options.upgrade === false && have.size > 0 && pending.length) {
      throw new Error(`the database was made by an earlier Loupe release and needs upgrading (${migrationList(pending)}): this command does not upgrade it, so the release running on it is not locked out; after a backup, run \`loupe migrate\` or start the server, which upgrade it`);
    }
    // an upgrade (not a new database) is said before it runs: one that rewrites every row (038) takes a while, with the port closed
    if (have.size > 0 && pending.length) options.onUpgrade?.(`upgrading the database: ${migrationList(pending)}; the server answers once it is done`, { migrations: pending });
    for (const m of migrations) {
      if (have.has(m.name)) continue;
      for (const statement of m[dialect]) await sql.raw(statement).execute(trx);
      await m.run?.(trx, dialect);
      await sql`INSERT INTO loupe_migrations (name, applied_at) VALUES (${m.name}, ${new Date().toISOString()})`.execute(trx);
      applied.push(m.name);
    }
  });
  return applied;
}

/**
 * Migrations named in a message: up to three by name, more as their count, first and last, so that what to do comes
 * before the reader's eye has left the line (h229: 24 names, some 700 characters, ahead of the instruction).
 */
export function migrationList(names: readonly string[]): string {
  if (names.length <= 3) return `migration ${names.join(', ')}`;
  return `${names.length} migrations, ${names[0]} to ${names[names.length - 1]}`;
}

const MIGRATION_LOCK = 4242001;

/** How the wait for another process's upgrade is said (the CLI writes these lines, and no other store warning, on stderr). */
export const UPGRADE_WAIT_LINES = /^(waiting for another process's database upgrade|the other process let go of the database upgrade lock)/;

/**
 * Takes the migration lock, saying every `sayMs` while another holds it, and which backend: a server, `loupe migrate`
 * and every CLI command waited on it silently, for as long as another process's migration or a stuck session held it
 * (h226: no log line and no answer to /health for 30 s and more, which a liveness probe restarts in a loop).
 */
async function migrationLock(trx: Transaction<Database>, onWait: ((message: string, fields: Record<string, unknown>) => void) | undefined, sayMs: number): Promise<void> {
  const started = Date.now();
  let said = started;
  for (;;) {
    const { rows } = await sql<{ got: boolean }>`SELECT pg_try_advisory_xact_lock(${MIGRATION_LOCK}) AS got`.execute(trx);
    if (rows[0]?.got) {
      if (said !== started) onWait?.('the other process let go of the database upgrade lock: going on', { waited_s: Math.round((Date.now() - started) / 1000) });
      return;
    }
    // first after a second (nodes starting together take it in turn briefly), then every `sayMs`
    if (Date.now() - said >= (said === started ? Math.min(sayMs, 1_000) : sayMs)) {
      said = Date.now();
      const holder = await sql<{ pid: number; app: string | null; state: string | null; since: string | null }>`
        SELECT l.pid, a.application_name AS app, a.state, a.xact_start::text AS since FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = ${MIGRATION_LOCK} AND l.objsubid = 1 AND l.granted
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) LIMIT 1`.execute(trx).catch(() => ({ rows: [] }));
      const h = holder.rows[0];
      onWait?.(`waiting for another process's database upgrade: PostgreSQL backend ${h ? `pid ${h.pid}` : '(gone)'} holds the upgrade lock (a Loupe server, worker or \`loupe migrate\` upgrading the database, or a session holding pg_advisory_lock(${MIGRATION_LOCK}))`, { waited_s: Math.round((Date.now() - started) / 1000), holder_pid: h?.pid ?? null, holder_app: h?.app ?? null, holder_state: h?.state ?? null, holder_since: h?.since ?? null });
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Migrations the database has that this release does not know: a newer release upgraded it while this one ran. */
export async function newerMigrations(store: Store): Promise<string[]> {
  const done = await sql<{ name: string }>`SELECT name FROM loupe_migrations`.execute(store.db);
  return done.rows.map((r) => r.name).filter((name) => !migrations.some((m) => m.name === name)).sort();
}

/**
 * A running process's check that no newer release has upgraded its database since it started (the start refuses
 * that; a node already running went on writing rows as the old release makes them, h88). Read at most every
 * `everyMs`, behind the last answer once a first read has answered; a failed read is no verdict.
 */
export class SchemaWatch {
  private checked = 0;
  private newer: string[] = [];
  private pending: Promise<string[]> | undefined;

  constructor(
    private readonly store: Store,
    private readonly everyMs = 10_000,
    private readonly read: () => Promise<string[]> = () => newerMigrations(store),
  ) {}

  async outdated(now = Date.now()): Promise<string[]> {
    if (now - this.checked < this.everyMs) return this.newer;
    this.pending ??= this.read()
      .then((names) => (this.newer = names))
      .catch(() => this.newer)
      .finally(() => {
        this.checked = Date.now();
        this.pending = undefined;
      });
    // the first read is waited for; later ones run behind the last answer: a lock held on loupe_migrations (a DBA's,
    // another node's migration) held every API call until it went (h226: a 15.5-s GET)
    return this.checked === 0 ? this.pending : this.newer;
  }

  static message(names: string[]): string {
    return `the database was upgraded by a newer Loupe release (${migrationList(names)}, unknown to this one) while this process ran: stop it and run that release`;
  }
}
