import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';

/** A session's summary is read from an index that holds every column it needs (migration 020), not from the rows. */
describe('the session summary on SQLite', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore('sqlite');
  });
  afterAll(() => t.close());

  it('is answered from the covering index', async () => {
    const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT count(*), count(DISTINCT card_key), sum(price), sum(calls), avg(CASE WHEN grade >= 0 AND grade <= 10 THEN grade END) FROM card_identifications WHERE session_id = ${'s'}`.execute(t.store.db);
    expect(plan.rows.map((r) => r.detail).join('\n')).toMatch(/USING COVERING INDEX card_identifications_summary/);
  });
});
