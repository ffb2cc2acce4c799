/**
 * A collection delete of RECORDS (100,000) records with thumbnails, timed: the whole `deleteWithMedia` and, on SQLite,
 * the longest wait of another connection's one-row write beside it (a writer in a worker thread, `BEGIN IMMEDIATE` every
 * 2 ms: how long the delete holds the write lock every other writer waits on). `before` is the delete as it was until
 * h364 (the thumbnail keys read into JS inside the transaction and written back to `media_deletions` 500 at a time),
 * `after` the store's own, `ordered` the store's with the keys in order, `no_thumbnails` the old one naming no file (the rest of the delete's cost); each deletes its own copy of one collection filled through `CollectionStore.insert` (8-d
 * vectors, no text rows, no vector index: the delete drops those alike), ROUNDS times in turn.
 *
 *   node --import tsx bench/collection-delete.ts                     SQLite in a temporary folder
 *   DATABASE_URL=postgres://… node --import tsx bench/collection-delete.ts   PostgreSQL too (a scratch database, dropped)
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import pg from 'pg';
import { AccountStore } from '../src/store/account-store.ts';
import { CollectionStore, pgIndexName } from '../src/store/collection-store.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { forgetMedia } from '../src/store/media-deletions.ts';

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);

/**
 * The delete as it was before h364: keys read inside the transaction, named back 500 a statement; `named` false, the
 * same without the thumbnails (what the rest of the delete costs: no file named, so not a way to delete).
 */
async function deleteBefore(store: Store, cs: CollectionStore, id: string, named = true): Promise<{ deleted: boolean; media: string[] }> {
  return store.db.transaction().execute(async (trx) => {
    if (store.dialect === 'postgres' && !(await trx.selectFrom('collections').select('id').where('id', '=', id).forUpdate().executeTakeFirst())) return { deleted: false, media: [] };
    if (store.dialect === 'postgres') await sql.raw(`DROP INDEX IF EXISTS ${pgIndexName(id)}`).execute(trx);
    await cs.text.drop(trx, id);
    const media = !named ? [] : (await trx.selectFrom('collection_records').select('thumbnail_key').where('collection_id', '=', id).where('thumbnail_key', 'is not', null).execute()).map((r) => r.thumbnail_key!);
    const res = await trx.deleteFrom('collections').where('id', '=', id).executeTakeFirst();
    const deleted = Number(res.numDeletedRows) > 0;
    if (deleted) await forgetMedia(trx, media);
    return { deleted, media: deleted ? media : [] };
  });
}

/** The store's delete with its INSERT … SELECT in the keys' order (each index page touched once, in turn): tried, no gain. */
async function deleteOrdered(store: Store, cs: CollectionStore, id: string): Promise<{ deleted: boolean; media: string[] }> {
  return store.db.transaction().execute(async (trx) => {
    if (store.dialect === 'postgres' && !(await trx.selectFrom('collections').select('id').where('id', '=', id).forUpdate().executeTakeFirst())) return { deleted: false, media: [] };
    if (store.dialect === 'postgres') await sql.raw(`DROP INDEX IF EXISTS ${pgIndexName(id)}`).execute(trx);
    await cs.text.drop(trx, id);
    const due = Date.now();
    const named = await sql<{ key: string }>`
      INSERT INTO media_deletions (key, due)
      SELECT DISTINCT thumbnail_key, ${store.dialect === 'postgres' ? sql`cast(${due} as bigint)` : sql`${due}`} FROM collection_records
      WHERE collection_id = ${id} AND thumbnail_key IS NOT NULL
      ORDER BY thumbnail_key
      ON CONFLICT (key) DO UPDATE SET due = excluded.due
      RETURNING key`.execute(trx);
    const res = await trx.deleteFrom('collections').where('id', '=', id).executeTakeFirst();
    return { deleted: Number(res.numDeletedRows) > 0, media: named.rows.map((r) => r.key) };
  });
}

/** A writer on its own connection: the longest one-row write (its wait for the lock included) while it runs. */
async function sqliteWriter(file: string): Promise<{ stop(): Promise<number> }> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const Database = require('better-sqlite3');
     const db = new Database(${JSON.stringify(file)});
     db.pragma('busy_timeout = 60000');
     db.exec('CREATE TABLE IF NOT EXISTS bench_writer (n INTEGER)');
     let stop = false, worst = 0;
     parentPort.on('message', () => { stop = true; });
     const step = () => {
       if (stop) { db.close(); parentPort.postMessage(worst); return; }
       const t0 = performance.now();
       db.exec('BEGIN IMMEDIATE'); db.prepare('INSERT INTO bench_writer VALUES (1)').run(); db.exec('COMMIT');
       worst = Math.max(worst, performance.now() - t0);
       setTimeout(step, 2);
     };
     step();
     parentPort.postMessage('ready');`,
    { eval: true },
  );
  await new Promise((resolve) => worker.once('message', resolve));
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (worst: number) => void worker.terminate().then(() => resolve(worst)));
        worker.postMessage('stop');
      }),
  };
}

async function bench(databaseUrl: string | undefined): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-coldel-'));
  const store = await openStore({ dataDir, databaseUrl });
  try {
    const accountId = randomUUID();
    await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
    const cs = new CollectionStore(store);
    const filled = await cs.create({ id: randomUUID(), accountId, type: 'custom', name: 'filled', productField: null, capacity: RECORDS });
    const vec = (i: number) => Float32Array.from({ length: 8 }, (_, d) => Math.sin(i * 7 + d));
    const t0 = performance.now();
    for (let i = 0; i < RECORDS; i += 500) {
      const rows = Array.from({ length: Math.min(500, RECORDS - i) }, (_, j) => ({ recordId: `r${i + j}`, data: { _id: `r${i + j}`, title: `item ${i + j}` }, vector: vec(i + j), thumbnailKey: `${randomUUID().replaceAll('-', '')}.webp` }));
      await cs.insert(filled.id, rows, 'bench-8d');
      // the first insert made its (empty) HNSW index on PostgreSQL: the copies have none, so neither has
      if (i === 0 && store.dialect === 'postgres') await sql.raw(`DROP INDEX IF EXISTS ${pgIndexName(filled.id)}`).execute(store.db);
    }
    const fillS = (performance.now() - t0) / 1000;
    // copies of it, each with thumbnail keys of its own, for each delete timed
    const copy = async (): Promise<string> => {
      const c = await cs.create({ id: randomUUID(), accountId, type: 'custom', name: 'copy', productField: null, capacity: RECORDS });
      const key = store.dialect === 'postgres' ? sql`md5(random()::text || key::text) || '.webp'` : sql`lower(hex(randomblob(16))) || '.webp'`;
      const id = store.dialect === 'postgres' ? sql`cast(${c.id} as uuid)` : sql`${c.id}`;
      await sql`INSERT INTO collection_records (collection_id, record_id, data, seq, created_at, updated_at, hash, thumbnail_key, ${sql.raw(store.dialect === 'postgres' ? 'embedding' : 'vector')})
                SELECT ${id}, record_id, data, seq, created_at, updated_at, hash, ${key}, ${sql.raw(store.dialect === 'postgres' ? 'embedding' : 'vector')} FROM collection_records WHERE collection_id = ${filled.id}`.execute(store.db);
      await sql`UPDATE collections SET record_count = ${RECORDS}, seq = ${RECORDS}, model = 'bench-8d', dimensions = 8 WHERE id = ${c.id}`.execute(store.db);
      return c.id;
    };
    const results: Record<string, { ms: number[]; lockMs: number[] }> = { before: { ms: [], lockMs: [] }, after: { ms: [], lockMs: [] }, ordered: { ms: [], lockMs: [] }, no_thumbnails: { ms: [], lockMs: [] } };
    const order = Array.from({ length: ROUNDS }, (_, r) => (r % 2 ? ['after', 'ordered', 'before', 'no_thumbnails'] : ['before', 'after', 'ordered', 'no_thumbnails'])).flat();
    for (const variant of order) {
      const id = await copy();
      if (store.dialect === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
      const writer = store.dialect === 'sqlite' ? await sqliteWriter(path.join(dataDir, 'loupe.db')) : undefined;
      await new Promise((r) => setTimeout(r, 20));
      const t = performance.now();
      const done = variant === 'after' ? await cs.deleteWithMedia(id) : variant === 'ordered' ? await deleteOrdered(store, cs, id) : await deleteBefore(store, cs, id, variant === 'before');
      const ms = performance.now() - t;
      const lock = (await writer?.stop()) ?? NaN;
      const expected = variant === 'no_thumbnails' ? 0 : RECORDS;
      if (!done.deleted || done.media.length !== expected) throw new Error(`${variant}: ${done.media.length} thumbnails answered`);
      const named = Number((await sql<{ n: number }>`SELECT count(*) AS n FROM media_deletions`.execute(store.db)).rows[0]!.n);
      if (named !== expected) throw new Error(`${variant}: ${named} thumbnails named in media_deletions`);
      await sql`DELETE FROM media_deletions`.execute(store.db);
      results[variant]!.ms.push(Math.round(ms));
      results[variant]!.lockMs.push(Math.round(lock));
    }
    console.log(JSON.stringify({ dialect: store.dialect, records: RECORDS, fill_s: Math.round(fillS), delete_ms: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.ms])), ...(store.dialect === 'sqlite' ? { longest_other_write_ms: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.lockMs])) } : {}) }));
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await bench(undefined);
const base = process.env.DATABASE_URL;
if (base) {
  const scratch = `loupe_bench_coldel_${process.pid}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(q);
    await c.end();
  };
  await admin(`CREATE DATABASE ${scratch}`);
  const u = new URL(base);
  u.pathname = `/${scratch}`;
  try {
    await bench(u.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
}
