import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import type { Store } from '../../src/store/database.ts';
import { recordText } from '../../src/text-search/record-text.ts';
import { TOKENS_VERSION } from '../../src/text-search/seen-tokens.ts';
import { parseQuery } from '../../src/text-search/query.ts';
import { PgCollectionQueries } from '../../src/index/pg-collection-queries.ts';

/**
 * PostgreSQL's text search ranks the matches once a request (a memo the re-ranking's widening reads on from) and reads
 * the first k records in a second statement. A record deleted meanwhile was left out: k − 1 came back where k still
 * matched, which the widening (`hits.length < m`) and product grouping (`raw.length < fetch`) read as the matches' end
 * (h358).
 */
describe.skipIf(!backends.includes('postgres'))('PostgreSQL text ranking held for a request', () => {
  let h: Harness;
  let id: string;
  let cs: CollectionStore;
  const store = () => (h.app.loupe as unknown as { store: Store }).store;
  beforeAll(async () => {
    h = await startHarness('postgres');
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'memo', capacity: 1_000 })).id;
    cs = new CollectionStore(store());
    const rows = Array.from({ length: 80 }, (_, i) => {
      const data = { _id: `r${i}`, title: `vintage ${'lamp '.repeat(1 + (i % 5))}${i}` };
      const { body, lang } = recordText(data);
      return { recordId: data._id, data, vector: Float32Array.from({ length: 16 }, (_, d) => Math.sin(i * 7 + d)), text: { seen: '', body, ocr: '', lang, colors: [], observed: null, seenVersion: TOKENS_VERSION, seenState: 'done' as const } };
    });
    await cs.insert(id, rows, 'test-16d');
  }, 120_000);
  afterAll(() => h?.close());

  it('gives k records while k match, after one ranked for the request was deleted', async () => {
    const queries = new PgCollectionQueries(store());
    const parsed = parseQuery('vintage lamp');
    if (!parsed.ok) throw new Error('parse');
    const memo = {};
    const first = await queries.text((await cs.get(id))!, parsed.query, 10, undefined, memo);
    expect(first).toHaveLength(10);
    const gone = first[2]!.record;
    await cs.deleteByIds(id, [gone.recordId]);
    const c = (await cs.get(id))!;
    const wider = await queries.text(c, parsed.query, 40, undefined, memo);
    expect(wider).toHaveLength(40);
    expect(wider.map((x) => x.record.key)).not.toContain(gone.key);
    // as a request made after the deletion ranks them
    const fresh = await new PgCollectionQueries(store()).text(c, parsed.query, 40);
    expect(wider.map((x) => [x.record.key, x.score])).toEqual(fresh.map((x) => [x.record.key, x.score]));
  });
});
