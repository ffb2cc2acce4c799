/**
 * The text backfill's look for records without a text row (`recordsWithoutText`, run at every start), timed on a data
 * folder of one custom collection of 25,000 records (custom collections have no text rows) and a product collection of
 * 2,000 with theirs and, with `MISSING=n`, n of them without (h362). `node bench/text-backfill-missing.ts` (SQLite in a
 * temporary folder; with DATABASE_URL, a scratch database made beside it and dropped).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { AccountStore } from '../src/store/account-store.ts';
import { CollectionStore } from '../src/store/collection-store.ts';
import { openStore } from '../src/store/database.ts';

const customRecords = Number(process.env.CUSTOM ?? 25_000);
const productRecords = Number(process.env.PRODUCT ?? 2_000);
const missing = Number(process.env.MISSING ?? 0);
const base = process.env.DATABASE_URL;
const scratch = `loupe_bench_${process.pid}`;
let url: string | undefined;
if (base) {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${scratch}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${scratch}`;
  url = u.toString();
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-text-'));
const store = await openStore({ dataDir, databaseUrl: url });
try {
  const accountId = randomUUID();
  await new AccountStore(store).createAccount({ id: accountId, name: 'a', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
  const cs = new CollectionStore(store);
  const custom = await cs.create({ id: randomUUID(), accountId, type: 'custom', name: 'shop', productField: null, capacity: 100_000 });
  const product = await cs.create({ id: randomUUID(), accountId, type: 'product', name: 'goods', productField: 'product_id', capacity: 100_000 });
  const vec = (i: number) => Float32Array.from({ length: 64 }, (_, d) => Math.sin(i * 7 + d));
  // interleaved, as a shop adding to both over time: the custom collection's keys before and among the product's
  const per = Math.ceil(customRecords / Math.max(1, Math.ceil(productRecords / 500)));
  for (let c = 0, p = 0; c < customRecords || p < productRecords; ) {
    for (let end = Math.min(customRecords, c + per); c < end; c += 500) {
      const rows = Array.from({ length: Math.min(500, end - c) }, (_, j) => ({ recordId: `c${c + j}`, data: { _id: `c${c + j}`, title: `item ${c + j}`, blurb: 'x'.repeat(200) }, vector: vec(c + j) }));
      await cs.insert(custom.id, rows, 'bench-64d');
    }
    const rows = Array.from({ length: Math.min(500, productRecords - p) }, (_, j) => ({
      recordId: `p${p + j}`,
      data: { _id: `p${p + j}`, title: `blue jacket ${p + j}`, product_id: `P${p + j}` },
      vector: vec(p + j),
      text: { seen: '', body: 'blue jacket', ocr: '', lang: 'en', colors: [], observed: null, seenVersion: 0, seenState: 'pending' as const },
    }));
    if (rows.length) await cs.insert(product.id, rows, 'bench-64d');
    p += rows.length;
  }
  if (missing) await sql`DELETE FROM collection_text WHERE key IN (SELECT key FROM collection_records WHERE collection_id = ${product.id} ORDER BY key DESC LIMIT ${missing})`.execute(store.db);
  // a statement to run before the timing (`PRE`: an index tried)
  if (process.env.PRE) await sql.raw(process.env.PRE).execute(store.db);
  await sql`ANALYZE`.execute(store.db);
  const times: number[] = [];
  let found = 0;
  for (let i = 0; i < 12; i++) {
    const t0 = performance.now();
    found = (await cs.text.recordsWithoutText(store.db, 100)).length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ dialect: store.dialect, customRecords, productRecords, missing, found, medianMs: Math.round(times[6]! * 100) / 100, minMs: Math.round(times[0]! * 100) / 100 }));
  if (process.env.EXPLAIN) {
    const plan = store.dialect === 'postgres' ? await sql.raw(`EXPLAIN (ANALYZE, BUFFERS) ${process.env.EXPLAIN}`).execute(store.db) : await sql.raw(`EXPLAIN QUERY PLAN ${process.env.EXPLAIN}`).execute(store.db);
    for (const r of plan.rows) console.log(Object.values(r as object).join(' | '));
  }
} finally {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (base && !process.env.KEEP) {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${scratch}`);
    await admin.end();
  }
}
