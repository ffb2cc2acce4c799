/**
 * Other writers during a large asynchronous submit (h288, h297). One submit of two images inline (BENCH_IMAGE_MIB, 16.5
 * MiB each, 44 MB of base64, with an `Idempotency-Key`) through the request service, while another account's credits
 * are written every 2 ms through the same store, as a synchronous call's debit is: each write's time from its start to
 * its end, the longest during the submit against the longest idle in the same run. On SQLite every write of the
 * process has the one writer connection (a transaction holds it to its end); on PostgreSQL an account's row is locked
 * by its own writes only. The event loop's longest pause in the submit is given beside it (a write cannot end while
 * the loop is held, whatever the database does). No worker runs: the submit alone is timed.
 *
 *   npm run bench -- submit-writers     # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_RUNS=3 BENCH_IMAGE_MIB=16.5 npm run bench -- submit-writers
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import type { Services } from '../src/services/container.ts';
import { scratchPgDatabase } from '../test/helpers/processes.ts';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const imageMiB = Number(process.env.BENCH_IMAGE_MIB ?? 16.5);
const backends = (process.env.BENCH_BACKENDS?.split(',') ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'])) as Array<'sqlite' | 'postgres'>;
const ms = (x: number) => x.toFixed(1);

console.log(`# submit-writers bench — ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, load ${os.loadavg()[0]!.toFixed(1)}, two images of ${imageMiB} MiB, ${runs} runs\n`);
console.log('| backend | run | submit ms | longest other write, submit / idle ms | writes in the submit | longest loop pause ms |');
console.log('|---|---|---|---|---|---|');

for (const backend of backends) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-submit-writers-'));
  const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_bench_submit_writers') : undefined;
  const config = loadConfig({}, { dataDir, databaseUrl: pg?.url, logLevel: 'warn', rateLimit: { perSecond: 0, burst: 0 }, queue: { workers: 0 }, vision: { warm: [] } });
  const app = await buildApp(config);
  const services = app.loupe as unknown as Services;
  services.registry.register({ type: 'bench', accepts: (e) => e === 'noop', endpoints: () => ['noop'], run: async (ctx) => ({ records: ctx.records }) });
  const submitter = await services.accounts.createAccount({ name: 'submitter', credits: 1_000_000 });
  const other = await services.accounts.createAccount({ name: 'other', credits: 1_000_000 });
  const caller = { accountId: submitter.account, workspaceId: submitter.workspace, baseUrl: 'http://bench', services: ['*'] };
  const db = services.store.db;

  // Writes every 2 ms until stopped; each write's duration.
  const writer = () => {
    const times: number[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const t0 = performance.now();
        await sql`UPDATE accounts SET credits = credits + 1 WHERE id = ${other.account}`.execute(db);
        times.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    return { stop: async () => ((running = false), await loop, times) };
  };

  for (let run = 1; run <= runs; run++) {
    const b64 = () => randomBytes(Math.round(imageMiB * 1024 * 1024)).toString('base64');
    const records = [{ _id: 'a', _base64: b64() }, { _id: 'b', _base64: b64() }];
    const idle = writer();
    await new Promise((r) => setTimeout(r, 300));
    const idleTimes = await idle.stop();
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const busy = writer();
    const t0 = performance.now();
    const res = await services.requests.submit(caller, { type: 'bench', endpoint: 'noop', records }, `bench-${run}-${Date.now()}`);
    const took = performance.now() - t0;
    const times = await busy.stop();
    loop.disable();
    if (res.status !== 'CREATED') throw new Error(`submit: ${res.status}`);
    console.log(`| ${backend} | ${run} | ${ms(took)} | ${ms(Math.max(...times))} / ${ms(Math.max(...idleTimes))} | ${times.length} | ${ms(loop.max / 1e6)} |`);
  }
  await app.close();
  await pg?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
