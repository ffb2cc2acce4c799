import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/database.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import { regexWork } from '../../src/store/filters/linear-regex.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/**
 * `$regex` filters must not hold the server (issue 16, item 8): on the embedded backend a filter
 * runs on the event loop, where V8's backtracking RegExp took 15 s for `a*a*a*a*a*a*b` over one
 * 60-character title while every other request waited.
 */
describe.each(backends)('regex filters do not stop the server (%s)', (backend) => {
  let h: Harness;
  let store: Store;
  const base = '/similarity/products-new/v2';

  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 8, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    // Records written straight to the store (no images, so no models): the queries read them
    // when the collection is first used.
    store = await openStore({ dataDir: h.dataDir, databaseUrl: h.config.databaseUrl });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await h?.close();
  });

  const collectionOf = async (records: Record<string, unknown>[]) => {
    const { account, token } = await h.newAccount();
    const { id } = await h.app.loupe.collections.create({ accountId: account, type: 'product', name: 'regex' });
    const rows = records.map((data, i) => ({ recordId: `r${i}`, data, vector: Float32Array.from({ length: 8 }, (_, k) => Math.sin(i + k + 1)) }));
    await new CollectionStore(store).insert(id, rows, 'test-model');
    return { id, token };
  };
  const find = (c: { id: string; token: string }, filter: unknown) =>
    h.request('POST', `${base}/find`, { body: { filter, fields_to_return: ['_id'], limit: 100 }, headers: { 'collection-id': c.id }, token: c.token });

  it('answers a catastrophic pattern over a 60-character title at once, and /health meanwhile', async () => {
    const c = await collectionOf([{ title: 'a'.repeat(60) }, { title: 'a'.repeat(59) + 'b' }, { title: 'short' }]);
    // The first request readies the app and loads the collection; only the filter is timed.
    expect((await find(c, { title: 'short' })).json().answer_records).toEqual([{ _id: 'r2' }]);
    const t0 = performance.now();
    const found = find(c, { title: { $regex: 'a*a*a*a*a*a*b' } });
    const health = h.request('GET', '/health', { token: null }).then((res) => ({ res, ms: performance.now() - t0 }));
    const [res, healthy] = await Promise.all([found, health]);
    const ms = performance.now() - t0;
    expect(res.statusCode).toBe(200);
    expect(res.json().answer_records).toEqual([{ _id: 'r1' }]);
    expect(healthy.res.statusCode).toBe(200);
    expect(healthy.ms).toBeLessThan(1_000);
    expect(ms).toBeLessThan(1_000);
    // Many more stars, anchors and line-mode options: still linear.
    const more = await find(c, { title: { $regex: '^' + 'a*'.repeat(40) + 'b$', $options: 'im' } });
    expect(more.json().answer_records).toEqual([{ _id: 'r1' }]);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it.runIf(backend === 'sqlite')('refuses a pattern that needs too much work over the records with a 400 naming $regex', async () => {
    // Random a/b texts keep the lazily built DFA from ever warming up: each character costs ~200
    // NFA steps, so the scan's step budget runs out and the answer is a 400 within a fraction of a second.
    let state = 7;
    const rnd = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16) & 1;
    const c = await collectionOf(Array.from({ length: 100 }, () => ({ s: Array.from({ length: 1_000 }, () => (rnd() ? 'a' : 'b')).join('') })));
    expect((await find(c, { s: 'x' })).statusCode).toBe(200);
    const t0 = performance.now();
    const res = await find(c, { s: { $regex: '[ab]*a[ab]{200}c' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_filter', detail: expect.stringMatching(/^Invalid filter: \$regex: .*too much work/) });
    expect(performance.now() - t0).toBeLessThan(3_000);
    // The same collection still answers other filters.
    expect((await find(c, { s: { $regex: '^ab' } })).statusCode).toBe(200);
  });

  it.runIf(backend === 'postgres')('a pattern PostgreSQL would run for many seconds is cancelled at the filter time limit: a 400 naming the filter, other requests answered meanwhile', async () => {
    let state = 13;
    const rnd = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16) & 1;
    // 24 records: 8 ran through in 4.9 s on a faster machine (2026-12-01), under the 5-s limit, and answered 200
    const c = await collectionOf(Array.from({ length: 24 }, () => ({ t: Array.from({ length: 60_000 }, () => (rnd() ? 'a' : 'b')).join('') })));
    expect((await find(c, { t: 'x' })).statusCode).toBe(200);
    const t0 = performance.now();
    const slow = find(c, { t: { $regex: `[ab]*a${'[ab]{255}'.repeat(18)}c` } });
    const ping = new Promise((r) => setTimeout(r, 500)).then(() => h.request('GET', '/similarity/products-new/v2/ping', { headers: { 'collection-id': c.id }, token: c.token }));
    const [res, pinged] = await Promise.all([slow, ping]);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_filter', detail: expect.stringMatching(/ran past the time one query may take \(5 s/) });
    expect(performance.now() - t0).toBeLessThan(8_000);
    expect(pinged.statusCode).toBe(200);
  }, 30_000);

  it.runIf(backend === 'postgres')('slow filters hold at most half the database connections, one account’s one fewer: another account is answered meanwhile, its filters too', async () => {
    let state = 17;
    const rnd = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16) & 1;
    const c = await collectionOf(Array.from({ length: 8 }, () => ({ t: Array.from({ length: 60_000 }, () => (rnd() ? 'a' : 'b')).join('') })));
    const mine = await collectionOf([{ cat: 'hat' }, { cat: 'shoe' }]);
    const pool = h.config.pgPoolSize;
    const slow = Array.from({ length: pool }, () => find(c, { t: { $regex: `[ab]*a${'[ab]{255}'.repeat(18)}c` } }));
    await new Promise((r) => setTimeout(r, 500));
    // the account made before the clock starts: the time is the request's alone (a loaded CI box took seconds for both)
    const otherAccount = await h.newAccount();
    let t0 = performance.now();
    const other = await h.request('GET', '/cardstream/v2/session/', { token: otherAccount.token });
    const waited = performance.now() - t0;
    expect(other.statusCode).toBe(200);
    // another account's own filtered query is not queued behind the slow ones
    t0 = performance.now();
    const filtered = await find(mine, { cat: 'hat' });
    const filteredWaited = performance.now() - t0;
    expect(filtered.json().answer_records).toEqual([{ _id: 'r0' }]);
    expect((await Promise.all(slow)).map((r) => r.statusCode)).toEqual(Array(pool).fill(400));
    // with every connection held by a slow filter it waited their 5 s; queued behind them, 19 s
    expect(waited).toBeLessThan(4_000);
    expect(filteredWaited).toBeLessThan(4_000);
  }, 60_000);

  it.runIf(backend === 'sqlite')('a stream of such patterns is refused as busy while the server stays responsive, not 0.2 s of the event loop each', async () => {
    let state = 11;
    const rnd = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16) & 1;
    const c = await collectionOf(Array.from({ length: 100 }, () => ({ s: Array.from({ length: 1_000 }, () => (rnd() ? 'a' : 'b')).join('') })));
    expect((await find(c, { s: 'x' })).statusCode).toBe(200);
    // the work counted, on a clock that stands still: a loaded machine's slow requests refilled the bucket between
    // them, and a bound on their wall time failed on every loaded run (h222)
    const clock = regexWork.now;
    const take = regexWork.take;
    const at = performance.now();
    let taken = 0;
    regexWork.now = () => at;
    regexWork.take = function (steps: number) {
      taken += steps;
      take.call(this, steps);
    };
    try {
      regexWork.reset();
      const codes: number[] = [];
      let first = 0;
      for (let i = 0; i < 8; i++) {
        const res = await find(c, { s: { $regex: '[ab]*a[ab]{200}c' } });
        codes.push(res.statusCode);
        if (i === 0) first = taken;
        if (res.statusCode === 503) {
          expect(res.json()).toMatchObject({ code: 'busy', detail: expect.stringMatching(/regex work/) });
          expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        }
      }
      // the first is the pattern's own 400 (its scan's budget); the rest find the process's regex work used up
      expect(codes[0]).toBe(400);
      expect(codes.slice(1).filter((code) => code !== 503)).toEqual([]);
      // and cost next to nothing: eight scans of the first's work would be 1.6 s of the event loop
      expect(first).toBeGreaterThan(0);
      expect(taken - first).toBeLessThan(first / 20);
    } finally {
      regexWork.now = clock;
      regexWork.take = take;
      regexWork.reset();
    }
  });
});
