import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../../test/helpers/catalogs.ts';
import { backends } from '../../../test/helpers/harness.ts';
import { AccountStore } from '../account-store.ts';
import { migrate } from '../migrate.ts';
import { INPUT_PART_BYTES, RequestStore } from '../request-store.ts';

describe.each(backends)('migrations 043 and 044 (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(() => t?.close());

  it("keeps a waiting request's uploaded images as their part 0; images stored after are in parts, deleted with their request", async () => {
    const db = t.store.db;
    const requests = new RequestStore(t.store);
    const accountId = randomUUID();
    const workspaceId = randomUUID();
    await new AccountStore(t.store).createAccount({ id: accountId, name: 'upgrade', credits: 0, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
    const submit = async (inputs: Map<number, Buffer>) => {
      const id = randomUUID();
      await requests.insert({ id, accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 0, webhook: null, expiresAt: Date.now() + 3_600_000, inputs });
      return id;
    };
    const waiting = await submit(new Map());
    // the table as 003 made it, holding an image of 2.5 MiB whole, and 043 not run
    await sql`DROP TABLE async_request_inputs`.execute(db);
    await sql`CREATE TABLE async_request_inputs (request_id ${sql.raw(backend === 'postgres' ? 'uuid' : 'TEXT')} NOT NULL REFERENCES async_requests(id) ON DELETE CASCADE, idx INTEGER NOT NULL, bytes ${sql.raw(backend === 'postgres' ? 'BYTEA' : 'BLOB')} NOT NULL, PRIMARY KEY (request_id, idx))`.execute(db);
    const old = Buffer.alloc(2.5 * INPUT_PART_BYTES, 3);
    await sql`INSERT INTO async_request_inputs (request_id, idx, bytes) VALUES (${waiting}, 1, ${old})`.execute(db);
    // and 044 not run either: it makes the table again without the foreign key 003 gave it
    await sql`DROP TABLE async_request_uploads`.execute(db);
    await sql`DELETE FROM loupe_migrations WHERE name IN ('043-request-input-parts', '044-request-upload-staging')`.execute(db);
    expect(await migrate(t.store)).toEqual(['043-request-input-parts', '044-request-upload-staging']);

    const read = await requests.inputs(waiting);
    expect([...read.keys()]).toEqual([1]);
    expect(read.get(1)!.equals(old)).toBe(true);
    const fresh = Buffer.from(Array.from({ length: 2.5 * INPUT_PART_BYTES }, (_, i) => i % 253));
    const later = await submit(new Map([[0, fresh]]));
    expect((await sql<{ part: number }>`SELECT part FROM async_request_inputs WHERE request_id = ${later} ORDER BY part`.execute(db)).rows.map((r) => Number(r.part))).toEqual([0, 1, 2]);
    expect((await requests.inputs(later)).get(0)!.equals(fresh)).toBe(true);
    expect((await requests.deleteOne(later)).deleted).toBe(1);
    expect((await sql<{ n: number }>`SELECT count(*) AS n FROM async_request_inputs WHERE request_id = ${later}`.execute(db)).rows.map((r) => Number(r.n))).toEqual([0]);
  });
});
