/**
 * Asynchronous request queue speed (issue 6), per backend, with a trivial handler:
 *  - drain: N queued jobs run by one runner (BENCH_WORKERS slots), jobs/s; baseline in the same
 *    run: the same number of single-row UPDATEs through the same connection (what one write per
 *    job costs at best);
 *  - latency: submit over HTTP (app.inject) → DONE on an idle server, p50/p95;
 *  - webhooks: DONE → the receiver has the POST, p50/max.
 *
 *   npm run bench -- queue          # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_JOBS=5000 BENCH_WORKERS=8 npm run bench -- queue
 */
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
  console.log('');
  await app.close();
  await pg?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
