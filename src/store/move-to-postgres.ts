import fs from 'node:fs';
import { pgVector } from './pg-vector.ts';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql, type Kysely, type Transaction } from 'kysely';
import { blobToVector, pgIndexDdl } from './collection-store.ts';
import { pgTextIndexDdl, pgTextVector } from './collection-text-store.ts';
import { claimDataFolder } from './data-folder-claim.ts';
import { explainPgSetupError, MOVED_TO_POSTGRES, notUtf8, openStore, sqliteFileOf, UNFINISHED_BACKUP, type Database } from './database.ts';
import { migrations } from './migrations/index.ts';

/** What `loupe move-to-postgres` answers. */
export interface MoveReport {
  from: string;
  /** The target database, its password left out. */
  to: string;
  /** Rows copied, per table. */
  tables: Record<string, number>;
  /** Collections given their vector (HNSW) and text (GIN) indexes. */
  collections_indexed: number;
  seconds: number;
  next: string;
}

/** SQLite's own tables and the FTS5 tables of catalog names and collections' text: PostgreSQL keeps those in its indexes. */
const sqliteOnlyTable = (name: string) => /^sqlite_/.test(name) || /^catalog_names_fts(_|$)/.test(name) || /^card_sessions_fts(_|$)/.test(name) || /^collection_fts_[0-9a-f]+(_|$)/.test(name);

/** Where catalog and price imports stage their rows before they swap them in (import-staging.ts). */
const STAGING = new Set(['catalog_import_rows', 'catalog_price_import_rows']);

/** Columns one engine has and the other not, by design: anything else differing is a schema this move does not know. */
const SQLITE_ONLY: Record<string, readonly string[]> = { collection_records: ['vector'], catalog_names: ['id'] };
const POSTGRES_ONLY: Record<string, readonly string[]> = { collection_records: ['embedding'], collection_text: ['tsv', 'doc_len'] };

/** Rows per INSERT: under PostgreSQL's 65,535 parameters, and about 8 MB of values (a request's photos, 1,792-d vectors). */
const MAX_PARAMETERS = 30_000;
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

interface PgColumn {
  name: string;
  udt: string;
  serial: boolean;
}

/** The URL as it may be printed: without its password. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(DATABASE_URL)';
  }
}

const rough = (v: unknown): number => (typeof v === 'string' ? v.length : Buffer.isBuffer(v) ? v.length : 8);

/**
 * Copies an embedded deployment's database (`loupe.db` in `dataDir`) into an empty PostgreSQL database, as one transaction:
 * killed or failed part way, the target is left as empty as it was, and the move can be run again. The data folder is held
 * (as a server holds it) while it runs, so no server changes the database meanwhile, and its snapshot is read in one
 * transaction. What each engine keeps in its own form is made in PostgreSQL's: vectors as pgvector, the text of
 * collections' search rows as tsvectors, the collections' HNSW and GIN indexes, the sequences past the copied keys. The
 * media folder, the media secret and model packs stay in the data folder, which the PostgreSQL deployment keeps using;
 * `loupe.db` is left as it was.
 */
export async function moveToPostgres(dataDir: string, databaseUrl: string, progress: (line: string) => void = () => {}): Promise<MoveReport> {
  const started = Date.now();
  const from = path.resolve(dataDir);
  const dbFile = sqliteFileOf(from);
  if (!fs.existsSync(dbFile)) throw new Error(`no database in ${from} (LOUPE_DATA_DIR): nothing to move`);
  if (fs.existsSync(path.join(from, UNFINISHED_BACKUP))) throw new Error(`${from} is a backup that did not finish (see its ${UNFINISHED_BACKUP} file): nothing to move from it`);
  let release: () => void;
  try {
    release = claimDataFolder(from);
  } catch (err) {
    // the server's own words sent the operator to DATABASE_URL (h172)
    if (!/^another Loupe server/.test((err as Error).message)) throw err;
    throw new Error(`${(err as Error).message.replace(/: one server per SQLite data folder.*$/, '')}: stop it (and its workers) before moving its database, then run the move again`);
  }
  let source: SQLite.Database | undefined;
  try {
    source = new SQLite(dbFile, { readonly: true, fileMustExist: true });
    const src = source;
    const done = new Set((src.prepare('SELECT name FROM loupe_migrations').all() as { name: string }[]).map((r) => r.name));
    const newer = [...done].filter((n) => !migrations.some((m) => m.name === n));
    if (newer.length) throw new Error(`the database in ${from} was upgraded by a newer Loupe release (migration ${newer.sort().join(', ')}): move it with that release`);
    const pending = migrations.filter((m) => !done.has(m.name)).map((m) => m.name);
    if (pending.length) throw new Error(`the database in ${from} was made by an earlier Loupe release and needs upgrading first (migration ${pending.join(', ')}): run \`loupe migrate\` with LOUPE_DATA_DIR set to it, then move it`);
    // one snapshot for every table; a write by anything else meanwhile (a CLI command, a worker) is told by the
    // database's version after it (h170: an account made during the move was left behind, its token printed)
    const version = src.pragma('data_version', { simple: true });
    src.exec('BEGIN');

    // another application's tables, or a Loupe schema of another release: refused before anything is made there (h170:
    // the refusal came after the migrations had made Loupe's schema beside someone's `customers`)
    await refuseForeignTables(databaseUrl);
    const target = await openStore({ dataDir: from, databaseUrl, upgrade: false, poolSize: 2, warn: (message) => progress(`warning: ${message}`) });
    try {
      const tables = await targetTables(target.db);
      const sourceTables = (src.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
      const unknown = sourceTables.filter((t) => !sqliteOnlyTable(t) && t !== 'loupe_migrations' && !tables.some((p) => p.name === t));
      if (unknown.length) throw new Error(`the embedded database has tables the PostgreSQL schema lacks (${unknown.join(', ')}): not moved, so nothing is left behind`);
      const held: string[] = [];
      for (const t of tables) {
        const { rows } = await sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM ${sql.table(t.name)}) AS any`.execute(target.db);
        if (rows[0]?.any) held.push(t.name);
      }
      if (held.length) throw new Error(`the database ${shownUrl(databaseUrl)} already holds Loupe data (${held.slice(0, 5).join(', ')}${held.length > 5 ? ', …' : ''}): move into a new, empty database`);

      const counts: Record<string, number> = {};
      let indexed = 0;
      await target.db.transaction().execute(async (trx) => {
        // the schema's GIN indexes (session search text, catalog names: trigrams) made again after the copy rather than
        // updated row by row through it: the move took 9 times as long with the session search index (h234)
        const gin = (await sql<{ name: string; ddl: string }>`SELECT indexname AS name, indexdef AS ddl FROM pg_indexes WHERE schemaname = current_schema() AND indexdef LIKE '% USING gin %'`.execute(trx)).rows;
        for (const i of gin) await sql`DROP INDEX ${sql.ref(i.name)}`.execute(trx);
        // an import's staging rows are an import that was running or killed: none runs now (the move holds the folder),
        // so they are left behind, as the sweep would drop them (h252: 85,138 of a move's 555k rows)
        for (const t of tables) {
          if (!STAGING.has(t.name)) counts[t.name] = await copyTable(src, trx, t.name, t.columns, progress);
          else {
            counts[t.name] = 0;
            const left = (src.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n;
            if (left) progress(`${t.name}: ${left} rows of imports that did not finish left behind`);
          }
        }
        if (gin.length) progress(`making the search indexes (${gin.map((i) => i.name).join(', ')})`);
        for (const i of gin) await sql.raw(i.ddl).execute(trx);
        // past SQLite's own high-water marks too: its AUTOINCREMENT never gives a deleted record's key again (h170: the
        // next record took the key of one deleted last, which a saved `after=` link names)
        const hasMarks = src.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get() !== undefined;
        const marks = new Map((hasMarks ? (src.prepare('SELECT name, seq FROM sqlite_sequence').all() as { name: string; seq: number }[]) : []).map((r) => [r.name, Number(r.seq)]));
        for (const t of tables) {
          for (const c of t.columns.filter((col) => col.serial)) {
            const mark = marks.get(t.name) ?? 0;
            await sql`SELECT setval(pg_get_serial_sequence(${t.name}, ${c.name}), m) FROM (SELECT greatest(max(${sql.ref(c.name)}), ${mark > 0 ? mark : null}::bigint) AS m FROM ${sql.table(t.name)}) x WHERE m IS NOT NULL`.execute(trx);
          }
        }
        const collections = src.prepare('SELECT c.id, c.dimensions, EXISTS (SELECT 1 FROM collection_text t WHERE t.collection_id = c.id) AS has_text FROM collections c').all() as { id: string; dimensions: number | null; has_text: number }[];
        for (const c of collections) {
          // a large collection's HNSW build takes minutes (about 100 s per 100,000 records on 2 cores): said before it
          const records = (src.prepare('SELECT count(*) AS n FROM collection_records WHERE collection_id = ?').get(c.id) as { n: number }).n;
          if (records >= 10_000) progress(`making the vector index of collection ${c.id} (${records} records)`);
          if (c.dimensions !== null) await sql.raw(pgIndexDdl(c.id, c.dimensions)).execute(trx);
          if (c.has_text) await sql.raw(pgTextIndexDdl(c.id)).execute(trx);
          indexed++;
          if (indexed % 20 === 0) progress(`indexes made for ${indexed} of ${collections.length} collections`);
        }
        // each table as many rows as the snapshot: checked before anything is committed
        for (const t of tables) {
          const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(t.name)}`.execute(trx);
          const expected = STAGING.has(t.name) ? 0 : (src.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n;
          if (Number(rows[0]!.n) !== expected) throw new Error(`${t.name}: ${expected} rows in the embedded database, ${rows[0]!.n} copied: nothing was moved`);
        }
        src.exec('COMMIT');
        if (src.pragma('data_version', { simple: true }) !== version) throw new Error(`the embedded database was written while it was being moved (a \`loupe\` command or a worker on ${from}): nothing was moved. Stop everything that writes to it and run the move again`);
      });
      // the embedded database is not to be used by mistake any more (a cron job's import, a restart without DATABASE_URL)
      fs.writeFileSync(path.join(from, MOVED_TO_POSTGRES), `${JSON.stringify({ to: shownUrl(databaseUrl), at: new Date().toISOString() })}\n`, { mode: 0o600 });
      return {
        from,
        to: shownUrl(databaseUrl),
        tables: counts,
        collections_indexed: indexed,
        seconds: Math.round((Date.now() - started) / 100) / 10,
        next: `start the server (and workers, and every loupe command) with DATABASE_URL naming the new database and LOUPE_DATA_DIR=${from}, whose media folder, media secret and model packs it keeps using; loupe.db there is left as it was, and refused without DATABASE_URL while ${MOVED_TO_POSTGRES} is beside it (remove loupe.db once the new deployment is checked)`,
      };
    } finally {
      await target.close();
    }
  } finally {
    source?.close();
    release();
  }
}

/** Refuses a target whose schema holds tables of another application (a Loupe schema is looked at by `openStore` and the row check). */
async function refuseForeignTables(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 15_000 });
  pool.on('error', () => {});
  try {
    const { rows } = await pool.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1").catch((err: unknown) => {
      // the driver's own words named neither the database nor that it was --to's (h172: `role "nouser" does not exist`)
      throw new Error(`--to ${shownUrl(databaseUrl)}: ${(explainPgSetupError(err, '--to') as Error).message}`);
    });
    const names = rows.map((r) => r.name);
    if (names.length && !names.includes('loupe_migrations')) throw new Error(`the database ${shownUrl(databaseUrl)} holds tables that are not Loupe's (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}): nothing was made there; move into a new, empty database`);
    // Loupe's text is UTF-8: in a LATIN1 database the check below failed with a driver error that said nothing useful (h178)
    const { rows: encoding } = await pool.query<{ enc: string }>("SELECT current_setting('server_encoding') AS enc");
    if (encoding[0] && encoding[0].enc !== 'UTF8') throw new Error(notUtf8(`the database ${shownUrl(databaseUrl)}`, encoding[0].enc, ': nothing was made there'));
    // a C locale lowers ASCII alone: session and catalog search would miss accented words there, and the advice to make
    // the database again came after every row was in it (h172)
    const { rows: locale } = await pool.query<{ ok: boolean; ctype: string }>("SELECT lower('ÉΣ') = 'éσ' AS ok, current_setting('lc_ctype') AS ctype");
    if (locale[0] && !locale[0].ok) throw new Error(`the database ${shownUrl(databaseUrl)} classifies characters by LC_CTYPE ${locale[0].ctype}, which lowers ASCII letters only (catalog name search would miss accented and non-Latin text): nothing was made there; make it with a UTF-8 locale (createdb --template=template0 --locale=C.UTF-8, README "Run it")`);
  } finally {
    await pool.end();
  }
}

/** The PostgreSQL schema's tables (but the migrations' record), each after the tables its foreign keys name. */
async function targetTables(db: Kysely<Database>): Promise<{ name: string; columns: PgColumn[] }[]> {
  const cols = (
    await sql<{ table_name: string; column_name: string; udt_name: string; column_default: string | null; is_generated: string }>`
      SELECT c.table_name, c.column_name, c.udt_name, c.column_default, c.is_generated
      FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> 'loupe_migrations'
      ORDER BY c.table_name, c.ordinal_position`.execute(db)
  ).rows;
  const fks = (
    await sql<{ child: string; parent: string }>`
      SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`.execute(db)
  ).rows;
  const byTable = new Map<string, PgColumn[]>();
  for (const c of cols) {
    if (c.is_generated !== 'NEVER') continue;
    const list = byTable.get(c.table_name) ?? [];
    list.push({ name: c.column_name, udt: c.udt_name, serial: /^nextval\(/.test(c.column_default ?? '') });
    byTable.set(c.table_name, list);
  }
  const ordered: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (ordered.includes(name) || path.includes(name)) return;
    for (const fk of fks.filter((f) => f.child === name && f.parent !== name)) visit(fk.parent, [...path, name]);
    ordered.push(name);
  };
  for (const name of [...byTable.keys()].sort()) visit(name, []);
  return ordered.filter((n) => byTable.has(n)).map((name) => ({ name, columns: byTable.get(name)! }));
}

/** Copies one table's rows from the SQLite snapshot into the PostgreSQL transaction, in batches; answers how many. */
async function copyTable(src: SQLite.Database, trx: Transaction<Database>, table: string, columns: PgColumn[], progress: (line: string) => void): Promise<number> {
  const sourceColumns = (src.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((r) => r.name);
  const sqliteOnly = sourceColumns.filter((c) => !columns.some((p) => p.name === c) && !(SQLITE_ONLY[table] ?? []).includes(c));
  const pgOnly = columns.filter((p) => !sourceColumns.includes(p.name) && !(POSTGRES_ONLY[table] ?? []).includes(p.name));
  if (sqliteOnly.length || pgOnly.length) throw new Error(`${table}: the engines' columns differ beyond what the move knows (${[...sqliteOnly.map((c) => `${c} in SQLite only`), ...pgOnly.map((c) => `${c.name} in PostgreSQL only`)].join(', ')}): nothing was moved`);
  const read = columns.filter((c) => sourceColumns.includes(c.name)).map((c) => c.name);
  if (table === 'collection_records') read.push('vector');
  const total = (src.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  if (total === 0) return 0;
  const udt = new Map(columns.map((c) => [c.name, c.udt]));
  const perRow = read.length + 2;
  let batch: Record<string, unknown>[] = [];
  let bytes = 0;
  let copied = 0;
  let told = Date.now();
  const flush = async () => {
    if (!batch.length) return;
    try {
      await trx.insertInto(table as keyof Database).values(batch as never).execute();
    } catch (err) {
      throw new Error(`${table}: PostgreSQL refused a row of rows ${copied + 1}–${copied + batch.length} (${(err as Error).message}): nothing was moved`);
    }
    copied += batch.length;
    batch = [];
    bytes = 0;
    if (Date.now() - told > 5_000 || copied === total) {
      told = Date.now();
      progress(`${table}: ${copied} of ${total} rows`);
    }
  };
  // read as it is written, never the whole table at once (a request's photos, a collection's vectors)
  const rows = src.prepare(`SELECT ${read.map((c) => `"${c}"`).join(', ')} FROM "${table}"`).iterate() as IterableIterator<Record<string, unknown>>;
  for (const r of rows) {
    const out: Record<string, unknown> = {};
    for (const c of read) {
      const v = r[c];
      if (c === 'vector') {
        out.embedding = v === null || v === undefined ? null : pgVector(blobToVector(v as Uint8Array));
        continue;
      }
      out[c] = v !== null && udt.get(c) === 'bool' ? v === 1 || v === true : v;
      bytes += rough(v);
    }
    if (table === 'collection_text') Object.assign(out, pgTextVector(r as { seen: string; body: string; ocr: string; lang: string }));
    bytes += rough(out.embedding);
    batch.push(out);
    if (batch.length * perRow >= MAX_PARAMETERS || bytes >= MAX_BATCH_BYTES) await flush();
  }
  await flush();
  return copied;
}
