import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import type { Store } from '../../src/store/database.ts';

/**
 * Pages far down a large collection, and a filter matching a few records far from the query:
 * PostgreSQL's HNSW search took at most 2,000 candidates, so `from` 2,500 answered an empty page.
 * Vectors are written through the store (2,600 images would take minutes to embed).
 */
describe.skipIf(!backends.includes('postgres'))('deep pages and selective filters (postgres)', () => {
  const backend = 'postgres' as const;
  let h: Harness;
  let id: string;
  const call = async (body: unknown) => {
    const res = await h.request('POST', '/similarity/custom/v2/visualKNN', { body, headers: { 'collection-id': id } });
    return res.json() as { status: { code: number }; answer_records: { _id: string }[]; answer_count: number };
  };

  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'deep', capacity: 10_000 })).id;
    // a fixed pseudo-random walk: every record a little apart from the others
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const rows = Array.from({ length: 2600 }, (_, i) => {
      const v = Float32Array.from({ length: 16 }, next);
      // three rare records, far from r0: the filter below must find all three
      if (i >= 2597) v.fill(-1);
      return { recordId: `r${i}`, data: { _id: `r${i}`, ...(i >= 2597 ? { rare: true } : {}) }, vector: v };
    });
    const store = new CollectionStore((h.app.loupe as unknown as { store: Store }).store);
    for (let i = 0; i < rows.length; i += 500) await store.insert(id, rows.slice(i, i + 500), 'test-16d');
  }, 180_000);
  afterAll(() => h?.close());

  it('answers a full page 2,500 records down', async () => {
    const page = await call({ query_record: { _id: 'r0' }, k: 30, from: 2500 });
    expect(page.answer_count).toBe(30);
    const ids = new Set(page.answer_records.map((r) => r._id));
    expect(ids.size).toBe(30);
  }, 60_000);

  // a check of the exact path's answers: at this size the HNSW scan (max_scan_tuples 20,000) finds them too
  it('a filter matching three far records finds all three', async () => {
    const rare = await call({ query_record: { _id: 'r0' }, k: 10, filter: { rare: true } });
    expect(rare.answer_records.map((r) => r._id).sort()).toEqual(['r2597', 'r2598', 'r2599']);
  }, 60_000);
});
