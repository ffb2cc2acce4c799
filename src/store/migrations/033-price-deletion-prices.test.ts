import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../../test/helpers/catalogs.ts';
import { backends } from '../../../test/helpers/harness.ts';
import { migrate } from '../migrate.ts';

describe.each(backends)('migration 033 (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(() => t?.close());

  it("adds deleted_prices to a database that ran 031 as it first was, and leaves one that has it (h158)", async () => {
    const db = t.store.db;
    const columns = async () =>
      backend === 'sqlite'
        ? (await sql<{ name: string }>`SELECT name FROM pragma_table_info('catalog_price_deletions')`.execute(db)).rows.map((r) => r.name)
        : (await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'catalog_price_deletions' AND table_schema = current_schema()`.execute(db)).rows.map((r) => r.name);
    expect(await columns()).toContain('deleted_prices');
    // as 031's first form left it: content_hash, no deleted_prices, and 033 not run
    await sql`ALTER TABLE catalog_price_deletions DROP COLUMN deleted_prices`.execute(db);
    await sql`ALTER TABLE catalog_price_deletions ADD COLUMN content_hash TEXT`.execute(db);
    await sql`DELETE FROM loupe_migrations WHERE name = '033-price-deletion-prices'`.execute(db);
    expect(await migrate(t.store)).toEqual(['033-price-deletion-prices']);
    expect(await columns()).toEqual(expect.arrayContaining(['deleted_prices', 'content_hash']));
    // run again where the column is there: nothing to do, no error
    await sql`DELETE FROM loupe_migrations WHERE name = '033-price-deletion-prices'`.execute(db);
    expect(await migrate(t.store)).toEqual(['033-price-deletion-prices']);
  });
});
