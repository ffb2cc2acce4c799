import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { LoupePostgresDialect } from './postgres-dialect.ts';
import { Kysely, sql, type ColumnType, type Generated, type RawBuilder } from 'kysely';
import { migrate } from './migrate.ts';
import { closeStalledConnections, prepareHotStatements } from './pg-tuning.ts';
import { cachePreparedStatements, ImmediateTransactionsDialect, startCheckpointer, type BusyWait } from './sqlite-tuning.ts';
import { latinStrokes, SCRIPT_FOLD_FROM, SCRIPT_FOLD_TO } from '../util/script-fold.ts';
import { registerFunctions, searchDroppedClass } from './sqlite-functions.ts';
import { SqliteReadPool } from './sqlite-read-pool.ts';

// where they were before the functions moved to sqlite-functions.ts (the read workers load that module alone)
export { foldForSearch, sumVarints } from './sqlite-functions.ts';

/** Timestamps come back as ISO text from SQLite and as Date from PostgreSQL (timestamptz). */
type Timestamp = ColumnType<string | Date, string, string>;
/** JSON columns: text in SQLite, jsonb in PostgreSQL; always written as JSON text. */
type Json = ColumnType<unknown, string, string>;
/** Booleans: 0/1 in SQLite, boolean in PostgreSQL. */
type Bool = ColumnType<number | boolean, number | boolean, number | boolean>;
/** bigint columns come back as strings from PostgreSQL. */
type BigInt = ColumnType<number | string, number, number>;

export interface AccountsTable {
  id: string;
  name: string;
  credits: BigInt;
  services: Json;
  /** HMAC key for webhook signatures; made on first use. */
  webhook_secret: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface WorkspacesTable {
  id: string;
  account_id: string;
  name: string;
  is_default: Bool;
  created_at: Timestamp;
}

export interface ApiTokensTable {
  id: string;
  account_id: string;
  token_hash: string;
  name: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface CardSessionsTable {
  seq: Generated<number | string>;
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  game: string;
  /** `game` folded for the list's `game` filter (the service makes it). */
  game_key: string;
  platform: string;
  status: string;
  started: Timestamp;
  ended: Timestamp | null;
  client: Json;
  meta_data: Json;
  /** Kept in step with the rows in the same transaction, so reading a session is O(1). */
  identification_count: Generated<number>;
  total_price: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * The name, description, platform and game folded for the list's search (`sessionSearchText`), kept in step by every
   * write of them; PostgreSQL indexes it by trigrams, so a search no longer folds and scans every session.
   */
  search_text: Generated<string>;
  /** The create's `Idempotency-Key`, unique per workspace while the session lives; null without one. */
  idempotency_key: Generated<string | null>;
  /** SHA-256 of the create's body as canonical JSON, beside its key. */
  body_hash: Generated<string | null>;
}

export interface CardIdentificationsTable {
  seq: Generated<number | string>;
  id: string;
  session_id: string;
  event_id: string;
  seen: Timestamp | null;
  calls: number | null;
  duration: number | null;
  id_type: string | null;
  name: string | null;
  full_name: string | null;
  set_name: string | null;
  set_code: string | null;
  card_number: string | null;
  series: string | null;
  year: string | null;
  subcategory: string | null;
  distance: number | null;
  confidence: string | null;
  links: Json | null;
  alternatives: Json | null;
  price_stats: Json | null;
  price: number | null;
  /** The `price_stats` entry a derived price came from; null when the price was not derived. */
  price_basis: Json | null;
  grading: Json | null;
  grade: number | null;
  image_key: string | null;
  thumbnail_key: string | null;
  sold: Bool | null;
  note: string | null;
  card_key: string | null;
  /** Hashes of the distinct uploads of the row's changeable fields, space-separated, latest last (migration 022); null before. */
  sent_hashes: string | null;
  /** Migration 026: short hashes of the images the row was sent, the latest last. */
  image_sends: string | null;
  /** Fields a user set by PATCH, which uploads leave alone (migration 027). */
  user_set: string | null;
  original: Json | null;
  corrected_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CardSessionCallsTable {
  session_id: string;
  run: string;
  calls: number;
  updated_at: Timestamp;
}

export interface CollectionsTable {
  id: string;
  account_id: string;
  type: string;
  name: string;
  product_field: string | null;
  capacity: number;
  model: string | null;
  dimensions: number | null;
  record_count: ColumnType<number, number | undefined, number>;
  seq: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
}

export interface CollectionRecordsTable {
  key: Generated<number>;
  collection_id: string;
  record_id: string;
  data: Json;
  /** SQLite: float32 little-endian BLOB. */
  vector?: Buffer | null;
  /** PostgreSQL: pgvector text form `[1,2,3]` on write. */
  /** pgvector's binary wire form (store/pg-vector.ts) when written; read back as text unless asked for with vector_send. */
  embedding?: string | Buffer | null;
  /** The `bmh1` visual hash as 256 binary digits (migration 014); null for records stored before. */
  hash?: string | null;
  /** The record's thumbnail in the media folder (migration 047); null before it, or with LOUPE_RECORD_THUMBNAILS off. */
  thumbnail_key?: string | null;
  seq: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MediaDeletionsTable {
  key: string;
  /** Epoch milliseconds; PostgreSQL's bigint comes back as text. */
  due: ColumnType<number, number, number>;
}

export interface CreditHoldsTable {
  id: string;
  account_id: string;
  /** PostgreSQL's bigint comes back as text. */
  amount: ColumnType<number, number, number>;
  /** Epoch milliseconds. */
  due: ColumnType<number, number, number>;
}

export interface CollectionTombstonesTable {
  collection_id: string;
  key: number;
  seq: number;
}

export interface AsyncRequestsTable {
  seq: Generated<number | string>;
  id: string;
  account_id: string;
  workspace_id: string;
  type: string;
  endpoint: string;
  status: string;
  request: Json;
  /** What handlers need beyond the echo (mode, per-record options), never shown. */
  options: Json;
  response: Json | null;
  charged: number;
  attempts: ColumnType<number, number | undefined, number>;
  lease_token: string | null;
  lease_until: BigInt | null;
  last_error: string | null;
  /** Media keys the results refer to, deleted with the request. */
  media: ColumnType<unknown, string | undefined, string>;
  /** `[{index, key, width, height}]`: each input image's preview (migration 049, keys in `media` too); null when none was made. */
  previews: ColumnType<unknown, string | null | undefined, string | null>;
  webhook: Json | null;
  /** null (none asked), pending, delivered or failed. */
  webhook_state: string | null;
  webhook_attempts: ColumnType<number, number | undefined, number>;
  webhook_next_at: BigInt | null;
  webhook_lease_until: BigInt | null;
  webhook_last_error: string | null;
  webhook_delivered_at: Timestamp | null;
  /** The submit's `Idempotency-Key`, unique per account while the row lives; null without one. */
  idempotency_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** SHA-256 of the workspace and the body the key was first sent with. */
  body_hash: ColumnType<string | null, string | null | undefined, string | null>;
  expires_at: BigInt;
  created_at: Timestamp;
  modified_at: Timestamp;
}

export interface AsyncRequestInputsTable {
  request_id: string;
  idx: number;
  /** The image's part, 1 MiB each, from 0 (migration 043). */
  part: Generated<number>;
  bytes: Buffer;
}

/** A submit writing its images' parts before its request exists (migration 044); gone once the request is made. */
export interface AsyncRequestUploadsTable {
  id: string;
  /** Epoch ms of its last write: one untouched for long belongs to a submit that died (`RequestStore.sweep`). */
  touched_at: BigInt;
}

export interface FlowsTable {
  name: string;
  definition: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CatalogsTable {
  id: string;
  name: string;
  kind: string;
  /** Moves with every import that changes a row: caches built from the catalog compare it. */
  version: number;
  card_count: number;
  set_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CatalogSetsTable {
  catalog_id: string;
  code: string;
  name: string;
  series: string | null;
  printed_total: number | null;
  total: number | null;
  /** `YYYY-MM-DD` on both backends. */
  release_date: string | null;
  extra: Json;
  source: string;
  source_rank: number;
  content_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CatalogCardsTable {
  catalog_id: string;
  card_key: string;
  set_code: string | null;
  set_name: string | null;
  name: string;
  name_norm: string;
  number: string | null;
  number_norm: string | null;
  rarity: string | null;
  year: string | null;
  fields: Json;
  links: Json;
  aliases: Json;
  flags: Json;
  source: string;
  source_rank: number;
  content_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * Card rows an import will write, staged before its transaction (migration 011): a card row
 * without its catalog, source and rank (the import's own, given when they move in).
 */
export interface CatalogImportRowsTable extends Omit<CatalogCardsTable, 'catalog_id' | 'source' | 'source_rank' | 'updated_at'> {
  import_id: string;
}

/** Price rows an import will write, staged before its transaction (migration 011). */
export interface CatalogPriceImportRowsTable extends Omit<CatalogPricesTable, 'catalog_id' | 'updated_at'> {
  import_id: string;
}

/** A catalog's distinct folded names (SQLite adds an integer `id`, the FTS row id; see migration 005). */
export interface CatalogNamesTable {
  catalog_id: string;
  name_norm: string;
  name: string;
  card_count: number;
}

/** Sales deleted one by one (`loupe prices delete --price`), which an import does not bring back (migration 029). */
export interface CatalogPriceDeletionsTable {
  catalog_id: string;
  row_key: string;
  card_key: string;
  deleted_at: Timestamp;
  /** The prices deleted at this place, `USD 1` a line (migration 031): only they are skipped again; null for deletions made before. */
  deleted_prices: string | null;
}

export interface CatalogPricesTable {
  catalog_id: string;
  row_key: string;
  card_key: string;
  source: string;
  /** `YYYY-MM-DD` on both backends. */
  date: string;
  price: number;
  currency: string;
  graded: Bool;
  grade: string | null;
  qualifier: string | null;
  volume: number | null;
  extra: Json;
  content_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CatalogImagesTable {
  catalog_id: string;
  card_key: string;
  source_file: string;
  width: number;
  height: number;
  artwork: string;
  artwork_version: string;
  content_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Text search's row per collection record (migration 009). */
export interface CollectionTextTable {
  key: number;
  collection_id: string;
  seen: string;
  body: string;
  ocr: string;
  lang: string;
  colors: Json;
  observed: Json | null;
  seen_version: number;
  seen_state: string;
  attempts: Generated<number>;
  last_error: string | null;
  updated_at: Timestamp;
  /** PostgreSQL only. */
  tsv?: string;
  doc_len?: number;
}

export interface Database {
  accounts: AccountsTable;
  workspaces: WorkspacesTable;
  api_tokens: ApiTokensTable;
  card_sessions: CardSessionsTable;
  card_identifications: CardIdentificationsTable;
  card_session_calls: CardSessionCallsTable;
  collections: CollectionsTable;
  collection_records: CollectionRecordsTable;
  collection_tombstones: CollectionTombstonesTable;
  async_requests: AsyncRequestsTable;
  async_request_inputs: AsyncRequestInputsTable;
  async_request_uploads: AsyncRequestUploadsTable;
  flows: FlowsTable;
  catalogs: CatalogsTable;
  catalog_sets: CatalogSetsTable;
  catalog_cards: CatalogCardsTable;
  catalog_import_rows: CatalogImportRowsTable;
  catalog_names: CatalogNamesTable;
  catalog_prices: CatalogPricesTable;
  catalog_price_deletions: CatalogPriceDeletionsTable;
  catalog_price_import_rows: CatalogPriceImportRowsTable;
  catalog_images: CatalogImagesTable;
  collection_text: CollectionTextTable;
  media_deletions: MediaDeletionsTable;
  credit_holds: CreditHoldsTable;
}

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Where the SQLite file lives (embedded backend only). */
  file?: string;
  /** The SQLite file's device and inode as opened: a file removed or replaced under the server is told by them. */
  fileId?: { dev: number; ino: number };
  /** PostgreSQL only: for connections outside the pool (LISTEN needs its own). */
  databaseUrl?: string;
  /** PostgreSQL only: the pool's connections. */
  poolSize?: number;
  /** SQLite only: worker threads that run heavy reads (text search) off the event loop, each its own connection. */
  reads?: SqliteReadPool;
  close(): Promise<void>;
  /** The migrations this open applied (an upgrade), for the start's log. */
  migrated?: string[];
}

/**
 * After an erasure (`loupe account delete`, `request delete`, `collection delete`): the SQLite write-ahead log copied
 * into the database and emptied, so the pages as they were before the delete (a webhook's bearer token, a customer's
 * names) do not wait there for the next checkpoint that truncates it, which a quiet server may not make for weeks
 * (h182). Best effort: a reader holding the log keeps it until the background checkpoint. Nothing on PostgreSQL (its
 * old row versions go with VACUUM, docs/operations.md "Erasure").
 */
export async function flushErased(store: Store): Promise<void> {
  if (store.dialect !== 'sqlite') return;
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db).catch(() => {});
}

/**
 * What `loupe move-to-postgres` left in a data folder, still holding everything as it was at the move: the embedded
 * database and the vector index files (h182: an account erased on PostgreSQL stayed whole in them). Empty when the
 * folder was not moved or they were removed.
 */
export function movedLeftovers(dataDir: string): string[] {
  if (!fs.existsSync(path.join(dataDir, MOVED_TO_POSTGRES))) return [];
  const db = sqliteFileOf(dataDir);
  const indexes = path.join(dataDir, 'indexes');
  const files = fs.existsSync(indexes) ? fs.readdirSync(indexes).filter((f) => f.endsWith('.usearch')).map((f) => path.join(indexes, f)) : [];
  return [...(fs.existsSync(db) ? [db] : []), ...files];
}

/** The embedded database's file in a data folder. */
export const sqliteFileOf = (dataDir: string): string => path.join(dataDir, 'loupe.db');

/** What `assertWritable` refuses: which part (for a readiness answer that names no path) and why (for the log). */
export class NotWritable extends Error {
  constructor(
    readonly part: 'database' | 'media',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Fails, saying what, when the database or the media folder cannot be written: a write that
 * changes nothing is still refused by a read-only database (SQLite's SQLITE_READONLY, PostgreSQL's
 * read-only transaction or missing privilege).
 */
/** The data folder, made if missing; a path that is a file, or cannot be made, is said in those words. */
export function makeDataFolder(dataDir: string): void {
  const refuse = (why: string) => new Error(`the data folder ${dataDir} (LOUPE_DATA_DIR) cannot be used: ${why}`);
  // The folders to make, found by walking up to the first that exists: Node's recursive mkdir loops for ever where
  // mkdir answers ENOENT under an existing parent (/proc, h274: the server hung at start without a word).
  const missing: string[] = [];
  for (let at = path.resolve(dataDir); ; ) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOTDIR') throw refuse('a folder on its path is a file');
      if (code === 'EACCES' || code === 'EPERM') throw refuse('this user may not look into a folder on its path');
      if (code !== 'ENOENT') throw refuse((err as Error).message);
      missing.unshift(at);
      const up = path.dirname(at);
      if (up === at) break;
      at = up;
      continue;
    }
    if (st.isSymbolicLink()) {
      try {
        st = fs.statSync(at);
      } catch {
        throw refuse(`${at} is a link to ${fs.readlinkSync(at)}, which does not exist`);
      }
    }
    if (!st.isDirectory()) throw refuse(at === path.resolve(dataDir) ? 'it is a file' : 'a folder on its path is a file');
    break;
  }
  for (const folder of missing) {
    try {
      // a folder Loupe makes is its owner's alone, as the files in it are (an existing one keeps its mode)
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EEXIST') continue; // made meanwhile by another process
      const why =
        code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'this user may not make it there'
          : code === 'ENOENT'
            ? `${path.dirname(folder)} takes no new folders (a virtual file system such as /proc or /sys)`
            : (err as Error).message;
      throw refuse(why);
    }
  }
  if (!fs.statSync(dataDir).isDirectory()) throw refuse('it is a file');
}

export async function assertWritable(store: Store, mediaDir: string): Promise<void> {
  try {
    await sql`UPDATE loupe_migrations SET name = name WHERE 1 = 0`.execute(store.db);
  } catch (err) {
    throw new NotWritable('database', `the database cannot be written (${(err as { code?: string }).code ?? (err as Error).message}): ${store.file ?? 'DATABASE_URL'}`);
  }
  // the file deleted or replaced under the running server: its writes go to the open, unlinked file and are lost at
  // the next start, which makes a new, empty database (h139: /ready said ready and writes answered 201)
  if (store.file && store.fileId) {
    const now = await fs.promises.stat(store.file).catch(() => null);
    if (!now || now.ino !== store.fileId.ino || now.dev !== store.fileId.dev) {
      throw new NotWritable('database', `the database file ${store.file} was ${now ? 'replaced' : 'removed'} while the server ran: what it writes now is lost when it stops; restore the file (or a backup) and restart`);
    }
  }
  // its own name per check: two readiness probes at once would remove each other's file
  const probe = path.join(mediaDir, `.write-check-${process.pid}-${randomUUID()}`);
  try {
    await fs.promises.mkdir(mediaDir, { recursive: true, mode: 0o700 });
    // 64 KiB, as an image takes: an empty file was made on a full disk, so a full disk answered ready
    await fs.promises.writeFile(probe, Buffer.alloc(64 * 1024));
    await fs.promises.rm(probe);
  } catch (err) {
    // a write cut short leaves its part: one a probe, piling up on the full disk it found
    await fs.promises.rm(probe, { force: true }).catch(() => undefined);
    throw new NotWritable('media', `the media folder cannot be written (${(err as { code?: string }).code ?? (err as Error).message}): ${mediaDir}`);
  }
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** PostgreSQL connections per process. */
  poolSize?: number | undefined;
  /**
   * How long a PostgreSQL connection may take to open, or to come free from a full pool (15 s): a
   * server that takes the connection and never answers held the start, silent, for good.
   */
  connectTimeoutMs?: number;
  /** Long-running processes (the server) checkpoint SQLite's WAL from a worker thread. */
  backgroundCheckpoints?: boolean;
  /**
   * PostgreSQL: after migrations, a statement unanswered this long has its connection closed (a 503);
   * unset or 0, none is (the admin CLI, whose imports may run long). pg-tuning.ts `closeStalledConnections`.
   */
  stalledStatementMs?: number | undefined;
  /** Where a stalled statement is told (the server's log). */
  warn?: ((message: string, fields: Record<string, unknown>) => void) | undefined;
  /** Where an upgrade about to run is told, before its migrations (h234: a long one ran without a word). */
  info?: ((message: string, fields: Record<string, unknown>) => void) | undefined;
  /** PostgreSQL's `application_name` of the pool's connections (`loupe server`, `loupe worker`, `loupe cli`). */
  applicationName?: string | undefined;
  /**
   * Whether pending migrations of a database an earlier release made are applied (the server, a
   * worker, `loupe migrate`); otherwise such a database is refused, naming them (every other CLI
   * command: listing accounts must not upgrade a live database out from under its running release).
   * A new database is always made whole. Default true.
   */
  upgrade?: boolean;
  /** Whether an empty database may be made a Loupe one (false: an admin command that reads or changes what is there, h110). */
  create?: boolean;
}

// PostgreSQL bigint (COUNT, SUM of integers) arrives as text; our counts fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric (SUM/AVG of doubles can widen to it) likewise.
pg.types.setTypeParser(1700, (v) => Number(v));
// date (catalog release dates) stays `YYYY-MM-DD` text, as SQLite stores it; a Date would shift it by the local zone.
pg.types.setTypeParser(1082, (v) => v);

const pgUtcTimestamp = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
/**
 * Connections run with TimeZone=UTC, so timestamptz arrives as `2026-11-20 10:00:00.123+00`.
 * Rewriting that text into ISO form is several times cheaper than building a Date for every
 * value of a 500-row page; anything unexpected falls back to Date.
 */
export function pgTimestampToIso(v: string): string {
  const m = pgUtcTimestamp.exec(v);
  if (!m) return new Date(v).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}
pg.types.setTypeParser(1184, pgTimestampToIso);

/**
 * In a backup folder while `loupe backup` makes it, removed last: a backup stopped part way (killed
 * during the database copy, or before the media) was taken for a whole one, and a server started on
 * it answered ready with an empty database or every image link 404. `openStore` refuses such a folder.
 */
export const UNFINISHED_BACKUP = 'BACKUP-UNFINISHED';

/**
 * Left in a data folder by `loupe move-to-postgres` once its database is in PostgreSQL: the embedded database is then
 * refused (a restart without DATABASE_URL served it, and a cron job's import wrote into it, left behind, h170).
 */
export const MOVED_TO_POSTGRES = 'MOVED-TO-POSTGRES';

/** Why a data folder's embedded database is not to be used (`loupe move-to-postgres` left its marker there), or undefined. */
export function movedToPostgres(dataDir: string): Error | undefined {
  const moved = path.join(dataDir, MOVED_TO_POSTGRES);
  if (!fs.existsSync(moved)) return undefined;
  let where = '';
  try {
    const m = JSON.parse(fs.readFileSync(moved, 'utf8')) as { to?: string; at?: string };
    where = ` (${m.to ?? '?'}, ${m.at ?? '?'})`;
  } catch {
    // said without the details
  }
  return new Error(`the embedded database in ${path.resolve(dataDir)} was moved to PostgreSQL${where} by \`loupe move-to-postgres\`: set DATABASE_URL to that database. To use the embedded one again (it holds nothing written since the move), remove the file ${moved}`);
}

/** The refusal of a PostgreSQL database whose text is not UTF-8 (`what`: how the database is named), by every open and the move. */
export const notUtf8 = (what: string, encoding: string, made = '') =>
  `${what} stores text as ${encoding}, and Loupe's is UTF-8${made}: make the database with ENCODING UTF8 and a UTF-8 locale (createdb --template=template0 --encoding=UTF8 --locale=C.UTF-8, README "Run it")`;

/**
 * The admin CLI and the server may write at the same time: a statement waits for the other's
 * lock instead of failing, up to 10 s, never more than 20 ms of it on the event loop (the
 * dialect sets the connection's busy timeout; sqlite-tuning.ts `BusyWait`).
 */
const sqliteBusyWait: BusyWait = { syncMs: 20, totalMs: 10_000 };

export async function openStore(options: StoreOptions): Promise<Store> {
  let store: Store;
  let afterMigrate = () => {};
  if (options.databaseUrl) {
    // named, so pg_stat_activity tells a server's connections from a worker's and a command's (h226); a name the URL
    // gives (`?application_name=`) is kept
    const named = new URL(options.databaseUrl).searchParams.has('application_name');
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, options: '-c TimeZone=UTC', connectionTimeoutMillis: options.connectTimeoutMs ?? 15_000, ...(named || !options.applicationName ? {} : { application_name: options.applicationName }) });
    // An idle connection the server ends (a restart, an administrator, a dropped test database)
    // is reported on the pool; without a listener that event would crash the process. The pool
    // already discards the connection, and the next query opens a new one.
    pool.on('error', () => {});
    // A connection checked out (a transaction, a query) has no pool listener: its loss (terminated,
    // a failover, a reset) was an unhandled 'error' that ended the server process mid-request. The
    // query or transaction it served fails with that error (a 503), and the pool discards the
    // connection when it comes back.
    pool.on('connect', (client) => client.on('error', () => {}));
    prepareHotStatements(pool);
    // not during migrations, which may rewrite a large table; set once they are done
    let stallLimitMs = 0;
    closeStalledConnections(pool, () => stallLimitMs, (ms, statement) => options.warn?.(`PostgreSQL did not answer a statement within ${ms / 1000} s; its connection was closed (the request answers 503 database_unavailable). Is the database server stopped or overloaded, or the network to it silent? (LOUPE_PG_STATEMENT_LIMIT)`, { statement }));
    afterMigrate = () => {
      stallLimitMs = options.stalledStatementMs ?? 0;
    };
    const db = new Kysely<Database>({ dialect: new LoupePostgresDialect({ pool }) });
    store = { db, dialect: 'postgres', databaseUrl: options.databaseUrl, poolSize: options.poolSize ?? 10, close: () => db.destroy() };
  } else {
    if (fs.existsSync(path.join(options.dataDir, UNFINISHED_BACKUP))) {
      throw new Error(`${path.resolve(options.dataDir)} is a backup that did not finish (\`loupe backup\` was stopped before it was done; see its ${UNFINISHED_BACKUP} file): it may hold an empty database or miss images. Make the backup again, into a new folder`);
    }
    const moved = movedToPostgres(options.dataDir);
    if (moved) throw moved;
    makeDataFolder(options.dataDir);
    const file = sqliteFileOf(options.dataDir);
    // readable by its owner only (SQLite gives the WAL and shared-memory files the same mode): it
    // holds tokens' hashes, webhook secrets and customers' data; an existing file keeps its mode
    let sqlite: SQLite.Database;
    try {
      const fresh = !fs.existsSync(file);
      if (fresh) fs.closeSync(fs.openSync(file, 'a', 0o600));
      sqlite = new SQLite(file);
      // free pages can go back to the disk (sqlite-tuning.ts reclaimFreePages); only a database with no tables yet can be told
      if (fresh) sqlite.pragma('auto_vacuum = INCREMENTAL');
      sqlite.pragma('journal_mode = WAL');
    } catch (err) {
      // SQLite's own words ("unable to open database file") named neither the file nor the likely cause
      // a file that is no database is said so, not taken for a permissions problem (h109)
      const notDatabase = /not a database|malformed/i.test((err as Error).message);
      throw new Error(notDatabase ? `cannot open the database ${file}: the file is not an SQLite database (${(err as Error).message}): LOUPE_DATA_DIR names the wrong folder, or the file was damaged (restore a backup)` : `cannot open the database ${file} (${(err as Error).message}): the file and its folder must be writable by this user (the write-ahead log is made beside the file)`);
    }
    // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // a deleted row's bytes are overwritten, not left in free pages for the file and its backups to
    // carry: a deleted session's notes and a swept request's photos were still in loupe.db
    sqlite.pragma('secure_delete = ON');
    // a write-ahead log grown by a large write (overwritten images) goes back to 64 MiB once checkpointed
    sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    registerFunctions(sqlite);
    const stopCheckpointer = options.backgroundCheckpoints ? startCheckpointer(sqlite, file) : async () => undefined;
    // Single reads run on a second connection, never queued behind a write waiting for the lock (sqlite-tuning.ts).
    const reader = new SQLite(file);
    registerFunctions(reader);
    const db = new Kysely<Database>({ dialect: new ImmediateTransactionsDialect(cachePreparedStatements(sqlite), sqliteBusyWait, cachePreparedStatements(reader)) });
    // its workers start at their first use (a command that searches no text starts none); a wait for a lock there
    // holds no request, so it may last as long as a write's whole wait
    const reads = new SqliteReadPool(db, { file, busyMs: sqliteBusyWait.totalMs, warn: options.warn });
    const opened = fs.statSync(file);
    store = {
      db,
      dialect: 'sqlite',
      file,
      fileId: { dev: opened.dev, ino: opened.ino },
      reads,
      close: async () => {
        await reads.close();
        await stopCheckpointer();
        await db.destroy();
      },
    };
  }
  try {
    // text is UTF-8: in another encoding the migrations made the schema and the first accented word then failed with
    // the driver's "has no equivalent in encoding LATIN1", on every start (h178)
    if (store.dialect === 'postgres') {
      const { rows } = await sql<{ enc: string }>`SELECT current_setting('server_encoding') AS enc`.execute(store.db);
      if (rows[0] && rows[0].enc !== 'UTF8') throw new Error(notUtf8('the database', rows[0].enc));
    }
    store.migrated = await migrate(store, { upgrade: options.upgrade ?? true, create: options.create ?? true, ...(options.warn ? { onWait: options.warn } : {}), ...(options.info ? { onUpgrade: options.info } : {}) });
    afterMigrate();
    // a database made with the C locale lowers and splits into trigrams ASCII alone: catalog name search finds no
    // "Pokémon" there, where the embedded database does (h152); said at start, as nothing else says it. Session search
    // is not touched since migration 038 (its text is folded by the server, and LIKE checks what the index gives)
    if (store.dialect === 'postgres') {
      const { rows } = await sql<{ ok: boolean; ctype: string }>`SELECT lower('ÉΣ') = 'éσ' AS ok, current_setting('lc_ctype') AS ctype`.execute(store.db);
      if (rows[0] && !rows[0].ok) options.warn?.(`the database's character classification (LC_CTYPE ${rows[0].ctype}) lowers ASCII letters only: catalog name search misses accented and non-Latin text there. Make the database with a UTF-8 locale (createdb --template=template0 --locale=C.UTF-8, README "Run it") and move the data into it`, { lc_ctype: rows[0].ctype });
    }
  } catch (err) {
    await store.close();
    throw store.dialect === 'postgres' ? explainPgSetupError(err) : err;
  }
  return store;
}

/** PostgreSQL set-up errors whose own words do not say what to do, said so that they do. */
export function explainPgSetupError(err: unknown, setting = 'DATABASE_URL'): unknown {
  const e = err as { code?: unknown; message?: unknown; address?: unknown; port?: unknown; hostname?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  // the socket's and the server's own words named neither PostgreSQL nor the setting, nor what to do (h330: `connect
  // ECONNREFUSED 127.0.0.1:5`; `database "loupe2" does not exist`, where createdb's default locale may be C)
  if (e.code === 'ECONNREFUSED') {
    const at = typeof e.address === 'string' && typeof e.port === 'number' ? ` at ${e.address}:${e.port}` : '';
    return Object.assign(new Error(`no PostgreSQL server answers${at} (connect ECONNREFUSED): is it running, and does ${setting} name its host and port?`, { cause: err }), { code: e.code });
  }
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') {
    const host = typeof e.hostname === 'string' ? `${e.hostname} ` : '';
    return Object.assign(new Error(`the PostgreSQL host ${host}that ${setting} names cannot be resolved (getaddrinfo ${e.code}): check the host name in it`, { cause: err }), { code: e.code });
  }
  if (e.code === '3D000') {
    const name = /database "(.*)" does not exist/.exec(message)?.[1];
    return Object.assign(new Error(`${message} on the PostgreSQL server ${setting} names: make it first, with a UTF-8 locale (createdb --template=template0 --locale=C.UTF-8 ${name ?? '<name>'}; README "Run it"), or correct the name in ${setting}`, { cause: err }), { code: e.code });
  }
  if (/client password must be a string/.test(message)) {
    return new Error(`the PostgreSQL server asks for a password and ${setting} gives none: put it in the URL (postgres://user:password@host:port/database) or in PGPASSWORD`);
  }
  if (/timeout exceeded when trying to connect|terminated due to connection timeout/.test(message)) {
    return new Error(`the PostgreSQL server took the connection but did not answer in time (${setting} names a port where something else listens, or the server is stuck)`);
  }
  if (e.code === '42501' && /extension "vector"/.test(message)) {
    return new Error('the database has no pgvector extension and this user may not create it: a superuser must run `CREATE EXTENSION vector;` in that database once (README, "Run it"); nothing was created');
  }
  return err;
}

// latinStrokes in SQL: the one-letter folds by translate(), the two-letter ones (ß, œ, æ) by replace()
const strokeSingles = Object.entries(latinStrokes).filter(([, to]) => to.length === 1);
const strokePairs = Object.entries(latinStrokes).filter(([, to]) => to.length > 1);
const pgFoldLatinStrokes = (text: RawBuilder<string>): RawBuilder<string> =>
  strokePairs.reduce((e, [from, to]) => sql<string>`replace(${e}, ${from}, ${to})`, sql<string>`translate(${text}, ${strokeSingles.map(([c]) => c).join('')}, ${strokeSingles.map(([, t]) => t).join('')})`);

/** `foldForSearch` of a column in PostgreSQL. */
export const pgFoldForSearch = (column: RawBuilder<unknown>): RawBuilder<string> =>
  pgFoldLatinStrokes(sql<string>`translate(replace(normalize(regexp_replace(normalize(lower(normalize(${column}, NFKC)), NFD), ${searchDroppedClass}, '', 'g'), NFC), 'ς', 'σ'), ${SCRIPT_FOLD_FROM}, ${SCRIPT_FOLD_TO})`);

export function toIso(value: string | Date): string;
export function toIso(value: string | Date | null): string | null;
export function toIso(value: string | Date | null): string | null {
  if (value === null) return null;
  return value instanceof Date ? value.toISOString() : value;
}

export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function fromBool(value: number | boolean | null): boolean | null {
  return value === null ? null : Boolean(value);
}

/** Backends disagree on the error shape of a unique violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A row written for a parent row another transaction deleted meanwhile (both backends' codes). */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
