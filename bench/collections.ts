/**
 * `npm run bench -- collections`: visualKNN over HTTP on a collection of BENCH_N (default 100,000)
 * records of the default descriptor dimension (1792; synthetic clustered unit vectors: the index
 * part does not care where vectors come from), on SQLite + usearch and on PostgreSQL + pgvector
 * (when DATABASE_URL is set), in the same run.
 *
 * Measures, per backend: requests/s of visualKNN by `_id` (k = 30) with no filter, a 50 % filter
 * and a 10 % filter (autocannon, BENCH_CONNECTIONS connections, BENCH_SECONDS each), and
 * recall@30 of the same queries against exact search computed here.
 *
 * The records are written straight into the database (CollectionStore, batches of 1,000) before
 * the server touches the collection; the embedded index is built and checkpointed here, and
 * PostgreSQL's HNSW index is built once after the load (as an operator would for a bulk import).
 */
import autocannon from 'autocannon';
import fs from 'node:fs';
import path from 'node:path';
import { CollectionStore } from '../src/store/collection-store.ts';
import { buildVectorIndex, dropVectorIndexForBulkLoad } from './lib-bulk-index.ts';
import { openStore } from '../src/store/database.ts';
import { synthetic, unit } from './lib-synthetic.ts';
import { loupeCli } from '../test/helpers/processes.ts';
import { startServer } from './lib-server.ts';

const N = process.env.BENCH_ONLY === 'insert' ? 0 : Number(process.env.BENCH_N ?? 100_000);
const D = 1792;
const K = 30;
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const queries = Number(process.env.BENCH_QUERIES ?? 200);
const backends = (process.env.BENCH_BACKENDS ?? (process.env.DATABASE_URL ? 'sqlite,postgres' : 'sqlite')).split(',') as ('sqlite' | 'postgres')[];

const { rand, gauss } = synthetic(20261122);

/** BENCH_ONLY=insert runs only the insert phase (it needs no synthetic vectors). */
const onlyInsert = process.env.BENCH_ONLY === 'insert';
const insertBatches = Number(process.env.BENCH_INSERT_BATCHES ?? 12);

console.log(`# collections bench — ${new Date().toISOString().slice(0, 10)}, ${onlyInsert ? 0 : N} records × ${D}-d, k = ${K}, ${connections} connections × ${seconds} s\n`);
const t0 = performance.now();
const clusters = Math.max(1, Math.round(N / 100));
const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: D }, gauss)));
const vectors = Array.from({ length: N }, (_, i) => {
  const c = centres[i % clusters]!;
  // Noise of the centre's own length: members of a cluster sit at cos ≈ 0.5 from each other, the
  // structure real descriptors have (bench/hnsw.ts uses the same); much more noise makes the
  // vectors practically random, where no ANN index has neighbours worth finding.
  return unit(Float32Array.from({ length: D }, (_, d) => c[d]! + gauss() / Math.sqrt(D)));
});
// Attributes drawn independently of the clusters: a filter correlated with the vectors (every
// neighbour of a query in or out) would measure the data, not the index.
const attrs = Array.from({ length: N }, () => ({ inStock: rand() < 0.5, category: Math.floor(rand() * 10) }));
const docs = (i: number) => ({ _id: `r${i}`, in_stock: attrs[i]!.inStock, category: `c${attrs[i]!.category}` });
// Visual hashes alike: members of a cluster share most bits with its centre (each bit flipped with
// p = 0.25, so ~64 bits from it and ~96 from each other, as photos of one kind of thing), and every
// 50th record is a near copy of the one before (3 % of its bits flipped).
const hashCentres = Array.from({ length: clusters }, () => Array.from({ length: 256 }, () => (rand() < 0.5 ? '1' : '0')));
const flipBits = (bits: string[], p: number) => bits.map((b) => (rand() < p ? (b === '1' ? '0' : '1') : b));
const hashes: string[] = [];
for (let i = 0; i < N; i++) hashes.push((i % 50 === 49 ? flipBits([...hashes[i - 1]!], 0.03) : flipBits(hashCentres[i % clusters]!, 0.25)).join(''));
console.log(`generated vectors in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const filters: { label: string; filter?: Record<string, unknown>; match: (i: number) => boolean }[] = [
  { label: 'no filter', match: () => true },
  { label: 'filter, 50 % match', filter: { in_stock: true }, match: (i) => attrs[i]!.inStock },
  { label: 'filter, 10 % match', filter: { category: 'c3' }, match: (i) => attrs[i]!.category === 3 },
];
const sample = Array.from({ length: queries }, () => Math.floor(rand() * N));

function exact(q: Float32Array, match: (i: number) => boolean): Set<string> {
  const scored: { i: number; d: number }[] = [];
  for (let i = 0; i < N; i++) {
    if (!match(i)) continue;
    const v = vectors[i]!;
    let dot = 0;
    for (let d = 0; d < D; d++) dot += v[d]! * q[d]!;
    scored.push({ i, d: 1 - dot });
  }
  scored.sort((a, b) => a.d - b.d || a.i - b.i);
  return new Set(scored.slice(0, K).map((s) => `r${s.i}`));
}
const truth = filters.map((f) => sample.map((i) => exact(vectors[i]!, f.match)));
console.log(`exact answers for ${queries} queries × ${filters.length} filters in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

const results: string[] = [];
for (const backend of onlyInsert ? [] : backends) {
  const server = await startServer(backend, { LOUPE_VISION_WARM: 'none' });
  try {
    const env = { ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: server.databaseUrl ?? '' };
    const collection = (await loupeCli(env, 'collection', 'create', '--account', server.account, '--type', 'custom', '--name', 'bench', '--capacity', String(N + 10))).collection_id!;
    const store = await openStore({ dataDir: server.dataDir, databaseUrl: server.databaseUrl });
    const cs = new CollectionStore(store);
    const tLoad = performance.now();
    for (let b = 0; b < N; b += 1000) {
      const rows = vectors.slice(b, b + 1000).map((vector, j) => ({ recordId: `r${b + j}`, data: docs(b + j), vector, hash: hashes[b + j]! }));
      await cs.insert(collection, rows, 'synthetic-1792');
      // PostgreSQL: the first insert made the (empty) HNSW index; drop it for the bulk load.
      if (b === 0) await dropVectorIndexForBulkLoad(store, backend, collection);
    }
    const loadS = (performance.now() - tLoad) / 1000;
    const tIndex = performance.now();
    await buildVectorIndex(store, cs, backend, collection, D, server.dataDir);
    const indexS = (performance.now() - tIndex) / 1000;
    await store.close();

    const headers = { authorization: `Token ${server.token}`, 'content-type': 'application/json', 'collection-id': collection };
    const knn = async (id: string, filter?: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/similarity/custom/v2/visualKNN`, { method: 'POST', headers, body: JSON.stringify({ query_record: { _id: id }, k: K, ...(filter ? { filter } : {}) }) });
      return ((await res.json()) as { answer_records: { _id: string }[] }).answer_records.map((r) => r._id);
    };
    const tFirst = performance.now();
    await knn('r0');
    const firstS = (performance.now() - tFirst) / 1000;
    results.push(`\n## ${backend}: load ${loadS.toFixed(0)} s, index build ${indexS.toFixed(0)} s, first query (loads the collection) ${firstS.toFixed(1)} s\n`);
    results.push('| query | req/s | p50 ms | p99 ms | errors | recall@30 |');
    results.push('|---|---|---|---|---|---|');
    for (const [fi, f] of filters.entries()) {
      let hits = 0;
      for (const [qi, i] of sample.entries()) {
        const got = await knn(`r${i}`, f.filter);
        for (const id of got) if (truth[fi]![qi]!.has(id)) hits++;
      }
      const recall = hits / (sample.length * K);
      let n = 0;
      const body = (id: number) => JSON.stringify({ query_record: { _id: `r${id}` }, k: K, ...(f.filter ? { filter: f.filter } : {}) });
      const r = await autocannon({
        url: `${server.url}/similarity/custom/v2/visualKNN`,
        method: 'POST',
        connections,
        duration: seconds,
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, body: body(sample[n++ % sample.length]!) }) }],
      });
      results.push(`| visualKNN by _id, ${f.label} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.errors + r.timeouts + r.non2xx} | ${recall.toFixed(3)} |`);
    }
    // nearDuplicates by _id: radius 5 allows 16 bits of the hash (PostgreSQL: the band index of
    // migration 019), radius 6 allows 19 (every row's bits counted): the same queries, one client.
    const nearMs: Record<number, number[]> = { 5: [], 6: [] };
    const nearFound: Record<number, number> = { 5: 0, 6: 0 };
    for (const i of sample.slice(0, 100)) {
      const id = `r${i - (i % 50) + 49 < N ? i - (i % 50) + 49 : i}`;
      for (const radius of [5, 6]) {
        const t = performance.now();
        const res = await fetch(`${server.url}/similarity/custom/v2/nearDuplicates`, { method: 'POST', headers, body: JSON.stringify({ query_record: { _id: id }, radius }) });
        const got = ((await res.json()) as { answer_records: unknown[] }).answer_records.length;
        nearMs[radius]!.push(performance.now() - t);
        nearFound[radius]! += got;
      }
    }
    const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    results.push(`| nearDuplicates by _id, radius 5 (hash within 16 bits) | | ${p50(nearMs[5]!).toFixed(1)} | | | ${(nearFound[5]! / nearMs[5]!.length).toFixed(2)} found a query |`);
    results.push(`| nearDuplicates by _id, radius 6 (hash within 19 bits), same run | | ${p50(nearMs[6]!).toFixed(1)} | | | ${(nearFound[6]! / nearMs[6]!.length).toFixed(2)} found a query |`);
  } finally {
    await server.stop();
  }
}
console.log(results.join('\n'));

/**
 * Insert of 10-image batches over HTTP, real photos, 2 clients: images/s against the descriptor
 * endpoint on the same batches in the same server (the embedding speed that bounds it).
 */
async function insertPhase(backend: 'sqlite' | 'postgres'): Promise<string> {
  const root = path.resolve(import.meta.dirname, '../../shared/datasets/caltech101_subset');
  const files = fs.readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.jpg')).sort();
  const images = files.slice(0, insertBatches * 10).map((f) => fs.readFileSync(path.join(root, f)).toString('base64'));
  const server = await startServer(backend, { LOUPE_VISION_WARM: 'embed' });
  try {
    const env = { ...process.env, LOUPE_DATA_DIR: server.dataDir, DATABASE_URL: server.databaseUrl ?? '' };
    const collection = (await loupeCli(env, 'collection', 'create', '--account', server.account, '--type', 'photo', '--name', 'insert')).collection_id!;
    const headers = { authorization: `Token ${server.token}`, 'content-type': 'application/json', 'collection-id': collection };
    const batches = Array.from({ length: insertBatches }, (_, b) => images.slice(b * 10, b * 10 + 10).map((img, i) => ({ _id: `p${b}-${i}`, _base64: img })));
    const run = async (url: string) => {
      let next = 0;
      let ok = 0;
      const t = performance.now();
      await Promise.all(
        [0, 1].map(async () => {
          while (next < batches.length) {
            const batch = batches[next++]!;
            const res = await fetch(`${server.url}${url}`, { method: 'POST', headers, body: JSON.stringify({ records: batch }) });
            const body = (await res.json()) as { status: { code: number } };
            if (res.ok && body.status.code < 300) ok += batch.length;
          }
        }),
      );
      return { perSecond: ok / ((performance.now() - t) / 1000), ok };
    };
    // One warm-up batch each, so neither side pays first-call costs.
    await fetch(`${server.url}/photo/v2/descriptor`, { method: 'POST', headers, body: JSON.stringify({ records: batches[0] }) });
    const descriptor = await run('/photo/v2/descriptor');
    const insert = await run('/similarity/photos/v2/insert');
    return `| ${backend} | ${insert.perSecond.toFixed(1)} images/s (${insert.ok} inserted) | ${descriptor.perSecond.toFixed(1)} images/s | ${(insert.perSecond / descriptor.perSecond).toFixed(2)}× |`;
  } finally {
    await server.stop();
  }
}

if (insertBatches > 0) {
  const rows = ['\n## insert, 10-image batches of real photos over HTTP, 2 clients\n', '| backend | insert | descriptor, same batches, same run | ratio |', '|---|---|---|---|'];
  for (const backend of backends) rows.push(await insertPhase(backend));
  console.log(rows.join('\n'));
}
