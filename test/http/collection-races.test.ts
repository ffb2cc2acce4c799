import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { CollectionGone, CollectionStore } from '../../src/store/collection-store.ts';
import type { Store } from '../../src/store/database.ts';

/** Writes to one collection at once (a concurrency tester's findings on PostgreSQL). */
describe.each(backends)('collection writes at once (%s)', (backend) => {
  let h: Harness;
  let store: CollectionStore;
  const rows = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ recordId: `r${from + i}`, data: { _id: `r${from + i}` }, vector: Float32Array.from({ length: 8 }, (_, d) => Math.sin(from + i + d)) }));

  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 8, taskTimeoutMs: 30_000, warm: [], embedder: '' } });
    store = new CollectionStore((h.app.loupe as unknown as { store: Store }).store);
  });
  afterAll(() => h?.close());

  it('deletes of the same records at once: one deletes them, the others find none; the count stays true and the capacity holds', async () => {
    for (let round = 0; round < 3; round++) {
      const id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: `race-${round}`, capacity: 10 })).id;
      await store.insert(id, rows(0, 10), 'test-8d');
      const call = (op: string, body: unknown) => h.request('POST', `/similarity/custom/v2/${op}`, { body, headers: { 'collection-id': id } });
      const ids = rows(0, 10).map((r) => ({ _id: r.recordId }));
      const answers = (await Promise.all(Array.from({ length: 4 }, () => call('delete', { records: ids })))).map((r) => r.json());
      expect(answers.map((a) => a.status.code).sort()).toEqual([220, 404, 404, 404]);
      expect(answers.reduce((n, a) => n + a.answer_records.length, 0)).toBe(10);
      expect((await store.get(id))!.recordCount).toBe(0);
      // tombstones only where the embedded index reads them
      const tombstones = await (h.app.loupe as unknown as { store: Store }).store.db.selectFrom('collection_tombstones').select('key').where('collection_id', '=', id).execute();
      expect(tombstones.length).toBe(backend === 'sqlite' ? 10 : 0);
      if (backend === 'sqlite') {
        // pruned once the index is saved with those deletions in it (h169: kept for good, one a deleted record)
        const queries = (h.app.loupe.collections as unknown as { queries: { loaded: Map<string, Promise<unknown>>; checkpoint: (id: string, s: unknown) => Promise<void> } }).queries;
        await queries.checkpoint(id, await queries.loaded.get(id));
        expect(await (h.app.loupe as unknown as { store: Store }).store.db.selectFrom('collection_tombstones').select('key').where('collection_id', '=', id).execute()).toEqual([]);
      }
      expect((await call('getRecordCount', {})).json().count).toBe(0);
      const again = await store.insert(id, rows(10, 20), 'test-8d');
      expect(again.outcomes.filter((o) => 'key' in o)).toHaveLength(10);
      expect(again.outcomes.filter((o) => 'refused' in o && o.refused === 'capacity')).toHaveLength(10);
    }
  });

  it("writes racing the collection's delete are each done or told the collection is gone, never a deadlock", async () => {
    const tally: Record<string, number> = {};
    const outcome = (what: string) => [() => `${what} ok`, (e: unknown) => (e instanceof CollectionGone ? `${what} gone` : `${what} ${String((e as { code?: string }).code)} ${String(e)}`)] as const;
    for (let round = 0; round < 20; round++) {
      const id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: `del-${round}` })).id;
      await store.insert(id, rows(0, 20), 'test-8d');
      const ops = [
        store.deleteByIds(id, ['r1', 'r2']).then(...outcome('deleteByIds')),
        store.update(id, 'r3', { _id: 'r3', x: 1 }).then(...outcome('update')),
        store.insert(id, rows(30, 2), 'test-8d').then(...outcome('insert')),
        new Promise((r) => setTimeout(r, round % 4)).then(() => store.delete(id)).then(...outcome('delete')),
      ];
      for (const o of await Promise.all(ops)) tally[o] = (tally[o] ?? 0) + 1;
    }
    expect(Object.keys(tally).filter((k) => !/ (ok|gone)$/.test(k))).toEqual([]);
    expect(tally['delete ok']).toBe(20);
  }, 60_000);

  it('a write to a collection deleted meanwhile is told so, not a database error', async () => {
    const id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'gone' })).id;
    await store.insert(id, rows(0, 2), 'test-8d');
    expect(await store.delete(id)).toBe(true);
    await expect(store.insert(id, rows(5, 1), 'test-8d')).rejects.toBeInstanceOf(CollectionGone);
    await expect(store.deleteByIds(id, ['r0'])).rejects.toBeInstanceOf(CollectionGone);
    await expect(store.update(id, 'r0', { _id: 'r0' })).rejects.toBeInstanceOf(CollectionGone);
  });
});
