import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { scratchPgDatabase } from '../helpers/processes.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import type { Store } from '../../src/store/database.ts';
import { recordText } from '../../src/text-search/record-text.ts';
import { seenText, TOKENS_VERSION, type Observed } from '../../src/text-search/seen-tokens.ts';

/**
 * PostgreSQL chose, for a k-NN search with a large limit or a prepared statement's generic plan, a scan
 * of every record (and a hash join reading every record's data) over the collection's HNSW index:
 * 20× slower past k ≈ 60 at 50,000 records. Searches now read through the index and the key, which
 * `pg_stat_user_tables` counts (a sequential scan of collection_records would be counted there).
 */
describe.skipIf(!backends.includes('postgres'))('k-NN plans on PostgreSQL', () => {
  let h: Harness;
  let id: string;
  const store = () => (h.app.loupe as unknown as { store: Store }).store;
  beforeAll(async () => {
    h = await startHarness('postgres', { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'plans', capacity: 10_000 })).id;
    let seed = 3;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const rows = Array.from({ length: 3000 }, (_, i) => ({ recordId: `r${i}`, data: { _id: `r${i}`, blurb: 'x'.repeat(200), sku: `S-${i}`, shelf: { row: `row ${i % 100}` } }, vector: Float32Array.from({ length: 16 }, next) }));
    const cs = new CollectionStore(store());
    for (let i = 0; i < rows.length; i += 500) await cs.insert(id, rows.slice(i, i + 500), 'test-16d');
    await sql`ANALYZE collection_records`.execute(store().db);
  }, 180_000);
  afterAll(() => h?.close());

  const seqScans = async () => {
    await new Promise((r) => setTimeout(r, 1200));
    await sql`SELECT pg_stat_clear_snapshot()`.execute(store().db);
    return Number((await sql<{ n: string }>`SELECT seq_scan AS n FROM pg_stat_user_tables WHERE relname = 'collection_records'`.execute(store().db)).rows[0]!.n);
  };

  it('reads through the index at every k, also once the statement is prepared', async () => {
    const before = await seqScans();
    for (const k of [10, 30, 30, 30, 30, 30, 30, 63, 100, 250, 500]) {
      const res = await h.request('POST', '/similarity/custom/v2/visualKNN', { body: { query_record: { _id: 'r1' }, k }, headers: { 'collection-id': id } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().answer_count).toBe(k);
    }
    expect(await seqScans()).toBe(before);
  }, 120_000);

  it('reads the records an equality or $in filter names through the records\' GIN index, not every record (h348)', async () => {
    const before = await seqScans();
    for (const filter of [{ sku: 'S-2077' }, { 'shelf.row': 'row 7' }, { sku: { $in: ['S-5', 'S-6', 'S-7'] } }]) {
      const found = await h.request('POST', '/similarity/custom/v2/find', { body: { filter, limit: 100 }, headers: { 'collection-id': id } });
      expect(found.statusCode, found.body).toBe(200);
      const count = await h.request('POST', '/similarity/custom/v2/getRecordCount', { body: { filter }, headers: { 'collection-id': id } });
      expect(count.json().count, count.body).toBe(found.json().answer_records.length);
      const knn = await h.request('POST', '/similarity/custom/v2/visualKNN', { body: { query_record: { _id: 'r1' }, k: 5, filter }, headers: { 'collection-id': id } });
      expect(knn.statusCode, knn.body).toBe(200);
    }
    expect(await seqScans()).toBe(before);
  }, 120_000);

  /**
   * Text search read every text row of the collection where the planner expected an early match (`present`'s `LIMIT 1`
   * look for a word no record holds: 70–120 ms at 25,000 records) or a large share of matches (the ranking's OR of a
   * word's lexemes in nine languages) (s75).
   */
  it('text search reads the matches through the GIN index, never every text row', async () => {
    const photos = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'text plans', capacity: 10_000 })).id;
    const cs = new CollectionStore(store());
    const words = ['vintage', 'leather', 'wooden', 'table', 'lamp', 'cotton', 'summer', 'blue'];
    const rows = Array.from({ length: 3000 }, (_, i) => {
      // a person in 40 % of the photos, as in a shop's photos of its goods worn
      const o: Observed = { width: 800, height: 800, parts: ['objects', 'colors'], objects: i % 5 < 2 ? [{ name: 'person', prob: 0.9, box: [0, 0, 400, 700], colors: [] }] : [{ name: 'chair', prob: 0.8, box: [0, 0, 300, 300], colors: [] }], faces: [], colors: [], ocr: [] };
      const data = { _id: `t${i}`, title: `${words[i % 8]} ${words[(i * 3) % 8]} item ${i}`, category: `c${i % 20}` };
      const t = seenText(o);
      const { body, lang } = recordText(data);
      return { recordId: data._id, data, vector: Float32Array.from({ length: 16 }, (_, d) => Math.sin(i * 7 + d)), text: { seen: t.seen, body, ocr: t.ocr, lang, colors: t.colors, observed: o, seenVersion: TOKENS_VERSION, seenState: 'done' as const } };
    });
    for (let i = 0; i < rows.length; i += 500) await cs.insert(photos, rows.slice(i, i + 500), 'test-16d');
    await sql`ANALYZE collection_text`.execute(store().db);
    // a connection reports its counts when idle at most every 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL)
    const textSeqScans = async () => {
      await new Promise((r) => setTimeout(r, 11_000));
      await sql`SELECT pg_stat_clear_snapshot()`.execute(store().db);
      return Number((await sql<{ n: string }>`SELECT seq_scan AS n FROM pg_stat_user_tables WHERE relname = 'collection_text'`.execute(store().db)).rows[0]!.n);
    };
    // the first search reads the collection's document count and mean length (BM25's, held a minute): a count of every
    // row, which the planner may well read so
    expect((await h.request('POST', '/similarity/text/photos/v2/text', { body: { query_record: { _text_data: 'chair' } }, headers: { 'collection-id': photos } })).statusCode).toBe(200);
    // only the searches' reads counted: the background pass over text rows reads them by its own plans
    await (h.app.loupe as unknown as { seenBackfill: { stop(): Promise<void> } }).seenBackfill.stop();
    const before = await textSeqScans();
    for (const [query, filter] of [['person'], ['vintage leather'], ['zebra vintage'], ['person', { category: 'c1' }]] as const) {
      const res = await h.request('POST', '/similarity/text/photos/v2/text', { body: { query_record: { _text_data: query }, k: 30, ...(filter ? { filter } : {}) }, headers: { 'collection-id': photos } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().answer_count, query).toBeGreaterThan(0);
    }
    expect(await textSeqScans()).toBe(before);
  }, 180_000);
});

/**
 * A filter is a parameter of a statement prepared by name (store/pg-tuning.ts): after five runs on a connection,
 * PostgreSQL may keep a generic plan for it, planned without the filter's value, one for every filter of that shape. In
 * year-of-data's collection (25,000 records) it did, after pages of a category: one SKU was found by walking every record
 * in key order (31 ms; 0.2 ms by the GIN index a plan for the SKU takes). Here the connections keep generic plans from
 * the first run (`plan_cache_mode`, as PostgreSQL may choose), and a walk reads the primary key's entry of each record
 * it passes (h360).
 */
describe.skipIf(!backends.includes('postgres'))('filters planned for their values on PostgreSQL', () => {
  let h: Harness;
  let db: { url: string; drop(): Promise<void> };
  const store = () => (h.app.loupe as unknown as { store: Store }).store;
  beforeAll(async () => {
    db = await scratchPgDatabase('loupe_test');
    const url = new URL(db.url);
    url.searchParams.set('options', '-c plan_cache_mode=force_generic_plan');
    h = await startHarness('postgres', { databaseUrl: url.toString(), vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  it('finds one SKU by the GIN index, not by walking every key', async () => {
    const shop = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'shop', capacity: 30_000 })).id;
    // 25,000 records of metadata alone (find reads no vector), written by one statement
    await sql`INSERT INTO collection_records (collection_id, record_id, data, seq, created_at, updated_at)
      SELECT ${shop}::uuid, 'p' || i, json_build_object('_id', 'p' || i, 'sku', 'SKU-' || i, 'category', 'c' || (i % 20)), i, now(), now()
      FROM generate_series(0, 24999) AS i`.execute(store().db);
    await sql`ANALYZE collection_records`.execute(store().db);
    expect((await sql<{ mode: string }>`SELECT current_setting('plan_cache_mode') AS mode`.execute(store().db)).rows[0]!.mode).toBe('force_generic_plan');
    // only the finds' reads counted: the background pass over records without text rows reads them in key order (started
    // when the app is ready)
    await h.app.ready();
    await (h.app.loupe as unknown as { seenBackfill: { stop(): Promise<void> } }).seenBackfill.stop();
    // a connection reports its counts when idle at most every 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL)
    const keyEntriesRead = async () => {
      await new Promise((r) => setTimeout(r, 11_000));
      await sql`SELECT pg_stat_clear_snapshot()`.execute(store().db);
      return Number((await sql<{ n: string }>`SELECT idx_tup_read AS n FROM pg_stat_user_indexes WHERE indexrelname = 'collection_records_pkey'`.execute(store().db)).rows[0]!.n);
    };
    const before = await keyEntriesRead();
    for (let i = 0; i < 6; i++) {
      const res = await h.request('POST', '/similarity/custom/v2/find', { body: { filter: { sku: `SKU-${20_000 + i}` } }, headers: { 'collection-id': shop } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().answer_records.map((r: { _id: string }) => r._id)).toEqual([`p${20_000 + i}`]);
      const count = await h.request('POST', '/similarity/custom/v2/getRecordCount', { body: { filter: { category: 'c3' } }, headers: { 'collection-id': shop } });
      expect(count.json().count, count.body).toBe(1250);
    }
    // a generic plan's walk reads 25,000 entries for each SKU (150,000); the GIN index, none
    expect((await keyEntriesRead()) - before).toBeLessThan(1000);
  }, 180_000);
});
