/**
 * `npm run bench -- start-up`: how long a restart keeps a shop waiting. A data folder with one photo collection of
 * BENCH_RECORDS (30,000) records (1792-d synthetic vectors, visual hashes; its index built and saved, as a server that
 * took them one by one leaves it), then the server started on it BENCH_RUNS (3) times and timed from the spawn: to the
 * first `GET /health` answered, and to the first visualKNN answered 200. Also the slowest /health answered between
 * the two (the event loop held by the index load).
 *
 *   BENCH_DIR=<folder>        builds the folder there once and reuses it on later runs (else a temporary one, removed)
 *   BENCH_SERVERS=a.ts,b.ts   server entry points run in turn, run by run (a release before a change beside it)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CollectionStore } from '../src/store/collection-store.ts';
import { openStore } from '../src/store/database.ts';
import { buildVectorIndex } from './lib-bulk-index.ts';
import { synthetic, unit } from './lib-synthetic.ts';
import { loupeCli, randomPort } from '../test/helpers/processes.ts';
import { median } from './lib-server.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 30_000);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const D = 1792;
const servers = (process.env.BENCH_SERVERS ?? path.resolve(import.meta.dirname, '../src/server.ts')).split(',');
const dataDir = process.env.BENCH_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-start-'));
const env = { ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_VISION_WARM: 'none', LOUPE_VISION_THREADS: '1' };
const made = path.join(dataDir, 'start-up-bench.json');

if (!fs.existsSync(made)) {
  const account = await loupeCli(env, 'account', 'create', '--name', 'start', '--credits', '1000000');
  const collection = (await loupeCli(env, 'collection', 'create', '--account', account.account!, '--type', 'custom', '--name', 'shop', '--capacity', String(RECORDS + 1000))).collection_id!;
  const store = await openStore({ dataDir, warn: () => {} });
  const cs = new CollectionStore(store);
  const { rand, gauss } = synthetic(20261208);
  const clusters = Math.max(1, Math.round(RECORDS / 100));
  const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: D }, gauss)));
  const t = performance.now();
  for (let b = 0; b < RECORDS; b += 500) {
    const rows = Array.from({ length: Math.min(500, RECORDS - b) }, (_, j) => {
      const i = b + j;
      const c = i % clusters;
      const hash = Array.from({ length: 256 }, () => (rand() < 0.5 ? '1' : '0')).join('');
      return { recordId: `r${i}`, data: { _id: `r${i}`, sku: `SKU-${i}`, category: `c${i % 20}`, in_stock: rand() < 0.7 }, vector: unit(Float32Array.from({ length: D }, (_, d) => centres[c]![d]! + gauss() / Math.sqrt(D))), hash };
    });
    await cs.insert(collection, rows, 'bench-1792');
  }
  await buildVectorIndex(store, cs, 'sqlite', collection, D, dataDir);
  await store.close();
  fs.writeFileSync(made, JSON.stringify({ token: account.token, collection, records: RECORDS }));
  console.log(`data folder ${dataDir}: ${RECORDS} records, filled and indexed in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}
const { token, collection, records } = JSON.parse(fs.readFileSync(made, 'utf8')) as { token: string; collection: string; records: number };

/** One start: ms from the spawn to the first /health, to the first visualKNN answered, and the slowest /health between. */
async function start(server: string): Promise<{ health: number; knn: number; stall: number }> {
  const port = randomPort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', server], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'inherit', 'inherit'] });
  let code: number | null | undefined;
  const exited = new Promise((resolve) => child.on('exit', (c) => resolve((code = c))));
  try {
    let health = 0;
    let knn = 0;
    let stall = 0;
    const healthLoop = (async () => {
      while (!knn) {
        const t = performance.now();
        const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
        if (ok && !health) health = performance.now() - t0;
        else if (ok) stall = Math.max(stall, performance.now() - t);
        await new Promise((r) => setTimeout(r, ok ? 2 : 10));
      }
    })();
    while (!knn) {
      if (code !== undefined) throw new Error(`server exited ${code}`);
      if (performance.now() - t0 > 180_000) throw new Error(`no visualKNN answer within 3 minutes (/health ${health ? 'answered' : 'never answered'})`);
      const res = await fetch(`${url}/similarity/custom/v2/visualKNN`, { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/json', 'collection-id': collection }, body: JSON.stringify({ query_record: { _id: 'r7' }, k: 10 }) }).catch(() => undefined);
      if (res?.ok) {
        const body = (await res.json()) as { answer_records: { _id: string }[] };
        if (body.answer_records[0]?._id !== 'r7') throw new Error(`visualKNN answered ${JSON.stringify(body).slice(0, 200)}`);
        knn = performance.now() - t0;
      } else {
        if (res) console.log(`visualKNN ${res.status} at ${(performance.now() - t0).toFixed(0)} ms: ${(await res.text()).slice(0, 200)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await healthLoop;
    return { health, knn, stall };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const results = new Map<string, { health: number; knn: number; stall: number }[]>(servers.map((s) => [s, []]));
for (let i = 0; i < runs; i++) {
  for (const server of servers) {
    const r = await start(server);
    results.get(server)!.push(r);
    console.log(`${server} run ${i + 1}: /health ${r.health.toFixed(0)} ms, first visualKNN ${r.knn.toFixed(0)} ms, slowest /health between ${r.stall.toFixed(0)} ms`);
  }
}
console.log(`\n${records.toLocaleString('en')} records, median of ${runs} (ms from the spawn)\n\n| server | first /health | first visualKNN | slowest /health between |\n|---|---|---|---|`);
for (const [server, rs] of results) console.log(`| ${server} | ${median(rs.map((r) => r.health)).toFixed(0)} | ${median(rs.map((r) => r.knn)).toFixed(0)} | ${median(rs.map((r) => r.stall)).toFixed(0)} |`);
if (!process.env.BENCH_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
