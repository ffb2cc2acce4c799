import { describe, expect, it } from 'vitest';
import { PrefetchBudget, type PrefetchShare } from './prefetch-budget.ts';

const running = new AbortController().signal;

describe('PrefetchBudget', () => {
  it('takes shares of the largest image while they fit; a download that finds no room waits for those under way, and begins once one ends small', async () => {
    const budget = new PrefetchBudget(300);
    const [a, b, c] = (await Promise.all([budget.take(100, running), budget.take(100, running), budget.take(100, running)])) as PrefetchShare[];
    let fourth: PrefetchShare | undefined | 'waiting' = 'waiting';
    void budget.take(100, running).then((s) => (fourth = s));
    await Promise.resolve();
    expect(fourth).toBe('waiting');
    a!.settle(90);
    await Promise.resolve();
    // 90 + 2 × 100: no room yet
    expect(fourth).toBe('waiting');
    b!.settle(10);
    await Promise.resolve();
    expect(fourth).not.toBe('waiting');
    expect(budget.held).toEqual({ now: 90 + 10 + 100 + 100, peak: 300 });
    c!.release();
    (fourth as unknown as PrefetchShare).release();
    a!.release();
    b!.release();
    expect(budget.held.now).toBe(0);
  });

  it('with no room and nothing under way, a download is left to its handler (undefined) rather than waiting on images no handler may take', async () => {
    const budget = new PrefetchBudget(250);
    const [a, b] = (await Promise.all([budget.take(100, running), budget.take(100, running)])) as PrefetchShare[];
    // the third waits while the two are under way; both end large: it gives up
    const third = budget.take(100, running);
    a!.settle(100);
    b!.settle(100);
    expect(await third).toBeUndefined();
    // and a later one is told at once
    expect(await budget.take(100, running)).toBeUndefined();
    // a share given back twice, or settled after it went, counts once
    a!.release();
    a!.release();
    a!.settle(100);
    expect(budget.held.now).toBe(100);
    expect(await budget.take(100, running)).toBeDefined();
  });

  it('a budget under the largest image downloads nothing ahead; a stopped job stops waiting', async () => {
    expect(await new PrefetchBudget(0).take(1, running)).toBeUndefined();
    const budget = new PrefetchBudget(100);
    const a = await budget.take(100, running);
    const stop = new AbortController();
    const waiting = budget.take(100, stop.signal);
    stop.abort();
    expect(await waiting).toBeUndefined();
    a!.settle(10);
    // the stopped one took nothing when room came
    expect(budget.held.now).toBe(10);
  });
});
