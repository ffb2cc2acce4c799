import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { scratchPgDatabase } from '../../test/helpers/processes.ts';
import { openStore, type Store } from './database.ts';
import { migrate, migrationList, SchemaWatch } from './migrate.ts';

const bin = path.resolve(import.meta.dirname, '../../bin/loupe.js');

describe.runIf(process.env.DATABASE_URL)('the database upgrade lock', () => {
  it('is waited for saying so, naming the backend that holds it, in a process and in a CLI command (h226: silent for as long as it was held)', async () => {
    const db = await scratchPgDatabase('loupe_upgrade_lock');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-upgrade-lock-'));
    const store = await openStore({ dataDir: dir, databaseUrl: db.url, poolSize: 2 });
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    // the same lock held in another database of the cluster: not this one's holder (h230: its pid was named)
    const others = [await scratchPgDatabase('loupe_upgrade_lock')];
    const elsewhere = others.map((o) => new pg.Client({ connectionString: o.url }));
    for (const c of elsewhere) {
      await c.connect();
      await c.query('SELECT pg_advisory_lock(4242001)');
    }
    try {
      const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await holder.query('SELECT pg_advisory_lock(4242001)');
      const said: { message: string; fields: Record<string, unknown> }[] = [];
      const migrating = migrate(store, { onWait: (message, fields) => said.push({ message, fields }), waitSayMs: 300 });
      const cli = promisify(execFile)(process.execPath, [bin, 'account', 'list'], { env: { ...process.env, DATABASE_URL: db.url, LOUPE_DATA_DIR: dir } });
      await expect.poll(() => said.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
      expect(said[0]!.message).toMatch(/^waiting for another process's database upgrade: PostgreSQL backend pid \d+ holds the upgrade lock/);
      expect(said[0]!.fields.holder_pid).toBe(pid);
      await new Promise((r) => setTimeout(r, 5_500));
      await holder.query('SELECT pg_advisory_unlock(4242001)');
      expect(await migrating).toEqual([]);
      expect(said.at(-1)!.message).toBe('the other process let go of the database upgrade lock: going on');
      const { stdout, stderr } = await cli;
      expect(stderr).toMatch(/^loupe: waiting for another process's database upgrade: PostgreSQL backend pid \d+/m);
      expect(JSON.parse(stdout)).toBeDefined();
    } finally {
      for (const c of elsewhere) await c.end();
      for (const o of others) await o.drop();
      await holder.end();
      await store.close();
      await db.drop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('an upgrade', () => {
  it('is said before its migrations run, naming them; a new database is not an upgrade (h234: it ran without a word)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-upgrade-said-'));
    try {
      const said: string[] = [];
      const first = await openStore({ dataDir: dir, info: (m) => said.push(m) });
      expect(said).toEqual([]);
      await first.db.deleteFrom('loupe_migrations' as never).where('name' as never, '=', '037-card-key-late-cards' as never).execute();
      await first.close();
      const again = await openStore({ dataDir: dir, info: (m) => said.push(m) });
      await again.close();
      expect(said).toEqual(['upgrading the database: migration 037-card-key-late-cards; the server answers once it is done']);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the check for a newer release', () => {
  it('answers from its last read while a new one waits (h226: a lock on loupe_migrations held every API call)', async () => {
    let reads = 0;
    let release: (() => void) | undefined;
    const store = {} as Store;
    const watch = new SchemaWatch(store, 10, async () => {
      reads++;
      if (reads === 1) return ['099-newer'];
      await new Promise<void>((r) => (release = r));
      return [];
    });
    expect(await watch.outdated()).toEqual(['099-newer']);
    await new Promise((r) => setTimeout(r, 20));
    // a second read is due and stalls: the answer is the last one, at once
    expect(await watch.outdated()).toEqual(['099-newer']);
    expect(reads).toBe(2);
    release!();
    await new Promise((r) => setTimeout(r, 5));
    expect(await watch.outdated(0)).toEqual([]);
  });
});

describe('migrations named in a message', () => {
  it('are named up to three, else counted with the first and last (h229: 24 names ahead of what to do)', () => {
    expect(migrationList(['099-a'])).toBe('migration 099-a');
    expect(migrationList(['014-a', '015-b', '016-c', '037-z'])).toBe('4 migrations, 014-a to 037-z');
  });
});
