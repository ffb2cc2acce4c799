/**
 * Session list search at scale: one workspace with many sessions (300,000 by default), the list's first page
 * searched for a word one session holds, two words, a word most hold, a two-letter word and a Japanese name, against
 * the plain list (no search) measured in the same run on the same data. On PostgreSQL also the search as it was before
 * the stored folded text (migration 038): every session's four fields folded by SQL and scanned, `LIKE ALL`; on SQLite the
 * search before 038 (a JavaScript fold of every session) and before 039 (the stored text scanned, no trigram index).
 *
 *   npm run bench -- session-search                        # SQLite; PostgreSQL too when DATABASE_URL is set
 *   BENCH_SESSIONS=50000 npm run bench -- session-search
 *   BENCH_BACKENDS=postgres npm run bench -- session-search
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import Database from 'better-sqlite3';
import { foldForSearch, openStore, pgFoldForSearch, type Store } from '../src/store/database.ts';
import { CardSessionStore, sessionSearchText } from '../src/store/card-session-store.ts';
import { median } from './lib-server.ts';

const count = Number(process.env.BENCH_SESSIONS ?? 300_000);
const runs = Number(process.env.BENCH_RUNS ?? 7);
const backends = (process.env.BENCH_BACKENDS?.split(',') ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'])) as Array<'sqlite' | 'postgres'>;

const games = ['Pokémon', 'Magic: The Gathering', 'Yu-Gi-Oh!', 'Sports', 'ポケモン'];
const owners = ['Mrs. Jones', 'Łukasz', 'Ōtani fan', 'Crédit shop', 'Lagerverkauf', 'カードショップ'];
const session = (i: number, workspaceId: string) => {
  const game = games[i % games.length]!;
  const s = {
    id: randomUUID(),
    workspace_id: workspaceId,
    name: `${owners[i % owners.length]} stream ${i}`,
    description: i % 3 ? `Live break number ${i}, singles and slabs` : '',
    game,
    game_key: game.toLowerCase(),
    platform: ['whatnot', 'ebay live', 'tiktok', ''][i % 4]!,
    client: '{}',
    meta_data: '{}',
    started: new Date(1_790_000_000_000 + i * 60_000).toISOString(),
  };
  return { ...s, search_text: sessionSearchText(s), status: 'live', ended: null, created_at: s.started, updated_at: s.started };
};

const searches: Array<[string, string | undefined]> = [
  ['no search (baseline)', undefined],
  ['one session\'s word', `stream ${Math.floor(count / 2)}`],
  ['two words, a few hundred sessions', 'jones 47'],
  ['a word most sessions hold', 'stream'],
  ['a two-letter word', 'oh'],
  ['a Japanese name', 'カードショップ'],
];

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function scratchPg(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `loupe_bench_search_${Date.now().toString(36)}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function fill(store: Store, workspaceId: string): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < count; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - i) }, (_, k) => session(i + k, workspaceId));
    await store.db.insertInto('card_sessions').values(rows).execute();
  }
  // PostgreSQL's autovacuum gathers statistics on its own; the embedded database never runs ANALYZE, so neither does this
  if (store.dialect === 'postgres') await sql`ANALYZE card_sessions`.execute(store.db);
  return (performance.now() - t0) / 1000;
}

for (const backend of backends) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-bench-search-'));
  const scratch = backend === 'postgres' ? await scratchPg() : undefined;
  const store = await openStore({ dataDir: dir, databaseUrl: scratch?.url, poolSize: 4, warn: () => {} });
  try {
    const account = randomUUID();
    const workspaceId = randomUUID();
    await store.db.insertInto('accounts').values({ id: account, name: 'bench', credits: 0, services: '{}', created_at: new Date().toISOString() }).execute();
    await store.db.insertInto('workspaces').values({ id: workspaceId, account_id: account, name: 'bench', is_default: store.dialect === 'sqlite' ? 1 : true, created_at: new Date().toISOString() }).execute();
    const seconds = await fill(store, workspaceId);
    console.log(`\n${backend}: ${count.toLocaleString('en')} sessions in one workspace (filled in ${seconds.toFixed(0)} s); median of ${runs} first pages of 20`);
    const sessions = new CardSessionStore(store.db, store.dialect);
    let baseline = 0;
    for (const [label, search] of searches) {
      let found = 0;
      const ms = await timeIt(async () => {
        found = (await sessions.listSessions(workspaceId, search, undefined, 20, 0)).count;
      });
      if (search === undefined) baseline = ms;
      console.log(`  ${label.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}× the plain list  (${found} found)`);
    }
    if (backend === 'sqlite') {
      // the search before migration 038, on the same rows: the four fields of every session folded by a JavaScript function
      const raw = new Database(store.file!, { readonly: true });
      raw.function('loupe_has_words', { deterministic: true, varargs: true }, (...args: unknown[]) => {
        const words = JSON.parse(String(args[args.length - 1])) as string[];
        const text = foldForSearch(args.slice(0, -1).map((v) => (typeof v === 'string' ? v : '')).join('\n'));
        return words.every((w) => text.includes(w)) ? 1 : 0;
      });
      for (const [label, search] of searches.slice(1)) {
        const words = JSON.stringify(foldForSearch(search!).split(/\s+/));
        const where = `s.workspace_id = ? AND loupe_has_words(s.name, s.description, s.platform, s.game, ?) = 1`;
        const count = raw.prepare(`SELECT count(*) FROM card_sessions s WHERE ${where}`);
        const page = raw.prepare(`SELECT s.* FROM card_sessions s WHERE ${where} ORDER BY s.started DESC, s.seq DESC LIMIT 20`);
        const ms = await timeIt(async () => [count.get(workspaceId, words), page.all(workspaceId, words)]);
        console.log(`  before 038: ${label.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}× the plain list`);
      }
      const sizes = raw.prepare(`SELECT name LIKE 'card_sessions_fts%' AS fts, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'card_sessions%' GROUP BY 1`).all() as Array<{ fts: number; bytes: number }>;
      const mb = (fts: number) => ((sizes.find((r) => r.fts === fts)?.bytes ?? 0) / 1e6).toFixed(0);
      console.log(`  on disk: the sessions and their indexes ${mb(0)} MB, the trigram index (039) ${mb(1)} MB`);
      // the search before migration 039 on the same rows: the stored text of every session of the workspace scanned
      for (const [label, search] of searches.slice(1)) {
        const words = [...new Set(foldForSearch(search!).split(/\s+/).filter(Boolean))];
        const where = `s.workspace_id = ? ${words.map(() => 'AND instr(s.search_text, ?) > 0').join(' ')}`;
        const count = raw.prepare(`SELECT count(*) FROM card_sessions s WHERE ${where}`);
        const page = raw.prepare(`SELECT s.* FROM card_sessions s WHERE ${where} ORDER BY s.started DESC, s.seq DESC LIMIT 20`);
        const ms = await timeIt(async () => [count.get(workspaceId, ...words), page.all(workspaceId, ...words)]);
        console.log(`  before 039: ${label.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}× the plain list`);
      }
      raw.close();
    }
    if (backend === 'postgres') {
      // the search before migration 038, on the same rows
      const fields = sql`concat_ws(E'\n', s.name, s.description, s.platform, s.game)`;
      for (const [label, search] of searches.slice(1)) {
        const patterns = search!.toLowerCase().split(/\s+/).map((w) => `%${w}%`);
        const where = sql<boolean>`s.workspace_id = ${workspaceId} AND ${pgFoldForSearch(fields)} LIKE ALL (${patterns}::text[])`;
        const ms = await timeIt(() =>
          Promise.all([
            sql`SELECT count(*) FROM card_sessions s WHERE ${where}`.execute(store.db),
            sql`SELECT s.* FROM card_sessions s WHERE ${where} ORDER BY s.started DESC, s.seq DESC LIMIT 20`.execute(store.db),
          ]),
        );
        console.log(`  before 038: ${label.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}× the plain list`);
      }
    }
  } finally {
    await store.close();
    await scratch?.drop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
