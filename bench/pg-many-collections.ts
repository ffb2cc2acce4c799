/**
 * `npm run bench -- pg-many-collections`: whether the other collections' partial HNSW indexes on `collection_records`
 * (one each, `pgIndexDdl`) slow a collection's queries on PostgreSQL. The planner opens, locks and tests the predicate
 * of every index of the table for each statement, and an insert's executor opens every one.
 *
 * A database of its own (BENCH_PG_NAME, default `loupe_many_collections`, dropped at the end): one collection of
 * BENCH_N (5,000) records of 1792-d through `CollectionStore.insert`, then other collections of three records each,
 * added up to each count of BENCH_COUNTS (0,50,200,1000), each with its HNSW index as the first insert makes it. At
 * each count, on the big collection: the planning and execution time of each statement (`EXPLAIN (ANALYZE, SUMMARY)`),
 * the whole call through the store and PgCollectionQueries (a pool with the server's prepared statements), the locks
 * one statement takes, and a new connection's first query and its cache memory. Last, the other collections' indexes
 * dropped (their records kept): the same figures at 0 indexes again, so drift over the run shows.
 *
 *   DATABASE_URL=postgres://… npm run bench -- pg-many-collections
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { AccountStore } from '../src/store/account-store.ts';
import { CollectionStore, pgIndexName, type CollectionRecord } from '../src/store/collection-store.ts';
import { openStore } from '../src/store/database.ts';
import { filterToSql } from '../src/store/filters/pg-filter.ts';
import { pgVector } from '../src/store/pg-vector.ts';
import { PgCollectionQueries } from '../src/index/pg-collection-queries.ts';
import { buildVectorIndex, dropVectorIndexForBulkLoad } from './lib-bulk-index.ts';
import { pgAdmin } from './lib-pg.ts';
import { median } from './lib-server.ts';
import { synthetic, unit } from './lib-synthetic.ts';

const RECORDS = Number(process.env.BENCH_N ?? 5_000);
const D = 1792;
const counts = (process.env.BENCH_COUNTS ?? '0,50,200,500,1000').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 40);
const name = process.env.BENCH_PG_NAME ?? 'loupe_many_collections';
if (!process.env.DATABASE_URL) throw new Error('pg-many-collections needs DATABASE_URL (a server where it may create a database)');

const admin = (statement: string) => pgAdmin(statement);
const u = new URL(process.env.DATABASE_URL);
u.pathname = `/${name}`;
const databaseUrl = u.toString();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-many-'));
const { rand, gauss } = synthetic(20261208);
const vector = () => unit(Float32Array.from({ length: D }, gauss));
const record = (i: number) => ({ recordId: `r${i}`, data: { _id: `r${i}`, category: `c${i % 20}`, price: Math.round(rand() * 50_000) / 100 }, vector: vector() });

await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
await admin(`CREATE DATABASE ${name}`);
const store = await openStore({ dataDir, databaseUrl, warn: () => {} });
const cs = new CollectionStore(store);
const queries = new PgCollectionQueries(store);
const accountId = randomUUID();
await new AccountStore(store).createAccount({ id: accountId, name: 'many', credits: 1e9, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
const collection = async (capacity: number) => (await cs.create({ id: randomUUID(), accountId, type: 'photo', name: 'c', productField: null, capacity })).id;

const bigId = await collection(RECORDS * 2);
let t = performance.now();
for (let b = 0; b < RECORDS; b += 500) {
  await cs.insert(bigId, Array.from({ length: Math.min(500, RECORDS - b) }, (_, j) => record(b + j)), 'bench-1792');
  if (b === 0) await dropVectorIndexForBulkLoad(store, 'postgres', bigId);
}
await buildVectorIndex(store, cs, 'postgres', bigId, D, dataDir);
await sql`ANALYZE`.execute(store.db);
console.log(`filled ${RECORDS} records and built the index in ${((performance.now() - t) / 1000).toFixed(0)} s`);

const big = (): Promise<CollectionRecord> => cs.get(bigId).then((c) => c!);
const probe = (await cs.getByIds(bigId, ['r17']))[0]!;
const probeVector = (await queries.lookup(await big(), 'r17'))!.vector;
const filter = { category: 'c3' };
const own = sql`collection_id = ${sql.lit(bigId)}`;
const dims = sql.raw(String(D));

/** The statements the calls below send (the same text, the same parameters), for EXPLAIN. */
const statements = {
  get: sql`SELECT key, record_id, data, seq FROM collection_records WHERE collection_id = ${bigId} AND record_id IN (${probe.recordId})`,
  find: sql`SELECT key, record_id, data FROM collection_records WHERE ${own} AND (${filterToSql(filter)}) ORDER BY key LIMIT ${10} OFFSET ${0}`,
  count: sql`SELECT count(*) AS n FROM collection_records WHERE ${own}`,
  knn: sql`WITH hits AS MATERIALIZED (SELECT key, (embedding::vector(${dims})) <=> ${pgVector(probeVector)}::vector(${dims}) AS distance FROM collection_records WHERE ${own} ORDER BY distance LIMIT ${61})
    , kept AS (SELECT key, distance FROM hits ORDER BY distance, key LIMIT ${30})
    SELECT r.key, r.record_id, r.data, kept.distance FROM kept JOIN collection_records r ON r.key = kept.key ORDER BY kept.distance, kept.key`,
  // a vector of its own (rolled back): inserts of the probe's vector again and again would crowd its neighbourhood
  insert: sql`INSERT INTO collection_records (collection_id, record_id, data, seq, created_at, updated_at, embedding) VALUES (${bigId}, ${'explain-insert'}, ${'{}'}, ${0}, ${new Date().toISOString()}, ${new Date().toISOString()}, ${pgVector(vector())}) RETURNING key`,
};
const knnSettings = `SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off; SET hnsw.ef_search = 256; SET hnsw.iterative_scan = relaxed_order; SET hnsw.max_scan_tuples = 20000`;

async function explainTimes(client: pg.Client, which: keyof typeof statements, table = 'collection_records'): Promise<{ plan: number; exec: number }> {
  const compiled = statements[which].compile(store.db);
  const parameters = compiled.parameters;
  // the partitioned copy: the knn's join to the records names the collection too, so it reads one partition
  const text = table === 'collection_records' ? compiled.sql : compiled.sql.replaceAll('collection_records', table).replace('ON r.key = kept.key', `ON r.key = kept.key AND r.collection_id = '${bigId}'`);
  await client.query('BEGIN');
  if (which === 'knn') await client.query(knnSettings);
  const res = await client.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${text}`, parameters as unknown[]);
  await client.query('ROLLBACK');
  const out = (res.rows[0] as { 'QUERY PLAN': { 'Planning Time': number; 'Execution Time': number }[] })['QUERY PLAN'][0]!;
  return { plan: out['Planning Time'], exec: out['Execution Time'] };
}

let inserted = 0;
// fresh vectors, made before the clock starts: the same vector inserted again and again made the knn's neighbourhood
// a crowd of duplicates, and its search and the inserts ever faster
const newVector = () => vector();
let nextVector = newVector();
const calls: Record<string, () => Promise<unknown>> = {
  get: () => cs.getByIds(bigId, [probe.recordId]),
  find: async () => queries.find(await big(), filter, 10, 0),
  count: async () => queries.count(await big()),
  knn: async () => queries.knn(await big(), probeVector, 30),
  insert: () => cs.insert(bigId, [{ recordId: `new${inserted++}`, data: { _id: `new${inserted}` }, vector: nextVector }], 'bench-1792'),
};

async function measure(label: string): Promise<void> {
  const load = os.loadavg()[0]!.toFixed(1);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const plan: Record<string, number[]> = {};
  const exec: Record<string, number[]> = {};
  const call: Record<string, number[]> = {};
  for (let r = 0; r < rounds + 3; r++) {
    // the actions in turn, so each sees the same moments of a noisy machine; the first rounds warm caches
    for (const which of Object.keys(statements) as (keyof typeof statements)[]) {
      const e = await explainTimes(client, which);
      const s = performance.now();
      await calls[which]!();
      const ms = performance.now() - s;
      if (which === 'insert') nextVector = newVector();
      if (r < 3) continue;
      (plan[which] ??= []).push(e.plan);
      (exec[which] ??= []).push(e.exec);
      (call[which] ??= []).push(ms);
    }
  }
  // the locks one statement holds to its transaction's end
  await client.query('BEGIN');
  await client.query(statements.count.compile(store.db).sql);
  const locks = (await client.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE fastpath)::int AS fast FROM pg_locks WHERE pid = pg_backend_pid()`)).rows[0] as { n: number; fast: number };
  await client.query('ROLLBACK');
  await client.end();
  // a new connection: its first statement on the table builds the relcache entries of every index
  const fresh: { first: number; second: number; cacheBefore: number; cacheAfter: number; backend: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    const cache = async () => Number((await c.query(`SELECT sum(total_bytes)::bigint AS b FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext' OR parent = 'CacheMemoryContext'`)).rows[0].b);
    const cacheBefore = await cache();
    let s = performance.now();
    await c.query(`SELECT key FROM collection_records WHERE collection_id = '${bigId}' AND record_id = 'r1'`);
    const first = performance.now() - s;
    s = performance.now();
    await c.query(`SELECT key FROM collection_records WHERE collection_id = '${bigId}' AND record_id = 'r2'`);
    const second = performance.now() - s;
    const cacheAfter = await cache();
    const backend = Number((await c.query(`SELECT sum(total_bytes)::bigint AS b FROM pg_backend_memory_contexts`)).rows[0].b);
    await c.end();
    fresh.push({ first, second, cacheBefore, cacheAfter, backend });
  }
  const m = (xs: number[]) => median(xs).toFixed(2);
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  console.log(`\n${label} (load ${load}, ${rounds} rounds)`);
  console.log('action\tplanning ms\texecution ms\twhole call ms');
  for (const which of Object.keys(statements)) console.log(`${which}\t${m(plan[which]!)}\t${m(exec[which]!)}\t${m(call[which]!)}`);
  console.log(`locks of one count statement: ${locks.n} (${locks.fast} fast-path)`);
  console.log(
    `new connection: first statement ${m(fresh.map((f) => f.first))} ms, second ${m(fresh.map((f) => f.second))} ms; cache memory ${mb(median(fresh.map((f) => f.cacheBefore)))} → ${mb(median(fresh.map((f) => f.cacheAfter)))} MB, backend contexts ${mb(median(fresh.map((f) => f.backend)))} MB`,
  );
}

const others: string[] = [];
for (const n of counts) {
  t = performance.now();
  while (others.length < n) {
    const id = await collection(10);
    await cs.insert(id, [0, 1, 2].map((i) => record(RECORDS + others.length * 3 + i)), 'bench-1792');
    others.push(id);
  }
  if (n) await sql`ANALYZE collection_records`.execute(store.db);
  console.log(`${n} other collections (made in ${((performance.now() - t) / 1000).toFixed(0)} s)`);
  await measure(`${n} other collections, ${n + 1} HNSW indexes`);
}
/**
 * A copy of the records in a table partitioned by collection (one partition each, its own plain HNSW index and the
 * table's other indexes), as a remedy would have them: the same statements' planning and execution, EXPLAIN only.
 */
async function partitioned(): Promise<void> {
  const t0 = performance.now();
  await sql.raw(`CREATE TABLE cr_part (LIKE collection_records INCLUDING DEFAULTS) PARTITION BY LIST (collection_id)`).execute(store.db);
  for (const ix of ['(collection_id, record_id)', '(collection_id, seq)', '(collection_id, key)', 'USING gin (data_b jsonb_path_ops) WITH (fastupdate = off)', 'USING gin (loupe_hash_bands(hash))']) {
    await sql.raw(`CREATE INDEX ON cr_part ${ix}`).execute(store.db);
  }
  for (const [i, id] of [bigId, ...others].entries()) {
    await sql.raw(`CREATE TABLE cr_part_${i} PARTITION OF cr_part FOR VALUES IN ('${id}')`).execute(store.db);
    await sql.raw(`INSERT INTO cr_part_${i} SELECT * FROM collection_records WHERE collection_id = '${id}'`).execute(store.db);
    await sql.raw(`CREATE INDEX ON cr_part_${i} USING hnsw ((embedding::vector(${D})) vector_cosine_ops)`).execute(store.db);
  }
  await sql`ANALYZE cr_part`.execute(store.db);
  console.log(`\npartitioned copy: ${others.length + 1} partitions, made in ${((performance.now() - t0) / 1000).toFixed(0)} s (load ${os.loadavg()[0]!.toFixed(1)}, ${rounds} rounds)`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const plan: Record<string, number[]> = {};
  const exec: Record<string, number[]> = {};
  for (let r = 0; r < rounds + 3; r++) {
    for (const which of Object.keys(statements) as (keyof typeof statements)[]) {
      for (const table of ['collection_records', 'cr_part']) {
        const e = await explainTimes(client, which, table);
        if (r < 3) continue;
        (plan[`${which} ${table}`] ??= []).push(e.plan);
        (exec[`${which} ${table}`] ??= []).push(e.exec);
      }
    }
  }
  await client.end();
  console.log('action\ttable\tplanning ms\texecution ms');
  for (const k of Object.keys(plan)) console.log(`${k.replace(' ', '\t')}\t${median(plan[k]!).toFixed(2)}\t${median(exec[k]!).toFixed(2)}`);
}
if (others.length && process.env.BENCH_PARTITIONED !== '0') await partitioned();

if (others.length) {
  for (const id of others) await sql.raw(`DROP INDEX IF EXISTS ${pgIndexName(id)}`).execute(store.db);
  await measure(`${others.length} other collections, their indexes dropped (1 HNSW index)`);
}

await store.close();
await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
fs.rmSync(dataDir, { recursive: true, force: true });
