import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from './helpers/harness.ts';
import { scratchPgDatabase } from './helpers/processes.ts';
import { loupeInProcess } from './helpers/cli.ts';

/** `loupe collection list` shows PostgreSQL's lock-table figures where an operator lists the collections (h369). */
describe.each(backends)('loupe collection list: the lock table (%s)', (backend) => {
  let dataDir: string;
  let db: { url: string; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-cli-locks-'));
    db = backend === 'postgres' ? await scratchPgDatabase('loupe_cli_locks') : undefined;
  });
  afterAll(async () => {
    await db?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  const loupe = async (...args: string[]) => {
    const r = await loupeInProcess({ ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '', LOUPE_PG_POOL: '6' }, args);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout.trim());
  };

  it('with the figures and the setting on PostgreSQL, none on SQLite', async () => {
    const { account } = await loupe('account', 'create', '--name', 'locks');
    await loupe('collection', 'create', '--account', account, '--type', 'photo', '--name', 'c');
    const list = await loupe('collection', 'list');
    expect(list.collections).toHaveLength(1);
    if (backend === 'sqlite') return expect(list.postgres_lock_table).toBeUndefined();
    const t = list.postgres_lock_table;
    // no index yet (the first insert makes it): the table's own seven, the table and the transaction
    expect([t.hnsw_indexes, t.locks_per_statement, t.pool_size, t.locks_of_a_full_pool]).toEqual([0, 9, 6, 54]);
    expect(t.lock_table_entries).toBe(t.max_locks_per_transaction * (t.max_connections + t.max_prepared_transactions));
    expect(t.suggested_max_locks_per_transaction).toBe(t.max_locks_per_transaction);
    expect(t.warning).toBeUndefined();
  });
});
