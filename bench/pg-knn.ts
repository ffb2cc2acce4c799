/**
 * `npm run bench -- pg-knn`: PostgreSQL's visualKNN and nearDuplicates at year-of-data's quarter scale (25,000 records
 * of 1792-d vectors through `CollectionStore.insert`, a category of 20, visual hashes, text rows), timed over HTTP.
 *
 * The database is filled once and kept (BENCH_PG_NAME, default `loupe_pg_knn`, with its data folder and account in
 * BENCH_DATA, default /tmp/loupe-pg-knn): a later run finds both and starts at once. BENCH_DROP=1 drops them at the end.
 * With BENCH_BEFORE=<an older checkout> that checkout's server is started on the same database too, and the two are
 * asked in turn, query after query, so both see the same moment of a noisy machine; every answer of the two is
 * compared (keys, distances as shown, order).
 *
 *   DATABASE_URL=postgres://… npm run bench -- pg-knn
 *   BENCH_BEFORE=/tmp/old-checkout BENCH_ROUNDS=40 DATABASE_URL=postgres://… npm run bench -- pg-knn
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { CollectionStore } from '../src/store/collection-store.ts';
import { openStore } from '../src/store/database.ts';
import { buildVectorIndex, dropVectorIndexForBulkLoad } from './lib-bulk-index.ts';
import { databaseNamed, pgAdmin } from './lib-pg.ts';
import { median } from './lib-server.ts';
import { shopData } from './lib-shop-records.ts';
import { synthetic } from './lib-synthetic.ts';
import { loupeCli, randomPort } from '../test/helpers/processes.ts';

const RECORDS = Number(process.env.BENCH_N ?? 25_000);
const D = 1792;
const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
const name = process.env.BENCH_PG_NAME ?? 'loupe_pg_knn';
const dataDir = process.env.BENCH_DATA ?? '/tmp/loupe-pg-knn';
const here = path.resolve(import.meta.dirname, '..');
const before = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
if (!process.env.DATABASE_URL) throw new Error('pg-knn needs DATABASE_URL (a server where it may create a database)');

const admin = (statement: string) => pgAdmin(statement);
const databaseUrl = databaseNamed(name);
const env = { ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_VISION_WARM: 'none', LOUPE_VISION_THREADS: '1' };

// year-of-data's records (its generator, its seed): clusters of 100, a category of 20, hashes near their cluster's
const record = shopData(20261207).clustered(RECORDS, D);

const stateFile = path.join(dataDir, 'pg-knn.json');
interface State {
  token: string;
  collection: string;
}
async function fill(): Promise<State> {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const account = await loupeCli(env, 'account', 'create', '--name', 'pg-knn', '--credits', '100000000');
  const collection = (await loupeCli(env, 'collection', 'create', '--account', account.account!, '--type', 'photo', '--name', 'shop', '--capacity', String(RECORDS + 1000))).collection_id!;
  const store = await openStore({ dataDir, databaseUrl, warn: () => {} });
  const cs = new CollectionStore(store);
  const t = performance.now();
  for (let b = 0; b < RECORDS; b += 500) {
    await cs.insert(collection, Array.from({ length: Math.min(500, RECORDS - b) }, (_, j) => record(b + j)), 'bench-1792');
    if (b === 0) await dropVectorIndexForBulkLoad(store, 'postgres', collection);
  }
  await buildVectorIndex(store, cs, 'postgres', collection, D, dataDir);
  await store.close();
  await admin(`ANALYZE`);
  console.log(`filled ${RECORDS} records and built the index in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  const state = { token: account.token!, collection };
  fs.writeFileSync(stateFile, JSON.stringify(state));
  return state;
}

const exists = (await admin(`SELECT 1 FROM pg_database WHERE datname = '${name}'`)).rowCount === 1;
const state: State = exists && fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as State) : await fill();
if (process.env.BENCH_ONLY === 'fill') process.exit(0);

interface Server {
  root: string;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}
async function startFrom(root: string, folder: string): Promise<Server> {
  const port = randomPort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/server.ts')], { cwd: root, env: { ...env, LOUPE_DATA_DIR: folder, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'inherit', 'inherit'] });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 180_000; Date.now() < until; ) {
    if (code !== undefined) throw new Error(`server (${root}) exited ${code}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return { root, url, child, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server (${root}) did not start`);
}

const servers: Server[] = [];
if (before) {
  // its own data folder (a copy: the database holds the data), so the two servers hold no file of the other's
  fs.cpSync(dataDir, `${dataDir}-before`, { recursive: true });
  servers.push(await startFrom(before, `${dataDir}-before`));
}
servers.push(await startFrom(here, dataDir));
const headers = { authorization: `Token ${state.token}`, 'content-type': 'application/json', 'collection-id': state.collection };
/** The answer as a client reads it (records by `_id` in order, their distances as shown), less the request's timings and ids. */
async function ask(s: Server, p: string, body: unknown): Promise<{ ms: number; answer: string }> {
  const t = performance.now();
  const res = await fetch(`${s.url}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  const ms = performance.now() - t;
  if (!res.ok) throw new Error(`${p}: ${res.status} ${text.slice(0, 300)}`);
  // what differs between two servers' answers of one question: the timings, the request's ids
  const { statistics: _s, status, ...rest } = JSON.parse(text) as { status: Record<string, unknown>; statistics: unknown };
  const { request_id: _r, proc_id: _p, ...same } = status;
  return { ms, answer: JSON.stringify({ status: same, ...rest }) };
}

const sim = '/similarity/photos/v2';
const actions: { label: string; run: (s: Server, i: number) => Promise<{ ms: number; answer: string }> }[] = [
  { label: 'visualKNN by _id, k 30', run: (s, i) => ask(s, `${sim}/visualKNN`, { query_record: { _id: `r${i}` }, k: 30 }) },
  { label: 'visualKNN by _id, k 30, category filter (5 %)', run: (s, i) => ask(s, `${sim}/visualKNN`, { query_record: { _id: `r${i}` }, k: 30, filter: { category: 'c3' } }) },
  { label: 'visualKNN by _id, k 30, in_stock filter (70 %)', run: (s, i) => ask(s, `${sim}/visualKNN`, { query_record: { _id: `r${i}` }, k: 30, filter: { in_stock: true } }) },
  { label: 'nearDuplicates by _id', run: (s, i) => ask(s, `${sim}/nearDuplicates`, { query_record: { _id: `r${i}` } }) },
];
const { rand: draw } = synthetic(366);
const ids = Array.from({ length: rounds }, () => Math.floor(draw() * RECORDS));
const times = actions.map(() => servers.map(() => [] as number[]));
let differ = 0;
try {
  // a warm-up round: the first search of each server reads the index's pages into the cache
  for (const a of actions) for (const s of servers) await a.run(s, 0);
  for (const [round, i] of ids.entries()) {
    for (const [ai, a] of actions.entries()) {
      const order = round % 2 ? [...servers.keys()].reverse() : [...servers.keys()];
      const answers: string[] = [];
      for (const si of order) {
        const r = await a.run(servers[si]!, i);
        times[ai]![si]!.push(r.ms);
        answers[si] = r.answer;
      }
      if (answers.length > 1 && answers[0] !== answers[1]) {
        differ++;
        if (differ <= 3) console.log(`differs: ${a.label}, r${i}\n  before ${answers[0]!.slice(0, 400)}\n  after  ${answers[1]!.slice(0, 400)}`);
      }
    }
  }
} finally {
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  if (before) fs.rmSync(`${dataDir}-before`, { recursive: true, force: true });
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
console.log(`\n${RECORDS.toLocaleString('en')} records × ${D}-d, ${rounds} rounds, median ms${before ? ` (${before} / this checkout, asked in turn)` : ''}\n`);
console.log(before ? '| action | before | after |\n|---|---|---|' : '| action | ms |\n|---|---|');
for (const [ai, a] of actions.entries()) console.log(`| ${a.label} | ${times[ai]!.map((t) => fmt(median(t))).join(' | ')} |`);
if (before) console.log(`\nanswers that differ: ${differ} of ${rounds * actions.length}`);

/**
 * BENCH_STATEMENTS=1: the k-NN statement as it was before h366 (the ORDER BY written out again with the query vector as
 * a second text parameter) and as it is (ORDER BY the output column, one binary parameter), in turn over the same
 * BENCH_QUERIES records, unfiltered (the HNSW index, ef 256) and with the category of 5 % (the exact path); then the
 * current one run twice in a row, the second with every page it read in shared buffers, with the blocks the first read
 * from outside them (EXPLAIN ANALYZE BUFFERS).
 */
async function statements(): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const n = Number(process.env.BENCH_QUERIES ?? 100);
  const { rand: pickQ } = synthetic(3066);
  const keys = Array.from({ length: n }, () => `r${Math.floor(pickQ() * RECORDS)}`);
  const vectors: { text: string; binary: Buffer }[] = [];
  for (const id of keys) vectors.push((await db.query<{ text: string; binary: Buffer }>(`SELECT embedding::text AS text, vector_send(embedding) AS binary FROM collection_records WHERE collection_id = $1 AND record_id = $2`, [state.collection, id])).rows[0]!);
  const where = (filtered: boolean) => `collection_id = '${state.collection}'${filtered ? ` AND data_b @? '$."category" ? (@ == "c3")'` : ''}`;
  const page = `), kept AS (SELECT key, distance FROM hits ORDER BY distance, key LIMIT 31)
    SELECT r.key, r.record_id, r.data, kept.distance FROM kept JOIN collection_records r ON r.key = kept.key ORDER BY kept.distance, kept.key`;
  const forms = {
    before: (f: boolean) => `WITH hits AS MATERIALIZED (SELECT key, (embedding::vector(${D})) <=> $1::vector(${D}) AS distance FROM collection_records WHERE ${where(f)} ORDER BY (embedding::vector(${D})) <=> $2::vector(${D}) LIMIT 82 ${page}`,
    after: (f: boolean) => `WITH hits AS MATERIALIZED (SELECT key, (embedding::vector(${D})) <=> $1::vector(${D}) AS distance FROM collection_records WHERE ${where(f)} ORDER BY distance LIMIT 82 ${page}`,
  };
  const settings = (f: boolean) =>
    f
      ? `SELECT set_config('enable_indexscan', 'off', true), set_config('cpu_tuple_cost', '0.2', true), set_config('plan_cache_mode', 'force_custom_plan', true)`
      : `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('hnsw.ef_search', '256', true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.max_scan_tuples', '20000', true)`;
  const once = async (text: string, values: unknown[], f: boolean, name?: string) => {
    await db.query('BEGIN');
    await db.query(settings(f));
    const t = performance.now();
    const rows = (await db.query<Record<string, unknown>>(name ? { name, text, values } : { text, values })).rows;
    const ms = performance.now() - t;
    await db.query('COMMIT');
    return { ms, rows };
  };
  console.log(`\n| statement (${n} records' vectors) | before | after | same answers |\n|---|---|---|---|`);
  for (const f of [false, true]) {
    const ms = { before: [] as number[], after: [] as number[] };
    let same = 0;
    for (const [i, v] of vectors.entries()) {
      const got: Record<string, string> = {};
      for (const form of i % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
        const r = await once(forms[form](f), form === 'before' ? [v.text, v.text] : [v.binary], f, `${form}${f}`);
        ms[form].push(r.ms);
        got[form] = JSON.stringify(r.rows.map((x) => [x.key, x.distance]));
      }
      if (got.before === got.after) same++;
    }
    console.log(`| ${f ? 'category 5 % (exact, 1,250 vectors)' : 'unfiltered (HNSW, ef 256)'} | ${fmt(median(ms.before))} | ${fmt(median(ms.after))} | ${same} of ${n} |`);
  }
  const first: number[] = [];
  const again: number[] = [];
  const reads: number[] = [];
  for (const v of vectors) {
    for (const list of [first, again]) {
      const r = await once(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${forms.after(false).replace('$1', `'${v.text}'`)}`, [], false);
      const plan = (r.rows[0]!['QUERY PLAN'] as { 'Execution Time': number; Plan: { 'Shared Read Blocks': number; 'Shared Hit Blocks': number } }[])[0]!;
      list.push(plan['Execution Time']);
      if (list === first) reads.push(plan.Plan['Shared Read Blocks'] / (plan.Plan['Shared Read Blocks'] + plan.Plan['Shared Hit Blocks']));
    }
  }
  console.log(`\nunfiltered, executor time: ${fmt(median(first))} ms (a median ${(median(reads) * 100).toFixed(0)} % of its blocks read from outside shared buffers), the same search again ${fmt(median(again))} ms`);
  await db.end();
}
if (process.env.BENCH_STATEMENTS === '1') await statements();

/**
 * BENCH_EF=40,…,256: the unfiltered k-NN statement as the server sends it (k 30 asks for 31, 82 candidates) at each
 * `hnsw.ef_search`, against the exact top 31 (index scans off): recall@30, answers identical to the exact ones (keys
 * and distances), median ms over the same BENCH_QUERIES (100) records. The planner took the exact plan for itself at
 * ef 128 and below (its estimate of the HNSW scan rises as ef falls, and 25,000 distances cost it little), 156 ms
 * here, so `cpu_operator_cost` is raised for these statements to keep them on the index.
 */
if (process.env.BENCH_EF) {
  const efs = process.env.BENCH_EF.split(',').map(Number);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const n = Number(process.env.BENCH_QUERIES ?? 100);
  const vectors = (await db.query<{ v: Buffer }>(`SELECT vector_send(embedding) AS v FROM collection_records WHERE collection_id = $1 ORDER BY key LIMIT $2`, [state.collection, n])).rows.map((r) => r.v);
  const knn = `SELECT key, (embedding::vector(${D})) <=> $1::vector(${D}) AS distance FROM collection_records WHERE collection_id = '${state.collection}' ORDER BY distance LIMIT 82`;
  const run = async (settings: string, v: Buffer) => {
    await db.query('BEGIN');
    await db.query(`SELECT ${settings}`);
    const t = performance.now();
    const rows = (await db.query<{ key: string; distance: number }>({ text: knn, values: [v] })).rows;
    const ms = performance.now() - t;
    await db.query('COMMIT');
    return { ms, top: rows.sort((a, b) => a.distance - b.distance || Number(a.key) - Number(b.key)).slice(0, 31).map((r) => `${r.key}:${r.distance}`) };
  };
  const exact = [];
  for (const v of vectors) exact.push((await run(`set_config('enable_indexscan', 'off', true)`, v)).top);
  console.log(`\n| hnsw.ef_search | median ms | recall@30 | identical to exact |\n|---|---|---|---|`);
  for (const ef of efs) {
    const ms: number[] = [];
    let found = 0;
    let same = 0;
    for (const [i, v] of vectors.entries()) {
      const r = await run(`set_config('enable_seqscan', 'off', true), set_config('hnsw.ef_search', '${ef}', true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('cpu_operator_cost', '0.1', true)`, v);
      ms.push(r.ms);
      const truth = new Set(exact[i]!.slice(0, 30).map((x) => x.split(':')[0]));
      found += r.top.slice(0, 30).filter((x) => truth.has(x.split(':')[0])).length;
      if (r.top.join() === exact[i]!.join()) same++;
    }
    console.log(`| ${ef} | ${fmt(median(ms))} | ${(found / (30 * vectors.length)).toFixed(4)} | ${same} of ${vectors.length} |`);
  }
  await db.end();
}
if (process.env.BENCH_DROP === '1') {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
