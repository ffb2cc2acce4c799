/**
 * What a running server feels while an administrator imports a catalog (issue 18), on SQLite.
 *
 * SQLite has one writer at a time. The bench plays the server: a store opened as the server opens
 * it (`openStore`: Kysely over better-sqlite3, the server's busy handling) writes one small row
 * every 20 ms, and beside it reads one row every 20 ms (a request that only reads, such as a
 * session's GET). Per write and per read, how long it waited; and, all along, the longest the event
 * loop went without running a 5 ms timer (better-sqlite3 waits for a lock synchronously: a write that waits
 * on the event loop stalls every request). The imports run as an administrator runs them,
 * `loupe catalog import` / `loupe prices import` in another process, on the full shared files:
 *  1. baseline: the same writes with no import running (same run);
 *  2. Pokémon cards and sets into an empty database;
 *  3. MTG printings and sets (58,638 cards), a new catalog;
 *  4. the same MTG files again (nothing changes);
 *  5. the booster-pool supplement into the MTG catalog (rows of another source and rank);
 *  6. and 7. `loupe prices import` of the TCGplayer history (Pokémon) and the MTGO tix prices (MTG).
 * Per step: the import's wall time, the writes' count, p50, p99, longest and failed, the reads'
 * p50, p99 and longest, and the event loop's longest stall.
 *
 *   npm run bench -- catalog-import
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../src/store/database.ts';

const root = path.resolve(import.meta.dirname, '..');
const shared = path.resolve(root, '../shared/catalogs');
const probeEveryMs = 20;

try {
  await fs.access(path.join(shared, 'mtg/mtgjson_printings.json.gz'));
} catch {
  console.log(`${shared} is not here: the catalog-import bench needs the shared catalogs.`);
  process.exit(0);
}

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-import-'));
const server = await openStore({ dataDir, backgroundCheckpoints: true });
await sql`CREATE TABLE IF NOT EXISTS bench_probe (id INTEGER PRIMARY KEY, at TEXT NOT NULL)`.execute(server.db);

interface Probed {
  times: number[];
  failed: number;
  reads: number[];
  /** The longest gap between runs of a 5 ms timer. */
  stall: number;
}

/** Writes one row every `probeEveryMs` until `until` settles, timing each write and the event loop. */
async function probeWhile(until: Promise<unknown>): Promise<Probed> {
  const times: number[] = [];
  let failed = 0;
  let done = false;
  void until.finally(() => (done = true));
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 5);
  const reads: number[] = [];
  const reading = (async () => {
    while (!done) {
      const t = performance.now();
      try {
        await sql`SELECT id, at FROM bench_probe ORDER BY id DESC LIMIT 1`.execute(server.db);
      } catch {
        failed++;
      }
      reads.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, probeEveryMs));
    }
  })();
  while (!done) {
    const t = performance.now();
    try {
      await sql`INSERT INTO bench_probe (at) VALUES (${new Date().toISOString()})`.execute(server.db);
    } catch {
      failed++;
    }
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, probeEveryMs));
  }
  await reading;
  clearInterval(timer);
  return { times, failed, reads, stall };
}

function runImport(args: string[]): Promise<{ ms: number; result: Record<string, unknown> }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/loupe.js'), ...args], {
      env: { ...process.env, LOUPE_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`import ${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      else resolve({ ms: performance.now() - start, result: JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown> });
    });
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

console.log(`# catalog-import bench — ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, SQLite, one server write every ${probeEveryMs} ms\n`);
console.log('| step | import s (read / write) | rows created / updated / unchanged | server writes | p50 ms | p99 ms | longest ms | failed (writes and reads) | reads p50 / p99 / longest ms | event loop longest stall ms |');
console.log('|---|---|---|---|---|---|---|---|---|---|');

const steps: Array<{ name: string; args?: string[] }> = [
  { name: 'baseline: no import (3 s)' },
  { name: 'Pokémon, new catalog', args: ['catalog', 'import', '--kind', 'pokemon', '--catalog', 'pokemon', '--cards', path.join(shared, 'pokemon/cards.json'), '--sets', path.join(shared, 'pokemon/sets.json')] },
  { name: 'MTG printings, new catalog', args: ['catalog', 'import', '--kind', 'mtg', '--catalog', 'mtg', '--cards', path.join(shared, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(shared, 'mtg/mtgjson_sets.json')] },
  { name: 'MTG printings again (no change)', args: ['catalog', 'import', '--kind', 'mtg', '--catalog', 'mtg', '--cards', path.join(shared, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(shared, 'mtg/mtgjson_sets.json')] },
  { name: 'MTG booster-pool supplement', args: ['catalog', 'import', '--kind', 'mtg', '--catalog', 'mtg', '--cards', path.join(shared, 'mtg/scryfall_booster_pool_supplement.json')] },
  { name: 'Pokémon TCGplayer price history', args: ['prices', 'import', '--catalog', 'pokemon', '--file', path.join(shared, 'prices/pokemon_tcgplayer_3day_history.csv')] },
  { name: 'MTGO tix daily prices', args: ['prices', 'import', '--catalog', 'mtg', '--file', path.join(shared, 'prices/mtg_mtgo_tix_daily.csv.gz')] },
];
for (const step of steps) {
  let cells: string[];
  let probed: Probed;
  if (!step.args) {
    probed = await probeWhile(new Promise((r) => setTimeout(r, 3000)));
    cells = ['3.0 (no import)', ''];
  } else {
    const running = runImport(step.args);
    probed = await probeWhile(running);
    const { ms: wall, result } = await running;
    const secs = result.seconds as { read: number; write: number };
    // A catalog import counts `cards`; a price import counts `prices` (its `cards` is how many cards they price).
    const prices = step.args[0] === 'prices';
    const rows = (prices ? result.prices : result.cards) as { created: number; updated: number; unchanged: number };
    cells = [`${(wall / 1000).toFixed(1)} (${secs.read} / ${secs.write})`, `${prices ? 'prices ' : ''}${rows.created} / ${rows.updated} / ${rows.unchanged}`];
  }
  const t = probed.times;
  console.log(`| ${step.name} | ${cells.join(' | ')} | ${t.length} | ${ms(pct(t, 0.5))} | ${ms(pct(t, 0.99))} | ${ms(Math.max(...t))} | ${probed.failed} | ${ms(pct(probed.reads, 0.5))} / ${ms(pct(probed.reads, 0.99))} / ${ms(Math.max(...probed.reads))} | ${ms(probed.stall)} |`);
}
await server.close();
await fs.rm(dataDir, { recursive: true, force: true });
