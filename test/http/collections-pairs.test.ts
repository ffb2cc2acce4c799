import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultFetchLimits } from '../../src/config/config.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import type { Store } from '../../src/store/database.ts';

/**
 * allNearDupPairs searches once for every record. The embedded index answers each search without
 * waiting, so the pass held the event loop for its whole length: at 45,000 records every other
 * request, /health too, waited 33 s. Vectors are written through the store (images would take minutes).
 */
describe('allNearDupPairs over a large collection (sqlite)', () => {
  let h: Harness;
  let id: string;
  beforeAll(async () => {
    // the downloads' time budget spent at once: a client that leaves after it must still stop the pass
    h = await startHarness('sqlite', { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' }, fetch: { ...defaultFetchLimits, requestTotalMs: 1 } });
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'pairs', capacity: 10_000 })).id;
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const rows = Array.from({ length: 3000 }, (_, i) => {
      const v = Float32Array.from({ length: 16 }, next);
      return { recordId: `r${i}`, data: { _id: `r${i}` }, vector: v };
    });
    const store = new CollectionStore((h.app.loupe as unknown as { store: Store }).store);
    for (let i = 0; i < rows.length; i += 500) await store.insert(id, rows.slice(i, i + 500), 'test-16d');
  }, 180_000);
  afterAll(() => h?.close());

  it('the server loads every collection\'s index as it takes requests (a first search that loaded it held every request)', async () => {
    const loaded = (h.app.loupe.collections as unknown as { queries: { loaded: Map<string, unknown> } }).queries.loaded;
    expect(loaded.has(id)).toBe(false);
    expect(await h.app.loupe.collections.loadIndexes()).toEqual({ collections: 1, failed: 0, removed: 0 });
    expect(loaded.has(id)).toBe(true);
  }, 60_000);

  it('lets other requests through while it runs', async () => {
    // the index loaded first (its loading gives way of itself), so what is timed below is the pass
    expect((await h.request('POST', '/similarity/custom/v2/getRecordCount', { body: {}, headers: { 'collection-id': id } })).json().count).toBe(3000);
    expect((await h.request('POST', '/similarity/custom/v2/visualKNN', { body: { query_record: { _id: 'r1' }, k: 1 }, headers: { 'collection-id': id } })).statusCode).toBe(200);
    const done: string[] = [];
    const pairs = h.request('POST', '/similarity/custom/v2/allNearDupPairs', { body: { radius: 1, limit: 5 }, headers: { 'collection-id': id } }).then((r) => {
      done.push('pairs');
      return r;
    });
    // asked once the pass is under way (a timer: it fires only if the pass gives way)
    await new Promise((r) => setTimeout(r, 100));
    const health = h.request('GET', '/health').then((r) => {
      done.push('health');
      return r;
    });
    const [p, hl] = await Promise.all([pairs, health]);
    expect(p.statusCode).toBe(200);
    expect(hl.statusCode).toBe(200);
    expect(done).toEqual(['health', 'pairs']);
  }, 120_000);

  it('stops when its client goes away, also after the downloads\' time budget ran out', async () => {
    // sixteen records a call
    const queries = (h.app.loupe.visualSearch as unknown as { queries: { neighbours: (...a: unknown[]) => unknown } }).queries;
    const lookups = vi.spyOn(queries, 'neighbours');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/similarity/custom/v2/allNearDupPairs', headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json', 'collection-id': id } });
    req.on('error', () => {});
    req.end(JSON.stringify({ radius: 1, limit: 5 }));
    // gone once the pass is under way
    await vi.waitFor(() => expect(lookups.mock.calls.length).toBeGreaterThan(3), { timeout: 20_000, interval: 5 });
    req.destroy();
    await new Promise((r) => setTimeout(r, 1500));
    const seen = lookups.mock.calls.length;
    expect(seen).toBeLessThan(190);
    await new Promise((r) => setTimeout(r, 500));
    expect(lookups.mock.calls.length).toBe(seen);
    lookups.mockRestore();
  }, 120_000);
});

describe.each(backends)('allNearDupPairs pages of records (%s)', (backend) => {
  let h: Harness;
  let id: string;
  // 60 records, 12 of them a slightly moved copy of another: 12 pairs, whatever page of sixteen each falls in
  const cosine = (a: Float32Array, b: Float32Array) => {
    let d = 0, na = 0, nb = 0;
    for (let i = 0; i < a.length; i++) [d, na, nb] = [d + a[i]! * b[i]!, na + a[i]! ** 2, nb + b[i]! ** 2];
    return 1 - d / Math.sqrt(na * nb);
  };
  const vectors = new Map<string, Float32Array>();
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'pages' })).id;
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const rows: { recordId: string; data: Record<string, unknown>; vector: Float32Array }[] = [];
    for (let i = 0; i < 48; i++) {
      const v = Float32Array.from({ length: 16 }, next);
      vectors.set(`r${i}`, v);
      rows.push({ recordId: `r${i}`, data: { _id: `r${i}`, side: i % 2 ? 'odd' : 'even' }, vector: v });
    }
    // the copies come last, so most pairs join records of different pages
    for (let i = 0; i < 12; i++) {
      const v = Float32Array.from(vectors.get(`r${i * 4}`)!, (x) => x + next() * 0.02);
      vectors.set(`c${i * 4}`, v);
      // every third copy on the other side from its original: a filter keeps the pair only where it keeps both
      rows.push({ recordId: `c${i * 4}`, data: { _id: `c${i * 4}`, side: i % 3 === 2 ? 'odd' : 'even' }, vector: v });
    }
    await new CollectionStore((h.app.loupe as unknown as { store: Store }).store).insert(id, rows, 'test-16d');
    await h.app.loupe.collections.loadIndexes();
  }, 180_000);
  afterAll(() => h?.close());

  it('finds every pair within the radius once, closest first, and only among records the filter keeps', async () => {
    const pairs = async (body: Record<string, unknown>) =>
      (await h.request('POST', '/similarity/custom/v2/allNearDupPairs', { body, headers: { 'collection-id': id } })).json() as { answer_pairs: { _id_a: string; _id_b: string; distance: number }[] };
    const all = await pairs({ radius: 2, limit: 100 });
    const key = (p: { _id_a: string; _id_b: string }) => [p._id_a, p._id_b].sort().join('-');
    expect(all.answer_pairs.map(key).sort()).toEqual(Array.from({ length: 12 }, (_, i) => [`c${i * 4}`, `r${i * 4}`].sort().join('-')).sort());
    for (const p of all.answer_pairs) expect(p.distance).toBeCloseTo(100 * cosine(vectors.get(p._id_a)!, vectors.get(p._id_b)!), 3);
    const d = all.answer_pairs.map((p) => p.distance);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    // every original is even (r0, r4, …), and every third copy odd: those pairs are not among the even records'
    const split = all.answer_pairs.map(key).filter((k) => [2, 5, 8, 11].some((i) => k === [`c${i * 4}`, `r${i * 4}`].sort().join('-')));
    expect(split).toHaveLength(4);
    expect((await pairs({ radius: 2, limit: 100, filter: { side: 'even' } })).answer_pairs.map(key).sort()).toEqual(all.answer_pairs.map(key).filter((k) => !split.includes(k)).sort());
    expect((await pairs({ radius: 2, limit: 100, filter: { side: 'odd' } })).answer_pairs).toEqual([]);
    expect((await pairs({ radius: 2, limit: 3 })).answer_pairs).toEqual(all.answer_pairs.slice(0, 3));
  }, 60_000);
});
