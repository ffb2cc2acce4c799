/**
 * Card sessions speed (issue 2): 500-row batch uploads, 500-row page listing, and 50 concurrent
 * clients mixing get, list and upload. Each figure comes with a baseline measured in the same
 * run on the same machine: the raw database driver doing the same writes/reads with no HTTP,
 * validation or rules, so the ratio says what the service layer costs.
 *
 *   npm run bench -- sessions                  # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_SECONDS=10 npm run bench -- sessions # shorter load phase
 *   BENCH_BACKENDS=postgres npm run bench -- sessions
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { median, startServer, type BenchServer } from './lib-server.ts';
import { sessionRow } from './lib-synthetic.ts';

const batches = Number(process.env.BENCH_BATCHES ?? 20);
const loadSeconds = Number(process.env.BENCH_SECONDS ?? 30);
const backends = (process.env.BENCH_BACKENDS?.split(',') ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'])) as Array<'sqlite' | 'postgres'>;

const row = (i: number, prefix: string) => ({
  ...sessionRow(i, prefix),
  links: { tcgplayer: `https://www.tcgplayer.com/product/${i}`, ebay: `https://www.ebay.com/sch/i.html?_nkw=card+${i}` },
  alternatives: [{ name: `Card ${i + 1}`, set_code: 'MEW', distance: 0.3 }, { name: `Card ${i + 2}`, set_code: 'PAF', distance: 0.35 }],
  price: 1.25,
});

async function api(s: BenchServer, method: string, p: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${s.url}/cardstream/v2/${p}`, { method, headers: { authorization: `Token ${s.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res;
}

/** The floor: the same rows written by the bare driver into the same table, one transaction per batch. */
async function rawInsertRate(s: BenchServer, backend: 'sqlite' | 'postgres', sessionId: string, rows: ReturnType<typeof row>[][]): Promise<number> {
  const cols = ['id', 'session_id', 'event_id', 'seen', 'calls', 'duration', 'id_type', 'name', 'full_name', 'set_name', 'set_code', 'card_number', 'series', 'year', 'subcategory', 'distance', 'confidence', 'links', 'alternatives', 'price_stats', 'price', 'card_key', 'created_at', 'updated_at'];
  const values = (r: ReturnType<typeof row>) => {
    const now = new Date().toISOString();
    return [randomUUID(), sessionId, `raw-${r.event_id}`, r.seen, r.calls, r.duration, r.id_type, r.name, r.full_name, r.set_name, r.set_code, r.card_number, r.series, r.year, r.subcategory, r.distance, r.confidence, JSON.stringify(r.links), JSON.stringify(r.alternatives), JSON.stringify(r.price_stats), r.price, r.name, now, now];
  };
  const t0 = performance.now();
  if (backend === 'sqlite') {
    const db = new Database(path.join(s.dataDir, 'loupe.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    const stmt = db.prepare(`INSERT INTO card_identifications (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`);
    for (const batch of rows) db.transaction(() => batch.forEach((r) => stmt.run(values(r))))();
    db.close();
  } else {
    const c = new pg.Client({ connectionString: s.databaseUrl });
    await c.connect();
    for (const batch of rows) {
      const params: unknown[] = [];
      const tuples = batch.map((r) => `(${values(r).map((v) => `$${params.push(v)}`).join(',')})`);
      await c.query(`INSERT INTO card_identifications (${cols.join(',')}) VALUES ${tuples.join(',')}`, params);
    }
    await c.end();
  }
  return (rows.length * rows[0]!.length) / ((performance.now() - t0) / 1000);
}

async function rawListMedian(s: BenchServer, backend: 'sqlite' | 'postgres', sessionId: string): Promise<number> {
  const times: number[] = [];
  if (backend === 'sqlite') {
    const db = new Database(path.join(s.dataDir, 'loupe.db'), { readonly: true });
    const stmt = db.prepare('SELECT * FROM card_identifications WHERE session_id = ? ORDER BY seq LIMIT 500 OFFSET 500');
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      JSON.stringify(stmt.all(sessionId));
      times.push(performance.now() - t);
    }
    db.close();
  } else {
    const c = new pg.Client({ connectionString: s.databaseUrl });
    await c.connect();
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      JSON.stringify((await c.query('SELECT * FROM card_identifications WHERE session_id = $1 ORDER BY seq LIMIT 500 OFFSET 500', [sessionId])).rows);
      times.push(performance.now() - t);
    }
    await c.end();
  }
  return median(times);
}

/**
 * 50 connections mixing session reads, 100-row page listings and 20-row uploads (15 new cards, 5
 * re-sent ones, as the real client repeats event ids). With `sessions.length === 50` each
 * connection is one app with its own session (the real case); with one session all 50 share it,
 * which serialises their uploads on that session's row (a stress case).
 */
async function load(s: BenchServer, sessions: string[], seconds: number): Promise<autocannon.Result> {
  // autocannon resets the context at every pass through `requests`, so each pass (get, list,
  // upload) takes the next session round-robin: with 50 sessions and 50 connections that is one
  // session per client at a time.
  let nextSession = 0;
  let nextCard = 0;
  const auth = { authorization: `Token ${s.token}`, 'content-type': 'application/json' };
  type Ctx = { session?: number };
  const pick = (ctx: Ctx) => (ctx.session ??= nextSession++ % sessions.length);
  return autocannon({
    url: s.url,
    connections: 50,
    duration: seconds,
    requests: [
      // Headers stay static: replacing them in setupRequest makes autocannon send a wrong Content-Length.
      { method: 'GET', headers: auth, setupRequest: (req, ctx: Ctx) => ({ ...req, path: `/cardstream/v2/session/${sessions[pick(ctx)]}/` }) },
      { method: 'GET', headers: auth, setupRequest: (req, ctx: Ctx) => ({ ...req, path: `/cardstream/v2/identification/?session=${sessions[pick(ctx)]}&page_size=100&page=3` }) },
      {
        method: 'POST',
        headers: auth,
        // 15 new cards and 5 the session already has (the real client re-sends event ids).
        setupRequest: (req, ctx: Ctx) => {
          const c = pick(ctx);
          const rows = Array.from({ length: 20 }, (_, i) => (i < 15 ? row(nextCard++, 'load') : row((nextCard + i * 7) % 300, `pre-${c}`)));
          return { ...req, path: `/cardstream/v2/session/${sessions[c]}/identifications/`, body: JSON.stringify({ identifications: rows }) };
        },
      },
    ],
  });
}

const loadLine = (label: string, result: autocannon.Result, seconds: number, target: boolean) => {
  const errors = result.errors + result.timeouts + result.non2xx;
  const verdict = target ? ` (target p99 <= 200, 0 errors: ${errors === 0 && result.latency.p99 <= 200 ? 'MET' : 'MISSED'})` : '';
  return `${label} x ${seconds}s: ${result.requests.total} requests, ${result.requests.average.toFixed(0)} req/s, errors ${errors} (non2xx ${result.non2xx}), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${verdict}`;
};

for (const backend of backends) {
  const s = await startServer(backend);
  try {
    const sid = ((await (await api(s, 'POST', 'session/', { name: 'bench' })).json()) as { id: string }).id;
    const data = Array.from({ length: batches }, (_, b) => Array.from({ length: 500 }, (_, i) => row(b * 500 + i, 'up')));

    // Warm-up batch, not counted (JIT, statement caches).
    await api(s, 'POST', `session/${sid}/identifications/`, { identifications: Array.from({ length: 500 }, (_, i) => row(i, 'warm')) });
    const t0 = performance.now();
    for (const batch of data) await api(s, 'POST', `session/${sid}/identifications/`, { identifications: batch });
    const ours = (batches * 500) / ((performance.now() - t0) / 1000);
    const raw = await rawInsertRate(s, backend, sid, data);

    const listTimes: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      const res = await api(s, 'GET', `identification/?session=${sid}&page_size=500&page=2`);
      await res.arrayBuffer();
      listTimes.push(performance.now() - t);
    }
    const listRaw = await rawListMedian(s, backend, sid);

    const target = backend === 'sqlite' ? 10_000 : 5_000;
    console.log(`\n== ${backend} ==`);
    console.log(`upload 500-row batches: ${ours.toFixed(0)} rows/s (target >= ${target}: ${ours >= target ? 'MET' : 'MISSED'}); raw driver ${raw.toFixed(0)} rows/s; ours/raw = ${(ours / raw).toFixed(2)}`);
    console.log(`list a 500-row page over HTTP: median ${median(listTimes).toFixed(1)} ms (target <= 25: ${median(listTimes) <= 25 ? 'MET' : 'MISSED'}); raw SELECT+stringify ${listRaw.toFixed(1)} ms; ratio ${(median(listTimes) / listRaw).toFixed(1)}x`);

    // 50 apps, each with its own session of 300 cards.
    const own: string[] = [];
    for (let c = 0; c < 50; c++) {
      const id = ((await (await api(s, 'POST', 'session/', { name: `client ${c}` })).json()) as { id: string }).id;
      // Pre-filled with event ids `pre-<c>-0..299`, which the load re-sends.
      await api(s, 'POST', `session/${id}/identifications/`, { identifications: Array.from({ length: 300 }, (_, i) => row(i, `pre-${c}`)) });
      own.push(id);
    }
    // Baseline for the load: the same 50 connections on /health (no auth, no database) show
    // what this machine's HTTP stack and the load generator allow in this very run.
    const ceiling = await autocannon({ url: `${s.url}/health`, connections: 50, duration: Math.min(10, loadSeconds) });
    const result = await load(s, own, loadSeconds);
    console.log(loadLine('50 clients, one session each (get session, list 100, upload 20)', result, loadSeconds, true));
    // Check the load did real work: every acknowledged upload added 15 new cards.
    let stored = 0;
    for (const id of own) stored += ((await (await api(s, 'GET', `session/${id}/`)).json()) as { identification_count: number }).identification_count;
    const uploads = Math.round(result.requests.total / 3);
    console.log(`  check: the load stored ${stored - 50 * 300} new cards from about ${uploads} uploads of 15 new + 5 re-sent (expected about ${uploads * 15})`);
    console.log(`  baseline, same 50 connections on /health: ${ceiling.requests.average.toFixed(0)} req/s, p99 ${ceiling.latency.p99} ms; the mixed load runs at ${((100 * result.requests.average) / ceiling.requests.average).toFixed(1)} % of that rate`);
    const shared = await load(s, [sid], Math.min(10, loadSeconds));
    console.log(loadLine('  stress: the same 50 clients all on one session', shared, Math.min(10, loadSeconds), false));
  } finally {
    await s.stop();
  }
}
