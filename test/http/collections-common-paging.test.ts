import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import type { Store } from '../../src/store/database.ts';

/**
 * Spec 2 §4's common `k` and `from` on the two listing methods that took them without reading them (h311): a client
 * paging allNearDupPairs with `k` and `from` got the first page again, and allRecords with `k: 5` answered 1,000
 * records. Vectors are written through the store (images would take minutes to embed).
 */
describe.each(backends)('k and from on allNearDupPairs and allRecords, and filters on _id (%s)', (backend) => {
  let h: Harness;
  let id: string;
  const call = async (method: string, body: unknown) => {
    const res = await h.request('POST', `/similarity/custom/v2/${method}`, { body, headers: { 'collection-id': id } });
    return { statusCode: res.statusCode, body: res.json() as { answer_pairs?: { _id_a: string; _id_b: string; distance: number }[]; answer_records?: { _id: string }[]; answer_count: number; next?: string | null; detail?: string } };
  };

  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'paging', capacity: 1000 })).id;
    // six clusters of three records each, the clusters far apart: 18 pairs within a small radius, each a little apart
    let seed = 5;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const centres = Array.from({ length: 6 }, () => Array.from({ length: 16 }, next));
    const rows = Array.from({ length: 18 }, (_, i) => {
      const v = Float32Array.from(centres[i % 6]!, (x) => x + next() * 0.05);
      return { recordId: `r${i}`, data: { _id: `r${i}` }, vector: v };
    });
    await new CollectionStore((h.app.loupe as unknown as { store: Store }).store).insert(id, rows, 'test-16d');
  }, 120_000);
  afterAll(() => h?.close());

  it('allNearDupPairs: pages with k and from are slices of one order, none repeated', async () => {
    const all = await call('allNearDupPairs', { radius: 20 });
    expect(all.statusCode).toBe(200);
    const whole = all.body.answer_pairs!.map((p) => `${p._id_a}:${p._id_b}`);
    expect(whole.length).toBe(18);
    const paged: string[] = [];
    for (let from = 0; from < whole.length; from += 5) {
      const page = await call('allNearDupPairs', { radius: 20, k: 5, from });
      expect(page.statusCode).toBe(200);
      paged.push(...page.body.answer_pairs!.map((p) => `${p._id_a}:${p._id_b}`));
    }
    expect(paged).toEqual(whole);
    // past the end: an empty page
    expect((await call('allNearDupPairs', { radius: 20, from: 18 })).body.answer_count).toBe(0);
  }, 60_000);

  it('allRecords: k is the page size, from skips records; next goes on after the page', async () => {
    const five = await call('allRecords', { k: 5, only_ids: true });
    expect(five.statusCode).toBe(200);
    expect(five.body.answer_records!.map((r) => r._id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    const skipped = await call('allRecords', { k: 5, from: 3, only_ids: true });
    expect(skipped.body.answer_records!.map((r) => r._id)).toEqual(['r3', 'r4', 'r5', 'r6', 'r7']);
    // the next page follows the page's last record, not the skip again
    const url = new URL(skipped.body.next!);
    const after = await h.request('POST', `${url.pathname}${url.search}`, { body: {}, headers: { 'collection-id': id } });
    expect((after.json() as { answer_records: { _id: string }[] }).answer_records.map((r) => r._id)).toEqual(['r8', 'r9', 'r10', 'r11', 'r12']);
    // with a filter too
    const filtered = await call('allRecords', { k: 2, from: 1, only_ids: true, filter: { _id: { $in: ['r2', 'r4', 'r6', 'r8'] } } });
    expect(filtered.body.answer_records!.map((r) => r._id)).toEqual(['r4', 'r6']);
    // k and size both sent must agree, as k and limit do elsewhere
    const differ = await call('allRecords', { k: 5, size: 6 });
    expect(differ.statusCode).toBe(400);
    expect(differ.body.detail).toMatch(/k and size/);
    expect((await call('allRecords', { k: 5, size: 5, only_ids: true })).body.answer_count).toBe(5);
  }, 60_000);

  it('a range of numbers on _id (text) is refused, not an empty answer (h311)', async () => {
    const res = await call('find', { filter: { _id: { $gt: 4 } } });
    expect(res.statusCode).toBe(400);
    expect(res.body.detail).toMatch(/_id is text/);
    expect((await call('getRecordCount', { filter: { _id: { $not: { $lt: 3 } } } })).statusCode).toBe(400);
    expect((await call('find', { filter: { _id: { $gte: 'r5' } }, limit: 100 })).body.answer_count).toBe(5); // r5 … r9: text order
  }, 60_000);
});
