/**
 * `npm run bench -- text-search`: text search's speed on a collection of BENCH_N (default 10,000)
 * records, on SQLite (FTS5) and on PostgreSQL (when DATABASE_URL is set), in one run.
 *
 * Per backend and query kind, p50 / p95 of `TextSearchService.search` (the whole service: parse,
 * the unread-word check, BM25 ranking, product grouping off, projection) against two baselines
 * measured in the same run on the same collection: the bare engine query (one FTS5 `MATCH …
 * ORDER BY bm25`, or PostgreSQL's `@@ … ORDER BY ts_rank`, its built-in ranking, which has no
 * IDF) and visualKNN by `_id`. The
 * ratios are the figures to compare between machines.
 *
 * The records are written straight into the database (CollectionStore, batches of 500) with
 * synthetic text rows: seen content drawn like CenterNet's labels on photos (a few common
 * objects, many rare ones; 1–3 objects and 2–4 colours per image, with pairs), a title of 3–8
 * words from a 3,000-word vocabulary plus lexicon words, and no OCR. The keyword engine cares
 * about the token statistics, not where they came from. Descriptors are 1792-d clustered unit
 * vectors as in bench/collections.ts.
 */
import { sql } from 'kysely';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/config.ts';
import { openServices } from '../src/services/container.ts';
import { CollectionStore } from '../src/store/collection-store.ts';
import { ftsTable, type TextRow } from '../src/store/collection-text-store.ts';
import { cocoLabels, colorNames } from '../src/text-search/lexicon/concepts.ts';
import { recordText } from '../src/text-search/record-text.ts';
import { seenText, TOKENS_VERSION, type Observed } from '../src/text-search/seen-tokens.ts';
import { parseQuery } from '../src/text-search/query.ts';
import { toFts5Match, toPgTsqueries } from '../src/text-search/query-compile.ts';
import { synthetic, unit } from './lib-synthetic.ts';
import { VisionEngine } from '../src/vision/engine/vision-engine.ts';
import { scratchPgDatabase } from '../test/helpers/processes.ts';

const N = Number(process.env.BENCH_N ?? 10_000);
const D = 1792;
const runs = Number(process.env.BENCH_QUERIES ?? 60);
const backends = (process.env.BENCH_BACKENDS ?? (process.env.DATABASE_URL ? 'sqlite,postgres' : 'sqlite')).split(',') as ('sqlite' | 'postgres')[];
const { rand, gauss, pick, zipf } = synthetic(20261124);

const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x${(i * 7919) % 997}`);
const lexiconWords = ['red', 'blue', 'dress', 'shoes', 'chair', 'vintage', 'leather', 'summer', 'wooden', 'table', 'lamp', 'cotton'];

function observed(): Observed {
  const objects = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
    const w = 100 + rand() * 800;
    const h = 100 + rand() * 800;
    return { name: zipf(cocoLabels), prob: 0.3 + rand() * 0.7, box: [0, 0, w, h] as [number, number, number, number], colors: [{ luv: [50, 0, 0] as [number, number, number], share: 0.3 + rand() * 0.6, name: pick(colorNames) }] };
  });
  const colors = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => ({ luv: [20 + rand() * 70, gauss() * 30, gauss() * 30] as [number, number, number], share: 0.05 + rand() * 0.5, name: pick(colorNames) }));
  return { width: 1000, height: 1000, parts: ['objects', 'colors'], objects, faces: [], colors, ocr: [] };
}

function row(i: number): { data: Record<string, unknown>; text: TextRow } {
  const words = Array.from({ length: 3 + Math.floor(rand() * 6) }, () => (rand() < 0.15 ? pick(lexiconWords) : zipf(vocabulary)));
  const data = { _id: `r${i}`, title: words.join(' '), category: `c${i % 10}`, product_id: `p${i}` };
  const o = observed();
  const t = seenText(o);
  const { body, lang } = recordText(data);
  // written as this release writes them: rows of an older version are a collection the backfill has yet to re-read, whose
  // every query also counts them (seenVersion 1 until 2026-12-06)
  return { data, text: { seen: t.seen, body, ocr: t.ocr, lang, colors: t.colors, observed: o, seenVersion: TOKENS_VERSION, seenState: 'done' } };
}

const queries: { label: string; body: Record<string, unknown> }[] = [
  { label: 'common object ("person")', body: { query_record: { _text_data: 'person' } } },
  { label: 'rare object ("giraffe")', body: { query_record: { _text_data: 'giraffe' } } },
  { label: 'colour + object ("red car")', body: { query_record: { _text_data: 'red car' } } },
  // colour words alone rank every record naming the colour (exact pages, since 2026-11-30)
  { label: 'colour word alone ("blue")', body: { query_record: { _text_data: 'blue' } } },
  { label: '"blue", k 10 from 50', body: { query_record: { _text_data: 'blue' }, k: 10, from: 50 } },
  { label: 'record words ("vintage leather")', body: { query_record: { _text_data: 'vintage leather' } } },
  { label: 'French ("voiture rouge")', body: { query_record: { _text_data: 'voiture rouge' } } },
  // words of several words are phrases, which PostgreSQL counts from its lexemes' positions (h287)
  { label: 'phrases ("navy blue t-shirt")', body: { query_record: { _text_data: 'navy blue t-shirt' } } },
  { label: '"red car", 10 % filter', body: { query_record: { _text_data: 'red car' }, filter: { category: 'c3' } } },
  { label: '"red car" + _dominant_colors', body: { query_record: { _text_data: 'red car', _dominant_colors: { luv_colors: [[53, 175, 38]], percentages: [40] } } } },
  // each object word of a query gets its own look, one more neighbour search each (h321): these against their words alone
  { label: 'object ("dog")', body: { query_record: { _text_data: 'dog' } } },
  { label: 'object ("cat")', body: { query_record: { _text_data: 'cat' } } },
  { label: 'object ("bird")', body: { query_record: { _text_data: 'bird' } } },
  { label: 'two objects ("dog cat")', body: { query_record: { _text_data: 'dog cat' } } },
  { label: 'two objects ("person giraffe")', body: { query_record: { _text_data: 'person giraffe' } } },
  { label: 'three objects ("dog cat bird")', body: { query_record: { _text_data: 'dog cat bird' } } },
];

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
async function time(fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}
const f = (x: number) => x.toFixed(x < 10 ? 2 : 1);

/**
 * What text search adds to an insert: the worker's `index` task (descriptor, objects, faces where
 * a person is seen, colours, OCR) against `embed` alone, per real photo, one worker thread, in
 * turn on the same photos (BENCH_ONLY=insert runs only this).
 */
async function insertCost(): Promise<void> {
  const photos = [
    ...fs.readdirSync(path.resolve(import.meta.dirname, '../test/fixtures/photos/caltech101')).flatMap((cls) => {
      const dir = path.resolve(import.meta.dirname, '../test/fixtures/photos/caltech101', cls);
      return fs.readdirSync(dir).filter((f) => f.endsWith('.jpg')).slice(0, 1).map((f) => path.join(dir, f));
    }),
    ...['bbt1.jpg', 'faces.jpg', 'happy.jpg'].map((f) => path.resolve(import.meta.dirname, '../test/fixtures/photos/faces', f)),
  ];
  const engine = new VisionEngine({ threads: 1, maxQueue: 100, taskTimeoutMs: 120_000, warm: ['embed', 'objects', 'faces', 'ocr'], embedder: '' });
  await engine.start();
  const kinds: { label: string; run: (b: Buffer) => Promise<unknown> }[] = [
    { label: 'embed (descriptor only, before text search)', run: (b) => engine.image('embed', b, 100_000_000) },
    { label: 'index, objects + faces + colours (LOUPE_SEEN=objects,faces,colors)', run: (b) => engine.image('index', b, 100_000_000, { seen: ['objects', 'faces', 'colors'] }) },
    { label: 'objects alone', run: (b) => engine.image('objects', b, 100_000_000) },
    { label: 'colors alone', run: (b) => engine.image('colors', b, 100_000_000) },
    { label: 'faces alone', run: (b) => engine.image('faces', b, 100_000_000) },
    { label: 'index, objects only (plain view)', run: (b) => engine.image('index', b, 100_000_000, { seen: ['objects'] }) },
    { label: 'index, objects in both views (objects,framed)', run: (b) => engine.image('index', b, 100_000_000, { seen: ['objects', 'framed'] }) },
    { label: 'index, colors only', run: (b) => engine.image('index', b, 100_000_000, { seen: ['colors'] }) },
    { label: 'index, all but the framed view (objects,faces,colors,ocr)', run: (b) => engine.image('index', b, 100_000_000, { seen: ['objects', 'faces', 'colors', 'ocr'] }) },
    { label: 'index, all (default: + framed view + OCR)', run: (b) => engine.image('index', b, 100_000_000, { seen: ['objects', 'framed', 'faces', 'colors', 'ocr'] }) },
  ];
  const bytes = photos.map((p) => fs.readFileSync(p));
  const ms = new Map<string, number[]>(kinds.map((k) => [k.label, []]));
  for (let round = 0; round < 2; round++) {
    for (const b of bytes) {
      for (const k of kinds) {
        const t0 = performance.now();
        await k.run(Buffer.from(b));
        if (round > 0) ms.get(k.label)!.push(performance.now() - t0);
      }
    }
  }
  await engine.close();
  const base = percentile(ms.get(kinds[0]!.label)!, 50);
  console.log(`## insert: worker time per photo (${photos.length} real photos, 1 thread, second round)\n`);
  console.log('| task | p50 ms | p95 ms | × embed |');
  console.log('|---|---|---|---|');
  for (const k of kinds) {
    const xs = ms.get(k.label)!;
    console.log(`| ${k.label} | ${f(percentile(xs, 50))} | ${f(percentile(xs, 95))} | ${(percentile(xs, 50) / base).toFixed(1)} |`);
  }
  console.log('');
}

console.log(`# text-search bench — ${new Date().toISOString().slice(0, 10)}, ${N} records, ${runs} runs per query, ${os.cpus().length} cores\n`);
if (process.env.BENCH_ONLY === 'insert') {
  await insertCost();
  process.exit(0);
}
const clusters = Math.max(1, Math.round(N / 100));
const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: D }, gauss)));
const rows = Array.from({ length: N }, (_, i) => ({ ...row(i), vector: unit(Float32Array.from({ length: D }, (_, d) => centres[i % clusters]![d]! + gauss() / Math.sqrt(D))) }));

for (const backend of backends) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-bench-text-'));
  const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_bench_text') : undefined;
  const config = loadConfig({}, { dataDir, databaseUrl: pg?.url, logLevel: 'silent', seen: [] });
  const services = await openServices(config);
  const { account } = await services.accounts.createAccount({ name: 'bench', credits: 0 });
  const c0 = await services.collections.create({ accountId: account, type: 'photo', name: 'bench' });
  const store = new CollectionStore(services.store);
  const t0 = performance.now();
  for (let i = 0; i < N; i += 500) await store.insert(c0.id, rows.slice(i, i + 500).map((r) => ({ recordId: r.data._id as string, data: r.data, vector: r.vector, text: r.text })), 'bench-1792');
  if (backend === 'postgres') await sql`ANALYZE collection_text`.execute(services.store.db);
  console.log(`## ${backend}: loaded ${N} records with text rows in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const c = (await services.collections.get(c0.id))!;
  const ctx = { requestId: 'bench' };
  const knn = await time(() => services.visualSearch.visualKnn(ctx, c, { _id: `r${Math.floor(rand() * N)}` }, { k: 30, from: 0, fields: undefined, filter: undefined }));
  console.log(`visualKNN by _id (k 30): p50 ${f(knn.p50)} ms, p95 ${f(knn.p95)} ms\n`);
  console.log('| query | answers | text search p50 / p95 ms | bare engine query p50 ms | × bare | × visualKNN |');
  console.log('|---|---|---|---|---|---|');
  for (const q of queries) {
    const parsed = parseQuery(q.body.query_record ? ((q.body.query_record as { _text_data: string })._text_data) : '');
    if (!parsed.ok) throw new Error(q.label);
    let bare: () => Promise<unknown>;
    if (backend === 'sqlite') {
      const match = toFts5Match(parsed.query)!;
      const fts = sql.raw(ftsTable(c.id));
      bare = () => sql`SELECT rowid, bm25(${fts}) AS s FROM ${fts} WHERE ${fts} MATCH ${match} ORDER BY s LIMIT 30`.execute(services.store.db);
    } else {
      const { codes, terms } = toPgTsqueries(parsed.query);
      const tsq = [codes && sql`to_tsquery('simple', ${codes})`, terms && sql`to_tsquery('simple', ${terms})`].filter(Boolean) as ReturnType<typeof sql>[];
      // The engine's own ranking (ts_rank: no IDF, so not BM25) over the same matches.
      const tq = sql.join(tsq, sql` || `);
      bare = () => sql`SELECT key FROM collection_text WHERE collection_id = ${sql.lit(c.id)} AND tsv @@ (${tq}) ORDER BY ts_rank(tsv, ${tq}) DESC LIMIT 30`.execute(services.store.db);
    }
    let answers = 0;
    const search = await time(async () => {
      const out = await services.textSearch.search(ctx, c, { k: 30, ...q.body });
      answers = out.answer_count as number;
    });
    const b = await time(bare);
    console.log(`| ${q.label} | ${answers} | ${f(search.p50)} / ${f(search.p95)} | ${f(b.p50)} | ${(search.p50 / b.p50).toFixed(1)} | ${(search.p50 / knn.p50).toFixed(2)} |`);
  }
  console.log('');
  await services.close();
  // BENCH_KEEP=1 leaves the PostgreSQL database for EXPLAIN.
  if (process.env.BENCH_KEEP === '1') console.log(`kept ${pg?.url ?? dataDir}, collection ${c.id}`);
  else await pg?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (process.env.BENCH_ONLY !== 'search') await insertCost();
