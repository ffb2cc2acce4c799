import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { fts5Idf } from '../text-search/query-compile.ts';
import { sumVarints } from '../store/database.ts';
import { fts5Averages } from './embedded-collection-queries.ts';

describe('fts5Averages', () => {
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
    const n = (await fts5Averages(db, 'probe_fts')).rows;
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

  it('reads the token totals bm25() averages with, and each row\'s length, varints of several bytes included', async () => {
    const db = t.store.db;
    await sql.raw(`CREATE VIRTUAL TABLE long_fts USING fts5(a, b, content='', contentless_delete=1)`).execute(db);
    await sql`INSERT INTO long_fts(rowid, a, b) VALUES (1, ${'w '.repeat(200)}, ${'v '.repeat(20000)}), (2, 'one two', '')`.execute(db);
    expect(await fts5Averages(db, 'long_fts')).toEqual({ rows: 2, tokens: 20202 });
    const lengths = (await sql<{ id: number; n: number }>`SELECT id, fts5_row_tokens(sz) AS n FROM long_fts_docsize ORDER BY id`.execute(db)).rows;
    expect(lengths.map((r) => Number(r.n))).toEqual([20200, 2]);
    expect(sumVarints(Uint8Array.from([0x81, 0x00, 0x05]))).toBe(133);
  });
});
