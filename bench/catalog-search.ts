/**
 * Catalog import and name search on the full shared catalogs (issue 18), per backend:
 *  - import: Pokémon (cards + sets) and MTG (MTGJSON printings + sets, then the booster-pool
 *    supplement), read and write seconds as the importer reports them;
 *  - search: distinct names of at least 5 folded characters, sampled with a fixed seed, looked up
 *    exactly, with one character replaced and with two replaced (different places, letters
 *    a–z): how often the name is among the top 1 and top 3 names, and the time per search.
 *
 *   npm run bench -- catalog-search      # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_NAMES=500 npm run bench -- catalog-search
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { importCatalog } from '../src/catalog/catalog-import.ts';
import { CatalogStore } from '../src/store/catalog-store.ts';
import { openStore } from '../src/store/database.ts';
import { scratchPgDatabase } from '../test/helpers/processes.ts';

const shared = path.resolve(import.meta.dirname, '../../shared/catalogs');
const sampleSize = Number(process.env.BENCH_NAMES ?? 1000);
const backends = (process.env.BENCH_BACKENDS?.split(',') ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'])) as Array<'sqlite' | 'postgres'>;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

try {
  await fs.access(path.join(shared, 'pokemon/cards.json'));
} catch {
  console.log(`${shared} is not here: the catalog-search bench needs the shared catalogs.`);
  process.exit(0);
}

/** A small seeded generator (mulberry32), so every run samples and misspells the same names. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `name` with `n` characters replaced by other letters, at different places. */
function misspell(name: string, n: number, rnd: () => number): string {
  const chars = [...name];
  const places = new Set<number>();
  while (places.size < n) places.add(Math.floor(rnd() * chars.length));
  for (const i of places) {
    let c: string;
    do c = String.fromCharCode(97 + Math.floor(rnd() * 26));
    while (c === chars[i]);
    chars[i] = c;
  }
  return chars.join('');
}

console.log(`# catalog-search bench — ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, ${sampleSize} names per catalog\n`);

for (const backend of backends) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-catalog-'));
  const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_bench_catalog') : undefined;
  const store = await openStore({ dataDir, databaseUrl: pg?.url });
  const catalogs = new CatalogStore(store);
  try {
    console.log(`## ${backend}\n\n| import | records | cards | read s | write s |\n|---|---|---|---|---|`);
    const imports = [
      { kind: 'pokemon' as const, catalog: 'pokemon', files: { cards: path.join(shared, 'pokemon/cards.json'), sets: path.join(shared, 'pokemon/sets.json') } },
      { kind: 'mtg' as const, catalog: 'mtg', files: { cards: path.join(shared, 'mtg/mtgjson_printings.json.gz'), sets: path.join(shared, 'mtg/mtgjson_sets.json') } },
      { kind: 'mtg' as const, catalog: 'mtg', files: { cards: path.join(shared, 'mtg/scryfall_booster_pool_supplement.json') } },
    ];
    for (const request of imports) {
      const r = await importCatalog(catalogs, request);
      console.log(`| ${r.catalog} ${r.format} | ${r.records.toLocaleString('en-US')} | ${r.cards.total.toLocaleString('en-US')} | ${r.seconds.read} | ${r.seconds.write} |`);
    }
    console.log(`\n| catalog | names | query | top-1 | top-3 | p50 ms | p95 ms |\n|---|---|---|---|---|---|---|`);
    for (const name of ['pokemon', 'mtg']) {
      const catalog = (await catalogs.get(name))!;
      const { rows } = await sql<{ name_norm: string }>`SELECT name_norm FROM catalog_names WHERE catalog_id = ${catalog.id} ORDER BY name_norm`.execute(store.db);
      const long = rows.map((r) => r.name_norm).filter((n) => [...n].length >= 5);
      const rnd = random(20261124);
      const sample = Array.from({ length: Math.min(sampleSize, long.length) }, () => long[Math.floor(rnd() * long.length)]!);
      for (const [label, typos] of [
        ['exact', 0],
        ['1 typo', 1],
        ['2 typos', 2],
      ] as const) {
        let top1 = 0;
        let top3 = 0;
        const times: number[] = [];
        for (const target of sample) {
          const query = typos ? misspell(target, typos, rnd) : target;
          const t0 = performance.now();
          const found = await catalogs.searchNames(catalog.id, query, { limit: 3 });
          times.push(performance.now() - t0);
          if (found[0]?.nameNorm === target) top1++;
          if (found.some((f) => f.nameNorm === target)) top3++;
        }
        const share = (n: number) => `${((100 * n) / sample.length).toFixed(1)} %`;
        console.log(`| ${name} | ${rows.length.toLocaleString('en-US')} | ${label} | ${share(top1)} | ${share(top3)} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} |`);
      }
    }
    console.log('');
  } finally {
    await store.close();
    await pg?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
