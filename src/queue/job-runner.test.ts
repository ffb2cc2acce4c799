import { describe, expect, it } from 'vitest';
import type { ImageIntake } from '../media/image-intake.ts';
import { DownloadHoldExceeded, type DownloadHold } from '../media/url-fetch.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { AsyncRequestRow, Claim, RequestStore } from '../store/request-store.ts';
import { downloadSignal } from '../util/download-scope.ts';
import { HandlerRegistry, type JobContext, type JobHandler } from './job-handler.ts';
import { JobRunner, type RunnerOptions } from './job-runner.ts';
import type { QueueSignal } from './queue-signal.ts';

const row = (id: string): AsyncRequestRow =>
  ({ seq: 1, id, accountId: 'a', workspaceId: 'w', type: 't', endpoint: 'e', status: 'PROCESSING', request: { records: [{}] }, options: {}, response: null, charged: 0, attempts: 1, media: [] }) as unknown as AsyncRequestRow;

const until = async (what: string, ok: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('JobRunner', () => {
  it('a request claimed again while its earlier run here still ends (its lease ran out meanwhile): that run is stopped, and the new one keeps its place, its lease renewed after the old one ends', async () => {
    // the database's view: who holds the lease now, and the claims it will answer
    const holder = new Map<string, string>();
    const claims: Claim[] = [];
    const renewed: { token: string; ids: string[] }[] = [];
    const completed: string[] = [];
    // the first lease's renewals answer late, once the request was claimed again: lost
    let answerFirst = () => {};
    const firstAnswered = new Promise<void>((r) => (answerFirst = r));
    const requests = {
      claim: async () => claims.splice(0, 1),
      extend: async (ids: string[], token: string) => {
        renewed.push({ token, ids });
        if (token === 'first') await firstAnswered;
        return ids.filter((id) => holder.get(id) !== token);
      },
      complete: async (id: string, token: string) => {
        if (holder.get(id) !== token) return false;
        completed.push(token);
        return true;
      },
      release: async () => false,
      status: async () => ({ status: 'PROCESSING' }),
      inputs: async () => new Map(),
    } as unknown as RequestStore;
    let wake = () => {};
    const signal = { on: (_: string, fn: () => void) => ((wake = fn), () => {}), notify: () => {} } as unknown as QueueSignal;
    // each run waits until the test ends it, whatever its signal says (a handler between two checks of it)
    const runs: { ctx: JobContext; end: () => void }[] = [];
    const registry = new HandlerRegistry();
    registry.register({
      type: 't',
      accepts: () => true,
      endpoints: () => ['e'],
      run: (ctx) => new Promise((resolve) => runs.push({ ctx, end: () => resolve({ records: [{ _status: { code: 200, text: 'OK' } }] }) })),
    });
    const runner = new JobRunner({ requests, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({}) } as unknown as MediaStore }, { concurrency: 2, leaseMs: 90, pollMs: 10, maxAttempts: 3 });
    holder.set('x', 'first');
    claims.push({ row: row('x'), token: 'first' });
    runner.start();
    try {
      await until('the first run, its lease being renewed', () => runs.length === 1 && renewed.length > 0);
      // its lease ran out (the database away longer than the lease) and this runner, a slot free, took the request again
      holder.set('x', 'second');
      claims.push({ row: { ...row('x'), attempts: 2 }, token: 'second' });
      wake();
      await until('the second run', () => runs.length === 2);
      expect(runs[0]!.ctx.signal.aborted).toBe(true);
      expect(runs[1]!.ctx.signal.aborted).toBe(false);
      // the old lease's renewal says it is lost: the run it was for, not the one holding the request now
      answerFirst();
      await new Promise((r) => setTimeout(r, 20));
      expect(runs[1]!.ctx.signal.aborted).toBe(false);
      runs[0]!.end();
      // the first run's end leaves the second's lease renewed (it was dropped from the runner's jobs, its lease left to run out)
      await new Promise((r) => setTimeout(r, 50));
      const seen = renewed.length;
      await until('a renewal after the first run ended', () => renewed.length > seen + 1);
      expect(renewed.slice(seen).some((r) => r.token === 'second' && r.ids.includes('x'))).toBe(true);
      expect(runs[1]!.ctx.signal.aborted).toBe(false);
      runs[1]!.end();
      await until('the second run to complete', () => completed.length === 1);
      expect(completed).toEqual(['second']);
    } finally {
      answerFirst();
      for (const r of runs) r.end();
      await runner.stop(100);
    }
  });

  it('a job whose request is erased while it reads its uploaded images is said stopped for that, not retried as an unreadable database (CI: queue-workers h142 waited 60 s)', async () => {
    const said: string[] = [];
    const released: string[] = [];
    let claimed = false;
    const requests = {
      claim: async () => (claimed ? [] : ((claimed = true), [{ row: row('gone'), token: 'tk' }])),
      extend: async () => [],
      complete: async () => false,
      release: async (id: string) => (released.push(id), false),
      // erased: its images' parts vanished while they were read, and the request is no more
      inputs: async () => {
        throw new Error("request gone's uploaded image 0 was deleted while it was read");
      },
      status: async () => undefined,
    } as unknown as RequestStore;
    const signal = { on: () => () => {}, notify: () => {} } as unknown as QueueSignal;
    const registry = new HandlerRegistry();
    registry.register({
      type: 't',
      accepts: () => true,
      endpoints: () => ['e'],
      run: async (ctx) => {
        await ctx.image(0).catch(() => {});
        return { records: [{ _status: { code: 400, text: 'no image' } }] };
      },
    });
    const runner = new JobRunner(
      { requests, registry, signal, intake: {} as ImageIntake, media: { remove: async () => ({}) } as unknown as MediaStore },
      { concurrency: 1, leaseMs: 1000, pollMs: 10, maxAttempts: 3, log: (_level, message) => said.push(message) },
    );
    runner.start();
    try {
      await until('the job to end', () => said.some((m) => m.startsWith('job ')));
      expect(said.filter((m) => m.startsWith('job '))).toEqual(['job stopped: its request was deleted']);
      expect(released).toEqual([]);
    } finally {
      await runner.stop(100);
    }
  });
});

/** A runner over a fake store answering `jobs` in turn, its downloads answered by the test (`asked`, each with its `answer`). */
function fakeRunner(jobs: AsyncRequestRow[], handler: Omit<JobHandler, 'type' | 'endpoints'>, options: Partial<RunnerOptions> = {}) {
  const completed = new Map<string, Record<string, unknown>>();
  const released: { id: string; giveBack: boolean | undefined }[] = [];
  const requests = {
    claim: async () => jobs.splice(0, 1).map((row) => ({ row, token: `tk-${row.id}` })),
    extend: async () => [],
    complete: async (id: string, _token: string, result: { response: Record<string, unknown> }) => (completed.set(id, result.response), true),
    release: async (id: string, _token: string, _error: string, _now?: number, giveBack?: boolean) => (released.push({ id, giveBack }), true),
    status: async () => ({ status: 'PROCESSING' }),
    inputs: async () => new Map(),
  } as unknown as RequestStore;
  const asked: { url: string; answer: (bytes: number) => void; stopped: boolean; declare: (bytes: number) => boolean; cut: () => void }[] = [];
  const intake = {
    options: { maxBytes: 100 },
    bytes: (record: { _url: string }, hold?: DownloadHold) =>
      new Promise<Buffer>((resolve, reject) => {
        const one = {
          url: record._url,
          answer: (n: number) => resolve(Buffer.alloc(n)),
          stopped: false,
          // its answer's headers in, as url-fetch.ts says them to the hold; false: the fetcher cuts it
          declare: (n: number) => hold?.resize(n) ?? true,
          cut: () => reject(new DownloadHoldExceeded()),
        };
        // a real download ends when its job is stopped
        downloadSignal()?.addEventListener('abort', () => ((one.stopped = true), reject(new Error('stopped'))), { once: true });
        asked.push(one);
      }),
  } as unknown as ImageIntake;
  const registry = new HandlerRegistry();
  registry.register({ type: 't', endpoints: () => ['e'], ...handler });
  const signal = { on: () => () => {}, notify: () => {} } as unknown as QueueSignal;
  const runner = new JobRunner({ requests, registry, signal, intake, media: { remove: async () => ({}) } as unknown as MediaStore }, { concurrency: 1, leaseMs: 10_000, pollMs: 10, maxAttempts: 3, ...options });
  return { runner, completed, released, asked };
}

/** A handler that takes every image in turn, answering its size. */
const takesAll: JobHandler['run'] = async (ctx) => {
  const records = [];
  for (let i = 0; i < ctx.records.length; i++) records.push({ bytes: (await ctx.image(i)).length, _status: { code: 200, text: 'OK' } });
  return { records };
};

const urls = (id: string, n: number, endpoint = 'e'): AsyncRequestRow => ({ ...row(id), endpoint, request: { records: Array.from({ length: n }, (_, i) => ({ _url: `http://img.test/${id}/${i}` })) } }) as AsyncRequestRow;

describe('JobRunner, images downloaded ahead', () => {
  it('holds no more of them than its budget: a record with no room is downloaded when its handler asks, not failed, and every byte counted is given back', async () => {
    const log: string[] = [];
    const { runner, completed, asked } = fakeRunner(
      [urls('j', 5)],
      {
        accepts: () => true,
        run: async (ctx) => {
          log.push('run');
          const records = [];
          for (let i = 0; i < ctx.records.length; i++) records.push({ bytes: (await ctx.image(i)).length, _status: { code: 200, text: 'OK' } });
          return { records };
        },
      },
      // three images of the largest the intake takes (100 bytes)
      { prefetchBytes: 300 },
    );
    runner.start();
    try {
      await until('three downloads', () => asked.length === 3);
      await new Promise((r) => setTimeout(r, 20));
      expect(asked).toHaveLength(3);
      // room for a fourth once two are in at 40 bytes; the fifth finds none (two more in at 90), nothing under way
      asked[0]!.answer(40);
      await new Promise((r) => setTimeout(r, 20));
      expect(asked).toHaveLength(3);
      asked[1]!.answer(40);
      await until('a fourth download', () => asked.length === 4);
      asked[2]!.answer(90);
      asked[3]!.answer(90);
      await until('the handler to run', () => log.includes('run'));
      expect(runner.prefetch!.held.peak).toBeLessThanOrEqual(300);
      // the fifth, begun once the handler took two images
      await until('the fifth download', () => asked.length === 5);
      expect(asked[4]!.url).toBe('http://img.test/j/4');
      asked[4]!.answer(50);
      await until('the job to complete', () => completed.has('j'));
      expect((completed.get('j')!.records as { bytes: number }[]).map((r) => r.bytes)).toEqual([40, 40, 90, 90, 50]);
      expect(runner.prefetch!.held.now).toBe(0);
    } finally {
      await runner.stop(100);
    }
  });

  it('counts a download at the length its answer declares once its headers are in, so that more begin within the budget; one that outgrows the room is cut, and downloaded when its handler asks', async () => {
    const { runner, completed, asked } = fakeRunner([urls('j', 5)], { accepts: () => true, run: takesAll }, { prefetchBytes: 300 });
    runner.start();
    try {
      await until('three downloads', () => asked.length === 3);
      // two answers declare 50 bytes: room for a fourth before any download ended (h290 counted 100 until the end)
      expect(asked[0]!.declare(50)).toBe(true);
      expect(asked[1]!.declare(50)).toBe(true);
      await until('a fourth download', () => asked.length === 4);
      expect(runner.prefetch!.held.now).toBe(300);
      // the first sends more than it declared: no room to grow into, so the fetcher cuts it (url-fetch.ts)
      expect(asked[0]!.declare(60)).toBe(false);
      asked[0]!.cut();
      asked[1]!.answer(50);
      expect(asked[2]!.declare(40)).toBe(true);
      expect(asked[3]!.declare(40)).toBe(true);
      await until('the fifth download', () => asked.length === 5);
      for (const a of asked.slice(2)) a.answer(40);
      // the cut one, downloaded again when its handler asked
      await until('the first again', () => asked.length === 6);
      expect(asked[5]!.url).toBe('http://img.test/j/0');
      asked[5]!.answer(60);
      await until('the job to complete', () => completed.has('j'));
      expect((completed.get('j')!.records as { bytes: number }[]).map((r) => r.bytes)).toEqual([60, 50, 40, 40, 40]);
      expect(runner.prefetch!.held).toEqual({ now: 0, peak: 300 });
    } finally {
      await runner.stop(100);
    }
  });

  it('room a handler makes by taking its images begins the downloads still in line, ahead of it; it then waits on that download, not a second one (h290: each was downloaded when asked, one after the other)', async () => {
    const gates: (() => void)[] = [];
    const took: number[] = [];
    const { runner, completed, asked } = fakeRunner(
      [urls('j', 4)],
      {
        accepts: () => true,
        run: async (ctx) => {
          const records = [];
          for (let i = 0; i < ctx.records.length; i++) {
            records.push({ bytes: (await ctx.image(i)).length, _status: { code: 200, text: 'OK' } });
            took.push(i);
            await new Promise<void>((r) => gates.push(r));
          }
          return { records };
        },
      },
      { prefetchBytes: 200 },
    );
    runner.start();
    try {
      await until('two downloads', () => asked.length === 2);
      asked[0]!.answer(100);
      asked[1]!.answer(100);
      // nothing under way and no room: the other two wait in line, the handler runs
      await until('the first image taken', () => took.length === 1);
      await until('the third begun ahead', () => asked.length === 3);
      expect(asked[2]!.url).toBe('http://img.test/j/2');
      gates.shift()!();
      await until('the second image taken', () => took.length === 2);
      await until('the fourth begun ahead', () => asked.length === 4);
      expect(asked[3]!.url).toBe('http://img.test/j/3');
      gates.shift()!();
      asked[2]!.answer(30);
      await until('the third image taken', () => took.length === 3);
      gates.shift()!();
      asked[3]!.answer(20);
      await until('the fourth image taken', () => took.length === 4);
      gates.shift()!();
      await until('the job to complete', () => completed.has('j'));
      expect((completed.get('j')!.records as { bytes: number }[]).map((r) => r.bytes)).toEqual([100, 100, 30, 20]);
      expect(asked).toHaveLength(4);
      expect(runner.prefetch!.held.now).toBe(0);
    } finally {
      await runner.stop(100);
    }
  });

  it('a record still in line when its handler asks for it is downloaded at once by the handler, and taken out of line (not downloaded twice)', async () => {
    const order = [2, 0, 1];
    const { runner, completed, asked } = fakeRunner(
      [urls('j', 3)],
      {
        accepts: () => true,
        run: async (ctx) => {
          const bytes: number[] = [];
          for (const i of order) bytes[i] = (await ctx.image(i)).length;
          return { records: bytes.map((n) => ({ bytes: n, _status: { code: 200, text: 'OK' } })) };
        },
      },
      { prefetchBytes: 100 },
    );
    runner.start();
    try {
      await until('a download', () => asked.length === 1);
      asked[0]!.answer(100);
      // the third asked for first: its own download, now
      await until("the handler's download", () => asked.length === 2);
      expect(asked[1]!.url).toBe('http://img.test/j/2');
      asked[1]!.answer(3);
      // the first taken: room for the second, begun ahead; not for the third again
      await until('the second begun ahead', () => asked.length === 3);
      expect(asked[2]!.url).toBe('http://img.test/j/1');
      asked[2]!.answer(5);
      await until('the job to complete', () => completed.has('j'));
      expect((completed.get('j')!.records as { bytes: number }[]).map((r) => r.bytes)).toEqual([100, 5, 3]);
      expect(asked).toHaveLength(3);
      expect(runner.prefetch!.held.now).toBe(0);
    } finally {
      await runner.stop(100);
    }
  });

  it('a job downloading in its slot whose images wait in line gives the slot to a job waiting with its images in, and waits for the next: their taking lets its own begin', async () => {
    const ran: string[] = [];
    const { runner, completed, asked } = fakeRunner(
      [urls('x', 2), urls('y', 2)],
      {
        accepts: () => true,
        run: async (ctx) => {
          ran.push(ctx.id);
          return takesAll(ctx);
        },
      },
      // one slot: x downloads outside it, y (claimed into it) in it; room for one image
      { prefetchBytes: 100 },
    );
    runner.start();
    try {
      await until('a download', () => asked.length === 1);
      expect(asked[0]!.url).toBe('http://img.test/x/0');
      asked[0]!.answer(100);
      // x, its first image in, runs first (h290 ran y, which downloaded each of its images when asked, x waiting)
      await until('a handler', () => ran.length === 1);
      expect(ran).toEqual(['x']);
      await until("x's second image", () => asked.length === 2);
      expect(asked[1]!.url).toBe('http://img.test/x/1');
      asked[1]!.answer(50);
      // x's taking made room: y's first image begins ahead of its handler
      await until("y's first image", () => asked.length === 3);
      expect(asked[2]!.url).toBe('http://img.test/y/0');
      asked[2]!.answer(100);
      await until("y's second image", () => asked.length === 4);
      expect(asked[3]!.url).toBe('http://img.test/y/1');
      asked[3]!.answer(10);
      await until('both jobs to complete', () => completed.size === 2);
      expect(ran).toEqual(['x', 'y']);
      expect((completed.get('y')!.records as { bytes: number }[]).map((r) => r.bytes)).toEqual([100, 10]);
      expect(runner.prefetch!.held).toEqual({ now: 0, peak: 100 });
    } finally {
      await runner.stop(100);
    }
  });

  it('a job whose handler throws gives back the budget of the images it did not take', async () => {
    const { runner, released, asked } = fakeRunner([urls('j', 2)], { accepts: () => true, run: async () => Promise.reject(new Error('broken')) }, { prefetchBytes: 1000 });
    runner.start();
    try {
      await until('two downloads', () => asked.length === 2);
      for (const a of asked) a.answer(60);
      await until('the job to go back', () => released.length === 1);
      expect(runner.prefetch!.held).toEqual({ now: 0, peak: 200 });
    } finally {
      await runner.stop(100);
    }
  });

  it("a job whose handler would answer without its images (its endpoint no longer accepted: a flow deleted; readsImages false: no catalog) downloads none ahead", async () => {
    const ran: string[] = [];
    const { runner, completed, asked } = fakeRunner([urls('deleted', 3, 'gone'), urls('nocatalog', 3, 'bare'), urls('ok', 1)], {
      accepts: (endpoint) => endpoint !== 'gone',
      readsImages: (endpoint) => endpoint !== 'bare',
      run: async (ctx) => {
        ran.push(`${ctx.id} ${asked.length}`);
        if (ctx.endpoint !== 'e') return { records: ctx.records.map(() => ({ _status: { code: 404, text: 'no such flow' } })) };
        return { records: [{ bytes: (await ctx.image(0)).length, _status: { code: 200, text: 'OK' } }] };
      },
    });
    runner.start();
    try {
      // the third job's one download, asked for before its handler ran
      await until('a download', () => asked.length === 1);
      expect(asked[0]!.url).toBe('http://img.test/ok/0');
      expect(ran).toEqual(['deleted 0', 'nocatalog 0']);
      asked[0]!.answer(7);
      await until('the jobs to complete', () => completed.size === 3);
      expect(ran).toEqual(['deleted 0', 'nocatalog 0', 'ok 1']);
    } finally {
      await runner.stop(100);
    }
  });

  it('a stop hands back at once a job still downloading in its slot (its handler not begun), its download cut, not after the grace (h290)', async () => {
    // no job may wait on its downloads outside a slot: this one downloads in its own
    const { runner, released, asked } = fakeRunner([urls('j', 1)], { accepts: () => true, run: async () => ({ records: [{ _status: { code: 200, text: 'OK' } }] }) }, { downloading: 0 });
    runner.start();
    await until('the download', () => asked.length === 1);
    const stopped = runner.stop(10_000).then(() => 'stopped');
    // a margin far under the grace, far over what a stop takes
    expect(await Promise.race([stopped, new Promise((r) => setTimeout(() => r('still waiting'), 2_000))])).toBe('stopped');
    expect(asked[0]!.stopped).toBe(true);
    expect(released).toContainEqual({ id: 'j', giveBack: true });
  });
});
