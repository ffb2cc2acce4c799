/**
 * allNearDupPairs over a collection, on each backend: the pass as it is (sixteen records' neighbours a call, one
 * statement on PostgreSQL), against the pass it replaced (a lookup and a range search a record), in the same run.
 *
 *   npm run bench -- near-dup-pairs                       # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_N=5000 BENCH_BACKENDS=postgres npm run bench -- near-dup-pairs
 */
import { performance } from 'node:perf_hooks';
import { CollectionStore } from '../src/store/collection-store.ts';
import type { Store } from '../src/store/database.ts';
import type { CollectionQueries } from '../src/index/collection-queries.ts';
import { backends as testBackends, startHarness } from '../test/helpers/harness.ts';
import { median } from './lib-server.ts';

const N = Number(process.env.BENCH_N ?? 3000);
const D = 512;
const runs = 3;
const backends = (process.env.BENCH_BACKENDS?.split(',') ?? testBackends) as ('sqlite' | 'postgres')[];

let seed = 20261204;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
// clusters of about five: a near copy or two of many records, as a shop's photos of one product
const centres = Array.from({ length: Math.ceil(N / 5) }, () => Float32Array.from({ length: D }, gauss));
const vectors = Array.from({ length: N }, (_, i) => Float32Array.from(centres[i % centres.length]!, (x) => x + 0.15 * gauss()));

console.log(`# near-dup-pairs bench — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${N} records × ${D}-d, radius 5, median of ${runs}\n`);
console.log('| backend | pairs | pass now (ms) | a lookup and a range a record (ms), same run | ratio |');
console.log('|---|---|---|---|---|');
for (const backend of backends) {
  const h = await startHarness(backend, { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
  try {
    const id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'pairs', capacity: N + 10 })).id;
    const store = new CollectionStore((h.app.loupe as unknown as { store: Store }).store);
    for (let b = 0; b < N; b += 500) await store.insert(id, vectors.slice(b, b + 500).map((vector, j) => ({ recordId: `r${b + j}`, data: { _id: `r${b + j}` }, vector })), 'bench-512d');
    await h.app.loupe.collections.loadIndexes();
    const queries = (h.app.loupe.visualSearch as unknown as { queries: CollectionQueries }).queries;
    const c = (await store.get(id))!;
    let pairs = 0;
    const now: number[] = [];
    const before: number[] = [];
    for (let r = 0; r < runs; r++) {
      let t = performance.now();
      const res = await h.request('POST', '/similarity/custom/v2/allNearDupPairs', { body: { radius: 5, limit: 100_000 }, headers: { 'collection-id': id } });
      now.push(performance.now() - t);
      pairs = (res.json() as { answer_count: number }).answer_count;
      t = performance.now();
      for (let offset = 0; ; offset += 500) {
        const batch = await queries.find(c, undefined, 500, offset);
        for (const rec of batch) {
          const v = await queries.lookup(c, rec.recordId);
          if (v) await queries.range(c, v.vector, 0.05, 20);
        }
        if (batch.length < 500) break;
      }
      before.push(performance.now() - t);
    }
    console.log(`| ${backend} | ${pairs} | ${median(now).toFixed(0)} | ${median(before).toFixed(0)} | ${(median(before) / median(now)).toFixed(1)}× faster |`);
  } finally {
    await h.close();
  }
}
