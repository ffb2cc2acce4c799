import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { assertWritable, openStore, sqliteFileOf, type Store } from './database.ts';
import { CardSessionStore } from './card-session-store.ts';

describe('a store the server cannot write', () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-writable-'));
    store = await openStore({ dataDir: dir });
  });
  afterAll(async () => {
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('overwrites what is deleted: neither the file nor a backup of it keeps a deleted value', async () => {
    const secret = `erased-${'x'.repeat(40)}-${Date.now()}`;
    await sql`CREATE TABLE erasure_probe (v TEXT)`.execute(store.db);
    await sql`INSERT INTO erasure_probe (v) VALUES (${secret})`.execute(store.db);
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
    const file = sqliteFileOf(dir);
    expect((await fs.readFile(file)).includes(secret)).toBe(true);
    await sql`DELETE FROM erasure_probe`.execute(store.db);
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
    expect((await fs.readFile(file)).includes(secret)).toBe(false);
    await sql`DROP TABLE erasure_probe`.execute(store.db);
  });

  it('passes a writable database and media folder, and names a database that refuses writes', async () => {
    await assertWritable(store, path.join(dir, 'media'));
    expect(await fs.readdir(path.join(dir, 'media'))).toEqual([]);
    // what a read-only file gives (SQLITE_READONLY), without needing another user to make one
    await sql`PRAGMA query_only = 1`.execute(store.db);
    await expect(assertWritable(store, path.join(dir, 'media'))).rejects.toThrow(/^the database cannot be written \(SQLITE_READONLY\)/);
    await sql`PRAGMA query_only = 0`.execute(store.db);
  });

  it("a transaction SQLite ended itself (a full disk) fails with its own error, not the rollback's", async () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const run = store.db.transaction().execute(async (trx) => {
      await sql`UPDATE loupe_migrations SET name = name WHERE 1 = 0`.execute(trx);
      // as SQLite does on SQLITE_FULL or an I/O error: the transaction is over before Kysely rolls back
      await sql`ROLLBACK`.execute(trx);
      throw full;
    });
    // was: "cannot rollback - no transaction is active", the full disk named nowhere
    await expect(run).rejects.toBe(full);
    // and the connection is free for the next transaction
    await store.db.transaction().execute(async (trx) => sql`UPDATE loupe_migrations SET name = name WHERE 1 = 0`.execute(trx));
  });
});

describe('a database file removed under the running server (h139)', () => {
  it('fails the write check, naming it: its writes would be lost at the next start', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-gone-'));
    const store = await openStore({ dataDir: dir });
    try {
      await assertWritable(store, path.join(dir, 'media'));
      await fs.rename(sqliteFileOf(dir), path.join(dir, 'moved.db'));
      await expect(assertWritable(store, path.join(dir, 'media'))).rejects.toThrow(/^the database file .*loupe\.db was removed while the server ran/);
      // another file put in its place is no better: the server writes to the one it opened
      await fs.writeFile(sqliteFileOf(dir), '');
      await expect(assertWritable(store, path.join(dir, 'media'))).rejects.toThrow(/was replaced while the server ran/);
      await fs.rm(sqliteFileOf(dir));
      await fs.rename(path.join(dir, 'moved.db'), sqliteFileOf(dir));
      await assertWritable(store, path.join(dir, 'media'));
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a new SQLite database', () => {
  it('is readable by its owner only, its WAL too', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-mode-'));
    const store = await openStore({ dataDir: dir });
    try {
      await sql`CREATE TABLE probe_mode (x INTEGER)`.execute(store.db);
      for (const f of ['loupe.db', 'loupe.db-wal']) expect(((await fs.stat(path.join(dir, f))).mode & 0o777).toString(8), f).toBe('600');
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a database an earlier release made', () => {
  it('is upgraded only where asked (the server, workers, `loupe migrate`), refused otherwise and left as it was', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-older-'));
    try {
      // as the release before migration 014 left it
      const first = await openStore({ dataDir: dir });
      await sql`ALTER TABLE collection_records DROP COLUMN hash`.execute(first.db);
      await sql`DELETE FROM loupe_migrations WHERE name = '014-record-hashes'`.execute(first.db);
      await first.close();
      await expect(openStore({ dataDir: dir, upgrade: false })).rejects.toThrow(/needs upgrading \(migration 014-record-hashes\): this command does not upgrade it.*run `loupe migrate` or start the server/);
      const raw = new SQLite(sqliteFileOf(dir), { readonly: true });
      try {
        expect(raw.prepare("SELECT count(*) AS n FROM loupe_migrations WHERE name = '014-record-hashes'").get()).toEqual({ n: 0 });
      } finally {
        raw.close();
      }
      const upgraded = await openStore({ dataDir: dir });
      expect(upgraded.migrated).toEqual(['014-record-hashes']);
      await upgraded.close();
      // a new database is made whole whoever opens it
      const fresh = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-new-'));
      const made = await openStore({ dataDir: fresh, upgrade: false });
      expect(made.migrated!.length).toBeGreaterThan(5);
      await made.close();
      await fs.rm(fresh, { recursive: true, force: true });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a database a newer release upgraded', () => {
  it('is refused, naming the migration this release does not know, and left as it was', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-newer-'));
    try {
      const first = await openStore({ dataDir: dir });
      expect(first.migrated!.length).toBeGreaterThan(5);
      await sql`INSERT INTO loupe_migrations (name, applied_at) VALUES ('099-from-the-future', '2027-01-01T00:00:00Z')`.execute(first.db);
      await first.close();
      await expect(openStore({ dataDir: dir })).rejects.toThrow('the database was upgraded by a newer Loupe release (migration 099-from-the-future, unknown to this one): run that release, or restore a backup made before the upgrade');
      // left as it was: the newer release's record kept, nothing applied or removed
      const raw = new SQLite(sqliteFileOf(dir), { readonly: true });
      try {
        expect((raw.prepare('SELECT count(*) AS n FROM loupe_migrations').get() as { n: number }).n).toBe(first.migrated!.length + 1);
      } finally {
        raw.close();
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('an up-to-date one applies nothing', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-same-'));
    try {
      await (await openStore({ dataDir: dir })).close();
      const second = await openStore({ dataDir: dir });
      expect(second.migrated).toEqual([]);
      await second.close();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL set-up errors', () => {
  it('say what to do where the server\'s own words do not', async () => {
    const { explainPgSetupError } = await import('./database.ts');
    expect(String(explainPgSetupError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string')))).toMatch(/asks for a password and DATABASE_URL gives none/);
    expect(String(explainPgSetupError(Object.assign(new Error('permission denied to create extension "vector"'), { code: '42501' })))).toMatch(/a superuser must run `CREATE EXTENSION vector;`/);
    const other = Object.assign(new Error('password authentication failed for user "loupe"'), { code: '28P01' });
    expect(explainPgSetupError(other)).toBe(other);
  });

  it('name PostgreSQL and the setting where the socket\'s words named neither: nothing listening, a host unknown (h330)', async () => {
    // a port where nothing listens: one just let go
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-pg-setup-'));
    try {
      const refused = await openStore({ dataDir: dir, databaseUrl: `postgres://loupe@127.0.0.1:${port}/loupe` }).then(() => undefined, (err: unknown) => err as Error & { code?: string });
      expect(refused?.message).toBe(`no PostgreSQL server answers at 127.0.0.1:${port} (connect ECONNREFUSED): is it running, and does DATABASE_URL name its host and port?`);
      expect(refused?.code).toBe('ECONNREFUSED');
      // (RFC 6761: no resolver knows .invalid; EAI_AGAIN where no name server answers)
      const unknown = await openStore({ dataDir: dir, databaseUrl: 'postgres://loupe@loupe-db.invalid/loupe' }).then(() => undefined, (err: unknown) => err as Error);
      expect(unknown?.message).toMatch(/^the PostgreSQL host loupe-db\.invalid that DATABASE_URL names cannot be resolved \(getaddrinfo (ENOTFOUND|EAI_AGAIN)\): check the host name in it$/);
      const { explainPgSetupError } = await import('./database.ts');
      // move-to-postgres names its own option
      expect(String(explainPgSetupError(Object.assign(new Error('database "shop" does not exist'), { code: '3D000' }), '--to'))).toBe('Error: database "shop" does not exist on the PostgreSQL server --to names: make it first, with a UTF-8 locale (createdb --template=template0 --locale=C.UTF-8 shop; README "Run it"), or correct the name in --to');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a PostgreSQL database that does not exist', () => {
  it('is said with how to make it, in a UTF-8 locale (h330: the server\'s own `database "…" does not exist`)', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/loupe_absent_${randomUUID().slice(0, 8)}`;
    const name = url.pathname.slice(1);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-pg-absent-'));
    try {
      const err = await openStore({ dataDir: dir, databaseUrl: url.href }).then(() => undefined, (e: unknown) => e as Error & { code?: string });
      expect(err?.message).toBe(`database "${name}" does not exist on the PostgreSQL server DATABASE_URL names: make it first, with a UTF-8 locale (createdb --template=template0 --locale=C.UTF-8 ${name}; README "Run it"), or correct the name in DATABASE_URL`);
      expect(err?.code).toBe('3D000');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a PostgreSQL connection lost in use', () => {
  it('fails the transaction it served, not the process (a terminated backend mid-transaction crashed the server)', async () => {
    const { scratchPgDatabase } = await import('../../test/helpers/processes.ts');
    const scratch = await scratchPgDatabase('lost_conn');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-lost-'));
    const store = await openStore({ dataDir: dir, databaseUrl: scratch.url, poolSize: 3, applicationName: 'loupe server' });
    try {
      // named, so an operator's pg_stat_activity tells a server's connections from a worker's (h226)
      expect((await sql<{ name: string }>`SELECT current_setting('application_name') AS name`.execute(store.db)).rows[0]!.name).toBe('loupe server');
      const run = store.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        // what an administrator, a failover or a restart does to the connection
        await sql`SELECT pg_terminate_backend(${rows[0]!.pid})`.execute(store.db);
        await new Promise((r) => setTimeout(r, 300));
        await sql`SELECT 1`.execute(trx);
      });
      await expect(run).rejects.toThrow();
      // the pool leaves the dead connection behind and answers with another
      expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db)).rows[0]!.one).toBe(1);
    } finally {
      await store.close();
      await scratch.drop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe.skipIf(!process.env.DATABASE_URL)('a PostgreSQL database made with the C locale (h152)', () => {
  it('is said at start: its lower() and trigrams see ASCII alone, so catalog name search misses "Pokémon" (session search does not)', async () => {
    const { scratchPgDatabase } = await import('../../test/helpers/processes.ts');
    const said: string[] = [];
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-ctype-'));
    for (const [options, warned] of [["TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'", true], ["TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'", false]] as const) {
      said.length = 0;
      const scratch = await scratchPgDatabase('loupe_ctype', options);
      const store = await openStore({ dataDir: dir, databaseUrl: scratch.url, poolSize: 2, warn: (m) => said.push(m) });
      // session search folds in the server, and the trigram index it uses (forced here) gives every row LIKE keeps
      const found = await store.db.transaction().execute(async (trx) => {
        const sessions = new CardSessionStore(trx, 'postgres');
        const now = new Date().toISOString();
        const [account, workspace] = [randomUUID(), randomUUID()];
        await sql`INSERT INTO accounts (id, name, created_at) VALUES (${account}, 'a', ${now})`.execute(trx);
        await sql`INSERT INTO workspaces (id, account_id, name, created_at) VALUES (${workspace}, ${account}, 'w', ${now})`.execute(trx);
        await sessions.insertSession({ id: randomUUID(), workspace_id: workspace, name: 'POKÉMON Straße ポケモン会', description: '', game: '', game_key: '', platform: '', client: '{}', meta_data: '{}', started: now });
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const counts: number[] = [];
        for (const term of ['pokemon', 'STRASSE', 'ポケモン会', 'kémon st']) counts.push((await sessions.listSessions(workspace, term, undefined, 5, 0)).count);
        return counts;
      });
      expect(found, options).toEqual([1, 1, 1, 1]);
      await store.close();
      await scratch.drop();
      expect(said.some((m) => m.startsWith("the database's character classification (LC_CTYPE C) lowers ASCII letters only")), options).toBe(warned);
    }
    await fs.rm(dir, { recursive: true, force: true });
  }, 60_000);
});

describe('a PostgreSQL address that takes connections and never answers', () => {
  it('stops the start with a sentence, not a silent wait for good', async () => {
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-silent-'));
    try {
      const started = Date.now();
      await expect(openStore({ dataDir: dir, databaseUrl: `postgres://loupe@127.0.0.1:${port}/loupe`, connectTimeoutMs: 500 })).rejects.toThrow(/took the connection but did not answer in time/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const s of held) s.destroy();
      silent.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe.skipIf(!process.env.DATABASE_URL)('a PostgreSQL server that stops answering mid-use', () => {
  it('fails the statement after the limit, as a cut connection (503), and the next statement gets a fresh connection', async () => {
    const { databaseUnavailable } = await import('../http/errors.ts');
    const { scratchPgDatabase } = await import('../../test/helpers/processes.ts');
    const scratch = await scratchPgDatabase('stalled');
    const target = new URL(scratch.url);
    // a proxy that forwards until told to stall: what a stopped (SIGSTOP) server or a silent network looks like from here
    let stalled = false;
    const sockets: net.Socket[] = [];
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.push(client, upstream);
      client.on('data', (d) => void (stalled || upstream.write(d)));
      upstream.on('data', (d) => void (stalled || client.write(d)));
      client.on('error', () => {});
      upstream.on('error', () => {});
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const via = new URL(target);
    via.hostname = '127.0.0.1';
    via.port = String((proxy.address() as { port: number }).port);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-stall-'));
    const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const store = await openStore({ dataDir: dir, databaseUrl: via.toString(), poolSize: 2, stalledStatementMs: 800, warn: (message, fields) => warnings.push({ message, fields }) });
    try {
      expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db)).rows[0]!.one).toBe(1);
      stalled = true;
      const started = Date.now();
      const err = await sql`SELECT 2 AS two`.execute(store.db).then(() => undefined, (e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect(databaseUnavailable(err!)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/did not answer a statement within 0\.8 s/);
      expect(warnings[0]!.fields.statement).toBe('SELECT 2 AS two');
      stalled = false;
      expect((await sql<{ three: number }>`SELECT 3 AS three`.execute(store.db)).rows[0]!.three).toBe(3);
      // inside a transaction, the error that reaches the request is still the outage's (not its rollback's on a closed connection)
      const inTrx = await store.db.transaction().execute(async (trx) => {
        await sql`SELECT 4`.execute(trx);
        stalled = true;
        await sql`SELECT 5`.execute(trx);
      }).then(() => undefined, (e: unknown) => e as Error);
      stalled = false;
      expect(inTrx).toBeInstanceOf(Error);
      expect(databaseUnavailable(inTrx!), String(inTrx)).toBe(true);
      expect((await sql<{ six: number }>`SELECT 6 AS six`.execute(store.db)).rows[0]!.six).toBe(6);
      // a DBA's statement_timeout: the database impatient for now, a 503 (h226: a 500 internal_error)
      const timedOut = await store.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL statement_timeout = 50`.execute(trx);
        await sql`SELECT pg_sleep(2)`.execute(trx);
      }).then(() => undefined, (e: unknown) => e as Error & { code?: string });
      expect([timedOut?.code, databaseUnavailable(timedOut!)]).toEqual(['57014', true]);
    } finally {
      await store.close();
      for (const s of sockets) s.destroy();
      proxy.close();
      await scratch.drop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe.skipIf(!process.env.DATABASE_URL)('a PostgreSQL statement cut by the limit while it waits on a lock', () => {
  it('is cancelled in the server too, not left holding a backend', async () => {
    const { scratchPgDatabase } = await import('../../test/helpers/processes.ts');
    const pg = (await import('pg')).default;
    const scratch = await scratchPgDatabase('stall_lock');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-stall-lock-'));
    const store = await openStore({ dataDir: dir, databaseUrl: scratch.url, poolSize: 2, stalledStatementMs: 600 });
    const holder = new pg.Client({ connectionString: scratch.url });
    await holder.connect();
    // nothing on stderr: pg's own cancel read a deprecated getter, a DeprecationWarning at the first stalled statement (h226)
    const warned: string[] = [];
    const onWarning = (w: Error) => warned.push(w.message);
    process.on('warning', onWarning);
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE loupe_migrations IN ACCESS EXCLUSIVE MODE');
      await expect(sql`SELECT count(*) FROM loupe_migrations`.execute(store.db)).rejects.toThrow(/Connection terminated/);
      const waiting = async () => Number((await holder.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n);
      // the cut statement was waiting on the lock; its backend stops waiting once the cancel arrives (it waited for good)
      const until = Date.now() + 5_000;
      while ((await waiting()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(await waiting()).toBe(0);
      await holder.query('COMMIT');
      await new Promise((r) => setImmediate(r));
      expect(warned.filter((m) => /activeQuery/.test(m))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await holder.end();
      await store.close();
      await scratch.drop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
