import { sql } from 'kysely';
import type { Store } from './database.ts';
import { migrations } from './migrations/index.ts';

/**
 * Applies pending migrations in order, each in its own transaction, recording them in
 * `loupe_migrations`. Several processes may start at once (server + CLI, many API nodes):
 * PostgreSQL serialises them with an advisory lock, SQLite with its write lock.
 */
export async function migrate(store: Store, options: { upgrade?: boolean } = {}): Promise<string[]> {
  const { db, dialect } = store;
  const applied: string[] = [];
  await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(4242001)`.execute(trx);
    // in the transaction: a first migration that fails (no right to create pgvector) leaves no empty table behind
    await sql`CREATE TABLE IF NOT EXISTS loupe_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`.execute(trx);
    const done = await sql<{ name: string }>`SELECT name FROM loupe_migrations`.execute(trx);
    const have = new Set(done.rows.map((r) => r.name));
    // a database a newer release upgraded: this release would read tables it does not know as it knows them
    const unknown = [...have].filter((name) => !migrations.some((m) => m.name === name)).sort();
    if (unknown.length) throw new Error(`the database was upgraded by a newer Loupe release (migration ${unknown.join(', ')}, unknown to this one): run that release, or restore a backup made before the upgrade`);
    const pending = migrations.filter((m) => !have.has(m.name)).map((m) => m.name);
    if (options.upgrade === false && have.size > 0 && pending.length) {
      throw new Error(`the database was made by an earlier Loupe release and needs upgrading (migration ${pending.join(', ')}): this command does not upgrade it, so the release running on it is not locked out; after a backup, run \`loupe migrate\` or start the server, which upgrade it`);
    }
    for (const m of migrations) {
      if (have.has(m.name)) continue;
      for (const statement of m[dialect]) await sql.raw(statement).execute(trx);
      await m.run?.(trx);
      await sql`INSERT INTO loupe_migrations (name, applied_at) VALUES (${m.name}, ${new Date().toISOString()})`.execute(trx);
      applied.push(m.name);
    }
  });
  return applied;
}
