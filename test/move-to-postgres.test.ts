import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { claimDataFolder } from '../src/store/data-folder-claim.ts';
import { moveToPostgres } from '../src/store/move-to-postgres.ts';
import { openStore } from '../src/store/database.ts';
import { cs } from './helpers/harness.ts';
import { loupeInProcess as inProcess } from './helpers/cli.ts';
import { fixture } from './helpers/catalogs.ts';
import { scratchPgDatabase } from './helpers/processes.ts';

/** A picture of shapes, different for each seed, so descriptors and hashes tell them apart. */
async function picture(seed: number): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120"><rect width="100%" height="100%" fill="#${(0x335577 + seed * 0x1f3a1) % 0xffffff}"/><circle cx="${30 + seed * 17}" cy="${40 + seed * 5}" r="${15 + seed * 3}" fill="#e95"/><rect x="${seed * 9}" y="70" width="50" height="30" fill="#236"/></svg>`;
  return (await sharp(Buffer.from(svg)).jpeg().toBuffer()).toString('base64');
}

type App = Awaited<ReturnType<typeof buildApp>>;
const call = (app: App, method: 'GET' | 'POST', url: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method, url, headers: { authorization: `Token ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });

/** `loupe move-to-postgres`: an embedded deployment moved into PostgreSQL answers as it did, and goes on. */
describe.skipIf(!process.env.DATABASE_URL)('loupe move-to-postgres', () => {
  let dataDir = '';
  let target: { url: string; drop(): Promise<void> };
  const dropped: Array<() => Promise<void>> = [];
  let token = '';
  let sessionId = '';
  let collectionId = '';
  const before: Record<string, unknown> = {};
  const move = (to: string, env: NodeJS.ProcessEnv = {}) => inProcess({ ...process.env, DATABASE_URL: '', LOUPE_DATA_DIR: dataDir, ...env }, ['move-to-postgres', '--to', to]);

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-move-'));
    target = await scratchPgDatabase('loupe_move');
    dropped.push(target.drop);
    const app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', rateLimit: { perSecond: 0, burst: 0 }, seen: [] }));
    try {
      const account = await app.loupe.accounts.createAccount({ name: 'shop', credits: 1000 });
      token = account.token;
      // a card session with rows, a correction and an image
      const s = await call(app, 'POST', cs('session/'), token, { name: 'Fête de Noël', game: 'Pokémon' });
      sessionId = s.json().id;
      expect((await call(app, 'POST', cs(`session/${sessionId}/identifications/`), token, { identifications: [{ event_id: 'e1', name: 'Pikachu', price: 12.5, seen: '2026-11-20T10:00:00.123456Z' }, { event_id: 'e2', name: 'Ninetales', sold: true }] })).statusCode).toBe(200);
      expect((await call(app, 'POST', cs(`session/${sessionId}/images/`), token, { event_id: 'e1', image: await picture(1) })).statusCode).toBe(200);
      // a collection with vectors, hashes and text rows
      collectionId = (await app.loupe.collections.create({ accountId: account.account, type: 'photo', name: 'stock' })).id;
      const records = await Promise.all([0, 1, 2, 3, 4].map(async (i) => ({ _id: `r${i}`, _base64: await picture(i), title: i === 2 ? 'Vestido rojo de verano' : `item ${i}`, price: i * 10 })));
      expect((await call(app, 'POST', '/similarity/photos/v2/insert', token, { records }, { 'collection-id': collectionId })).json().status.code).toBe(210);
      before.knn = (await call(app, 'POST', '/similarity/photos/v2/visualKNN', token, { query_record: { _id: 'r1' }, k: 5 }, { 'collection-id': collectionId })).json();
      before.rows = (await call(app, 'GET', cs(`identification/?session=${sessionId}`), token)).json();
      before.session = (await call(app, 'GET', cs(`session/${sessionId}`), token)).json();
      // the last record deleted: its key is never given again (SQLite's AUTOINCREMENT), after the move neither (h170)
      expect((await call(app, 'POST', '/similarity/photos/v2/insert', token, { records: [{ _id: 'gone', _base64: await picture(7) }] }, { 'collection-id': collectionId })).json().status.code).toBe(210);
      expect((await call(app, 'POST', '/similarity/photos/v2/delete', token, { records: [{ _id: 'gone' }] }, { 'collection-id': collectionId })).statusCode).toBe(220);
      before.filtered = (await call(app, 'POST', '/similarity/photos/v2/allRecords', token, { filter: { price: { $gte: 20 } } }, { 'collection-id': collectionId })).json();
    } finally {
      await app.close();
    }
    // a catalog and its prices, imported as an operator does
    const env = { ...process.env, DATABASE_URL: '', LOUPE_DATA_DIR: dataDir };
    expect((await inProcess(env, ['catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--sets', fixture('pokemon/sets.json')])).code).toBe(0);
    expect((await inProcess(env, ['prices', 'import', '--file', fixture('prices/pokemon_tcgplayer_daily_snapshots.csv'), '--catalog', 'pokemon'])).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const d of dropped) await d();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('copies every row in one go, and the deployment on PostgreSQL answers as the embedded one did and goes on writing', async () => {
    const sqlite = new SQLite(path.join(dataDir, 'loupe.db'), { readonly: true });
    const counted = (t: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    const expected = Object.fromEntries(['accounts', 'api_tokens', 'card_sessions', 'card_identifications', 'collections', 'collection_records', 'collection_text', 'catalog_cards', 'catalog_sets', 'catalog_names', 'catalog_prices'].map((t) => [t, counted(t)]));
    sqlite.close();
    expect(expected.catalog_prices).toBeGreaterThan(0);
    // a killed price import's staged rows: an import that is no more, left behind (h252: 85,138 of a move's rows)
    const writer = new SQLite(path.join(dataDir, 'loupe.db'));
    const columns = (t: string) => (writer.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
    const shared = columns('catalog_price_import_rows').filter((c) => columns('catalog_prices').includes(c));
    const staged = shared.filter((c) => c !== 'import_id');
    expect(writer.prepare(`INSERT INTO catalog_price_import_rows (import_id, ${staged.join(', ')}) SELECT '${randomUUID()}', ${staged.join(', ')} FROM catalog_prices LIMIT 3`).run().changes).toBeGreaterThan(0);
    writer.close();
    const r = await move(target.url);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { tables: Record<string, number>; collections_indexed: number; next: string };
    expect(report.tables).toMatchObject({ ...expected, catalog_price_import_rows: 0 });
    expect(report.collections_indexed).toBe(1);
    expect(r.stderr).toMatch(/collection_records: 5 of 5 rows/);
    expect(r.stderr).toMatch(/catalog_price_import_rows: \d+ rows of imports that did not finish left behind/);
    expect(r.stderr).toMatch(/making the search indexes \(.*card_sessions_search/);

    const app = await buildApp(loadConfig({}, { dataDir, databaseUrl: target.url, logLevel: 'silent', rateLimit: { perSecond: 0, burst: 0 }, seen: [] }));
    try {
      // the same token, the same answers
      expect((await call(app, 'GET', cs(`session/${sessionId}`), token)).json()).toEqual(before.session);
      // found by its name through the search text the move copied
      const named = (before.session as { name: string }).name.split(/\s+/)[0]!;
      expect((await call(app, 'GET', cs(`session/?search=${encodeURIComponent(named)}`), token)).json().results.map((x: { id: string }) => x.id)).toContain(sessionId);
      const rows = (await call(app, 'GET', cs(`identification/?session=${sessionId}`), token)).json();
      // a row's version hashes its columns as each engine gives them: the one thing that differs (docs/operations.md "Moving to PostgreSQL"); links are
      // signed to a minute's boundary, which the test may cross: compared without their signature
      const unsigned = (link: unknown) => (typeof link === 'string' ? link.replace(/\?.*$/, '') : link);
      const unversioned = (page: { results: Array<Record<string, unknown>> }) => ({ ...page, results: page.results.map(({ etag: _etag, ...row }) => ({ ...row, image: unsigned(row.image), thumbnail: unsigned(row.thumbnail) })) });
      expect(unversioned(rows)).toEqual(unversioned(before.rows as typeof rows));
      const image = (rows.results as Array<{ event_id: string; image: string | null }>).find((x) => x.event_id === 'e1')!.image!;
      expect((await app.inject({ method: 'GET', url: image.slice(image.indexOf('/media/')) })).statusCode).toBe(200);
      const knn = (await call(app, 'POST', '/similarity/photos/v2/visualKNN', token, { query_record: { _id: 'r1' }, k: 5 }, { 'collection-id': collectionId })).json();
      expect(knn.answer_records).toEqual((before.knn as typeof knn).answer_records);
      expect(knn.answer_distances.map((d: number) => d.toFixed(5))).toEqual((before.knn as typeof knn).answer_distances.map((d: number) => d.toFixed(5)));
      const timeless = ({ statistics: _timing, status: _ids, ...page }: Record<string, unknown>) => page;
      expect(timeless((await call(app, 'POST', '/similarity/photos/v2/allRecords', token, { filter: { price: { $gte: 20 } } }, { 'collection-id': collectionId })).json())).toEqual(timeless(before.filtered as Record<string, unknown>));
      // text search reads the tsvectors the move made, through the collection's GIN index
      const text = (await call(app, 'POST', '/similarity/text/photos/v2/text', token, { query_record: { _text_data: 'vestido rojo' } }, { 'collection-id': collectionId })).json();
      expect(text.answer_records.map((x: { _id: string }) => x._id)[0]).toBe('r2');
      // sequences past the copied keys: new rows and records are written, not refused as duplicates
      expect((await call(app, 'POST', cs(`session/${sessionId}/identifications/`), token, { identifications: [{ event_id: 'e3', name: 'Mew' }] })).statusCode).toBe(200);
      expect((await call(app, 'POST', cs('session/'), token, { name: 'after the move' })).statusCode).toBe(201);
      expect((await call(app, 'POST', '/similarity/photos/v2/insert', token, { records: [{ _id: 'r9', _base64: await picture(9) }] }, { 'collection-id': collectionId })).json().status.code).toBe(210);
      const pool = new pg.Pool({ connectionString: target.url });
      try {
        // r0–r4 and the deleted one were keys 1–6: r9 came after all of them
        expect(Number((await pool.query<{ key: string }>("SELECT key FROM collection_records WHERE record_id = 'r9'")).rows[0]!.key)).toBe(7);
        const indexes = (await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename IN ('collection_records', 'collection_text')")).rows.map((x) => x.indexname);
        const hex = collectionId.replace(/-/g, '');
        expect(indexes).toEqual(expect.arrayContaining([`collection_hnsw_${hex}`, `collection_text_gin_${hex}`]));
        // the schema's search indexes, dropped for the copy and made again after it (h234: updated row by row, 9× slower)
        const gin = (await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE indexname IN ('card_sessions_search', 'catalog_names_trgm')")).rows.map((x) => x.indexname);
        expect(gin.sort()).toEqual(['card_sessions_search', 'catalog_names_trgm']);
      } finally {
        await pool.end();
      }
      // the catalog moved with its prices
      const cards = await inProcess({ ...process.env, DATABASE_URL: target.url, LOUPE_DATA_DIR: dataDir }, ['catalog', 'list']);
      expect(JSON.parse(cards.stdout).catalogs).toEqual([expect.objectContaining({ catalog: 'pokemon', cards: expected.catalog_cards, prices: expected.catalog_prices })]);
    } finally {
      await app.close();
    }
    // a second move into the same database is refused, naming what it holds
    const again = await move(target.url);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds Loupe data \(accounts/);
    // the embedded database is refused now, to a command (a cron job's import) and a server alike (h170: written, left behind)
    const stale = await inProcess({ ...process.env, DATABASE_URL: '', LOUPE_DATA_DIR: dataDir }, ['account', 'list']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/was moved to PostgreSQL \(postgres:.*\) by `loupe move-to-postgres`: set DATABASE_URL to that database\. To use the embedded one again .*remove the file .*MOVED-TO-POSTGRES/);
  }, 120_000);

  it("refuses another application's database without making anything there, and a move the embedded database was written during (h170)", async () => {
    const foreign = await scratchPgDatabase('loupe_move');
    dropped.push(foreign.drop);
    const pool = new pg.Pool({ connectionString: foreign.url });
    try {
      await pool.query('CREATE TABLE customers (id int PRIMARY KEY, name text)');
      const r = await move(foreign.url);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/holds tables that are not Loupe's \(customers\): nothing was made there/);
      expect((await pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")).rows).toEqual([{ table_name: 'customers' }]);
    } finally {
      await pool.end();
    }
    // a database of the C locale, before anything is made there (h172: warned, then filled)
    const clocale = await scratchPgDatabase('loupe_move', "TEMPLATE template0 LC_CTYPE 'C' LC_COLLATE 'C'");
    dropped.push(clocale.drop);
    const refusedLocale = await move(clocale.url);
    expect(refusedLocale.code).toBe(1);
    expect(refusedLocale.stderr).toMatch(/LC_CTYPE C, which lowers ASCII letters only .*nothing was made there/);
    // nor one storing text in another encoding than UTF-8 (h178: a driver error that said nothing of it)
    const latin = await scratchPgDatabase('loupe_move', "TEMPLATE template0 ENCODING 'LATIN1' LC_CTYPE 'C' LC_COLLATE 'C'");
    dropped.push(latin.drop);
    const refusedLatin = await move(latin.url);
    expect(refusedLatin.code).toBe(1);
    expect(refusedLatin.stderr).toMatch(/stores text as LATIN1, and Loupe's is UTF-8: nothing was made there/);
    // and a server or command opening it is told so before any schema is made there
    await expect(openStore({ dataDir, databaseUrl: latin.url })).rejects.toThrow(/stores text as LATIN1, and Loupe's is UTF-8/);
    // a write while the move copies (an account made by a command beside it): the move is refused, the target left without rows
    const other = await scratchPgDatabase('loupe_move');
    dropped.push(other.drop);
    let wrote = false;
    await expect(
      moveToPostgres(dataDir, other.url, () => {
        if (wrote) return;
        wrote = true;
        const writer = new SQLite(path.join(dataDir, 'loupe.db'));
        writer.prepare("UPDATE accounts SET name = 'renamed during the move'").run();
        writer.close();
      }),
    ).rejects.toThrow(/written while it was being moved .*nothing was moved/);
    expect(wrote).toBe(true);
    const check = new pg.Pool({ connectionString: other.url });
    try {
      expect((await check.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n).toBe(0);
    } finally {
      await check.end();
    }
  }, 60_000);

  it('leaves the target empty when PostgreSQL refuses a row part way, and says which table', async () => {
    const other = await scratchPgDatabase('loupe_move');
    dropped.push(other.drop);
    // a release date PostgreSQL cannot read (written by hand into the embedded database)
    const sqlite = new SQLite(path.join(dataDir, 'loupe.db'));
    sqlite.prepare("UPDATE catalog_sets SET release_date = 'someday' WHERE rowid = (SELECT min(rowid) FROM catalog_sets)").run();
    sqlite.close();
    try {
      const r = await move(other.url);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/catalog_sets: PostgreSQL refused a row .*nothing was moved/);
      const pool = new pg.Pool({ connectionString: other.url });
      try {
        // the accounts were copied before the sets, in the same transaction: gone with it
        expect((await pool.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n).toBe(0);
      } finally {
        await pool.end();
      }
    } finally {
      const fix = new SQLite(path.join(dataDir, 'loupe.db'));
      fix.prepare("UPDATE catalog_sets SET release_date = NULL WHERE release_date = 'someday'").run();
      fix.close();
    }
  }, 60_000);

  it('is refused while a server holds the data folder, and with DATABASE_URL set', async () => {
    // as `npm start` holds it
    const release = claimDataFolder(dataDir);
    try {
      const r = await move('postgres://nobody@127.0.0.1:1/none');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/another Loupe server .* already serves .*: stop it \(and its workers\) before moving its database/);
    } finally {
      release();
    }
    const both = await move('postgres://nobody@127.0.0.1:1/none', { DATABASE_URL: target.url });
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/DATABASE_URL is set/);
    const notUrl = await move('/tmp/somewhere');
    expect(notUrl.code).toBe(2);
  }, 60_000);
});
