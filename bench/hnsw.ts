/**
 * `npm run bench -- hnsw`: the embedded vector index (src/index/hnsw-index.ts) on synthetic
 * clustered 1792-d vectors. Build time, memory, single-thread QPS and recall@30 against exact
 * search for several (quantization, connectivity, expansion) settings, filtered search at three
 * selectivities, and the brute-force baseline measured in the same run.
 *
 * Env: HNSW_N (records, default 100000), HNSW_Q (queries, 300), HNSW_REUSE=1 (load a previous
 * run's index files instead of building), HNSW_CONFIGS
 * ("i8:16,f16:16,f32:16" = quantization:connectivity[:expansionAdd]), HNSW_EF ("32,64,96,128,192").
 */
import fs from 'node:fs';
import path from 'node:path';
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { HnswIndex, HNSW_DEFAULTS, type IndexSource, type Quantization, type SearchOptions } from '../src/index/hnsw-index.ts';
import { seededRandom as rng } from '../src/util/seeded-random.ts';

const N = Number(process.env.HNSW_N ?? 100_000);
const Q = Number(process.env.HNSW_Q ?? 300);
const D = 1792;
const K = 30;
const CLUSTERS = Math.max(1, Math.round(N / 100));
const CONFIGS = (process.env.HNSW_CONFIGS ?? 'i8:16,f16:16,f32:16').split(',').map((c) => {
  const [q, m, efa] = c.split(':');
  return { quantization: q as Quantization, connectivity: Number(m ?? 16), expansionAdd: Number(efa ?? 128) };
});
const EFS = (process.env.HNSW_EF ?? '32,64,96,128,192').split(',').map(Number);
const dir = path.resolve(import.meta.dirname, '../tmp/bench-hnsw');
fs.mkdirSync(dir, { recursive: true });

const rand = rng(20261122);
let spare: number | null = null;
function gauss(): number {
  if (spare !== null) {
    const s = spare;
    spare = null;
    return s;
  }
  const u = rand() || 1e-12;
  const r = Math.sqrt(-2 * Math.log(u));
  const a = 2 * Math.PI * rand();
  spare = r * Math.sin(a);
  return r * Math.cos(a);
}
function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (let j = 0; j < v.length; j++) n += v[j]! * v[j]!;
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < v.length; j++) v[j]! /= n;
  return v;
}

const t0 = performance.now();
// Clusters: unit centres, members = centre + noise of the same norm (cos to centre ≈ 0.71,
// between members ≈ 0.5), so neighbours must be told apart inside a cluster as well as across.
const centres = new Float32Array(CLUSTERS * D);
for (let c = 0; c < CLUSTERS; c++) {
  const v = centres.subarray(c * D, (c + 1) * D);
  for (let j = 0; j < D; j++) v[j] = gauss();
  normalise(v);
}
const data = new Float32Array(N * D);
const scale = 1 / Math.sqrt(D);
for (let i = 0; i < N; i++) {
  const c = Math.floor(rand() * CLUSTERS);
  const v = data.subarray(i * D, (i + 1) * D);
  for (let j = 0; j < D; j++) v[j] = centres[c * D + j]! + gauss() * scale;
  normalise(v);
}
const queries = new Float32Array(Q * D);
for (let i = 0; i < Q; i++) {
  const src = Math.floor(rand() * N);
  const v = queries.subarray(i * D, (i + 1) * D);
  for (let j = 0; j < D; j++) v[j] = data[src * D + j]! + gauss() * scale * 0.5;
  normalise(v);
}
const query = (i: number) => queries.slice(i * D, (i + 1) * D);
console.log(`# hnsw bench: ${N} × ${D}-d, ${CLUSTERS} clusters, ${Q} queries, k=${K} (data ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

// Ground truth with usearch's exact kernel (keys are row numbers here).
const truth: number[][] = [];
{
  const m = exactSearch(data, queries, D, K, MetricKind.Cos, 2) as BatchMatches;
  for (let i = 0; i < Q; i++) truth.push(Array.from(m.get(i).keys, Number));
}
const exactQps = (() => {
  const n = Math.min(Q, 20);
  const t = performance.now();
  for (let i = 0; i < n; i++) exactSearch(data, query(i), D, K, MetricKind.Cos, 1);
  return n / ((performance.now() - t) / 1000);
})();
console.log(`exact brute force, 1 thread: ${exactQps.toFixed(1)} q/s`);

const source: IndexSource = {
  dimensions: D,
  *all() {
    for (let i = 0; i < N; i++) yield { key: i, vector: data.subarray(i * D, (i + 1) * D) };
  },
  changesSince: () => [],
  currentSeq: () => N,
};

function recall(got: number[], want: number[]): number {
  const w = new Set(want);
  let hit = 0;
  for (const g of got) if (w.has(g)) hit++;
  return hit / want.length;
}

function measure(index: HnswIndex, opts: (i: number) => SearchOptions, want: (i: number) => number[]): { qps: number; recall: number; short: number; strategies: string } {
  let r = 0;
  let short = 0;
  const strategies = new Map<string, number>();
  // Warm-up pass so the JIT and caches are not billed to the first setting.
  for (let i = 0; i < Math.min(Q, 20); i++) index.search(query(i), K, opts(i));
  const qs = Array.from({ length: Q }, (_, i) => query(i));
  const started = performance.now();
  const results = qs.map((q, i) => index.search(q, K, opts(i)));
  const seconds = (performance.now() - started) / 1000;
  results.forEach((res, i) => {
    const w = want(i);
    r += recall(res.keys, w);
    if (res.keys.length < Math.min(K, w.length)) short++;
    strategies.set(res.strategy, (strategies.get(res.strategy) ?? 0) + 1);
  });
  return { qps: Q / seconds, recall: r / Q, short, strategies: [...strategies].map(([s, n]) => `${s}:${n}`).join(' ') };
}

const rows: string[] = [];
const rss = () => process.memoryUsage().rss;
for (const cfg of CONFIGS) {
  const file = path.join(dir, `bench-${cfg.quantization}-${cfg.connectivity}.usearch`);
  // HNSW_REUSE=1 keeps a previous run's checkpoint (same data, same seed), skipping the build.
  if (!process.env.HNSW_REUSE) for (const f of [file, `${file}.json`]) fs.rmSync(f, { force: true });
  const before = rss();
  let t = performance.now();
  const index = await HnswIndex.open({ file, dimensions: D, source, ...cfg, threads: 2 });
  const buildS = (performance.now() - t) / 1000;
  const rssDelta = rss() - before;
  const mem = index.memoryBytes();
  t = performance.now();
  await index.checkpoint(N);
  const checkpointS = (performance.now() - t) / 1000;
  const fileMb = fs.statSync(file).size / 1e6;
  console.log(`\n## ${cfg.quantization} M=${cfg.connectivity} efAdd=${cfg.expansionAdd}: open+build ${buildS.toFixed(1)} s (2 threads, includes first checkpoint), checkpoint ${checkpointS.toFixed(2)} s, file ${fileMb.toFixed(0)} MB`);
  console.log(`memory: RSS +${(rssDelta / 1e6).toFixed(0)} MB; estimate graph ${(mem.graph / 1e6).toFixed(0)} MB + vectors ${(mem.vectors / 1e6).toFixed(0)} MB + arena ${(mem.arena / 1e6).toFixed(0)} MB = ${(mem.total / 1e6).toFixed(0)} MB`);
  for (const ef of EFS) {
    const r = measure(index, () => ({ expansion: ef }), (i) => truth[i]!);
    console.log(`ef=${ef}: ${r.qps.toFixed(0)} q/s, recall@30 ${r.recall.toFixed(4)}`);
    rows.push(`| ${cfg.quantization} | ${cfg.connectivity} | ${cfg.expansionAdd} | ${ef} | ${r.qps.toFixed(0)} | ${r.recall.toFixed(3)} | ${buildS.toFixed(0)} | ${(rssDelta / 1e6).toFixed(0)} |`);
  }

  if (cfg.quantization === HNSW_DEFAULTS.quantization && cfg.connectivity === HNSW_DEFAULTS.connectivity) {
    t = performance.now();
    await index.close();
    const reopened = await HnswIndex.open({ file, dimensions: D, source, ...cfg, threads: 2 });
    console.log(`reopen (arena fill + verify + load): ${((performance.now() - t) / 1000).toFixed(1)} s, outcome ${reopened.openOutcome}`);
    filtered(reopened);
    await reopened.close();
  } else {
    await index.close();
  }
}

function filtered(index: HnswIndex): void {
  console.log('\n### filtered, default expansion');
  for (const share of [0.5, 0.2, 0.1, 0.05, 0.02, 0.005]) {
    // Membership by a hash of the key, so allowed keys are spread over every cluster.
    const allowedKeys = new Set<number>();
    for (let i = 0; i < N; i++) if (((Math.imul(i, 2654435761) >>> 0) % 100_000) / 100_000 < share) allowedKeys.add(i);
    const members = Int32Array.from(allowedKeys);
    const subset = new Float32Array(members.length * D);
    members.forEach((key, i) => subset.set(data.subarray(key * D, (key + 1) * D), i * D));
    const kk = Math.min(K, members.length);
    const m = exactSearch(subset, queries, D, kk, MetricKind.Cos, 2) as BatchMatches;
    const want = Array.from({ length: Q }, (_, i) => Array.from(m.get(i).keys, (o) => members[Number(o)]!));
    const pred = (key: number) => allowedKeys.has(key);
    const variants: [string, (i: number) => SearchOptions][] = [
      ['allowedKeys (default threshold)', () => ({ allowedKeys })],
      ['allowedKeys, forced HNSW', () => ({ allowedKeys, exactBelow: 0 })],
      ['allowedKeys, forced exact', () => ({ allowedKeys, exactBelow: Infinity })],
      ['predicate only', () => ({ allowed: pred })],
    ];
    for (const [label, opts] of variants) {
      const r = measure(index, opts, (i) => want[i]!);
      console.log(`${(share * 100).toFixed(1)} % (${members.length} keys), ${label}: ${r.qps.toFixed(0)} q/s, recall@30 ${r.recall.toFixed(4)}, short ${r.short}, ${r.strategies}`);
      rows.push(`| filter ${(share * 100).toFixed(1)} % | ${label} | ${r.qps.toFixed(0)} | ${r.recall.toFixed(3)} | ${r.strategies} |`);
    }
  }
}

console.log(`\n| quantization | M | efAdd | ef | q/s | recall@30 | build s | RSS MB |\n|---|---|---|---|---|---|---|---|\n${rows.join('\n')}`);
