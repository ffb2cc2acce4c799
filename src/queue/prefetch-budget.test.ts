import { describe, expect, it } from 'vitest';
import { PrefetchBudget, type PrefetchShare, type PrefetchTicket } from './prefetch-budget.ts';

const running = new AbortController().signal;
const turn = () => new Promise((r) => setTimeout(r, 0));
/** What a ticket says now: its share, 'stalled', or 'waiting'. */
function watch(ticket: PrefetchTicket) {
  const seen: { share?: PrefetchShare | undefined; stalled: boolean; given: boolean } = { stalled: false, given: false };
  void ticket.share.then((s) => ((seen.share = s), (seen.given = true)));
  void ticket.stalled.then(() => (seen.stalled = true));
  return seen;
}

describe('PrefetchBudget', () => {
  it('takes shares of the largest image while they fit; a download that finds no room waits for those under way, and begins once one ends small', async () => {
    const budget = new PrefetchBudget(300);
    const [a, b, c] = await Promise.all([budget.take(100, running).share, budget.take(100, running).share, budget.take(100, running).share]);
    const fourth = watch(budget.take(100, running));
    await turn();
    expect(fourth).toEqual({ stalled: false, given: false });
    a!.settle(90);
    await turn();
    // 90 + 2 × 100: no room yet
    expect(fourth.given).toBe(false);
    b!.settle(10);
    await turn();
    expect(fourth.share).toBeDefined();
    expect(fourth.stalled).toBe(false);
    expect(budget.held).toEqual({ now: 90 + 10 + 100 + 100, peak: 300 });
    c!.release();
    fourth.share!.release();
    a!.release();
    b!.release();
    expect(budget.held.now).toBe(0);
  });

  it('a share becomes the size its answer declares as soon as its headers are in: the next in line begins before any download ends (h290 held the largest image to the end)', async () => {
    const budget = new PrefetchBudget(300);
    const [a, b, c] = await Promise.all([budget.take(100, running).share, budget.take(100, running).share, budget.take(100, running).share]);
    const fourth = watch(budget.take(100, running));
    await turn();
    expect(fourth.given).toBe(false);
    expect(a!.resize(50)).toBe(true);
    expect(b!.resize(50)).toBe(true);
    await turn();
    expect(fourth.share).toBeDefined();
    expect(budget.held.now).toBe(50 + 50 + 100 + 100);
    // a download that sends more than it declared grows into room no one counts on, and no further
    expect(c!.resize(80)).toBe(true);
    expect(a!.resize(100)).toBe(false);
    expect(a!.resize(70)).toBe(true);
    expect(budget.held).toEqual({ now: 70 + 50 + 80 + 100, peak: 300 });
    a!.settle(65);
    // settled or given back, a share no longer resizes
    expect(a!.resize(10)).toBe(false);
    for (const s of [a, b, c, fourth.share]) s!.release();
    expect(budget.held.now).toBe(0);
  });

  it('with no room and nothing under way, a download is stalled (its job stops waiting for it) but keeps its place: it begins when a handler takes an image', async () => {
    const budget = new PrefetchBudget(250);
    const [a, b] = await Promise.all([budget.take(100, running).share, budget.take(100, running).share]);
    // the third waits while the two are under way; both end large: it is stalled
    const third = watch(budget.take(100, running));
    a!.settle(100);
    b!.settle(100);
    await turn();
    expect(third).toEqual({ stalled: true, given: false });
    // and a later one is stalled at once, behind it
    const fourth = watch(budget.take(100, running));
    await turn();
    expect(fourth).toEqual({ stalled: true, given: false });
    // a handler takes an image: the first in line begins
    a!.release();
    await turn();
    expect(third.share).toBeDefined();
    expect(fourth.given).toBe(false);
    // a share given back twice, or settled after it went, counts once
    a!.release();
    a!.settle(100);
    expect(budget.held.now).toBe(200);
    third.share!.release();
    b!.release();
    await turn();
    expect(fourth.share).toBeDefined();
    expect(budget.held.now).toBe(100);
  });

  it('a ticket cancelled (its handler asked first) or stopped leaves the line and takes nothing when room comes; a budget under the largest image gives none', async () => {
    const none = budget0();
    expect(await none.share).toBeUndefined();
    expect(none.cancel()).toBe(true);
    const budget = new PrefetchBudget(100);
    const a = budget.take(100, running);
    // given at once: too late to cancel
    expect(a.cancel()).toBe(false);
    const stop = new AbortController();
    const stopped = budget.take(100, stop.signal);
    const cancelled = budget.take(100, running);
    const behind = watch(budget.take(100, running));
    stop.abort();
    expect(await stopped.share).toBeUndefined();
    expect(cancelled.cancel()).toBe(true);
    expect(cancelled.cancel()).toBe(false);
    expect(await cancelled.share).toBeUndefined();
    (await a.share)!.settle(10);
    (await a.share)!.release();
    await turn();
    // only the one still in line took the room
    expect(behind.share).toBeDefined();
    expect(budget.held.now).toBe(100);
  });
});

function budget0(): PrefetchTicket {
  return new PrefetchBudget(0).take(1, running);
}
