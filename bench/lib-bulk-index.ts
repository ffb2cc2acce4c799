import path from 'node:path';
import { sql } from 'kysely';
import { HnswIndex } from '../src/index/hnsw-index.ts';
import { pgIndexDdl, pgIndexName, type CollectionStore } from '../src/store/collection-store.ts';
import type { Store } from '../src/store/database.ts';

/** After a bench's first bulk insert on PostgreSQL: its (empty) HNSW index dropped, so the rest load without it. */
export async function dropVectorIndexForBulkLoad(store: Store, backend: 'sqlite' | 'postgres', collection: string): Promise<void> {
  if (backend === 'postgres') await sql.raw(`DROP INDEX IF EXISTS ${pgIndexName(collection)}`).execute(store.db);
}

/**
 * The collection's vector index as a server that took the records one by one would have it: built (PostgreSQL, its
 * HNSW index made again), or built and saved in the data folder (SQLite), so a server started on it loads it.
 */
export async function buildVectorIndex(store: Store, cs: CollectionStore, backend: 'sqlite' | 'postgres', collection: string, dimensions: number, dataDir: string): Promise<void> {
  if (backend === 'postgres') {
    await sql.raw(`SET maintenance_work_mem = '1GB'`).execute(store.db);
    await sql.raw(pgIndexDdl(collection, dimensions)).execute(store.db);
    return;
  }
  const c = (await cs.get(collection))!;
  const index = await HnswIndex.open({
    file: path.join(dataDir, 'indexes', `${collection}.usearch`),
    dimensions,
    source: { dimensions, all: () => cs.allVectors(collection), changesSince: (seq) => cs.changesSince(collection, seq), currentSeq: async () => (await cs.get(collection))!.seq },
  });
  await index.checkpoint(c.seq);
  await index.close();
}
