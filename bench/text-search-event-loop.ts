/**
 * `npm run bench -- text-search-event-loop`: a text search's time on SQLite and how long it holds the server's other
 * requests (the slowest `GET /health` answered while it runs again, as year-of-data's `stall`; the time is taken
 * without that probe). The photo collection of
 * year-of-data alone (its records' words, what its detector saw, category and stock fields; 64-d vectors, as text
 * search reads none), BENCH_RECORDS of them (25,000: year-of-data at a quarter of the scale).
 *
 * With BENCH_BEFORE=<an older checkout> the same folder (a copy) is also served by that checkout's server, and the two
 * are asked in turn, round after round, so both see the same moment of a noisy machine; `same` says both gave every
 * search the same answer (its records, distances and echo, byte for byte; not its ids and timings). Figures are medians of BENCH_RUNS rounds (9).
 *
 *   BENCH_BEFORE=/tmp/old-checkout npm run bench -- text-search-event-loop
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CollectionStore } from '../src/store/collection-store.ts';
import { openStore } from '../src/store/database.ts';
import { buildVectorIndex } from './lib-bulk-index.ts';
import { shopData } from './lib-shop-records.ts';
import { median } from './lib-server.ts';
import { loupeCli, randomPort } from '../test/helpers/processes.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 25_000);
const runs = Number(process.env.BENCH_RUNS ?? 9);
const D = 64;
const here = path.resolve(import.meta.dirname, '..');
const before = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;

// year-of-data's records (its generator, its seed)
const record = shopData(20261207).plain(D);

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startFrom(name: string, root: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const port = randomPort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/server.ts')], { cwd: root, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'inherit', 'inherit'] });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 180_000; Date.now() < until; ) {
    if (code !== undefined) throw new Error(`server (${root}) exited ${code}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return { name, url, child, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server (${root}) did not start`);
}

/** The slowest `/health` answered while the returned stop is not called, asked again 2 ms after each answer. */
function slowestHealth(url: string): () => Promise<number> {
  let stop = false;
  let slowest = 0;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      await fetch(`${url}/health`).then((r) => r.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - t);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return async () => {
    stop = true;
    await probe;
    return slowest;
  };
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
const dirs = [fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-text-loop-'))];
const envOf = (dir: string): NodeJS.ProcessEnv => ({ ...process.env, LOUPE_DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_VISION_WARM: 'none', LOUPE_VISION_THREADS: '1' });
const servers: Server[] = [];
try {
  const env = envOf(dirs[0]!);
  const account = await loupeCli(env, 'account', 'create', '--name', 'text', '--credits', '100000000');
  const collection = (await loupeCli(env, 'collection', 'create', '--account', account.account!, '--type', 'photo', '--name', 'shop', '--capacity', String(RECORDS + 1000))).collection_id!;
  const store = await openStore({ dataDir: dirs[0]!, warn: () => {} });
  const cs = new CollectionStore(store);
  let t = performance.now();
  for (let b = 0; b < RECORDS; b += 500) await cs.insert(collection, Array.from({ length: Math.min(500, RECORDS - b) }, (_, j) => record(b + j)), 'bench-64');
  await buildVectorIndex(store, cs, 'sqlite', collection, D, dirs[0]!);
  await store.close();
  console.log(`fill: ${RECORDS} records ${((performance.now() - t) / 1000).toFixed(0)} s`);
  if (before) {
    dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-text-loop-')));
    fs.cpSync(dirs[0]!, dirs[1]!, { recursive: true });
  }
  servers.push(await startFrom('this', here, env));
  if (before) servers.push(await startFrom('before', before, envOf(dirs[1]!)));
  const headers = { authorization: `Token ${account.token}`, 'content-type': 'application/json', 'collection-id': collection };
  const search = async (s: Server, body: unknown): Promise<string> => {
    const res = await fetch(`${s.url}/similarity/text/photos/v2/text`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${s.name}: ${res.status} ${text.slice(0, 300)}`);
    // the answer without its request's ids and timings
    const { status, statistics, ...answer } = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify({ status: { code: (status as { code: number }).code }, ...answer, timed: statistics !== undefined });
  };
  const queries: [string, unknown][] = [
    ['"red car"', { query_record: { _text_data: 'red car' } }],
    ['"person" (common)', { query_record: { _text_data: 'person' } }],
    ['"vintage leather", category filter', { query_record: { _text_data: 'vintage leather' }, filter: { category: 'c3' } }],
  ];
  // each server's index read and its caches (and read worker) warm before the timing
  t = performance.now();
  for (const s of servers) for (const [, body] of queries) await search(s, body);
  console.log(`first searches (index loads) ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const ms = new Map<string, number[]>();
  const held = new Map<string, number[]>();
  // its time with the probe beside, as year-of-data times it: a server that answers the probes meanwhile counts their
  // time in the search's
  const probed = new Map<string, number[]>();
  let same = true;
  const answers = new Map<string, string>();
  for (let round = 0; round < runs; round++) {
    for (const [label, body] of queries) {
      for (const s of round % 2 ? [...servers].reverse() : servers) {
        const key = `${s.name} ${label}`;
        // timed alone: the /health probe beside costs the server's event loop time of its own, more where it is
        // answered during the search than where it waits for it
        const t0 = performance.now();
        const answer = await search(s, body);
        const took = performance.now() - t0;
        const stop = slowestHealth(s.url);
        // the probe's first /health on its way
        await new Promise((r) => setTimeout(r, 5));
        const t1 = performance.now();
        await search(s, body);
        (probed.get(key) ?? probed.set(key, []).get(key)!).push(performance.now() - t1);
        const stall = await stop();
        (ms.get(key) ?? ms.set(key, []).get(key)!).push(took);
        (held.get(key) ?? held.set(key, []).get(key)!).push(stall);
        const first = answers.get(label);
        if (first === undefined) answers.set(label, answer);
        else if (first !== answer) {
          if (same && process.env.BENCH_DIFF) console.log(`${key} differs:\n${first.slice(0, 1500)}\n${answer.slice(0, 1500)}`);
          same = false;
        }
      }
    }
  }
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`\n${RECORDS.toLocaleString('en')} records, median of ${runs} rounds, ms; load ${load}${before ? `; same answers: ${same}` : ''}\n`);
  console.log(`| search | ${servers.map((s) => `${s.name}: time, alone / beside the probe; /health held (median, max)`).join(' | ')} |`);
  console.log(`|---|${servers.map(() => '---').join('|')}|`);
  for (const [label] of queries) {
    const cells = servers.map((s) => {
      const key = `${s.name} ${label}`;
      return `${fmt(median(ms.get(key)!))} / ${fmt(median(probed.get(key)!))}; ${fmt(median(held.get(key)!))}, ${fmt(Math.max(...held.get(key)!))}`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  }
  const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  console.log(`\nserver RSS after the searches: ${servers.map((s) => `${s.name} ${rss(s.child.pid!).toFixed(0)} MB`).join(', ')}`);
} finally {
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
