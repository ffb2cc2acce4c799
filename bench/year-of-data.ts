/**
 * `npm run bench -- year-of-data`: a shop's data folder after a year, and what its users do with it. Filled by script
 * (card sessions through the API, the rest through the stores' own insert paths, synthetic vectors), then the server
 * restarted on it and each user action timed, on SQLite and on PostgreSQL (when DATABASE_URL is set).
 *
 * Data (defaults; BENCH_SCALE=0.1 for a tenth): 2,000 card sessions of 90 rows and one of 20,000 (200,000 rows), a
 * photo collection of 100,000 records (metadata, 1792-d vectors, visual hashes, text rows), 50,000 finished
 * asynchronous requests (a tenth past their retention), the MTG catalog imported with `loupe catalog import`.
 *
 * Each figure is the median of BENCH_RUNS (5) after one warm-up, with `stall`: the slowest `GET /health` answered
 * while it ran (a loop beside, one at a time). /health touches no database, so a stall well above a millisecond is the
 * event loop held, which every other request of the server waits behind. RSS is the server process's resident memory.
 *
 *   npm run bench -- year-of-data
 *   BENCH_BACKENDS=postgres BENCH_SCALE=0.1 npm run bench -- year-of-data
 *   BENCH_KEEP=1 …   keeps the data folder (and the PostgreSQL database) and prints where
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import Database from 'better-sqlite3';
import pg from 'pg';
import { CollectionStore } from '../src/store/collection-store.ts';
import { buildVectorIndex, dropVectorIndexForBulkLoad } from './lib-bulk-index.ts';
import { openStore } from '../src/store/database.ts';
import { RequestStore } from '../src/store/request-store.ts';
import { shopData } from './lib-shop-records.ts';
import { sessionRow } from './lib-synthetic.ts';
import { loupeCli, randomPort, type ServerProcess } from '../test/helpers/processes.ts';
import { pgAdmin } from './lib-pg.ts';
import { median } from './lib-server.ts';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const SESSIONS = Math.round(2000 * scale);
const ROWS_EACH = 90;
const BIG_ROWS = Math.round(20_000 * scale);
const RECORDS = Math.round(100_000 * scale);
const REQUESTS = Math.round(50_000 * scale);
const D = 1792;
const runs = Number(process.env.BENCH_RUNS ?? 5);
const backends = (process.env.BENCH_BACKENDS ?? (process.env.DATABASE_URL ? 'sqlite,postgres' : 'sqlite')).split(',') as ('sqlite' | 'postgres')[];
const shared = path.resolve(import.meta.dirname, '../../shared/catalogs');

const shop = shopData(20261207);
const { rand } = shop;

const games = ['Pokémon', 'Magic: The Gathering', 'Yu-Gi-Oh!', 'Sports', 'TCG'];
const cardRow = (i: number, prefix: string) => ({
  ...sessionRow(i, prefix),
  links: { tcgplayer: `https://www.tcgplayer.com/product/${i}` },
  alternatives: [{ name: `Card ${i + 1}`, set_code: 'MEW', distance: 0.3 }],
  price: 1 + (i % 50) / 4,
});

const record = shop.clustered(RECORDS, D);

/** test/helpers' start, with room for a start that reads 100,000 vectors (its 120 s were too few with no saved index). */
async function startServerProcess(env: NodeJS.ProcessEnv, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../src/server.ts')], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'inherit', 'inherit'] });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 900_000; Date.now() < until; ) {
    if (code !== undefined) throw new Error(`server exited ${code}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return { url, child, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start within 15 minutes');
}

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
const lines: string[] = [];
const say = (s: string) => {
  console.log(s);
  lines.push(s);
};

/**
 * The slowest of `request` sent again and again (after `pauseMs`) while it runs, from its start to the stop it returns:
 * how long the server held other callers meanwhile.
 */
function slowestBeside(request: () => Promise<unknown>, pauseMs = 0): () => Promise<number> {
  let stop = false;
  let slowest = 0;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      await request();
      slowest = Math.max(slowest, performance.now() - t);
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return async () => {
    stop = true;
    await probe;
    return slowest;
  };
}

const health = (url: string) => () => fetch(`${url}/health`).then((r) => r.arrayBuffer());

/** Median of `runs` calls of `fn` after one, and the slowest /health answered meanwhile. */
async function timed(url: string, label: string, fn: () => Promise<unknown>, n = runs): Promise<number> {
  await fn();
  const stalled = slowestBeside(health(url), 2);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  const stall = await stalled();
  const m = median(ms);
  say(`| ${label} | ${fmt(m)} | ${fmt(Math.max(...ms))} | ${fmt(stall)} |`);
  return m;
}


for (const backend of backends) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-year-'));
  let databaseUrl = '';
  if (backend === 'postgres') {
    const name = process.env.BENCH_PG_NAME ?? 'h348db';
    await pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await pgAdmin(`CREATE DATABASE ${name}`);
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
  }
  const env = { ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', LOUPE_RATE_LIMIT: '0', LOUPE_VISION_WARM: 'none', LOUPE_VISION_THREADS: '1' };
  say(`\n## ${backend}: ${SESSIONS + 1} sessions (${(SESSIONS * ROWS_EACH + BIG_ROWS).toLocaleString('en')} rows), ${RECORDS.toLocaleString('en')} records, ${REQUESTS.toLocaleString('en')} requests, MTG catalog\n`);
  const account = await loupeCli(env, 'account', 'create', '--name', 'year', '--credits', '100000000');
  const token = account.token!;
  const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
  let server: ServerProcess | undefined;
  const start = async (logLevel = env.LOG_LEVEL) => {
    const t = performance.now();
    server = await startServerProcess({ ...env, LOG_LEVEL: logLevel }, randomPort());
    return performance.now() - t;
  };
  const stop = async () => {
    server!.child.kill('SIGTERM');
    await server!.exited;
    server = undefined;
  };
  const api = async (method: string, p: string, body?: unknown, extra: Record<string, string> = {}): Promise<unknown> => {
    const res = await fetch(`${server!.url}${p}`, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
    return text.startsWith('{') ? JSON.parse(text) : text;
  };
  try {
    // --- fill ---------------------------------------------------------------------------------------------------
    let t = performance.now();
    await loupeCli(env, 'catalog', 'import', '--kind', 'mtg', '--cards', path.join(shared, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(shared, 'mtg/mtgjson_sets.json'));
    say(`fill: MTG catalog import ${((performance.now() - t) / 1000).toFixed(0)} s`);

    await start();
    t = performance.now();
    const sessionIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < SESSIONS + 1) {
          const i = next++;
          const big = i === SESSIONS;
          const s = (await api('POST', '/cardstream/v2/session/', { name: big ? 'Big Sunday break' : `${['Mrs. Jones', 'Łukasz', 'Crédit shop'][i % 3]} stream ${i}`, description: i % 3 ? `Live break number ${i}` : '', game: games[i % games.length], platform: ['whatnot', 'ebay live', 'tiktok'][i % 3] })) as { id: string };
          sessionIds[i] = s.id;
          const rows = Array.from({ length: big ? BIG_ROWS : ROWS_EACH }, (_, k) => cardRow(k, `s${i}`));
          for (let b = 0; b < rows.length; b += 500) await api('POST', `/cardstream/v2/session/${s.id}/identifications/`, { identifications: rows.slice(b, b + 500) });
          if (!big && i % 2) await api('POST', `/cardstream/v2/session/${s.id}/close/`);
        }
      }),
    );
    const bigId = sessionIds[SESSIONS]!;
    say(`fill: ${SESSIONS + 1} sessions through the API, 4 clients: ${((performance.now() - t) / 1000).toFixed(0)} s; server RSS ${rss(server!.child.pid!).toFixed(0)} MB`);
    await stop();

    const collection = (await loupeCli(env, 'collection', 'create', '--account', account.account!, '--type', 'photo', '--name', 'shop', '--capacity', String(RECORDS + 1000))).collection_id!;
    const store = await openStore({ dataDir, databaseUrl: databaseUrl || undefined, warn: () => {} });
    const cs = new CollectionStore(store);
    t = performance.now();
    for (let b = 0; b < RECORDS; b += 500) {
      await cs.insert(collection, Array.from({ length: Math.min(500, RECORDS - b) }, (_, j) => record(b + j)), 'bench-1792');
      // PostgreSQL: the first insert made the (empty) HNSW index; dropped for the bulk load and built once after it
      if (b === 0) await dropVectorIndexForBulkLoad(store, backend, collection);
    }
    say(`fill: ${RECORDS} records through CollectionStore.insert: ${((performance.now() - t) / 1000).toFixed(0)} s`);
    // the vector index as a server that took these records one by one would have it: built and saved (SQLite), or
    // built (PostgreSQL). A start with no saved index rebuilds it before it listens (more than 2 minutes at 100,000 here)
    t = performance.now();
    await buildVectorIndex(store, cs, backend, collection, D, dataDir);
    say(`fill: vector index built ${((performance.now() - t) / 1000).toFixed(0)} s`);

    t = performance.now();
    const now = Date.now();
    const ws = account.workspace!;
    for (let b = 0; b < REQUESTS; b += 1000) {
      const rows = Array.from({ length: Math.min(1000, REQUESTS - b) }, (_, j) => {
        const i = b + j;
        const created = new Date(now - (REQUESTS - i) * 60_000).toISOString();
        return {
          id: crypto.randomUUID(),
          account_id: account.account!,
          workspace_id: ws,
          type: ['collectibles-recognition', 'card-grader', 'flows'][i % 3]!,
          endpoint: '/collectibles/v2/tcg_id',
          status: 'DONE',
          request: JSON.stringify({ records: [{ _url: `https://example.com/${i}.jpg` }] }),
          options: '{}',
          response: JSON.stringify({ status: { code: 200, text: 'OK' }, records: [{ _status: { code: 200 }, name: `Card ${i % 700}`, distance: 0.1 }] }),
          charged: 1,
          attempts: 1,
          media: '[]',
          // a tenth past their time: the sweep's work at the next start
          expires_at: i < REQUESTS / 10 ? now - 60_000 : now + 30 * 86_400_000,
          created_at: created,
          modified_at: created,
        };
      });
      await store.db.insertInto('async_requests').values(rows).execute();
    }
    say(`fill: ${REQUESTS} finished requests: ${((performance.now() - t) / 1000).toFixed(0)} s`);
    if (store.dialect === 'postgres') await sql`ANALYZE`.execute(store.db);
    await store.close();
    const size = (dir: string): number => fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? size(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size), 0);
    say(`data folder ${(size(dataDir) / 1e6).toFixed(0)} MB${backend === 'postgres' ? '' : ' (the SQLite database and its WAL)'}`);

    // --- start ----------------------------------------------------------------------------------------------------
    say('\n| start | ms |\n|---|---|');
    const first = await start('info');
    say(`| first start (sweeps ${REQUESTS / 10} expired requests) | ${fmt(first)} |`);
    say(`| RSS after it | ${rss(server!.child.pid!).toFixed(0)} MB |`);
    await stop();
    const second = await start('info');
    say(`| second start | ${fmt(second)} |`);
    say(`| RSS after it | ${rss(server!.child.pid!).toFixed(0)} MB |`);
    await stop();
    const third = await start();
    say(`| third start (quiet log, the one the actions run on) | ${fmt(third)} |`);
    const url = server!.url;
    // SQLite reads the collection's vectors after the port opens (h353): the first search waits for them; the actions
    // below are timed once they are in, so that they measure the folder and not the load beside them
    {
      const t0 = performance.now();
      await api('POST', '/similarity/photos/v2/visualKNN', { query_record: { _id: 'r1' }, k: 1 }, { 'collection-id': collection });
      say(`| first visualKNN after the third start (from the port's opening) | ${fmt(performance.now() - t0)} |`);
    }

    // --- what users do ----------------------------------------------------------------------------------------------
    say('\n| action | median ms | max ms | /health stall ms |\n|---|---|---|---|');
    const cs2 = '/cardstream/v2';
    const lastPage = Math.ceil((SESSIONS + 1) / 50);
    await timed(url, 'console: HTML + ping + sessions page 1', async () => {
      const html = (await (await fetch(`${url}/console`)).text()) as string;
      await Promise.all([...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => fetch(new URL(m[1]!, `${url}/console/`)).then((r) => r.arrayBuffer())));
      await api('GET', `${cs2}/ping/`);
      await api('GET', `${cs2}/session/?page=1&page_size=50`);
    });
    await timed(url, 'sessions list, page 1 (50)', () => api('GET', `${cs2}/session/?page=1`));
    await timed(url, `sessions list, last page (${lastPage})`, () => api('GET', `${cs2}/session/?page=${lastPage}`));
    await timed(url, 'sessions list, game=pokémon, page 1', () => api('GET', `${cs2}/session/?game=pok%C3%A9mon&page=1`));
    await timed(url, 'sessions list, game=pokémon, last page', () => api('GET', `${cs2}/session/?game=pok%C3%A9mon&page=${Math.ceil(lastPage / 5)}`));
    await timed(url, 'session search "jones", page 1', () => api('GET', `${cs2}/session/?search=jones&page=1`));
    await timed(url, 'session search "stream 1234" (one)', () => api('GET', `${cs2}/session/?search=stream%201234`));
    await timed(url, 'session search "break", last page', () => api('GET', `${cs2}/session/?search=break&page=${Math.max(1, Math.floor((SESSIONS * 2) / 3 / 50))}`));
    await timed(url, 'big session: GET session', () => api('GET', `${cs2}/session/${bigId}/`));
    await timed(url, 'big session: summary', () => api('GET', `${cs2}/session/${bigId}/summary/`));
    await timed(url, 'big session: rows page 1 (500)', () => api('GET', `/cardstream/v2/identification/?session=${bigId}&page_size=500&page=1`));
    await timed(url, `big session: rows last page (${Math.ceil(BIG_ROWS / 500)})`, () => api('GET', `/cardstream/v2/identification/?session=${bigId}&page_size=500&page=${Math.ceil(BIG_ROWS / 500)}`));
    await timed(url, 'big session: one row by event_id', () => api('GET', `/cardstream/v2/identification/?session=${bigId}&event_id=s${SESSIONS}-${BIG_ROWS - 7}`));
    await timed(
      url,
      `big session: every page of 500 (console view and CSV export)`,
      async () => {
        for (let p = 1; ; p++) {
          const page = (await api('GET', `/cardstream/v2/identification/?session=${bigId}&page_size=500&page=${p}`)) as { next: string | null };
          if (!page.next) break;
        }
      },
      3,
    );
    const ch = { 'collection-id': collection };
    const sim = '/similarity/photos/v2';
    await timed(url, 'collection find, no filter, limit 10', () => api('POST', `${sim}/find`, { limit: 10 }, ch));
    await timed(url, 'collection find, sku (1 match)', () => api('POST', `${sim}/find`, { filter: { sku: `SKU-${Math.floor(RECORDS / 2)}` } }, ch));
    await timed(url, 'collection find, category (5 %), from 4000', () => api('POST', `${sim}/find`, { filter: { category: 'c7' }, limit: 100, from: Math.floor(RECORDS / 25) }, ch));
    await timed(url, 'collection find, in_stock (70 %), limit 100', () => api('POST', `${sim}/find`, { filter: { in_stock: true }, limit: 100 }, ch));
    let salt = 0;
    await timed(url, 'collection find, a new filter each time (price range)', () => api('POST', `${sim}/find`, { filter: { price: { $gte: 100 + salt++, $lt: 120 } }, limit: 10 }, ch));
    await timed(url, 'getRecordCount, in_stock', () => api('POST', `${sim}/getRecordCount`, { filter: { in_stock: true } }, ch));
    await timed(url, 'getRecordCount, brand $in + price, new each time', () => api('POST', `${sim}/getRecordCount`, { filter: { brand: { $in: ['b1', 'b2', `b${salt++ % 300}`] }, price: { $lt: 250 } } }, ch));
    await timed(url, 'allRecords page 1', () => api('POST', `${sim}/allRecords`, {}, ch));
    await timed(url, 'visualKNN by _id, k 30', () => api('POST', `${sim}/visualKNN`, { query_record: { _id: `r${Math.floor(rand() * RECORDS)}` }, k: 30 }, ch));
    await timed(url, 'visualKNN by _id, k 30, category filter', () => api('POST', `${sim}/visualKNN`, { query_record: { _id: `r${Math.floor(rand() * RECORDS)}` }, k: 30, filter: { category: 'c3' } }, ch));
    await timed(url, 'nearDuplicates by _id', () => api('POST', `${sim}/nearDuplicates`, { query_record: { _id: `r${Math.floor(rand() * RECORDS)}` } }, ch));
    await timed(url, 'text search "red car"', () => api('POST', '/similarity/text/photos/v2/text', { query_record: { _text_data: 'red car' } }, ch));
    await timed(url, 'text search "person" (common)', () => api('POST', '/similarity/text/photos/v2/text', { query_record: { _text_data: 'person' } }, ch));
    await timed(url, 'text search "vintage leather", category filter', () => api('POST', '/similarity/text/photos/v2/text', { query_record: { _text_data: 'vintage leather' }, filter: { category: 'c3' } }, ch));
    const rq = '/account/v2/request/';
    await timed(url, 'requests list page 1', () => api('GET', `${rq}?page=1`));
    await timed(url, 'requests list, deep page (400)', () => api('GET', `${rq}?page=400&page_size=100`));
    await timed(url, 'requests list, status=DONE type=card-grader', () => api('GET', `${rq}?status=DONE&type=card-grader`));
    say(`\nserver RSS after the actions: ${rss(server!.child.pid!).toFixed(0)} MB`);

    // the sweep once more with nothing due, as every 10 minutes, timed beside the server (its own store)
    {
      const s = await openStore({ dataDir, databaseUrl: databaseUrl || undefined, warn: () => {} });
      const rs = new RequestStore(s);
      const t0 = performance.now();
      const swept = await rs.sweep(Date.now(), 500, 30 * 86_400_000);
      say(`retention sweep with nothing due (a 30-day retention, ${REQUESTS - REQUESTS / 10} kept): ${fmt(performance.now() - t0)} ms, ${JSON.stringify(swept)}`);
      await s.close();
    }

    if (backend === 'sqlite') {
      const to = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-year-backup-'));
      fs.rmdirSync(to);
      const stalled = slowestBeside(() => api('GET', `${cs2}/session/?page=1`));
      const t0 = performance.now();
      await loupeCli(env, 'backup', '--to', to);
      const ms = performance.now() - t0;
      const stall = await stalled();
      say(`backup of the running folder (loupe backup): ${fmt(ms)} ms, ${(size(to) / 1e6).toFixed(0)} MB; slowest sessions page 1 meanwhile ${fmt(stall)} ms`);
      fs.rmSync(to, { recursive: true, force: true });
    }

    // the plans of the hot reads at this size (a full scan where an index would serve is what to look for)
    {
      const s = await openStore({ dataDir, databaseUrl: databaseUrl || undefined, warn: () => {} });
      const acct = account.account!;
      const plans: Array<[string, string, unknown[]]> = [
        ['sessions, last page', `SELECT * FROM card_sessions s WHERE s.workspace_id = $1 ORDER BY s.started DESC, s.seq DESC LIMIT 50 OFFSET ${SESSIONS - 50}`, [ws]],
        ['big session rows, last page', `SELECT * FROM card_identifications WHERE session_id = $1 ORDER BY seq LIMIT 501 OFFSET ${BIG_ROWS - 500}`, [bigId]],
        ['requests count, status and type', `SELECT count(*), max(seq) FROM async_requests WHERE account_id = $1 AND type = $2 AND status = $3`, [acct, 'card-grader', 'DONE']],
        ['requests deep page', `SELECT * FROM async_requests WHERE account_id = $1 ORDER BY seq DESC LIMIT 100 OFFSET 39900`, [acct]],
        ['collection find by sku', `SELECT key, record_id, data FROM collection_records WHERE collection_id = $1 AND ${backend === 'postgres' ? `data_b @? '$."sku" ? (@ == "SKU-50000")'` : '1'} ORDER BY key LIMIT 10`, [collection]],
      ];
      for (const [label, q, params] of plans) {
        if (backend === 'sqlite') {
          const db = new Database(path.join(dataDir, 'loupe.db'), { readonly: true });
          const plan = (db.prepare(`EXPLAIN QUERY PLAN ${q.replace(/\$\d+/g, '?')}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join(' / ');
          db.close();
          say(`plan, ${label}: ${plan}`);
        } else {
          const c = new pg.Client({ connectionString: databaseUrl });
          await c.connect();
          const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${q}`, params);
          await c.end();
          say(`plan, ${label}: ${(r.rows as Array<Record<string, string>>).map((x) => x['QUERY PLAN']!).filter((l) => !/^\s*Buffers|Planning/.test(l)).join(' / ').replace(/\s+/g, ' ')}`);
        }
      }
      await s.close();
    }

    // erasure of the account (everything above), beside the running server
    {
      const stalled = slowestBeside(health(url), 5);
      const t0 = performance.now();
      const out = await loupeCli(env, 'account', 'delete', '--account', account.account!);
      const ms = performance.now() - t0;
      const stall = await stalled();
      say(`account erasure (loupe account delete, server running): ${fmt(ms)} ms; /health stall meanwhile ${fmt(stall)} ms; ${JSON.stringify(out).slice(0, 300)}`);
    }
  } finally {
    if (server) await stop();
    if (process.env.BENCH_KEEP) console.log(`kept: ${dataDir} ${databaseUrl}`);
    else {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (backend === 'postgres') await pgAdmin(`DROP DATABASE IF EXISTS ${process.env.BENCH_PG_NAME ?? 'h348db'} WITH (FORCE)`);
    }
  }
}
console.log('\n' + lines.join('\n'));
