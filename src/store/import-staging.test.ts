import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { removeAbandonedStaging, sweptStagingAfterMs } from './import-staging.ts';

describe.each(backends)('rows an import left staged (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(() => t.close());

  it("are removed by the server's sweep once an hour old, not while an import may still be writing them (h139)", async () => {
    const row = (importId: string, at: number) => ({ import_id: importId, card_key: `k-${importId}`, set_code: null, set_name: null, name: 'n', name_norm: 'n', number: null, number_norm: null, rarity: null, year: null, fields: '{}', links: '{}', aliases: '[]', flags: '[]', content_hash: 'h', created_at: new Date(at).toISOString() });
    const ids = { old: '00000000-0000-4000-8000-000000000001', fresh: '00000000-0000-4000-8000-000000000002' };
    await t.store.db.insertInto('catalog_import_rows').values([row(ids.old, Date.now() - 2 * 3_600_000), row(ids.fresh, Date.now() - 60_000)]).execute();
    expect(await removeAbandonedStaging(t.store.db)).toBe(1);
    expect((await t.store.db.selectFrom('catalog_import_rows').select('import_id').execute()).map((r) => r.import_id)).toEqual([ids.fresh]);
    expect(await removeAbandonedStaging(t.store.db)).toBe(0);
    // the server's sweep waits six hours: an import may run past one
    await t.store.db.insertInto('catalog_import_rows').values([row('00000000-0000-4000-8000-000000000003', Date.now() - 2 * 3_600_000)]).execute();
    expect(await removeAbandonedStaging(t.store.db, undefined, Date.now(), sweptStagingAfterMs)).toBe(0);
    expect(await removeAbandonedStaging(t.store.db, undefined, Date.now() + 5 * 3_600_000, sweptStagingAfterMs)).toBe(1);
  });
});
