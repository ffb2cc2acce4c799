import { sql } from 'kysely';
import sharp from 'sharp';
import type { Store } from '../../src/store/database.ts';
import { ftsTable } from '../../src/store/collection-text-store.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/**
 * A collection's text distances after deletes are those of a collection that never held the
 * deleted records: SQLite's contentless FTS5 table keeps its row count and average length through
 * deletes, and distances differed from PostgreSQL's after any delete (spec auditor helper).
 */
describe.each(backends)('text search after deletes (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { seen: [], vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 30_000, warm: [], embedder: '' } });
  });
  afterAll(() => h?.close());

  const titles = [
    'leather shoes',
    'running shoes for the marathon, light and fast, with a long description of the sole',
    'handmade leather boots',
    'shoes',
    'a red summer dress',
    'leather jacket with shoes pattern and many many more words in its long title text here',
    'blue shoes and blue leather belt',
    'canvas bag',
  ];

  it('gives the remaining records the distances a collection of them alone gives', async () => {
    const png = async (i: number) => (await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 30 * i, g: 100, b: 200 - 20 * i } } }).png().toBuffer()).toString('base64');
    const records = await Promise.all(titles.map(async (title, i) => ({ _id: `p${i}`, _base64: await png(i), title })));
    const make = async (name: string, recs: typeof records) => {
      const { id } = await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name });
      const res = await h.request('POST', '/similarity/photos/v2/insert', { body: { records: recs }, headers: { 'collection-id': id } });
      expect(res.json().status.code).toBe(210);
      return id;
    };
    const gone = ['p0', 'p2', 'p5'];
    const all = await make('all', records);
    const deleted = await h.request('POST', '/similarity/photos/v2/delete', { body: { records: gone.map((_id) => ({ _id })) }, headers: { 'collection-id': all } });
    expect(deleted.json().status.code).toBe(220);
    const rest = await make('rest', records.filter((r) => !gone.includes(r._id)));
    const search = async (id: string, q: string) => (await h.request('POST', '/similarity/text/photos/v2/text', { body: { query_record: { _text_data: q }, k: 10 }, headers: { 'collection-id': id } })).json();
    for (const q of ['shoes', 'leather shoes', 'blue', 'marathon shoes']) {
      const [a, b] = [await search(all, q), await search(rest, q)];
      expect(a.answer_records.map((r: { _id: string }) => r._id), q).toEqual(b.answer_records.map((r: { _id: string }) => r._id));
      expect(a.answer_distances.length, q).toBeGreaterThan(0);
      a.answer_distances.forEach((d: number, i: number) => expect(d, `${q} #${i}`).toBeCloseTo(b.answer_distances[i], 4));
    }
  }, 60_000);

  it('loupe collection compact writes a record deleted alone out of the keyword index (h207: its words stayed in the file)', async () => {
    const png = (await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 90, g: 100, b: 20 } } }).png().toBuffer()).toString('base64');
    const { id } = await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'erasure' });
    const records = [
      { _id: 'erika', _base64: png, customer: 'Erika Mustermann', note: 'Stammkundin Zauberwald' },
      { _id: 'other', _base64: png, customer: 'another customer' },
    ];
    expect((await h.request('POST', '/similarity/photos/v2/insert', { body: { records }, headers: { 'collection-id': id } })).json().status.code).toBe(210);
    expect((await h.request('POST', '/similarity/photos/v2/delete', { body: { records: [{ _id: 'erika' }] }, headers: { 'collection-id': id } })).json().status.code).toBe(220);
    const store = (h.app.loupe as unknown as { store: Store }).store;
    const indexHolds = async (word: string) => {
      if (backend !== 'sqlite') return false;
      const blocks = await sql<{ block: Buffer | null }>`SELECT block FROM ${sql.raw(`${ftsTable(id)}_data`)}`.execute(store.db);
      return blocks.rows.some((r) => r.block !== null && Buffer.from(r.block).includes(word));
    };
    if (backend === 'sqlite') expect(await indexHolds('zauberwald')).toBe(true);
    const compacted = await h.app.loupe.collections.compact(id);
    expect(compacted).toEqual({ compacted: id, keyword_index: backend === 'sqlite' ? 'rewritten' : 'postgresql' });
    expect(await indexHolds('zauberwald')).toBe(false);
    expect(await indexHolds('mustermann')).toBe(false);
    // what stays is still found
    const found = await h.request('POST', '/similarity/text/photos/v2/text', { body: { query_record: { _text_data: 'another customer' }, k: 10 }, headers: { 'collection-id': id } });
    expect(found.json().answer_records.map((r: { _id: string }) => r._id)).toEqual(['other']);
  }, 60_000);
});
