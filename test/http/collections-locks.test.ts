import pg from 'pg';
import { sql } from 'kysely';
import { limitStatement } from '../../src/index/pg-collection-queries.ts';
import type { Store } from '../../src/store/database.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/**
 * A filtered query that waits on another's lock (DDL, a collection made or dropped, an operator's
 * LOCK) ran into the filter's statement timeout and was answered 400 invalid_filter, the client's
 * fault; it is a 503 to retry.
 */
describe.skipIf(!backends.includes('postgres'))('a filtered query waiting on a lock (postgres)', () => {
  let h: Harness;
  let id: string;
  beforeAll(async () => {
    h = await startHarness('postgres', { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'locks' })).id;
  }, 120_000);
  afterAll(() => h?.close());

  it('is a 503 to retry, not the filter\'s fault', async () => {
    const holder = new pg.Client({ connectionString: h.config.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE collection_records IN ACCESS EXCLUSIVE MODE');
      const res = await h.request('POST', '/similarity/custom/v2/find', { body: { filter: { grp: 1 } }, headers: { 'collection-id': id } });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().code).toBe('database_unavailable');
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await h.request('POST', '/similarity/custom/v2/find', { body: { filter: { grp: 1 } }, headers: { 'collection-id': id } })).statusCode).toBe(200);
  }, 60_000);

  it("keeps the lock's limit under an operator's shorter statement_timeout (a lock wait was the filter's 400 again)", async () => {
    const db = (h.app.loupe as unknown as { store: Store }).store.db;
    const settings = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL statement_timeout = '2s'`.execute(trx);
      await limitStatement(trx);
      return (await sql<{ s: string; l: string }>`SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l`.execute(trx)).rows[0]!;
    });
    expect(settings).toEqual({ s: '2s', l: '1600ms' });
    const plain = await db.transaction().execute(async (trx) => {
      await limitStatement(trx);
      return (await sql<{ s: string; l: string }>`SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l`.execute(trx)).rows[0]!;
    });
    expect(plain).toEqual({ s: '5s', l: '4s' });
  });
});
