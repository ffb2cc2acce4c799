import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './database.ts';

describe('SQLite transactions beside another process writing', () => {
  let dir: string;
  let store: Store;
  let other: SQLite.Database;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-sqlite-tx-'));
    store = await openStore({ dataDir: dir });
    await sql`CREATE TABLE tx_probe (id INTEGER PRIMARY KEY, who TEXT NOT NULL)`.execute(store.db);
    // Another process's connection (the admin CLI), which does not wait for the lock.
    other = new SQLite(store.file!);
    other.pragma('busy_timeout = 0');
  });
  afterAll(async () => {
    other.close();
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('holds the write lock from its start, so its write after a read never fails with SQLITE_BUSY', async () => {
    let otherWrote: boolean | undefined;
    await store.db.transaction().execute(async (trx) => {
      await sql`SELECT count(*) FROM tx_probe`.execute(trx);
      try {
        other.prepare("INSERT INTO tx_probe (who) VALUES ('other')").run();
        otherWrote = true;
      } catch (err) {
        expect((err as { code?: string }).code).toBe('SQLITE_BUSY');
        otherWrote = false;
      }
      // Begun deferred, this write would now fail at once: the other connection committed after this read.
      await sql`INSERT INTO tx_probe (who) VALUES ('server')`.execute(trx);
    });
    expect(otherWrote).toBe(false);
    // Once it committed, the other connection writes again.
    other.prepare("INSERT INTO tx_probe (who) VALUES ('other')").run();
    expect(other.prepare('SELECT who FROM tx_probe ORDER BY id').all()).toEqual([{ who: 'server' }, { who: 'other' }]);
  });
});
