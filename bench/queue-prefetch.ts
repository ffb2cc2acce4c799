/**
 * Images downloaded ahead of their handlers (docs/queue.md, "Prefetch budget"): BENCH_JOBS jobs of BENCH_RECORDS `_url`
 * records each, queued at once, run by a JobRunner of two slots with the server's default budget (or
 * BENCH_PREFETCH_MB), a fake store and the real intake (url-fetch.ts); the images come from a host on 127.0.0.1, a
 * process of its own, that answers each after BENCH_TTFB_MS and sends its BENCH_IMAGE_MB at BENCH_RATE_MBS a
 * connection (0: at once), with its Content-Length. The handler takes 0.2 s a record. Said per run: the time from the
 * start to all done, records failed, the peak of images downloaded and not yet taken by a handler (counted here), the
 * budget's own peak, and the peak of the process's `arrayBuffers` (garbage not yet collected too).
 *
 *   npm run bench -- queue-prefetch                                   # h290's case: 6 jobs of 20 MiB, 2 s an image
 *   BENCH_TTFB_MS=300 BENCH_RATE_MBS=8 npm run bench -- queue-prefetch
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { defaultFetchLimits, loadConfig } from '../src/config/config.ts';
import { AddressPolicy } from '../src/media/address-policy.ts';
import { ImageIntake } from '../src/media/image-intake.ts';
import type { MediaStore } from '../src/media/media-store.ts';
import { HandlerRegistry } from '../src/queue/job-handler.ts';
import { JobRunner } from '../src/queue/job-runner.ts';
import type { QueueSignal } from '../src/queue/queue-signal.ts';
import type { AsyncRequestRow, RequestStore } from '../src/store/request-store.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const jobCount = env('BENCH_JOBS', 6);
const recordCount = env('BENCH_RECORDS', 10);
const imageBytes = env('BENCH_IMAGE_MB', 20) * 1024 * 1024;
const ttfbMs = env('BENCH_TTFB_MS', 2000);
const rate = env('BENCH_RATE_MBS', 0) * 1024 * 1024;
const runs = env('BENCH_RUNS', 3);
const prefetchBytes = process.env.BENCH_PREFETCH_MB ? Number(process.env.BENCH_PREFETCH_MB) * 1024 * 1024 : loadConfig({}).queue.prefetchBytes;
const MiB = 1024 * 1024;

// the host apart from the runner: on the same event loop its sending would be counted as the runner's time
const hostCode = `
const http = require('node:http');
const [size, ttfb, rate] = process.argv.slice(1).map(Number);
const body = Buffer.alloc(size, 7);
const chunk = 64 * 1024;
http.createServer((req, res) => {
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': size });
    if (!rate) return res.end(body);
    let at = 0;
    const started = Date.now();
    const send = () => {
      // each connection at its own rate: what was due by now, in chunks
      const due = Math.min(size, Math.ceil(((Date.now() - started) / 1000) * rate));
      while (at < due) {
        const end = Math.min(due, at + chunk);
        res.write(body.subarray(at, end));
        at = end;
      }
      if (at >= size) res.end();
      else setTimeout(send, 20);
    };
    send();
  }, ttfb);
}).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });
`;
const host = spawn(process.execPath, ['-e', hostCode, String(imageBytes), String(ttfbMs), String(rate)], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => host.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));

console.log(`# queue prefetch — ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, load ${os.loadavg()[0]!.toFixed(1)}; ${jobCount} jobs × ${recordCount} × ${imageBytes / MiB} MiB, host ${ttfbMs} ms then ${rate ? `${rate / MiB} MiB/s a connection` : 'at once'}, budget ${prefetchBytes / MiB} MiB\n`);
console.log('| run | all done | records failed | downloaded, not taken (peak) | budget held (peak) | arrayBuffers (peak) |');
console.log('|---|---|---|---|---|---|');

for (let run = 1; run <= runs; run++) {
  const jobs: AsyncRequestRow[] = Array.from(
    { length: jobCount },
    (_, j) =>
      ({
        seq: j + 1,
        id: `j${j}`,
        accountId: `a${j}`,
        workspaceId: 'w',
        type: 't',
        endpoint: 'e',
        status: 'PROCESSING',
        request: { records: Array.from({ length: recordCount }, (_, i) => ({ _url: `http://127.0.0.1:${port}/r${run}/j${j}/${i}` })) },
        options: {},
        response: null,
        charged: 0,
        attempts: 1,
        media: [],
      }) as unknown as AsyncRequestRow,
  );
  let failed = 0;
  let done = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((r) => (allDone = r));
  const requests = {
    claim: async () => jobs.splice(0, 1).map((row) => ({ row, token: `tk-${row.id}` })),
    extend: async () => [],
    complete: async (_id: string, _token: string, result: { response: { records: { _status: { code: number } }[] } }) => {
      failed += result.response.records.filter((r) => r._status.code >= 400).length;
      if (++done === jobCount) allDone();
      return true;
    },
    release: async () => true,
    status: async () => ({ status: 'PROCESSING' }),
    inputs: async () => new Map(),
  } as unknown as RequestStore;
  const real = new ImageIntake({ policy: new AddressPolicy(['127.0.0.1']), fetch: defaultFetchLimits, fileRoot: undefined, maxBytes: defaultFetchLimits.maxBytes, maxPixels: 100e6 });
  // images in and not yet taken by a handler, as this bench sees them
  let notTaken = 0;
  let notTakenPeak = 0;
  const intake = Object.create(real) as ImageIntake;
  intake.bytes = async (...args: Parameters<ImageIntake['bytes']>) => {
    const got = await real.bytes(...args);
    notTaken += got.length;
    notTakenPeak = Math.max(notTakenPeak, notTaken);
    return got;
  };
  const registry = new HandlerRegistry();
  registry.register({
    type: 't',
    endpoints: () => ['e'],
    accepts: () => true,
    run: async (ctx) => {
      const records = [];
      for (let i = 0; i < ctx.records.length; i++) {
        try {
          const bytes = await ctx.image(i);
          notTaken -= bytes.length;
          await new Promise((r) => setTimeout(r, 200));
          records.push({ _status: { code: 200, text: 'OK' } });
        } catch (err) {
          records.push({ _status: { code: 400, text: String(err) } });
        }
      }
      return { records };
    },
  });
  const signal = { on: () => () => {}, notify: () => {} } as unknown as QueueSignal;
  const runner = new JobRunner({ requests, registry, signal, intake, media: { remove: async () => ({}) } as unknown as MediaStore }, { concurrency: 2, leaseMs: 60_000, pollMs: 50, maxAttempts: 3, prefetchBytes });
  let arrayBuffersPeak = 0;
  const sampler = setInterval(() => (arrayBuffersPeak = Math.max(arrayBuffersPeak, process.memoryUsage().arrayBuffers)), 50);
  const started = performance.now();
  runner.start();
  await finished;
  const took = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await runner.stop(100);
  const mib = (n: number) => `${Math.round(n / MiB)} MiB`;
  console.log(`| ${run} | ${took.toFixed(1)} s | ${failed} | ${mib(notTakenPeak)} | ${mib(runner.prefetch?.held.peak ?? 0)} | ${mib(arrayBuffersPeak)} |`);
  global.gc?.();
  await new Promise((r) => setTimeout(r, 1000));
}
host.kill();
