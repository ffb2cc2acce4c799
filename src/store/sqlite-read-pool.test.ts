import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loopTurnsDuring } from '../../test/helpers/loop-turns.ts';
import { openStore, type Store } from './database.ts';
import { SqliteReadPool } from './sqlite-read-pool.ts';

let dataDir: string;
let store: Store;
let warnings: { message: string; fields: Record<string, unknown> }[];

beforeEach(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-read-pool-'));
  warnings = [];
  store = await openStore({ dataDir, warn: (message, fields) => warnings.push({ message, fields }) });
  await sql`CREATE TABLE probe (n INTEGER)`.execute(store.db);
});

afterEach(async () => {
  await store.close();
  await fsp.rm(dataDir, { recursive: true, force: true });
});

/** A statement that keeps SQLite busy for a while (a few hundred ms here) and returns one row. */
const slow = sql<{ n: number }>`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1500000) SELECT count(*) AS n FROM c`;

it('runs a snapshot on a worker with the functions of the server connection, the event loop turning meanwhile', async () => {
  const pool = store.reads!;
  const { result, turns } = await loopTurnsDuring(() => pool.snapshot(async (db) => (await slow.execute(db)).rows[0]!.n));
  expect(result).toBe(1500000);
  expect(pool.started).toBe(1);
  // on the server's connection the statement holds the loop for its whole length: a turn or two at most
  const onMain = await loopTurnsDuring(async () => (await slow.execute(store.db)).rows[0]!.n);
  expect(onMain.turns).toBeLessThan(3);
  expect(turns).toBeGreaterThan(20);
  // the functions database.ts registers (fts5_row_tokens: the varints 0x81 0x00 and 0x05, 128 + 5)
  const fn = await pool.snapshot(async (db) => (await sql<{ t: number; f: string }>`SELECT fts5_row_tokens(x'810005') AS t, unicode_lower('ÉCLAIR') AS f`.execute(db)).rows[0]);
  expect(fn).toEqual({ t: 133, f: 'eclair' });
  expect(warnings).toEqual([]);
}, 30_000);

it('reads every commit made before the snapshot began, and one snapshot throughout', async () => {
  const pool = store.reads!;
  await sql`INSERT INTO probe (n) VALUES (1)`.execute(store.db);
  // a warm worker: its last snapshot ended before this insert
  await pool.snapshot(async (db) => sql`SELECT 1`.execute(db));
  await sql`INSERT INTO probe (n) VALUES (2)`.execute(store.db);
  const seen = await pool.snapshot(async (db) => {
    const before = (await sql<{ n: number }>`SELECT count(*) AS n FROM probe`.execute(db)).rows[0]!.n;
    // committed while the snapshot is open: not in it
    await sql`INSERT INTO probe (n) VALUES (3)`.execute(store.db);
    const after = (await sql<{ n: number }>`SELECT count(*) AS n FROM probe`.execute(db)).rows[0]!.n;
    return { before, after };
  });
  expect(seen).toEqual({ before: 2, after: 2 });
  expect(await pool.snapshot(async (db) => (await sql<{ n: number }>`SELECT count(*) AS n FROM probe`.execute(db)).rows[0]!.n)).toBe(3);
});

it('runs two snapshots at once on two workers, a third waiting for one of them', async () => {
  const pool = store.reads!;
  const order: string[] = [];
  let running = 0;
  let most = 0;
  const run = (name: string) =>
    pool.snapshot(async (db) => {
      order.push(`${name} in`);
      most = Math.max(most, ++running);
      await slow.execute(db);
      running--;
      order.push(`${name} out`);
    });
  await Promise.all([run('a'), run('b'), run('c')]);
  expect(pool.started).toBe(2);
  expect(most).toBeLessThanOrEqual(2);
  // the third began once one of the first two was done
  expect(order.indexOf('c in')).toBeGreaterThan(Math.min(order.indexOf('a out'), order.indexOf('b out')));
}, 30_000);

it('gives rows as the server connection reads them: of numbers alone (sent as one buffer), with text or nulls, few', async () => {
  const pool = store.reads!;
  const numbers = (n: number) => sql`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${n}) SELECT x AS key, x * 9007199254 AS big, -x / 7.0 AS s, 0.1 + x * 1e-300 AS tiny, x AS key FROM c`;
  const mixed = sql`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT x AS key, CASE WHEN x = 150 THEN NULL ELSE x / 3.0 END AS s, 'r' || x AS id FROM c`;
  for (const q of [numbers(5000), numbers(5), mixed]) {
    const [onWorker, onMain] = [await pool.snapshot(async (db) => (await q.execute(db)).rows), (await q.execute(store.db)).rows];
    expect(onWorker.length).toBeGreaterThan(4);
    expect(onWorker).toEqual(onMain);
    expect(Object.keys(onWorker[0] as object)).toEqual(Object.keys(onMain[0] as object));
  }
});

it("passes SQLite's errors on with their code, and the worker serves the next snapshot", async () => {
  const pool = store.reads!;
  const err = await pool.snapshot(async (db) => sql`SELECT * FROM no_such_table`.execute(db)).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'SQLITE_ERROR', message: expect.stringContaining('no_such_table') });
  // read-only: a write sent to it by mistake fails, and is not done on the server's connection instead
  const write = await pool.snapshot(async (db) => sql`INSERT INTO probe (n) VALUES (9)`.execute(db)).catch((e: unknown) => e);
  expect(write).toMatchObject({ code: 'SQLITE_READONLY' });
  expect((await sql<{ n: number }>`SELECT count(*) AS n FROM probe`.execute(store.db)).rows[0]!.n).toBe(0);
  expect(await pool.snapshot(async (db) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows[0]!.one)).toBe(1);
  expect(pool.started).toBe(1);
  expect(warnings).toEqual([]);
});

it("falls back to the server's connection where there is no file, or a worker cannot start, saying so once", async () => {
  const said: unknown[] = [];
  const memory = new SqliteReadPool(store.db, { file: ':memory:', warn: (message, fields) => said.push({ message, fields }) });
  await sql`INSERT INTO probe (n) VALUES (7)`.execute(store.db);
  const read = (p: SqliteReadPool) => p.snapshot(async (db) => (await sql<{ n: number }>`SELECT n FROM probe`.execute(db)).rows.map((r) => r.n));
  expect(await read(memory)).toEqual([7]);
  expect(await read(memory)).toEqual([7]);
  expect(memory.started).toBe(0);
  expect(said).toEqual([{ message: expect.stringContaining("server's own connection"), fields: { reason: 'the database is not a file' } }]);
  await memory.close();

  const notDb = path.join(dataDir, 'not-a-database');
  await fsp.writeFile(notDb, 'this is no SQLite file, and long enough to be read as one '.repeat(20));
  const broken = new SqliteReadPool(store.db, { file: notDb, warn: (message, fields) => said.push({ message, fields }) });
  expect(await read(broken)).toEqual([7]);
  expect(await read(broken)).toEqual([7]);
  expect(said).toHaveLength(2);
  expect(said[1]).toMatchObject({ fields: { reason: expect.stringMatching(/did not start.*SQLITE_NOTADB/) } });
  await broken.close();
}, 30_000);

it("reads on the server's connection what a worker lost part way was reading, and from then on", async () => {
  const said: unknown[] = [];
  const small = new SqliteReadPool(store.db, { file: store.file, warn: (message, fields) => said.push({ message, fields }), resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 } });
  // rows enough to fill the thread's 8 MB many times over: it runs out of memory and is ended
  const big = sql<{ s: string }>`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400000) SELECT printf('%0100d', x) AS s FROM c`;
  let tries = 0;
  const rows = await small.snapshot(async (db) => {
    tries++;
    return (await big.execute(db)).rows.length;
  });
  expect(rows).toBe(400000);
  expect(tries).toBe(2);
  expect(said).toEqual([{ message: expect.stringContaining("server's own connection"), fields: { reason: expect.stringContaining('a read worker stopped') } }]);
  expect(small.started).toBe(0);
  await small.close();
}, 30_000);

it('starts one worker ahead of the first snapshot when warmed, which that snapshot then uses', async () => {
  const pool = store.reads!;
  pool.warm();
  pool.warm();
  expect(pool.started).toBe(1);
  expect(await pool.snapshot(async (db) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows[0]!.one)).toBe(1);
  expect(pool.started).toBe(1);
}, 30_000);

it('stops its workers at close', async () => {
  const pool = store.reads!;
  await Promise.all([pool.snapshot(async (db) => slow.execute(db)), pool.snapshot(async (db) => slow.execute(db))]);
  expect(pool.started).toBe(2);
  await pool.close();
  expect(pool.started).toBe(0);
  // what asks after the close is read on the server's connection (it is closed next, with the store)
  expect(await pool.snapshot(async (db) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows[0]!.one)).toBe(1);
}, 30_000);
