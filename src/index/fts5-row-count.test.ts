import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { fts5Idf } from '../text-search/query-compile.ts';
import { fts5RowCount } from './embedded-collection-queries.ts';

describe('fts5RowCount', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore('sqlite');
  });
  afterAll(() => t.close());

  it("is the N of FTS5's bm25(), deletes from a contentless table included, so its idf can be taken back out", async () => {
    const db = t.store.db;
    await sql.raw(`CREATE VIRTUAL TABLE probe_fts USING fts5(a, b, c, content='', contentless_delete=1)`).execute(db);
    for (let i = 1; i <= 300; i++) await sql`INSERT INTO probe_fts(rowid, a, b, c) VALUES (${i}, ${i <= 40 ? 'x y' : 'z'}, '', '')`.execute(db);
    await sql`DELETE FROM probe_fts WHERE rowid > 290`.execute(db);
    const n = await fts5RowCount(db, 'probe_fts');
    expect(n).toBe(300);
    // bm25 of "x" (40 rows) over "y" (the same 40 rows, the same sizes): equal, and equal to idf × the same term part
    const score = Number((await sql<{ s: number }>`SELECT bm25(probe_fts) AS s FROM probe_fts WHERE probe_fts MATCH 'x' LIMIT 1`.execute(db)).rows[0]!.s);
    const other = Number((await sql<{ s: number }>`SELECT bm25(probe_fts) AS s FROM probe_fts WHERE probe_fts MATCH 'x OR y' LIMIT 1`.execute(db)).rows[0]!.s);
    expect(other).toBeCloseTo(2 * score, 12);
    // the term part bm25 divided by our idf is the same whatever N-like count were wrong: check N through the idf itself
    const termPart = -score / fts5Idf(40, n);
    const avgdl = (40 * 2 + 260) / 300;
    expect(termPart).toBeCloseTo((1 * 2.2) / (1 + 1.2 * (1 - 0.75 + (0.75 * 2) / avgdl)), 9);
  });
});
