/**
 * Text search on SQLite reads on a worker of the store's read pool (sqlite-read-pool.ts), in one snapshot: the answers
 * must be those the server's own connection gives, to the last bit of every score, in the same order.
 */
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountStore } from '../store/account-store.ts';
import { CollectionStore, type CollectionRecord } from '../store/collection-store.ts';
import { openStore, type Store } from '../store/database.ts';
import { recordText } from '../text-search/record-text.ts';
import { parseQuery } from '../text-search/query.ts';
import { EmbeddedCollectionQueries } from './embedded-collection-queries.ts';

let dataDir: string;
let store: Store;
let c: CollectionRecord;
let onWorkers: EmbeddedCollectionQueries;
let onMain: EmbeddedCollectionQueries;

const words = ['red', 'car', 'cars', 'vintage', 'leather', 'running', 'runs', 'shoes', 'blue', 'dress', 'wooden', 'table', 'lamp', 'summer'];

beforeAll(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-text-reads-'));
  store = await openStore({ dataDir });
  const accountId = randomUUID();
  await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
  const collections = new CollectionStore(store);
  c = await collections.create({ id: randomUUID(), accountId, type: 'custom', name: 'text', productField: null, capacity: 10_000 });
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const rows = Array.from({ length: 800 }, (_, i) => {
    const data = { _id: `r${i}`, title: Array.from({ length: 2 + Math.floor(next() * 6) }, () => words[Math.floor(next() * words.length)]).join(' '), category: `c${i % 5}` };
    const { body, lang } = recordText(data);
    return { recordId: data._id, data, vector: Float32Array.from({ length: 8 }, () => next() - 0.5), text: { seen: '', body, ocr: '', lang, colors: [], observed: null, seenVersion: 0, seenState: 'done' as const } };
  });
  await collections.insert(c.id, rows, 'test-8d');
  // after deletes FTS5 ranks with its old counts and the search takes them back out (the longer ranking statement)
  await collections.deleteByIds(c.id, ['r3', 'r40', 'r41', 'r500']);
  c = (await collections.get(c.id))!;
  onWorkers = new EmbeddedCollectionQueries(collections, path.join(dataDir, 'indexes'));
  // the same store without its pool: every statement on the server's connection, as before the pool
  onMain = new EmbeddedCollectionQueries(new CollectionStore({ ...store, reads: undefined }), path.join(dataDir, 'indexes-main'));
});

afterAll(async () => {
  await onWorkers?.close();
  await onMain?.close();
  await store?.close();
  await fsp.rm(dataDir, { recursive: true, force: true });
});

it('ranks as the server connection does, key for key and score for score, filtered or not', async () => {
  for (const [text, filter] of [['red car', undefined], ['cars', undefined], ['running shoes', undefined], ['vintage leather', { category: 'c3' }], ['lamp', { category: 'c1' }]] as const) {
    const parsed = parseQuery(text);
    if (!parsed.ok) throw new Error(text);
    const q = parsed.query;
    const [a, b] = [await onWorkers.text(c, q, 30, filter), await onMain.text(c, q, 30, filter)];
    expect(a.length, text).toBeGreaterThan(0);
    expect(a.map((h) => [h.record.recordId, h.score]), text).toEqual(b.map((h) => [h.record.recordId, h.score]));
    expect([...(await onWorkers.present(c, q))], text).toEqual([...(await onMain.present(c, q))]);
  }
  // and they did read on a worker (the first had none to read on)
  expect(store.reads!.started).toBeGreaterThan(0);
}, 60_000);
