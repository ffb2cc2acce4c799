import { describe, expect, it } from 'vitest';
import type { ImageIntake } from '../media/image-intake.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { AsyncRequestRow, Claim, RequestStore } from '../store/request-store.ts';
import { HandlerRegistry, type JobContext } from './job-handler.ts';
import { JobRunner } from './job-runner.ts';
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
