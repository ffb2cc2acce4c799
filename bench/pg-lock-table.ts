/**
 * `npm run bench -- pg-lock-table`: whether many collections' partial HNSW indexes on `collection_records` exhaust
 * PostgreSQL's shared lock table under concurrent calls (h369). Every statement on the table locks every index of it
 * to its transaction's end, past 16 fast-path slots, in a table of max_locks_per_transaction × (max_connections +
 * max_prepared_transactions + the server's own processes) entries shared by every database of the server.
 *
 * A database of its own (BENCH_PG_NAME, default `loupe_lock_table`, dropped at the end): BENCH_COLLECTIONS (1,000)
 * photo collections made through the service, three records each inserted through the API (the tiny CLIP pack of
 * the tests, so each has its HNSW index as the first insert makes it). Then how many statements on the table held at
 * once (each in its transaction, up to 90) the lock table takes. Then for each pool size of BENCH_POOLS (6,10,16,24; a
 * server's own is 2 × cores + 2) and each count of BENCH_HOLDS (0 and four under that limit: other nodes' and workers'
 * statements, held meanwhile), an app with that pool fires BENCH_CALLS (600) calls, BENCH_CONCURRENCY at a time
 * (default: twice the pool), in turn a find with a filter, a visualKNN by `_id` and an insert of one record, through
 * `app.inject`; it counts the answers by HTTP status and code, prints each kind of failure's body once, and the most
 * locks pg_locks showed meanwhile (BENCH_LOG=warn: the server's warnings and errors too). Run it on a PostgreSQL server
 * of its own: a lock table run out fails every other database's statements on that server too (h369's figures:
 * docs/operations.md, "Many collections on PostgreSQL").
 *
 *   DATABASE_URL=postgres://… npm run bench -- pg-lock-table
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { installPack } from '../src/vision/clip/clip-pack.ts';
import { solidImage, writeTinyClipPack } from '../test/helpers/tiny-clip.ts';
import { databaseNamed, pgAdmin } from './lib-pg.ts';

const collections = Number(process.env.BENCH_COLLECTIONS ?? 1_000);
const pools = (process.env.BENCH_POOLS ?? '6,10,16,24').split(',').map(Number);
const callsPerRun = Number(process.env.BENCH_CALLS ?? 600);
const name = process.env.BENCH_PG_NAME ?? 'loupe_lock_table';
if (!process.env.DATABASE_URL) throw new Error('pg-lock-table needs DATABASE_URL (a server of its own where it may create a database)');

const admin = pgAdmin;
const databaseUrl = databaseNamed(name);
const settings = (await admin(`SELECT name, setting FROM pg_settings WHERE name IN ('max_locks_per_transaction', 'max_connections', 'max_prepared_transactions', 'autovacuum_max_workers', 'max_worker_processes', 'max_wal_senders')`)).rows as { name: string; setting: string }[];
console.log(`server: ${settings.map((s) => `${s.name} ${s.setting}`).join(', ')}; load ${os.loadavg()[0]!.toFixed(1)}`);

const dirs = [fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-locks-clip-')), fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-locks-pack-')), fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-locks-data-'))];
const clipPack = (await installPack(await writeTinyClipPack(dirs[0]!), dirs[1]!, { name: 'tiny' })).dir;
const app = async (pool: number) =>
  buildApp(loadConfig({}, { dataDir: dirs[2]!, databaseUrl, pgPoolSize: pool, logLevel: (process.env.BENCH_LOG ?? 'silent') as 'silent', rateLimit: { perSecond: 0, burst: 0 }, seen: [], vision: { threads: 1, maxQueue: 256, taskTimeoutMs: 30_000, warm: [], embedder: '', clipPack } }));
const png = async (i: number) => {
  const img = solidImage([(i * 37) % 256, (i * 91) % 256, (i * 53) % 256]);
  return (await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).png().toBuffer()).toString('base64');
};
const images = await Promise.all(Array.from({ length: 16 }, (_, i) => png(i)));

await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
await admin(`CREATE DATABASE ${name}`);
let server = await app(6);
const { account, token } = await server.loupe.accounts.createAccount({ name: 'locks', credits: 1e9 });
const ids: string[] = [];
let t = performance.now();
for (let i = 0; i < collections; i++) {
  const { id } = await server.loupe.collections.create({ accountId: account, type: 'photo', name: `c${i}` });
  const res = await server.inject({ method: 'POST', url: '/similarity/photos/v2/insert', headers: { authorization: `Token ${token}`, 'collection-id': id, 'content-type': 'application/json' }, payload: JSON.stringify({ records: [0, 1, 2].map((j) => ({ _id: `r${j}`, _base64: images[(i + j) % images.length], color: `c${j}` })) }) });
  if (res.statusCode >= 300) throw new Error(`insert into collection ${i}: ${res.statusCode} ${res.body}`);
  ids.push(id);
}
const indexes = (await admin(`SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'collection_records' AND indexdef ILIKE '%USING hnsw%'`, databaseUrl)).rows[0].n as number;
console.log(`${collections} collections of 3 records made through the API in ${((performance.now() - t) / 1000).toFixed(0)} s: ${indexes} HNSW indexes on collection_records`);
await server.close();

/** A connection in a transaction whose one statement on collection_records holds its locks: another process's statement. */
const holder = async (): Promise<pg.Client> => {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query('BEGIN');
  try {
    await c.query(`SELECT count(*) FROM collection_records WHERE collection_id = $1`, [ids[0]]);
  } catch (err) {
    await c.end();
    throw err;
  }
  return c;
};
// how many such statements at once the lock table takes on this server
const held: pg.Client[] = [];
let refusal = '';
while (held.length < 90) {
  try {
    held.push(await holder());
  } catch (err) {
    refusal = `${(err as { code?: string }).code} ${(err as Error).message} (hint: ${(err as { hint?: string }).hint})`;
    break;
  }
}
const locksThen = (await admin(`SELECT count(*)::int AS n, count(*) FILTER (WHERE fastpath)::int AS fast FROM pg_locks`)).rows[0] as { n: number; fast: number };
console.log(`statements held at once (each in its transaction): ${held.length} took, the next ${refusal ? `refused: ${refusal}` : 'took too'}; pg_locks then ${locksThen.n} (${locksThen.fast} fast-path)`);
const limit = held.length;
await Promise.all(held.splice(0).map((c) => c.end()));

const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
await watcher.connect();
const holds = (process.env.BENCH_HOLDS ?? `0,${Math.max(0, limit - 4)}`).split(',').map(Number);
const runs = pools.flatMap((pool) => holds.map((hold) => ({ pool, hold })));
for (const { pool, hold } of runs) {
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 2 * pool);
  // other processes' statements under way meanwhile (a second node, a worker)
  for (let i = 0; i < hold; i++) held.push(await holder());
  server = await app(pool);
  const answers = new Map<string, number>();
  const bodies = new Map<string, string>();
  let peak = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const r = await watcher.query(`SELECT count(*)::int AS n FROM pg_locks`).catch(() => ({ rows: [{ n: -1 }] }));
      peak = Math.max(peak, r.rows[0].n as number);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let next = 0;
  t = performance.now();
  const worker = async () => {
    while (next < callsPerRun) {
      const n = next++;
      const id = ids[n % ids.length]!;
      const kind = (['find', 'visualKNN', 'insert'] as const)[n % 3]!;
      const body = kind === 'find' ? { filter: { color: 'c1' }, limit: 10 } : kind === 'visualKNN' ? { query_record: { _id: 'r0' }, k: 3 } : { records: [{ _id: `n${pool}-${hold}-${n}`, _base64: images[n % images.length], color: 'c9' }] };
      const res = await server.inject({ method: 'POST', url: `/similarity/photos/v2/${kind}`, headers: { authorization: `Token ${token}`, 'collection-id': id, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      const code = (res.json() as { code?: string; status?: { code?: number } }).code ?? '';
      const key = `${kind} ${res.statusCode}${code ? ` ${code}` : ''}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
      if (res.statusCode >= 300 && !bodies.has(`${res.statusCode} ${code}`)) bodies.set(`${res.statusCode} ${code}`, `${JSON.stringify(res.headers['retry-after'] ?? null)} ${res.body.slice(0, 400)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const s = (performance.now() - t) / 1000;
  watching = false;
  await watch;
  await Promise.all(held.splice(0).map((c) => c.end()));
  console.log(`\npool ${pool}, ${hold} other statements held, ${concurrency} calls at once, ${callsPerRun} calls in ${s.toFixed(1)} s (load ${os.loadavg()[0]!.toFixed(1)}): most locks in pg_locks ${peak}`);
  for (const [k, v] of [...answers].sort()) console.log(`  ${k}: ${v}`);
  for (const [k, v] of bodies) console.log(`  body of ${k} (Retry-After ${v}`);
  await server.close();
}
await watcher.end();
await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
