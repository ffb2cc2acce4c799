import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultFetchLimits, loadConfig } from '../src/config/config.ts';
import { openServices, type Services } from '../src/services/container.ts';
import { ImageIntake } from '../src/media/image-intake.ts';
import type { MediaStore } from '../src/media/media-store.ts';
import { HandlerRegistry, type JobOutcome } from '../src/queue/job-handler.ts';
import { JobRunner } from '../src/queue/job-runner.ts';
import { QueueWorkers } from '../src/queue/queue-workers.ts';
import { AddressPolicy } from '../src/media/address-policy.ts';
import { QueueSignal } from '../src/queue/queue-signal.ts';
import { RequestStore } from '../src/store/request-store.ts';
import { backends, type Backend } from './helpers/harness.ts';
import { scratchPgDatabase } from './helpers/processes.ts';

const root = path.resolve(import.meta.dirname, '..');

interface Worker {
  child: ChildProcess;
  done: string[];
  /** Every message logged, with the job id it names. */
  said: { msg: string; id?: string }[];
  exited: Promise<number | null>;
  /** Lines not in the server's (pino's) form. */
  badLines?: number;
}

/** `loupe worker` as its own process, collecting the ids it reports done. */
function startWorker(env: NodeJS.ProcessEnv): Worker {
  const child = spawn(process.execPath, [path.join(root, 'bin/loupe.js'), 'worker'], {
    env: { ...process.env, LOUPE_VISION_WARM: 'none', LOUPE_VISION_THREADS: '1', LOUPE_QUEUE_POLL_MS: '100', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const w: Worker = { child, done: [], said: [], exited: new Promise((r) => child.on('exit', (code) => r(code))) };
  let buffered = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const entry = JSON.parse(line) as { msg: string; id?: string; level: unknown; time: unknown; hostname: unknown };
      // the server's format (pino's): one log pipeline reads both
      if (typeof entry.level !== 'number' || typeof entry.time !== 'number' || typeof entry.hostname !== 'string') w.badLines = (w.badLines ?? 0) + 1;
      if (entry.msg === 'job done') w.done.push(entry.id!);
      w.said.push({ msg: entry.msg, ...(entry.id ? { id: entry.id } : {}) });
    }
  });
  return w;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function setup(backend: Backend) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-queue-'));
  const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_queue') : undefined;
  const env = { LOUPE_DATA_DIR: dataDir, DATABASE_URL: pg?.url ?? '' };
  const services: Services = await openServices(loadConfig({}, { dataDir, databaseUrl: pg?.url, logLevel: 'silent' }));
  const account = await services.accounts.createAccount({ name: 'queue', credits: 100_000 });
  const caller = { accountId: account.account, workspaceId: account.workspace, baseUrl: 'http://loupe.test', services: ['*'] };
  return {
    env,
    services,
    caller,
    close: async () => {
      await services.close();
      await pg?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A job of type `sizes` (each record's image, its length answered) stored for the runner to claim; its id. */
async function insertSizesJob(store: RequestStore, accountId: string, workspaceId: string, records: Record<string, unknown>[], inputs = new Map<number, Buffer>()): Promise<string> {
  const id = crypto.randomUUID();
  await store.insert({ id, accountId, workspaceId, type: 'sizes', endpoint: 'e', request: { records }, options: {}, charged: 0, webhook: null, expiresAt: Date.now() + 3_600_000, inputs });
  return id;
}

/** A started runner of the server's default two slots, downloading from 127.0.0.1 with no retry within `timeoutMs`. */
async function urlRunner(t: Awaited<ReturnType<typeof setup>>, store: RequestStore, registry: HandlerRegistry, timeoutMs: number) {
  const intake = new ImageIntake({ policy: new AddressPolicy(['127.0.0.1']), fetch: { ...defaultFetchLimits, connectTimeoutMs: timeoutMs, totalTimeoutMs: timeoutMs, retries: 0 }, fileRoot: undefined, maxBytes: 1 << 20, maxPixels: 1 << 20 });
  const signal = await QueueSignal.open(t.services.store, { listen: false });
  const runner = new JobRunner({ requests: store, registry, signal, intake, media: { remove: async () => ({ removed: [], failed: [] }) } as unknown as MediaStore }, { concurrency: 2, leaseMs: 30_000, pollMs: 20, maxAttempts: 3 });
  runner.start();
  return { runner, signal };
}

const workers: Worker[] = [];
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child.kill('SIGKILL');
    await w.exited;
  }
  await cleanup?.();
  cleanup = undefined;
});

describe.each(backends)('queue worker processes (%s)', (backend) => {
  it('a worker stopped by SIGTERM says last that it stopped, and exits 0 (h330: "stopping: finishing running jobs" was the last line)', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const w = startWorker(t.env);
    workers.push(w);
    await until('the worker to be ready', async () => w.said.some((l) => l.msg === 'worker ready'), 30_000);
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    // (its last lines may reach the pipe's reader after the exit)
    await until('the last line', async () => w.said.at(-1)?.msg === 'stopped (exit 0)', 5_000).catch(() => undefined);
    expect(w.said.slice(-2).map((l) => l.msg)).toEqual(['stopping: finishing running jobs', 'stopped (exit 0)']);
    expect(w.badLines ?? 0).toBe(0);
  }, 60_000);

  it('a job whose worker is killed (kill -9) goes back to the queue when its lease ends and another worker finishes it, once', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const photo = await sharp({ create: { width: 480, height: 320, channels: 3, background: '#7a9' } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="320"><circle cx="240" cy="160" r="100" fill="#c53"/></svg>') }])
      .jpeg()
      .toBuffer();
    const submitted = await t.services.requests.submit(t.caller, { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _id: 'p', _base64: photo.toString('base64') }] });
    const lease = { LOUPE_QUEUE_LEASE_MS: '1500' };

    const a = startWorker({ ...t.env, ...lease });
    workers.push(a);
    await until('the first worker to take the job', async () => (await t.services.requests.status(t.caller.accountId, submitted.id)).status === 'PROCESSING', 30_000);
    a.child.kill('SIGKILL');
    await a.exited;
    expect((await t.services.requests.status(t.caller.accountId, submitted.id)).status).toBe('PROCESSING');

    const b = startWorker({ ...t.env, ...lease });
    workers.push(b);
    const done = await until('the second worker to finish it', async () => {
      const d = await t.services.requests.get(t.caller.accountId, submitted.id);
      return d.status === 'DONE' && d;
    }, 120_000);
    expect(done.response!.records[0]).toMatchObject({ _id: 'p', _upscaled_width: 960, _upscaled_height: 640, _status: { code: 200 } });
    // The worker logs "job done" after the commit the poll above saw: wait for the line to arrive.
    await until('the second worker to report it', async () => b.done.length > 0, 10_000);
    expect(a.done).toEqual([]);
    expect(b.done).toEqual([submitted.id]);
    expect(b.badLines ?? 0).toBe(0);
  }, 180_000);

  it('a job whose request is deleted while it runs stops, and its log says the request was deleted, not that another worker runs it (h142)', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const photo = await sharp({ create: { width: 480, height: 320, channels: 3, background: '#7a9' } }).jpeg().toBuffer();
    const submitted = await t.services.requests.submit(t.caller, { type: 'upscaler', endpoint: 'upscale_4x', records: [{ _id: 'p', _base64: photo.toString('base64') }] });
    const w = startWorker({ ...t.env, LOUPE_QUEUE_LEASE_MS: '1500' });
    workers.push(w);
    await until('the worker to take the job', async () => (await t.services.requests.status(t.caller.accountId, submitted.id)).status === 'PROCESSING', 30_000);
    expect((await new RequestStore(t.services.store).deleteOne(submitted.id)).deleted).toBe(1);
    // stopped by the lease's renewal, or, where the job ended first, its result dropped: either way, said deleted
    const said = await until('the worker to stop it', async () => w.said.find((l) => l.id === submitted.id && /^job (stopped|finished)/.test(l.msg)), 60_000);
    expect(said.msg).toMatch(/^job (stopped: its request was deleted|finished after its request was deleted; result dropped)$/);
    expect(w.done).toEqual([]);
  }, 120_000);

  it('a worker whose lease ran out cannot write its result over the new holder\'s', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    await t.services.flows.put('hash', { steps: [{ endpoint: 'image_matching/visual_hash' }] });
    const { id } = await t.services.requests.submit(t.caller, { type: 'flows', endpoint: 'hash', records: [{ _base64: '!!' }] });
    const now = Date.now();
    const [first] = await store.claim(5, 1000, now);
    expect(first!.row).toMatchObject({ id, status: 'PROCESSING', attempts: 1 });
    expect(await store.claim(5, 1000, now + 500)).toEqual([]);
    const [second] = await store.claim(5, 1000, now + 1500);
    expect(second!.row.attempts).toBe(2);
    expect(await store.extend([id], first!.token, now + 5000)).toEqual([id]);
    const result = (text: string) => ({ response: { records: [{ _status: { code: 200, text } }] }, media: [], refund: 0, webhookAt: null });
    expect(await store.complete(id, first!.token, result('stale'))).toBe(false);
    expect(await store.complete(id, second!.token, result('fresh'))).toBe(true);
    expect(await store.complete(id, second!.token, result('again'))).toBe(false);
    expect((await store.get(id))!.response).toEqual(result('fresh').response);
  });

  it('a job handed back by a worker stopped on purpose keeps its attempts; one handed back after its handler threw spends one', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    await t.services.flows.put('hash', { steps: [{ endpoint: 'image_matching/visual_hash' }] });
    const { id } = await t.services.requests.submit(t.caller, { type: 'flows', endpoint: 'hash', records: [{ _base64: '!!' }] });
    let now = Date.now();
    // three rolling restarts: each claims it and hands it back on SIGTERM
    for (let i = 0; i < 3; i++) {
      const [claimed] = await store.claim(5, 1000, now);
      expect(claimed!.row.attempts).toBe(1);
      expect(await store.release(id, claimed!.token, 'the worker stopped before finishing', now, true)).toBe(true);
      now += 10;
    }
    // a handler that threw hands it back without giving the attempt back
    const [thrown] = await store.claim(5, 1000, now);
    expect(await store.release(id, thrown!.token, 'boom', now)).toBe(true);
    // handed back, it is still PROCESSING to a client polling it: the spec's states only go forward
    expect((await store.get(id))!.status).toBe('PROCESSING');
    // and it is no lease to wait for: waiters (the webhook dispatcher on every node) do not wake at once, again and again
    expect(await store.nextWakeAt()).toBeNull();
    const [next] = await store.claim(5, 1000, now + 10);
    expect(next!.row.attempts).toBe(2);
  });

  it('a runner stopped while its job runs hands the job back with the attempt returned, three times over, and the job still runs', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    await t.services.flows.put('hash', { steps: [{ endpoint: 'image_matching/visual_hash' }] });
    const { id } = await t.services.requests.submit(t.caller, { type: 'flows', endpoint: 'hash', records: [{ _base64: '!!' }] });
    // a long job: it runs until its runner stops it
    const registry = new HandlerRegistry();
    registry.register({ type: 'flows', accepts: () => true, endpoints: () => ['hash'], run: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))) });
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const said: string[] = [];
    for (let i = 0; i < 3; i++) {
      const runner = new JobRunner({ requests: store, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({ removed: [], failed: [] }) } as unknown as MediaStore }, { concurrency: 1, leaseMs: 30_000, pollMs: 20, maxAttempts: 3, log: (_level, message) => said.push(message) });
      runner.start();
      // handed back, a job stays PROCESSING with its lease run out: taken again, it holds a lease
      await until('the runner to take the job', async () => ((await store.get(id))!.leaseUntil ?? 0) > Date.now(), 10_000);
      await runner.stop(50);
      expect(await store.get(id)).toMatchObject({ status: 'PROCESSING', leaseUntil: 0, attempts: 0, lastError: 'the worker stopped before finishing' });
    }
    // said as what it is, not as a lost lease
    expect(said.filter((m) => m === 'job handed back at shutdown; another worker runs it')).toHaveLength(3);
  });

  it("a job whose images the database did not give (a statement timed out) runs again, whatever its handler made of it (h226: finished for good as 400 Error Loading Image)", async () => {
    const t = await setup(backend);
    cleanup = t.close;
    let refusals = 1;
    const store = new (class extends RequestStore {
      override async inputs(id: string): Promise<Map<number, Buffer>> {
        if (refusals-- > 0) throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
        return super.inputs(id);
      }
    })(t.services.store);
    await t.services.flows.put('hash', { steps: [{ endpoint: 'image_matching/visual_hash' }] });
    const png = (await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } }).png().toBuffer()).toString('base64');
    const { id } = await t.services.requests.submit(t.caller, { type: 'flows', endpoint: 'hash', records: [{ _base64: png }] });
    // as the handlers do: an image that cannot be had is that record's 400
    const registry = new HandlerRegistry();
    registry.register({
      type: 'flows',
      accepts: () => true,
      endpoints: () => ['hash'],
      run: async (ctx) => {
        const bytes = await ctx.image(0).catch(() => null);
        return { records: [bytes ? { _status: { code: 200, text: 'OK' }, size: bytes.length } : { _status: { code: 400, text: 'Error Loading Image: the image could not be loaded' } }] };
      },
    });
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const said: string[] = [];
    const runner = new JobRunner({ requests: store, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({ removed: [], failed: [] }) } as unknown as MediaStore }, { concurrency: 1, leaseMs: 30_000, pollMs: 20, maxAttempts: 3, storageRetryMs: 50, log: (_level, message) => said.push(message) });
    runner.start();
    try {
      const done = await until('the job to finish', async () => {
        const row = await store.get(id);
        return row?.status === 'DONE' ? row : undefined;
      }, 15_000);
      expect(done.response).toMatchObject({ records: [{ _status: { code: 200 }, size: Buffer.from(png, 'base64').length }] });
      // its attempt given back, as a result the media folder refused (the retry is no failure of the job's)
      expect(done.attempts).toBe(1);
      expect(said).toContain('job could not read its images from the database; it runs again in 0 s');
    } finally {
      await runner.stop(50);
    }
  });

  it('a runner whose database a newer release upgraded takes no job, says so once, and takes them again when that is undone (h88)', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    await t.services.flows.put('hash', { steps: [{ endpoint: 'image_matching/visual_hash' }] });
    const { id } = await t.services.requests.submit(t.caller, { type: 'flows', endpoint: 'hash', records: [{ _base64: '!!' }] });
    const registry = new HandlerRegistry();
    const ran: string[] = [];
    registry.register({ type: 'flows', accepts: () => true, endpoints: () => ['hash'], run: async (ctx) => (ran.push(ctx.id), { records: [{ _status: { code: 200, text: 'OK' } }] }) });
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const said: string[] = [];
    let blocked: string | undefined = 'the database was upgraded by a newer Loupe release';
    const runner = new JobRunner({ requests: store, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({ removed: [], failed: [] }) } as unknown as MediaStore, claimBlocked: async () => blocked }, { concurrency: 1, leaseMs: 30_000, pollMs: 20, maxAttempts: 3, log: (_level, message) => said.push(message) });
    runner.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(ran).toEqual([]);
      expect((await store.get(id))!.status).toBe('CREATED');
      expect(said.filter((m) => m.startsWith('no job is taken: the database was upgraded'))).toHaveLength(1);
      blocked = undefined;
      await until('the job to run', async () => ran.length > 0, 10_000);
      expect(ran).toEqual([id]);
    } finally {
      await runner.stop(50);
    }
  });

  /**
   * One job of `runMs` whose webhook goes to a receiver answering with `answer` (none: it never answers), and a queue of
   * one worker polling every 100 ms to run it; `close` stops both.
   */
  const webhookJob = async (runMs: number, answer: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null, webhookTimeoutMs = loadConfig({}).webhooks.timeoutMs, webhooks: Partial<ReturnType<typeof loadConfig>['webhooks']> = {}, log?: (level: string, message: string, fields?: Record<string, unknown>) => void) => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    let reached = false;
    const receiver = http.createServer((req, res) => {
      reached = true;
      answer?.(req, res);
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    let started = false;
    const registry = new HandlerRegistry();
    registry.register({ type: 'job', accepts: () => true, endpoints: () => ['e'], run: async () => ((started = true), await new Promise((r) => setTimeout(r, runMs)), { records: [{ _status: { code: 200, text: 'OK' } }] }) });
    const id = crypto.randomUUID();
    await store.insert({ id, accountId: t.caller.accountId, workspaceId: t.caller.workspaceId, type: 'job', endpoint: 'e', request: { records: [{ _id: 'a' }] }, options: {}, charged: 0, webhook: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, headers: {} }, expiresAt: Date.now() + 3_600_000, inputs: new Map<number, Buffer>() });
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const queue = new QueueWorkers(
      { requests: store, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({ removed: [], failed: [] }), removeWithLeftovers: async () => [] } as unknown as MediaStore, policy: new AddressPolicy(['127.0.0.1']) },
      { queue: { ...loadConfig({}).queue, workers: 1, pollMs: 100 }, webhooks: { ...loadConfig({}).webhooks, timeoutMs: webhookTimeoutMs, ...webhooks }, ...(log ? { log } : {}) },
    );
    queue.start();
    return {
      store,
      id,
      queue,
      started: () => started,
      reached: () => reached,
      close: async () => {
        await queue.stop();
        receiver.closeAllConnections();
        await new Promise((r) => receiver.close(r));
      },
    };
  };

  it('a job that finishes while its process stops has its webhook delivered before the stop ends (h104: it waited for the next start)', async () => {
    const calls: string[] = [];
    // the poll is long for a webhook: only the stop's own delivery round can send it in time
    const j = await webhookJob(700, (req, res) => {
      calls.push(req.url!);
      res.end('ok');
    });
    try {
      await until('the job running', async () => j.started(), 10_000);
      await j.queue.stop();
      expect((await j.store.get(j.id))?.status).toBe('DONE');
      expect(calls).toEqual(['/hook']);
    } finally {
      await j.close();
    }
  });

  it('a delivery begun before a stop, to a receiver that never answers, is cut at the stop\'s deadline, not its own timeout (h116)', async () => {
    const j = await webhookJob(0, null, 60_000);
    try {
      await until('the delivery waiting on its receiver', async () => j.reached(), 10_000);
      const t0 = Date.now();
      await j.queue.stop();
      // the jobs' 7-s grace bounds the whole stop, deliveries begun before it included
      // (9.8 s: the stop's own writes on a loaded PostgreSQL take time past the grace; a container's kill at 10 s is the limit)
      expect(Date.now() - t0).toBeLessThan(9_800);
    } finally {
      await j.close();
    }
  }, 30_000);

  it("a delivery's last attempt cut by its server's stop is sent again at the next start, not failed for good (h149)", async () => {
    // one attempt in all: the first is the last
    const j = await webhookJob(0, null, 60_000, { retryDelaysMs: [] });
    try {
      await until('the delivery waiting on its receiver', async () => j.reached(), 10_000);
      await j.queue.stop();
      const row = (await j.store.get(j.id))!;
      expect([row.webhookState, row.webhookLastError]).toEqual(['pending', 'the server stopped before the receiver answered']);
    } finally {
      await j.close();
    }
  }, 30_000);

  it('a receiver timing out (408), refusing a signature (401, h180) or not routing the path yet (404) is tried again; a redirect is final and says where it points (h149)', async () => {
    let calls = 0;
    const answers = [408, 401, 404, 301];
    const j = await webhookJob(0, (_req, res) => {
      const status = answers[calls++]!;
      res.writeHead(status, status === 301 ? { location: 'https://shop.example/hook' } : {}).end();
    }, undefined, { retryDelaysMs: [50, 50, 50, 50] });
    try {
      await until('the fourth answer', async () => (await j.store.get(j.id))?.webhookState === 'failed', 10_000);
      const row = (await j.store.get(j.id))!;
      expect([calls, row.webhookAttempts]).toEqual([4, 4]);
      expect(row.webhookLastError).toBe('the receiver answered HTTP 301, to https://shop.example/hook: redirects are not followed, send it again to the address it names (POST /account/v2/request/<id>/webhook)');
    } finally {
      await j.close();
    }
  });

  it('a delivery whose outcome cannot be written is logged and sent again when its lease ends, and the process goes on (h149: it ended)', async () => {
    const said: string[] = [];
    const j = await webhookJob(0, (_req, res) => res.end('ok'), undefined, {}, (_level, message) => said.push(message));
    const write = j.store.webhookAttempt.bind(j.store);
    let refused = 0;
    j.store.webhookAttempt = async (...args) => {
      if (refused++ === 0) throw Object.assign(new Error('database "loupe" is not currently accepting connections'), { code: '55000' });
      return write(...args);
    };
    try {
      await until('the refusal logged', async () => said.includes('webhook delivery could not record its attempt; it is sent again when its lease ends'), 10_000);
      const row = (await j.store.get(j.id))!;
      expect(row.webhookState).toBe('pending');
    } finally {
      await j.close();
    }
  });

  it("a second stop waits for the one under way: the server's close finds its jobs handed back, not running (h184)", async () => {
    // a job that outlives the grace (it ignores the abort)
    const j = await webhookJob(8_000, (_req, res) => res.end('ok'));
    try {
      await until('the job running', async () => j.started(), 10_000);
      const t0 = Date.now();
      const early = j.queue.stop();
      await j.queue.stop();
      // handed back at the grace's end (7 s: written before a container's SIGKILL at 10 s)
      expect(await j.store.get(j.id)).toMatchObject({ status: 'PROCESSING', leaseUntil: 0, lastError: 'the worker stopped before finishing' });
      expect(Date.now() - t0).toBeGreaterThan(6_500);
      await early;
    } finally {
      await j.close();
    }
  }, 30_000);

  it("a stop's delivery to a receiver that never answers ends with the stop's grace, not the delivery's own timeout (h111: past 15 s, exit 1)", async () => {
    const j = await webhookJob(300, null, 20_000);
    try {
      await until('the job running', async () => j.started(), 10_000);
      const t0 = Date.now();
      await j.queue.stop();
      // the jobs' grace (7 s, under a container's SIGKILL at 10 s)
      expect(Date.now() - t0).toBeLessThan(9_800);
      expect((await j.store.get(j.id))?.status).toBe('DONE');
    } finally {
      await j.close();
    }
  });

  it("a stop's delivery to a receiver answering in 4.5 s is answered, not cut at the flush's 3 s and sent again (h276: every deploy sent slow receivers a second copy)", async () => {
    let calls = 0;
    const j = await webhookJob(300, (_req, res) => {
      calls++;
      setTimeout(() => res.end('ok'), 4500);
    });
    try {
      await until('the job running', async () => j.started(), 10_000);
      await j.queue.stop();
      expect(calls).toBe(1);
      expect(await j.store.get(j.id)).toMatchObject({ status: 'DONE', webhookState: 'delivered' });
    } finally {
      await j.close();
    }
  }, 30_000);

  it('a node whose database a newer release upgraded delivers no webhook and sweeps nothing, says so once each, and does both when that is undone', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    const calls: string[] = [];
    const receiver = http.createServer((req, res) => {
      calls.push(req.url!);
      res.end('ok');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    const row = (id: string, expiresAt: number) => ({ id, accountId: t.caller.accountId, workspaceId: t.caller.workspaceId, type: 'flows', endpoint: 'e', request: { records: [{ _id: 'a' }] }, options: {}, charged: 0, webhook: { url: `http://127.0.0.1:${port}/hook`, headers: {} }, expiresAt, inputs: new Map<number, Buffer>() });
    const expired = crypto.randomUUID();
    await store.insert(row(expired, Date.now() - 1000));
    const done = crypto.randomUUID();
    await store.insert(row(done, Date.now() + 3_600_000));
    const [claim] = await store.claim(1, 30_000, Date.now());
    expect(claim!.row.id).toBe(expired);
    await store.release(expired, claim!.token, 'x');
    const claims = await store.claim(5, 30_000, Date.now());
    const mine = claims.find((c) => c.row.id === done)!;
    expect(await store.complete(done, mine.token, { response: { records: [] }, media: [], refund: 0, webhookAt: Date.now() })).toBe(true);
    const said: string[] = [];
    let blocked: string | undefined = 'the database was upgraded by a newer Loupe release';
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const queue = new QueueWorkers(
      { requests: store, registry: new HandlerRegistry(), signal, intake: {} as ImageIntake, media: { remove: async () => ({ removed: [], failed: [] }), removeWithLeftovers: async () => [] } as unknown as MediaStore, policy: new AddressPolicy(['127.0.0.1']), claimBlocked: async () => blocked },
      { queue: { ...loadConfig({}).queue, workers: 0, pollMs: 20 }, webhooks: { ...loadConfig({}).webhooks, retryDelaysMs: [50] }, log: (_level, message) => said.push(message) },
    );
    queue.start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(await queue.sweep()).toBe(0);
      expect(calls).toEqual([]);
      expect(await store.get(expired)).toBeDefined();
      expect(said.filter((m) => m.startsWith('no webhook is delivered: the database was upgraded'))).toHaveLength(1);
      expect(said.filter((m) => m.startsWith('nothing is swept: the database was upgraded'))).toHaveLength(1);
      blocked = undefined;
      await until('the webhook', async () => calls.length > 0, 10_000);
      expect(calls).toEqual(['/hook']);
      expect(await queue.sweep()).toBe(1);
      expect(await store.get(expired)).toBeUndefined();
    } finally {
      await queue.stop();
      await new Promise((r) => receiver.close(r));
    }
  });

  /**
   * A one-record job of `type` run to its end by a runner of three attempts (`prepare` first, with the stored job);
   * its response as text.
   */
  const finishedJob = async (type: string, run: () => Promise<JobOutcome>, prepare?: (store: RequestStore, id: string) => Promise<void>) => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    const id = crypto.randomUUID();
    await store.insert({ id, accountId: t.caller.accountId, workspaceId: t.caller.workspaceId, type, endpoint: 'e', request: { records: [{ _id: 'a' }] }, options: {}, charged: 0, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
    await prepare?.(store, id);
    const registry = new HandlerRegistry();
    registry.register({ type, accepts: () => true, endpoints: () => ['e'], run });
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const runner = new JobRunner({ requests: store, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({ removed: [], failed: [] }) } as unknown as MediaStore }, { concurrency: 1, leaseMs: 30_000, pollMs: 20, maxAttempts: 3 });
    runner.start();
    try {
      const done = await until('the job to finish', async () => ((await store.get(id))!.status === 'DONE' ? store.get(id) : undefined), 20_000);
      return { id, text: JSON.stringify(done!.response) };
    } finally {
      await runner.stop(50);
    }
  };

  it("a job whose every attempt threw says an internal error in its records, not the library's own words (h118)", async () => {
    const { id, text } = await finishedJob('throwing', async () => {
      throw new Error('source: bad seek to 123676 (/usr/lib/libvips.so)');
    });
    expect(text).toContain(`an internal error; the server's log has it under request ${id}`);
    expect(text).not.toContain('bad seek');
  });

  it('a job whose every attempt ended with its worker says so in its records, not a bare count', async () => {
    const { text } = await finishedJob('crashy', async () => ({ records: [{ _id: 'a', _status: { code: 200, text: 'OK' } }], refund: 0 }), async (store, id) => {
      // three workers killed while they ran it: each lease ran out with no error written
      let now = Date.now();
      for (let i = 0; i < 3; i++) {
        expect((await store.claim(5, 10, now)).map((c) => c.row.id)).toContain(id);
        now += 1_000;
      }
    });
    expect(text).toMatch(/Processing failed 3 times \(last: the worker processing it stopped before it finished: a crash or a kill/);
  });

  it("a job's downloads run at once and hold no job slot: another account's uploaded image is done while two jobs of ten slow URLs still wait on their host (h280: about 60 s behind them)", async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    const other = await t.services.accounts.createAccount({ name: 'other', credits: 0 });
    // an image host that holds every answer until the test lets it go
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#396' } }).png().toBuffer();
    const held: http.ServerResponse[] = [];
    let answering = false;
    const answer = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    const host = http.createServer((_req, res) => (answering ? answer(res) : held.push(res)));
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/card.png`;
    const insert = (accountId: string, workspaceId: string, records: Record<string, unknown>[], inputs?: Map<number, Buffer>) => insertSizesJob(store, accountId, workspaceId, records, inputs);
    const slow = [
      await insert(t.caller.accountId, t.caller.workspaceId, Array.from({ length: 10 }, (_, i) => ({ _id: `a${i}`, _url: `${url}?a${i}` }))),
      await insert(t.caller.accountId, t.caller.workspaceId, Array.from({ length: 10 }, (_, i) => ({ _id: `b${i}`, _url: `${url}?b${i}` }))),
    ];
    const registry = new HandlerRegistry();
    // as the real handlers do: one record after the other, each image asked for when its turn comes
    registry.register({
      type: 'sizes',
      accepts: () => true,
      endpoints: () => ['e'],
      run: async (ctx) => {
        const records: Record<string, unknown>[] = [];
        for (let i = 0; i < ctx.records.length; i++) records.push({ _id: ctx.records[i]!._id, bytes: (await ctx.image(i)).length, _status: { code: 200, text: 'OK' } });
        return { records };
      },
    });
    const { runner, signal } = await urlRunner(t, store, registry, 30_000);
    try {
      // submitted once both slow jobs run (submitted together, the accounts' turns take it before the second)
      for (const id of slow) await until('the slow job to be taken', async () => (await store.get(id))!.status === 'PROCESSING', 10_000);
      const uploaded = await insert(other.account, other.workspace, [{ _id: 'u' }], new Map([[0, png]]));
      signal.notify('requests');
      await until('the uploaded image to be done', async () => (await store.get(uploaded))!.status === 'DONE', 10_000);
      expect((await store.get(uploaded))!.response).toMatchObject({ records: [{ _id: 'u', bytes: png.length }] });
      // every one of the twenty slow downloads asked for at once (four at a time, they came in three rounds a job)
      await until('all twenty downloads to be asked for', async () => held.length === 20, 10_000);
      for (const id of slow) expect((await store.get(id))!.status).toBe('PROCESSING');
      answering = true;
      for (const res of held.splice(0)) answer(res);
      for (const id of slow) await until('the slow job to be done', async () => (await store.get(id))!.status === 'DONE', 10_000);
      const done = await store.get(slow[0]!);
      expect((done!.response as { records: { bytes: number }[] }).records.map((r) => r.bytes)).toEqual(Array(10).fill(png.length));
    } finally {
      answering = true;
      for (const res of held.splice(0)) answer(res);
      await runner.stop(50);
      host.closeAllConnections();
      await new Promise((r) => host.close(r));
    }
  });

  it('jobs of slow URLs: two wait outside a slot, more download in theirs; a stop hands every one back at once (none has begun: those in a slot waited its grace, h290), each with its attempt and its downloads cut', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    const other = await t.services.accounts.createAccount({ name: 'other', credits: 0 });
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#396' } }).png().toBuffer();
    // a host that never answers
    const asked: http.IncomingMessage[] = [];
    const host = http.createServer((req) => asked.push(req));
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/card.png`;
    const insert = (accountId: string, workspaceId: string, records: Record<string, unknown>[], inputs?: Map<number, Buffer>) => insertSizesJob(store, accountId, workspaceId, records, inputs);
    const registry = new HandlerRegistry();
    registry.register({ type: 'sizes', accepts: () => true, endpoints: () => ['e'], run: async (ctx) => ({ records: [{ bytes: (await ctx.image(0)).length, _status: { code: 200, text: 'OK' } }] }) });
    const { runner, signal } = await urlRunner(t, store, registry, 60_000);
    try {
      const slow: string[] = [];
      for (let i = 0; i < 3; i++) {
        slow.push(await insert(t.caller.accountId, t.caller.workspaceId, [{ _url: `${url}?${i}` }]));
        signal.notify('requests');
        await until('the slow job to be taken', async () => (await store.get(slow[i]!))!.status === 'PROCESSING', 10_000);
      }
      await until('three downloads to be asked for', async () => asked.length === 3, 10_000);
      // the other slot is free: two of the three wait outside theirs
      const uploaded = await insert(other.account, other.workspace, [{}], new Map([[0, png]]));
      signal.notify('requests');
      await until('the uploaded image to be done', async () => (await store.get(uploaded))!.status === 'DONE', 10_000);
      // a fourth takes the slot freed and downloads in it; with both slots so held, a fifth is not taken
      const [fourth, fifth] = [await insert(t.caller.accountId, t.caller.workspaceId, [{ _url: `${url}?3` }]), await insert(t.caller.accountId, t.caller.workspaceId, [{ _url: `${url}?4` }])];
      signal.notify('requests');
      await until('the fourth download to be asked for', async () => asked.length === 4, 10_000);
      await new Promise((r) => setTimeout(r, 300));
      expect((await store.get(fifth))!.status).toBe('CREATED');
      expect(asked).toHaveLength(4);
      const closed = Promise.all(asked.map((req) => new Promise((r) => req.socket.once('close', r))));
      const stopped = runner.stop(30_000);
      // the two outside a slot and the two downloading in theirs alike: a grace is for handlers under way
      await until('the jobs to be handed back', async () => (await Promise.all([...slow, fourth].map((id) => store.get(id)))).every((r) => r!.leaseUntil === 0), 3_000);
      await stopped;
      await closed;
      for (const id of [...slow, fourth]) expect(await store.get(id)).toMatchObject({ status: 'PROCESSING', leaseUntil: 0, attempts: 0, lastError: 'the worker stopped before finishing' });
    } finally {
      await runner.stop(50);
      host.closeAllConnections();
      await new Promise((r) => host.close(r));
    }
  });

  it('runs one long job (the upscaler\'s kind) at a time, so a quick job behind two of them takes the other slot', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    const store = new RequestStore(t.services.store);
    const ids: string[] = [];
    for (const type of ['slow', 'slow', 'quick']) {
      const id = crypto.randomUUID();
      await store.insert({ id, accountId: t.caller.accountId, workspaceId: t.caller.workspaceId, type, endpoint: 'e', request: { records: [{ _id: 'a' }] }, options: {}, charged: 0, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
      ids.push(id);
    }
    const registry = new HandlerRegistry();
    // the long kind runs until its runner stops it; the quick one answers at once
    registry.register({ type: 'slow', long: true, accepts: () => true, endpoints: () => ['e'], run: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))) });
    registry.register({ type: 'quick', accepts: () => true, endpoints: () => ['e'], run: async () => ({ records: [{ _id: 'a', _status: { code: 200, text: 'OK' } }] }) });
    const signal = await QueueSignal.open(t.services.store, { listen: false });
    const runner = new JobRunner({ requests: store, registry, signal, intake: {} as ImageIntake, media: {} as MediaStore }, { concurrency: 2, leaseMs: 30_000, pollMs: 20, maxAttempts: 3 });
    runner.start();
    try {
      await until('the quick job to be done', async () => (await store.get(ids[2]!))!.status === 'DONE', 10_000);
      expect((await store.get(ids[0]!))!.status).toBe('PROCESSING');
      expect((await store.get(ids[1]!))!.status).toBe('CREATED');
    } finally {
      await runner.stop(50);
    }
  });

  it.skipIf(backend !== 'postgres')('two worker processes and 500 jobs: every job DONE exactly once', async () => {
    const t = await setup(backend);
    cleanup = t.close;
    await t.services.flows.put('hash', { steps: [{ endpoint: 'image_matching/visual_hash' }] });
    const tiny = (await sharp({ create: { width: 24, height: 16, channels: 3, background: '#358' } }).png().toBuffer()).toString('base64');
    const env = { ...t.env, LOUPE_QUEUE_WORKERS: '4' };
    const pair = [startWorker(env), startWorker(env)];
    workers.push(...pair);
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) ids.push((await t.services.requests.submit(t.caller, { type: 'flows', endpoint: 'hash', records: [{ _id: String(i), _base64: tiny }] })).id);
    await until('every job to be done', async () => (await t.services.requests.list(t.caller.accountId, { status: 'DONE', page: 1, pageSize: 1 })).count === 500, 120_000);
    // Each "job done" line follows its commit: the last ones may still be in the pipe.
    await until('every job to be reported', async () => pair[0]!.done.length + pair[1]!.done.length >= 500, 10_000);
    const reported = [...pair[0]!.done, ...pair[1]!.done];
    expect(reported.sort()).toEqual([...ids].sort());
    expect(new Set(reported).size).toBe(500);
    expect(pair[0]!.done.length).toBeGreaterThan(0);
    expect(pair[1]!.done.length).toBeGreaterThan(0);
    const sample = await t.services.requests.get(t.caller.accountId, ids[123]!);
    expect(sample.response!.records[0]).toMatchObject({ _id: '123', _status: { code: 200 } });
  }, 180_000);
});
