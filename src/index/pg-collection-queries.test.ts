import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchPgDatabase } from '../../test/helpers/processes.ts';
import { AccountStore } from '../store/account-store.ts';
import { CollectionStore, type CollectionRecord } from '../store/collection-store.ts';
import { openStore, type Store } from '../store/database.ts';
import { efSearch, PgCollectionQueries } from './pg-collection-queries.ts';
import { fromPgVector, pgVector } from '../store/pg-vector.ts';

describe('PostgreSQL HNSW beam', () => {
  it('is one for every page up to 128 deep, unfiltered, so pages walked with `from` share one ordering', () => {
    // each page had its own beam (64, 120, 180…), and pages at 50,000 records repeated and skipped records
    expect(new Set([30, 60, 90, 120, 128].map((k) => efSearch(k, false)))).toEqual(new Set([256]));
    expect(efSearch(300, false)).toBe(600);
    expect(efSearch(30, true)).toBe(200);
    expect(efSearch(2000, false)).toBe(1000);
  });
});

/** Floats whose decimal text is long or at an edge of float4: the largest, the smallest normal and subnormal, a third. */
const awkward = [3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, 1 / 3, -2.5, 0.1, 16777217, -1e-7];
const bits = (v: Float32Array) => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));

describe('query vectors in pgvector binary form', () => {
  it('is the dimension and a reserved word as int16, then each float4 big-endian', () => {
    expect([...pgVector(Float32Array.of(1, -2.5))]).toEqual([0, 2, 0, 0, 0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0]);
  });

  it('reads back every float bit for bit', () => {
    const v = Float32Array.from([...awkward, -0]);
    expect(bits(fromPgVector(pgVector(v)))).toEqual(bits(v));
  });
});

describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL search by a stored vector, sent and read as pgvector binary (h366)', () => {
  let store: Store;
  let dataDir: string;
  let pg: { url: string; drop(): Promise<void> };
  let c: CollectionRecord;
  let queries: PgCollectionQueries;
  const dims = 16;
  const vectorOf = (i: number) => Float32Array.from({ length: dims }, (_, d) => (d === i % dims ? awkward[i % awkward.length]! : Math.sin(i * 7 + d) / 3));
  beforeAll(async () => {
    dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'loupe-pg-vectors-'));
    pg = await scratchPgDatabase('loupe_pg_vectors');
    store = await openStore({ dataDir, databaseUrl: pg.url });
    const accountId = randomUUID();
    await new AccountStore(store).createAccount({ id: accountId, name: 'vectors', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
    const cs = new CollectionStore(store);
    const id = (await cs.create({ id: randomUUID(), accountId, type: 'custom', productField: null, name: 'vectors', capacity: 1000 })).id;
    await cs.insert(id, Array.from({ length: 200 }, (_, i) => ({ recordId: `r${i}`, data: { _id: `r${i}` }, vector: vectorOf(i) })), 'test-16d');
    c = (await cs.get(id))!;
    queries = new PgCollectionQueries(store);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await pg?.drop();
    await fsp.rm(dataDir, { recursive: true, force: true });
  });

  it('reads a stored vector back with the floats it was written with', async () => {
    for (const i of [0, 1, 2, 3, 4, 5, 6, 7]) expect(bits((await queries.lookup(c, `r${i}`))!.vector)).toEqual(bits(vectorOf(i)));
  });

  it('ranks and measures as PostgreSQL does from the stored vector itself, filtered or not', async () => {
    for (const i of [1, 2, 6, 7]) {
      const query = (await queries.lookup(c, `r${i}`))!.vector;
      // the same search written over the stored vector, with no parameter: what the binary one must equal
      const own = await sql<{ key: number; distance: number }>`SELECT r.key, (r.embedding::vector(16)) <=> (q.embedding::vector(16)) AS distance
        FROM collection_records r, collection_records q WHERE r.collection_id = ${c.id} AND q.collection_id = ${c.id} AND q.record_id = ${`r${i}`}
        ORDER BY 2, 1 LIMIT 10`.execute(store.db);
      const hits = await queries.knn(c, query, 10);
      expect(hits.map((h) => [h.record.key, h.distance])).toEqual(own.rows.map((r) => [Number(r.key), Number(r.distance)]));
      expect(hits[0]!.record.recordId).toBe(`r${i}`);
      const filtered = await queries.knn(c, query, 5, { _id: { $in: [`r${i}`, 'r100', 'r150'] } });
      expect(filtered.map((h) => h.record.recordId).sort()).toEqual([`r${i}`, 'r100', 'r150'].sort());
      expect(filtered[0]).toEqual(hits[0]);
    }
  });
});
