/**
 * A load's vectors and hashes read on a worker thread (arena-fill.ts, h367) against the same load on the server's thread
 * (a store without a file): the arena holds the same vector and int8 code for every key, and searches, lookups and hash
 * look-ups answer alike. Also a worker lost part way: the rest is read on the server's thread from after its last key.
 * (A collection this small is read on the server's thread unless told otherwise: `workerFillFrom`.)
 */
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AccountStore } from '../store/account-store.ts';
import { CollectionStore, type CollectionRecord } from '../store/collection-store.ts';
import { openStore, type Store } from '../store/database.ts';
import { seededRandom } from '../util/seeded-random.ts';
import { EmbeddedCollectionQueries } from './embedded-collection-queries.ts';

const DIMS = 24;
/** Over two arena chunks (1,024) and a part of a third; over the int8 pre-selection's 1,024 keys when filtered by half. */
const RECORDS = 2600;

let dataDir: string;
let store: Store;
let collections: CollectionStore;
let c: CollectionRecord;
let indexes: string;
const made: EmbeddedCollectionQueries[] = [];
const r = seededRandom(367);
const vector = () => Float32Array.from({ length: DIMS }, () => r() * 2 - 1);
const hash = () => Array.from({ length: 256 }, () => (r() < 0.5 ? '1' : '0')).join('');

beforeEach(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-arena-fill-'));
  indexes = path.join(dataDir, 'indexes');
  store = await openStore({ dataDir });
  const accountId = randomUUID();
  await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
  collections = new CollectionStore(store);
  c = await collections.create({ id: randomUUID(), accountId, type: 'custom', name: 'fill', productField: null, capacity: 10_000 });
  // every third record without a hash (records stored before migration 014 have none)
  const rows = Array.from({ length: RECORDS }, (_, i) => ({ recordId: `r${i}`, data: { _id: `r${i}`, half: i % 2 === 0 }, vector: vector(), hash: i % 3 ? hash() : null }));
  for (let i = 0; i < RECORDS; i += 500) await collections.insert(c.id, rows.slice(i, i + 500), 'test-24d');
  // gaps in the keys, and new images for some (their rows' numbers after the rest)
  await collections.deleteByIds(c.id, Array.from({ length: 60 }, (_, i) => `r${i * 37 + 5}`));
  for (let i = 0; i < 30; i++) await collections.update(c.id, `r${i * 41 + 2}`, { _id: `r${i * 41 + 2}`, half: true }, vector(), undefined, hash());
  c = (await collections.get(c.id))!;
  // the index saved once, so every load below reads the same graph
  const first = new EmbeddedCollectionQueries(collections, indexes);
  await first.load(c);
  await first.close();
});

afterEach(async () => {
  for (const q of made.splice(0)) await q.close();
  await store.close();
  await fsp.rm(dataDir, { recursive: true, force: true });
});

interface Arena {
  slotOf: Map<number, number>;
  vector(slot: number): Float32Array;
  code(slot: number): Int8Array;
}
async function arenaOf(q: EmbeddedCollectionQueries): Promise<Arena> {
  const s = await (q as unknown as { loaded: Map<string, Promise<{ index: { arena: Arena } }>> }).loaded.get(c.id);
  return s!.index.arena;
}

/** Whether the load's hashes came from the worker: it packs them 1,024 to a buffer, the server's thread one to each. */
async function hashesFromWorker(q: EmbeddedCollectionQueries): Promise<boolean> {
  const s = await (q as unknown as { loaded: Map<string, Promise<{ hashes: Map<number, Uint32Array> }>> }).loaded.get(c.id);
  const sizes = new Set([...s!.hashes.values()].map((h) => h.buffer.byteLength));
  expect(sizes.size).toBe(1);
  return sizes.has(1024 * 8 * 4);
}

async function loaded(q: EmbeddedCollectionQueries): Promise<EmbeddedCollectionQueries> {
  made.push(q);
  await q.load(c);
  return q;
}

async function expectSameAnswers(q: EmbeddedCollectionQueries, main: EmbeddedCollectionQueries): Promise<void> {
  const [a, b] = [await arenaOf(q), await arenaOf(main)];
  expect(a.slotOf.size).toBe(RECORDS - 60);
  expect([...a.slotOf.keys()].sort((x, y) => x - y)).toEqual([...b.slotOf.keys()].sort((x, y) => x - y));
  const differ: number[] = [];
  for (const [key, slot] of a.slotOf) {
    const other = b.slotOf.get(key)!;
    if (!a.vector(slot).every((x, i) => x === b.vector(other)[i]) || !a.code(slot).every((x, i) => x === b.code(other)[i])) differ.push(key);
  }
  expect(differ).toEqual([]);
  for (const id of ['r0', 'r1', 'r2', 'r3', 'r43', 'r2001', 'r2599']) expect(await q.lookup(c, id)).toEqual(await main.lookup(c, id));
  for (let i = 0; i < 12; i++) {
    const query = vector();
    expect(await q.knn(c, query, 10)).toEqual(await main.knn(c, query, 10));
    // 1,300 allowed keys: exact, the int8 codes choosing what is rescored
    expect(await q.knn(c, query, 10, { half: true })).toEqual(await main.knn(c, query, 10, { half: true }));
  }
  const some = (await main.lookup(c, 'r4'))!;
  const near = await q.nearHashes(c, some.hash!, 120, some.vector, 50);
  expect(near.length).toBeGreaterThan(0);
  expect(near).toEqual(await main.nearHashes(c, some.hash!, 120, some.vector, 50));
}

it("reads a load's vectors, int8 codes and hashes on a worker as the server's thread reads them", async () => {
  const logs: string[] = [];
  const onWorker = await loaded(new EmbeddedCollectionQueries(collections, indexes, (_level, message) => logs.push(message), { workerFillFrom: 0 }));
  const onMain = await loaded(new EmbeddedCollectionQueries(new CollectionStore({ ...store, file: undefined }), path.join(dataDir, 'indexes')));
  await expectSameAnswers(onWorker, onMain);
  expect(logs).toEqual(['vector index loaded']);
  expect([await hashesFromWorker(onWorker), await hashesFromWorker(onMain)]).toEqual([true, false]);
  // a collection under `workerFillFrom` (8,192 records) is read on the server's thread
  expect(await hashesFromWorker(await loaded(new EmbeddedCollectionQueries(collections, indexes)))).toBe(false);
});

it('reads the rest on the server\'s thread, from after the last key the worker gave, where the worker is lost part way', async () => {
  const logs: { message: string; details?: Record<string, unknown> }[] = [];
  const lost = await loaded(new EmbeddedCollectionQueries(collections, indexes, (_level, message, details) => logs.push({ message, details: details ?? {} }), { fillFailsAfter: 1024, workerFillFrom: 0 }));
  const onMain = await loaded(new EmbeddedCollectionQueries(new CollectionStore({ ...store, file: undefined }), indexes));
  const said = logs.find((l) => /worker thread reading them was lost/.test(l.message));
  // the worker's first chunk was taken: the 1,024th vector's key
  const keys = [...(await arenaOf(onMain)).slotOf.keys()].sort((x, y) => x - y);
  expect(said?.details).toMatchObject({ after: keys[1023], err: 'failing after 1024 rows, as asked' });
  await expectSameAnswers(lost, onMain);
});
