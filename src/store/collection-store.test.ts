import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { AccountStore } from './account-store.ts';
import { CollectionStore } from './collection-store.ts';

describe.each(backends)('collection store: a delete names its thumbnails (%s)', (backend) => {
  let t: TestStore;
  let cs: CollectionStore;
  let accountId: string;
  beforeAll(async () => {
    t = await openTestStore(backend);
    cs = new CollectionStore(t.store);
    accountId = randomUUID();
    await new AccountStore(t.store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
  });
  afterAll(() => t.close());

  const filled = async (name: string, thumbnails: (string | null)[]) => {
    const c = await cs.create({ id: randomUUID(), accountId, type: 'custom', name, productField: null, capacity: 1000 });
    await cs.insert(
      c.id,
      thumbnails.map((thumbnailKey, i) => ({ recordId: `r${i}`, data: { _id: `r${i}` }, vector: Float32Array.from([1, i, 0, 0]), thumbnailKey })),
      'm',
    );
    return c.id;
  };
  const named = async () => new Map((await t.store.db.selectFrom('media_deletions').select(['key', 'due']).execute()).map((r) => [r.key, Number(r.due)]));
  const key = () => `${randomUUID().replaceAll('-', '')}.webp`;

  it("names every record's thumbnail in media_deletions, due now, and answers them; one named already for later is due now", async () => {
    const keys = Array.from({ length: 600 }, key);
    const id = await filled('many', [...keys, null]);
    // named already, for an hour on (as a file about to be written is): the delete brings it forward
    await cs.intendMedia([keys[7]!]);
    const other = key();
    await cs.intendMedia([other]);
    const t0 = Date.now();
    const done = await cs.deleteWithMedia(id);
    expect(done.deleted).toBe(true);
    expect([...done.media].sort()).toEqual([...keys].sort());
    const after = await named();
    for (const k of keys) expect(after.get(k), k).toBeGreaterThanOrEqual(t0);
    for (const k of keys) expect(after.get(k), k).toBeLessThanOrEqual(Date.now());
    // another file's entry is left as it was
    expect(after.get(other)).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(await cs.get(id)).toBeUndefined();
    await cs.mediaRemoved([...keys, other]);
  });

  it('names nothing where there is no such collection, or the delete fails (one transaction)', async () => {
    expect(await cs.deleteWithMedia(randomUUID())).toEqual({ deleted: false, media: [] });
    expect((await named()).size).toBe(0);
    const keys = [key(), key()];
    const id = await filled('stuck', keys);
    // the collection's own delete fails after its thumbnails were named: they are named no more, and its records stay
    if (backend === 'sqlite') await sql.raw(`CREATE TRIGGER stuck BEFORE DELETE ON collections WHEN old.name = 'stuck' BEGIN SELECT RAISE(ABORT, 'stuck'); END`).execute(t.store.db);
    else {
      await sql.raw(`CREATE FUNCTION stuck() RETURNS trigger AS $$ BEGIN IF old.name = 'stuck' THEN RAISE EXCEPTION 'stuck'; END IF; RETURN old; END $$ LANGUAGE plpgsql`).execute(t.store.db);
      await sql.raw(`CREATE TRIGGER stuck BEFORE DELETE ON collections FOR EACH ROW EXECUTE FUNCTION stuck()`).execute(t.store.db);
    }
    await expect(cs.deleteWithMedia(id)).rejects.toThrow(/stuck/);
    expect((await named()).size).toBe(0);
    expect(await cs.thumbnailKeys(id)).toHaveLength(2);
    await sql.raw(backend === 'sqlite' ? 'DROP TRIGGER stuck' : 'DROP TRIGGER stuck ON collections').execute(t.store.db);
    expect((await cs.deleteWithMedia(id)).media.sort()).toEqual([...keys].sort());
  });
});
