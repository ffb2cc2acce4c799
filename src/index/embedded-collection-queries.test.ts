/**
 * The embedded index's saved tag against changes applied out of their numbers' order (h361). A write commits, then its
 * request awaits something (an update's old thumbnail unlinked, an insert's refused ones) before it tells the index;
 * another write may commit and be applied meanwhile, and a save then. The saved index must be tagged so that the next
 * start, after a crash, replays every change it does not hold.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { AccountStore } from '../store/account-store.ts';
import { CollectionStore, type CollectionRecord } from '../store/collection-store.ts';
import { openStore, type Store } from '../store/database.ts';
import { EmbeddedCollectionQueries } from './embedded-collection-queries.ts';
import { HnswIndex } from './hnsw-index.ts';

const DIMS = 8;
/** Above the index's exact-search size (1,024): a search walks the graph, so a stale vector there shows. */
const RECORDS = 1100;

let dataDir: string;
let store: Store;
let collections: CollectionStore;
let c: CollectionRecord;
let indexes: string;

function vectorOf(i: number): Float32Array {
  // deterministic and spread out; record 0 is a unit axis, so its opposite is far from it
  if (i === 0) return Float32Array.from({ length: DIMS }, (_, d) => (d === 0 ? 1 : 0));
  return Float32Array.from({ length: DIMS }, (_, d) => Math.sin(i * 12.9898 + d * 78.233) * 43758.5453 % 1);
}

beforeEach(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-index-order-'));
  indexes = path.join(dataDir, 'indexes');
  store = await openStore({ dataDir });
  const accountId = randomUUID();
  await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
  collections = new CollectionStore(store);
  c = await collections.create({ id: randomUUID(), accountId, type: 'custom', name: 'order', productField: null, capacity: 10_000 });
  await collections.insert(c.id, Array.from({ length: RECORDS }, (_, i) => ({ recordId: `r${i}`, data: { _id: `r${i}` }, vector: vectorOf(i) })), 'test-8d');
  c = (await collections.get(c.id))!;
});

afterEach(async () => {
  await store.close();
  await fsp.rm(dataDir, { recursive: true, force: true });
});

interface Internals {
  loaded: Map<string, Promise<{ timer: NodeJS.Timeout | undefined }>>;
  checkpoint(id: string, s: unknown): Promise<void>;
}
const internals = (q: EmbeddedCollectionQueries) => q as unknown as Internals;

/** A save now, as the timer's or the 2,000th change's would be, behind every change applied so far. */
async function save(q: EmbeddedCollectionQueries): Promise<void> {
  await q.count(c);
  await internals(q).checkpoint(c.id, await internals(q).loaded.get(c.id));
}

/** The process ends without `close`: what was saved stays, nothing more is written. */
async function crash(q: EmbeddedCollectionQueries): Promise<void> {
  await q.count(c);
  const s = await internals(q).loaded.get(c.id);
  if (s?.timer) clearTimeout(s.timer);
}

/**
 * The records' count is the database's, and each record named is its own nearest at distance 0 through the graph search
 * (a stale vector in the graph is found only so: the search rescores its pool with the vectors read from the database).
 * Only those named: the graph's search is approximate, and an untouched record may be missed by it however it was saved.
 */
async function expectIndexHolds(q: EmbeddedCollectionQueries, recordIds: string[]): Promise<void> {
  const rows = await store.db.selectFrom('collection_records').select(['record_id', 'vector']).where('collection_id', '=', c.id).execute();
  expect(await q.count(c)).toBe(rows.length);
  expect(rows.length).toBeGreaterThan(1024);
  const wrong: string[] = [];
  for (const r of rows.filter((x) => recordIds.includes(x.record_id))) {
    const v = new Float32Array(new Uint8Array(r.vector!).buffer);
    const [hit] = await q.knn(c, v, 1);
    if (hit?.record.recordId !== r.record_id || hit.distance > 1e-5) wrong.push(`${r.record_id} -> ${hit?.record.recordId} at ${hit?.distance}`);
  }
  expect(wrong).toEqual([]);
}

/** What the start's load said: the number the saved index was tagged with and the changes it replayed. */
function loadedLine(logs: { message: string; details?: Record<string, unknown> }[]): { savedSeq: number; applied: number } {
  const loaded = logs.filter((l) => l.message === 'vector index loaded');
  expect(logs.filter((l) => l.message === 'vector index rebuilding')).toEqual([]);
  expect(loaded).toHaveLength(1);
  return loaded[0]!.details as { savedSeq: number; applied: number; size: number };
}

it("a change applied after a later one and a save between them is replayed after a crash (a record's new image)", async () => {
  const logs: { message: string; details?: Record<string, unknown> }[] = [];
  const q1 = new EmbeddedCollectionQueries(collections, indexes);
  await q1.load(c);
  // r0's image replaced: committed, its request still removing the old thumbnail
  const flipped = vectorOf(0).map((x) => -x);
  const updated = await collections.update(c.id, 'r0', { _id: 'r0' }, flipped);
  if (!updated || updated === 'changed') throw new Error('r0 not updated');
  // another request's insert commits after it and is applied first; the index is saved then
  const inserted = await collections.insert(c.id, [{ recordId: 'late', data: { _id: 'late' }, vector: vectorOf(5000) }], 'test-8d');
  const late = inserted.outcomes[0]!;
  if (!('key' in late)) throw new Error('late not inserted');
  q1.applied(c, { kind: 'upsert', record: { key: late.key, recordId: 'late', data: { _id: 'late' } }, vector: vectorOf(5000), seq: late.seq });
  await save(q1);
  // the update is applied now; the process dies before the next save
  q1.applied(c, { kind: 'upsert', record: updated.record, vector: flipped, seq: updated.seq });
  await crash(q1);

  const q2 = new EmbeddedCollectionQueries(collections, indexes, (_level, message, details) => logs.push({ message, details }));
  await q2.load(c);
  // saved below the update's number, so the start replayed it
  expect(loadedLine(logs).savedSeq).toBeLessThan(updated.seq);
  await expectIndexHolds(q2, ['r0', 'late']);
  await q2.close();
});

it('a save landing inside an insert batch is tagged below the records not yet applied (no rebuild after a crash)', async () => {
  const logs: { message: string; details?: Record<string, unknown> }[] = [];
  const q1 = new EmbeddedCollectionQueries(collections, indexes);
  await q1.load(c);
  const rows = [0, 1, 2].map((i) => ({ recordId: `b${i}`, data: { _id: `b${i}` }, vector: vectorOf(6000 + i) }));
  const { outcomes } = await collections.insert(c.id, rows, 'test-8d');
  // the service applies a batch record by record; the 2,000th change since the last save may be the first of them
  const [first, ...rest] = outcomes.map((o, i) => {
    if (!('key' in o)) throw new Error('refused');
    return { kind: 'upsert' as const, record: { key: o.key, recordId: rows[i]!.recordId, data: rows[i]!.data }, vector: rows[i]!.vector, seq: o.seq };
  });
  q1.applied(c, first!);
  await save(q1);
  for (const change of rest) q1.applied(c, change);
  await crash(q1);

  const q2 = new EmbeddedCollectionQueries(collections, indexes, (_level, message, details) => logs.push({ message, details }));
  await q2.load(c);
  // tagged with the first record's number: the other two replayed, not the whole index rebuilt for two missing
  expect(loadedLine(logs)).toMatchObject({ savedSeq: first!.seq, applied: 2 });
  await expectIndexHolds(q2, ['b0', 'b1', 'b2']);
  await q2.close();
});

it('numbers an insert took for records it refused are given back: the saved tag is not held below them', async () => {
  const q1 = new EmbeddedCollectionQueries(collections, indexes);
  await q1.load(c);
  const before = (await collections.get(c.id))!.seq;
  // a duplicate only: nothing stored, nothing applied
  const dup = await collections.insert(c.id, [{ recordId: 'r1', data: { _id: 'r1' }, vector: vectorOf(1) }], 'test-8d');
  expect(dup.outcomes).toEqual([{ refused: 'duplicate' }]);
  expect((await collections.get(c.id))!.seq).toBe(before);
  // a stored record beside a refused one takes one number
  const mixed = await collections.insert(c.id, [{ recordId: 'r2', data: { _id: 'r2' }, vector: vectorOf(2) }, { recordId: 'new', data: { _id: 'new' }, vector: vectorOf(7000) }], 'test-8d');
  const stored = mixed.outcomes[1]!;
  if (!('key' in stored)) throw new Error('new not inserted');
  expect(stored.seq).toBe(before + 1);
  expect((await collections.get(c.id))!.seq).toBe(before + 1);
  q1.applied(c, { kind: 'upsert', record: { key: stored.key, recordId: 'new', data: { _id: 'new' } }, vector: vectorOf(7000), seq: stored.seq });
  const deleted = await collections.deleteByIds(c.id, ['r3', 'r4']);
  expect(deleted.first).toBe(before + 2);
  q1.applied(c, { kind: 'delete', keys: deleted.deleted.map((d) => d.key), seq: deleted.seq, from: deleted.first });
  await save(q1);
  const sidecar = JSON.parse(fs.readFileSync(path.join(indexes, `${c.id}.usearch.json`), 'utf8')) as { seq: number };
  expect(sidecar.seq).toBe(before + 3);
  await q1.close();
});

it('a change that throws while it is applied is read again from the database: found, and the next save is not tagged below it', async () => {
  const logs: { level: string; message: string; details?: Record<string, unknown> }[] = [];
  const q1 = new EmbeddedCollectionQueries(collections, indexes, (level, message, details) => logs.push({ level, message, details }));
  await q1.load(c);
  const failing = await collections.insert(c.id, [{ recordId: 'failing', data: { _id: 'failing' }, vector: vectorOf(8000) }], 'test-8d');
  const stored = failing.outcomes[0]!;
  if (!('key' in stored)) throw new Error('failing not inserted');
  // committed, then its apply throws (the index's add: out of memory, a native error)
  const add = HnswIndex.prototype.add;
  const spy = vi.spyOn(HnswIndex.prototype, 'add').mockImplementation(function (this: HnswIndex, key, vector) {
    if (key === stored.key) throw new Error('forced in the test');
    add.call(this, key, vector);
  });
  try {
    q1.applied(c, { kind: 'upsert', record: { key: stored.key, recordId: 'failing', data: { _id: 'failing' } }, vector: vectorOf(8000), seq: stored.seq });
    await q1.count(c);
  } finally {
    spy.mockRestore();
  }
  expect(logs.filter((l) => l.level === 'warn').map((l) => [l.message, l.details?.seq])).toEqual([['vector index change not applied: the collection is read again from the database', stored.seq]]);
  // a later change applied as usual; the save claims it (it was held at the failed one's number - 1 until a restart)
  const later = await collections.insert(c.id, [{ recordId: 'later', data: { _id: 'later' }, vector: vectorOf(8001) }], 'test-8d');
  const next = later.outcomes[0]!;
  if (!('key' in next)) throw new Error('later not inserted');
  q1.applied(c, { kind: 'upsert', record: { key: next.key, recordId: 'later', data: { _id: 'later' } }, vector: vectorOf(8001), seq: next.seq });
  await expectIndexHolds(q1, ['failing', 'later']);
  await save(q1);
  const sidecar = JSON.parse(fs.readFileSync(path.join(indexes, `${c.id}.usearch.json`), 'utf8')) as { seq: number };
  expect(sidecar.seq).toBe(next.seq);
  await crash(q1);
  const q2 = new EmbeddedCollectionQueries(collections, indexes);
  await expectIndexHolds(q2, ['failing', 'later']);
  await q2.close();
});
