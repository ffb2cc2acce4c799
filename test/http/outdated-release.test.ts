import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.ts';
import { backends, cs, startHarness, type Harness } from '../helpers/harness.ts';

/**
 * docs/upgrades.md, "To upgrade": a newer release's upgrade locks older ones out. A node already running when it came went on
 * writing rows as the old release makes them (h88); it now answers its probes only, and takes no queued job.
 */
describe.each(backends)('a database upgraded by a newer release while a node runs (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    // the check read every second, not every 10 s (its timing is migrate-lock.test.ts's): the test waited 10.5 s a backend
    h = await startHarness(backend, { schemaCheckMs: 1_000 });
  });
  afterAll(async () => h?.close());
  const db = () => (h.app.loupe as unknown as { store: Store }).store.db;

  it('answers 503 outdated_release to every call and not ready to /ready, within the check (10 s; 1 s here, read behind a queue poll)', async () => {
    expect((await h.request('GET', cs('session/'))).statusCode).toBe(200);
    await sql`INSERT INTO loupe_migrations (name, applied_at) VALUES ('999-from-the-future', ${new Date().toISOString()})`.execute(db());
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      const res = await h.request('GET', cs('session/'));
      expect([res.statusCode, res.json().code, res.headers['retry-after']]).toEqual([503, 'outdated_release', '60']);
      expect(res.json().detail).toMatch(/migration 999-from-the-future, unknown to this one/);
      const ready = await h.request('GET', '/ready', { token: null });
      expect([ready.statusCode, ready.json().detail]).toEqual([503, expect.stringContaining('upgraded by a newer Loupe release')]);
      // the probes under any spelling the router takes (a query, a trailing slash: a 500 before, h89)
      for (const url of ['/ready?x=1', '/ready/']) expect((await h.request('GET', url, { token: null })).statusCode, url).toBe(503);
      for (const url of ['/health', '/health?x=1']) expect((await h.request('GET', url, { token: null })).statusCode, url).toBe(200);
      // before the token's check: no 401 in its place
      const anonymous = await h.request('GET', cs('session/'), { token: null });
      expect([anonymous.statusCode, anonymous.json().code]).toEqual([503, 'outdated_release']);
      expect(await (h.app.loupe as unknown as { outdatedRelease(): Promise<string | undefined> }).outdatedRelease()).toMatch(/999-from-the-future/);
    } finally {
      await sql`DELETE FROM loupe_migrations WHERE name = '999-from-the-future'`.execute(db());
    }
  }, 30_000);
});
