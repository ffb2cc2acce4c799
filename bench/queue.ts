/**
 * Asynchronous request queue speed (issue 6), per backend, with a trivial handler:
 *  - drain: N queued jobs run by one runner (BENCH_WORKERS slots), jobs/s; baseline in the same
 *    run: the same number of single-row UPDATEs through the same connection (what one write per
 *    job costs at best);
 *  - latency: submit over HTTP (app.inject) → DONE on an idle server, p50/p95;
 *  - webhooks: DONE → the receiver has the POST, p50/max;
 *  - webhook claim with a backlog: BENCH_BACKLOG (100,000) due deliveries, 90 % one account's, the rest spread over 19;
 *    a claim of 8 with a share of 4 per account, p50 of 20; baseline in the same run: the claim's query before
 *    migration 040 (every due delivery numbered by account), on the same rows.
 *
 *   npm run bench -- queue          # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_JOBS=5000 BENCH_WORKERS=8 npm run bench -- queue
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { JobRunner } from '../src/queue/job-runner.ts';
import { QueueSignal } from '../src/queue/queue-signal.ts';
import type { Services } from '../src/services/container.ts';
import { RequestStore } from '../src/store/request-store.ts';
import { scratchPgDatabase } from '../test/helpers/processes.ts';
import { median } from './lib-server.ts';

const jobs = Number(process.env.BENCH_JOBS ?? 3000);
const slots = Number(process.env.BENCH_WORKERS ?? 8);
const samples = Number(process.env.BENCH_SAMPLES ?? 200);
const backlog = Number(process.env.BENCH_BACKLOG ?? 100_000);
const backends = (process.env.BENCH_BACKENDS?.split(',') ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'])) as Array<'sqlite' | 'postgres'>;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (x: number) => x.toFixed(1);

console.log(`# queue bench — ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, ${jobs} jobs, ${slots} slots, ${samples} latency samples\n`);

for (const backend of backends) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-queue-'));
  const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_bench_queue') : undefined;
  // Webhooks are delivered to a local receiver: allow it.
  const config = loadConfig({}, { dataDir, databaseUrl: pg?.url, logLevel: 'warn', rateLimit: { perSecond: 0, burst: 0 }, urlAllowList: ['127.0.0.1'], queue: { workers: 4 }, vision: { warm: [] } });
  const app = await buildApp(config);
  const services = app.loupe as unknown as Services;
  services.registry.register({
    type: 'bench',
    accepts: (e) => e === 'noop',
    endpoints: () => ['noop'],
    run: async (ctx) => ({ records: ctx.records.map((r) => ({ ...r, _status: { code: 200, text: 'OK', request_id: ctx.requestId } })) }),
  });
  const account = await services.accounts.createAccount({ name: 'bench', credits: 10_000_000 });
  const caller = { accountId: account.account, workspaceId: account.workspace, baseUrl: 'http://bench', services: ['*'] };
  const store = new RequestStore(services.store);

  // Baseline: one single-row UPDATE per job through the same store.
  await sql`CREATE TABLE bench_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`.execute(services.store.db);
  await sql`INSERT INTO bench_counter (id, n) VALUES (1, 0)`.execute(services.store.db);
  let t0 = performance.now();
  for (let i = 0; i < jobs; i++) await sql`UPDATE bench_counter SET n = n + 1 WHERE id = 1`.execute(services.store.db);
  const baseline = jobs / ((performance.now() - t0) / 1000);

  // Before the app's own workers and webhook dispatcher start (at ready), which would try to send the backlog.
  const claims = await webhookBacklog(services, store, backlog);

  // Drain: jobs queued first (the app's own workers are not started until ready), then one runner.
  t0 = performance.now();
  for (let i = 0; i < jobs; i++) await services.requests.submit(caller, { type: 'bench', endpoint: 'noop', records: [{ _id: String(i), _url: 'http://example.com/x.jpg' }] });
  const submitRate = jobs / ((performance.now() - t0) / 1000);
  const signal = await QueueSignal.open(services.store, { listen: false });
  const runner = new JobRunner({ requests: store, registry: services.registry, signal, intake: undefined as never, media: undefined as never }, { concurrency: slots, leaseMs: 30_000, pollMs: 1000, maxAttempts: 3 });
  let done = 0;
  const drained = new Promise<void>((resolve) => runner.on('done', () => ++done === jobs && resolve()));
  t0 = performance.now();
  runner.start();
  await drained;
  const drainRate = jobs / ((performance.now() - t0) / 1000);
  await runner.stop();
  await signal.close();

  // Latency on an idle server: the app's in-process workers from here on.
  await app.ready();
  const waiters = new Map<string, (at: number) => void>();
  const doneAt = new Map<string, number>();
  services.queue.runner.on('done', (id: string) => {
    const at = performance.now();
    doneAt.set(id, at);
    waiters.get(id)?.(at);
  });
  const token = account.token;
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const res = await app.inject({ method: 'POST', url: '/account/v2/request/', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ type: 'bench', endpoint: 'noop', records: [{ _id: 'x', _url: 'http://example.com/x.jpg' }] }) });
    const id = (res.json() as { id: string }).id;
    const at = doneAt.get(id) ?? (await new Promise<number>((r) => waiters.set(id, r)));
    latencies.push(at - start);
  }

  // Webhooks: DONE → received.
  const received = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.set((JSON.parse(body) as { id: string }).id, performance.now());
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const delays: number[] = [];
  for (let i = 0; i < Math.min(samples, 100); i++) {
    const { id } = await services.requests.submit(caller, { type: 'bench', endpoint: 'noop', records: [{ _url: 'http://example.com/x.jpg' }], webhook: { endpoint: hook } });
    for (let w = 0; !received.has(id) && w < 5000; w++) await new Promise((r) => setTimeout(r, 1));
    delays.push(received.get(id)! - doneAt.get(id)!);
  }
  server.close();

  console.log(`## ${backend}\n`);
  console.log('| measure | result | baseline (same run) | target |');
  console.log('|---|---|---|---|');
  console.log(`| drain, ${slots} slots, trivial handler | ${drainRate.toFixed(0)} jobs/s | ${baseline.toFixed(0)} single-row UPDATEs/s (${(drainRate / baseline).toFixed(2)}×) | ≥ 200 jobs/s |`);
  console.log(`| submit (service, no HTTP) | ${submitRate.toFixed(0)} requests/s | | |`);
  console.log(`| submit over HTTP → DONE, idle | p50 ${ms(median(latencies))} ms, p95 ${ms(pct(latencies, 0.95))} ms | | p50 ≤ 100 ms |`);
  console.log(`| DONE → webhook received | p50 ${ms(median(delays))} ms, max ${ms(Math.max(...delays))} ms | | ≤ 1 s |`);
  console.log(`| webhook claim of 8, ${backlog} due | p50 ${ms(claims.now)} ms | ${ms(claims.before)} ms, every due delivery numbered (${(claims.before / claims.now).toFixed(0)}×) | |`);
  console.log('');
  await app.close();
  await pg?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
}

/**
 * A backlog of due deliveries (a receiver down for a day): copies of one finished request's row, 90 % one account's.
 * Claims of 8 (4 an account) by the store, each claimed delivery then marked delivered, against the query before
 * migration 040 run on the same rows as a plain SELECT (the claim it would make left unmade).
 */
async function webhookBacklog(services: Services, store: RequestStore, n: number): Promise<{ now: number; before: number }> {
  const db = services.store.db;
  const accounts: string[] = [];
  for (let a = 0; a < 20; a++) {
    const made = await services.accounts.createAccount({ name: `hooks ${a}`, credits: 10 });
    accounts.push(made.account);
    // one request of its own, whose row is copied
    if (a === 0) await services.requests.submit({ accountId: made.account, workspaceId: made.workspace, baseUrl: 'http://bench', services: ['*'] }, { type: 'bench', endpoint: 'noop', records: [{ _url: 'http://example.com/x.jpg' }] });
  }
  const template = (await sql<Record<string, unknown>>`SELECT * FROM async_requests WHERE account_id = ${accounts[0]!}`.execute(db)).rows[0]!;
  const keys = Object.keys(template).filter((k) => k !== 'seq');
  const start = Date.now() - 10 * n;
  for (let i = 0; i < n; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 500); j++) {
      const row: Record<string, unknown> = { ...template, id: randomUUID(), account_id: j % 10 === 0 ? accounts[1 + (j % 19)] : accounts[0], webhook: JSON.stringify({ url: 'http://127.0.0.1:9/hook', headers: {} }), status: 'DONE', webhook_state: 'pending', webhook_next_at: start + j, webhook_lease_until: null, webhook_attempts: 0 };
      rows.push(Object.fromEntries(keys.map((k) => [k, row[k]])));
    }
    await db.insertInto('async_requests').values(rows as never).execute();
  }
  if (services.store.dialect === 'postgres') await sql`ANALYZE async_requests`.execute(db);
  const now: number[] = [];
  const before: number[] = [];
  for (let i = 0; i < 20; i++) {
    let t = performance.now();
    const got = await store.claimWebhooks(8, 60_000, Date.now(), 4);
    now.push(performance.now() - t);
    for (const g of got) await store.webhookAttempt(g.id, { state: 'delivered', error: null, nextAt: null });
    const at = Date.now();
    const due = sql`webhook_state = 'pending' AND webhook_next_at <= ${at} AND (webhook_lease_until IS NULL OR webhook_lease_until < ${at})`;
    t = performance.now();
    await sql`
      SELECT seq FROM async_requests
      WHERE ${due} AND seq IN (
        SELECT r.seq FROM (
          SELECT d.seq, ROW_NUMBER() OVER (PARTITION BY d.account_id ORDER BY d.webhook_next_at, d.seq) AS k, COALESCE(f.flying, 0) AS flying
          FROM async_requests d
          LEFT JOIN (SELECT account_id, COUNT(*) AS flying FROM async_requests WHERE webhook_state = 'pending' AND webhook_lease_until >= ${at} GROUP BY account_id) f ON f.account_id = d.account_id
          WHERE ${due}
        ) r
        WHERE r.k + r.flying <= 4
      )
      ORDER BY webhook_next_at LIMIT 8`.execute(db);
    before.push(performance.now() - t);
  }
  await db.deleteFrom('async_requests').where('account_id', 'in', accounts).execute();
  return { now: median(now), before: median(before) };
}
