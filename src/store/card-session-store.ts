import { setImmediate as nextTurn } from 'node:timers/promises';
import { forgetMedia, intendMedia, keepMedia, mediaRemoved } from './media-deletions.ts';
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { CardIdentificationsTable, CardSessionsTable, Database, DialectName, Store } from './database.ts';
import { foldForSearch, toIso } from './database.ts';

/** Words of a session search looked for; the rest are not (a search is a few words of a name). */
const maxSearchWords = 8;
/** How many sessions a search's words may find in the SQLite index for it to be read from there (`rareInIndex`). */
const RARE_IN_INDEX = 5000;

type SearchedFields = Pick<CardSessionsTable, 'name' | 'description' | 'platform' | 'game'>;

/** A stored word's most characters: NFKC makes up to 18 of one (ﷺ), and a session's fields are 10,455 characters. */
export const SEARCH_WORD_MAX = 256;

/**
 * What a session search looks in: the four fields folded (`foldForSearch`), each word once, space-separated. A search's
 * words hold no space, so one is found in a stored word or not at all, as in the fields' whole text; a word is kept to
 * its first `SEARCH_WORD_MAX` characters (h234: fields of ﷺ folded to 188,000 characters a session). Stored
 * (`search_text`) rather than folded by each search, which scanned and folded every session of the workspace
 * (300,000 sessions: 3.6–4.8 s on PostgreSQL, h226). A change of the fold needs a migration that makes them again
 * (`refoldSessionSearch`).
 */
export const sessionSearchText = (s: SearchedFields): string =>
  [...new Set(foldForSearch([s.name, s.description, s.platform, s.game].join('\n')).split(/\s+/).filter(Boolean).map((w) => [...w].slice(0, SEARCH_WORD_MAX).join('')))].join(' ');

/**
 * `search_text` made again for every session, a thousand at a time (migrations); with `unfoldedOnly`, for the sessions
 * that have none (the retention sweep: a node of the release before 038 that went on writing while another upgraded
 * stored its sessions without one, h234; `card_sessions_unfolded` finds them).
 */
export async function refoldSessionSearch(db: Kysely<Database>, dialect: DialectName, options: { unfoldedOnly?: boolean } = {}): Promise<number> {
  let after: string | undefined;
  let done = 0;
  for (;;) {
    let q = db.selectFrom('card_sessions').select(['id', 'name', 'description', 'platform', 'game', 'search_text']);
    if (options.unfoldedOnly) q = q.where('search_text', '=', '');
    if (after !== undefined) q = q.where('id', '>', after);
    const rows = await q.orderBy('id').limit(1000).execute();
    if (!rows.length) return done;
    after = String(rows[rows.length - 1]!.id);
    const changed = rows.map((r) => ({ ...r, id: String(r.id), text: sessionSearchText(r) })).filter((r) => r.text !== r.search_text);
    // written only where the row is still as read: a PATCH between the read and the write (this release's, with its own
    // text, or an older node's, without) must not get the text of the fields it replaced (h238)
    if (changed.length) {
      if (dialect === 'postgres') {
        // one statement a thousand rows: 300,000 single updates took minutes
        const r = await sql`UPDATE card_sessions AS s SET search_text = v.t
          FROM (VALUES ${sql.join(changed.map((r) => sql`(${r.id}::uuid, ${r.text}, ${r.search_text}, ${r.name}, ${r.description}, ${r.platform}, ${r.game})`))}) AS v(id, t, was, name, description, platform, game)
          WHERE s.id = v.id AND s.search_text = v.was AND s.name = v.name AND s.description = v.description AND s.platform = v.platform AND s.game = v.game`.execute(db);
        done += Number(r.numAffectedRows ?? 0);
      } else {
        for (const r of changed) {
          const [u] = await db.updateTable('card_sessions').set({ search_text: r.text })
            .where('id', '=', r.id).where('search_text', '=', r.search_text).where('name', '=', r.name).where('description', '=', r.description).where('platform', '=', r.platform).where('game', '=', r.game)
            .execute();
          done += Number(u?.numUpdatedRows ?? 0);
        }
      }
    }
  }
}

/** A session as read: every column but its search text, which only a search reads (h234: up to 18 times its fields). */
export type SessionRow = Omit<Selectable<CardSessionsTable>, 'search_text'>;
const sessionColumns = ['seq', 'id', 'workspace_id', 'name', 'description', 'game', 'game_key', 'platform', 'status', 'started', 'ended', 'client', 'meta_data', 'identification_count', 'total_price', 'created_at', 'updated_at', 'idempotency_key', 'body_hash'] as const satisfies readonly Exclude<keyof CardSessionsTable, 'search_text'>[];
/** `seen` is ISO 8601 text in UTC on both backends (PostgreSQL's to the microsecond). */
export type IdentificationRow = Omit<Selectable<CardIdentificationsTable>, 'seen'> & { seen: string | null };
export type MergeableRow = Pick<IdentificationRow, 'id' | 'event_id' | 'calls' | 'duration' | 'grading' | 'grade' | 'sold' | 'note' | 'price' | 'price_basis' | 'corrected_at' | 'original' | 'links' | 'price_stats' | 'sent_hashes' | 'user_set' | 'card_key' | 'id_type' | 'name' | 'full_name' | 'set_name' | 'set_code' | 'card_number' | 'year'>;

export interface NewSession {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  game: string;
  game_key: string;
  platform: string;
  client: string;
  meta_data: string;
  started: string;
  /** A create's `Idempotency-Key` and its body's hash (docs/api-decisions.md "Retries of a session create"). */
  idempotency?: { key: string; bodyHash: string } | undefined;
}

/**
 * A price in whole millionths of a dollar, as both engines compute it (`microsSql`): the same IEEE product, half away from
 * zero, truncated. The session's running total adds these, and its summary sums them, so the two agree to the cent.
 */
export const priceMicros = (price: number | null | undefined): number => (price === null || price === undefined ? 0 : Math.trunc(price * 1000000 + (price < 0 ? -0.5 : 0.5)));

/** `priceMicros` of the `price` column in SQL (CAST and trunc cut toward zero as Math.trunc does). */
export const microsSql = (dialect: DialectName) =>
  dialect === 'postgres' ? sql`trunc(price * 1000000 + (CASE WHEN price < 0 THEN -0.5 ELSE 0.5 END))` : sql`CAST(price * 1000000 + (CASE WHEN price < 0 THEN -0.5 ELSE 0.5 END) AS INTEGER)`;

/** Column values of an identification as written (JSON already serialised, booleans per dialect). */
export type IdentificationValues = Insertable<CardIdentificationsTable>;
export type IdentificationUpdate = Updateable<CardIdentificationsTable>;

export interface SummaryRow {
  identifications: number;
  distinct_cards: number;
  total_price: number | null;
  row_calls: number | null;
  run_calls: number | null;
  average_grade: number | null;
}

/**
 * A row as read with `seen_text` (below) in place of the `seen` column. Set on the row itself, which keeps `seen_text`
 * (a row's version leaves it out): a copy of each row without the two was 6 of a 500-row page's 45 ms on SQLite in a
 * server's profile (h354).
 */
function withSeenText<T extends { seen: unknown; seen_text: string | null }>(row: T): Omit<T, 'seen' | 'seen_text'> & { seen: string | null } {
  (row as { seen: unknown }).seen = row.seen_text;
  return row as Omit<T, 'seen' | 'seen_text'> & { seen: string | null };
}

/**
 * Rows per INSERT statement: under SQLite's bound-parameter limit, and small enough that other
 * requests get a turn between chunks (better-sqlite3 runs each statement on the event loop, and
 * a chunk of large rows takes tens of milliseconds).
 */
const insertChunk = 50;
const inChunk = 500;

/** A create with its charge whose account could not pay: its transaction rolls back. */
class Unpaid extends Error {}

/**
 * SQL for card sessions. Every method that takes a workspace id scopes by it, so a caller can
 * never reach another workspace's data through this adapter.
 */
export class CardSessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    readonly dialect: DialectName,
  ) {}

  static of(store: Store): CardSessionStore {
    return new CardSessionStore(store.db, store.dialect);
  }

  /** Runs `fn` in one transaction with a store bound to it. */
  transaction<T>(fn: (tx: CardSessionStore) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new CardSessionStore(trx, this.dialect)));
  }

  /**
   * `seen` as ISO 8601 text in UTC. PostgreSQL keeps microseconds, which the pool's timestamptz
   * parser (milliseconds, shared by every service) would drop; SQLite stores the text itself.
   */
  private seenText(column: 'seen' | 'i.seen') {
    return this.dialect === 'postgres' ? sql<string | null>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : sql<string | null>`${sql.ref(column)}`;
  }

  bool(v: boolean | null): number | boolean | null {
    if (v === null) return null;
    return this.dialect === 'sqlite' ? (v ? 1 : 0) : v;
  }

  /**
   * With `charge`, the account pays for the session in the transaction that stores it: false, with
   * nothing stored or debited, when it cannot (so retries of one create at once are one session and
   * one charge, never a 402 for a create that another retry is paying for).
   */
  async insertSession({ idempotency, ...s }: NewSession, charge?: { accountId: string; price: number }): Promise<boolean> {
    const now = new Date().toISOString();
    const insert = (db: Kysely<Database>) =>
      db
        .insertInto('card_sessions')
        .values({ ...s, search_text: sessionSearchText(s), status: 'live', ended: null, created_at: now, updated_at: now, ...(idempotency ? { idempotency_key: idempotency.key, body_hash: idempotency.bodyHash } : {}) })
        .execute();
    if (!charge || charge.price <= 0) {
      await insert(this.db);
      return true;
    }
    return this.db.transaction().execute(async (trx) => {
      await insert(trx);
      const paid = await trx.updateTable('accounts').set({ credits: sql`credits - ${charge.price}` }).where('id', '=', charge.accountId).where('credits', '>=', charge.price).executeTakeFirst();
      if (Number(paid.numUpdatedRows) > 0) return true;
      // nothing kept: the session goes with the transaction
      throw new Unpaid();
    }).catch((err: unknown) => {
      if (err instanceof Unpaid) return false;
      throw err;
    });
  }

  /** The workspace's live session made by a create with this `Idempotency-Key`, and that create's body hash. */
  async sessionByIdempotencyKey(workspaceId: string, key: string): Promise<{ row: SessionRow; bodyHash: string | null } | undefined> {
    const row = await this.sessionQuery(workspaceId).where('s.idempotency_key', '=', key).executeTakeFirst();
    return row && { row, bodyHash: row.body_hash };
  }

  /** `byWorkspace`: the workspace's column as compared (`+s.workspace_id` keeps SQLite off its index, `listSessions`). */
  private sessionQuery(workspaceId: string, byWorkspace = sql<string>`s.workspace_id`) {
    return this.db.selectFrom('card_sessions as s').select(sessionColumns.map((c) => `s.${c}` as const)).where(byWorkspace, '=', workspaceId);
  }

  async getSession(id: string, workspaceId: string): Promise<SessionRow | undefined> {
    return this.sessionQuery(workspaceId).where('s.id', '=', id).executeTakeFirst();
  }

  /**
   * The session's total plus a change in whole millionths of a dollar (`priceMicros` of each price), kept on the
   * millionths' grid: the summary sums the same millionths (`summary`), and a running sum of floating-point changes
   * drifted from it, by the cent once rounded (h264: a session 9447.56 and its summary 9447.57; PostgreSQL and SQLite a
   * cent apart).
   */
  private totalPlus(micros: number) {
    return this.dialect === 'postgres' ? sql<number>`round((total_price::numeric + ${micros}::numeric / 1000000), 6)::float8` : sql<number>`round(total_price + ${micros} / 1000000.0, 6)`;
  }

  /** Adds to the session's counters; call in the transaction that changed the rows. */
  async bumpCounters(id: string, rows: number, micros: number): Promise<void> {
    if (rows === 0 && micros === 0) return;
    await this.db
      .updateTable('card_sessions')
      .set({ identification_count: sql`identification_count + ${rows}`, total_price: this.totalPlus(micros) })
      .where('id', '=', id)
      .execute();
  }

  /**
   * `gameKey`: only sessions whose `game_key` is exactly this. `upToSeq`: only sessions made up to it (the pages after the first list the sessions as they were at the first);
   * `upToSeq` of the answer is the newest of those listed, for the next pages' links (undefined when none).
   */
  async listSessions(workspaceId: string, search: string | undefined, gameKey: string | undefined, limit: number, offset: number, upToSeq?: number): Promise<{ count: number; rows: SessionRow[]; upToSeq?: number }> {
    // every word typed, in any of the fields (h157: "mrs jones" found no "Mrs. Jones collection", the text being one phrase)
    const words = search ? [...new Set(foldForSearch(search).split(/\s+/).filter(Boolean))].slice(0, maxSearchWords) : [];
    // Unicode case folding and composition, the same on both backends, by the one fold in TypeScript (`sessionSearchText`):
    // a name sent decomposed ("Poke\u0301mon") is found by "pokémon", "ΟΔΟΣ" by "οδος", "İstanbul" by "istanbul".
    // PostgreSQL: a LIKE a word, so each can use the trigram index (LIKE ALL of an array cannot); SQLite: instr, no escaping
    const conditions = words.map((w) => (this.dialect === 'sqlite' ? sql<boolean>`instr(s.search_text, ${w}) > 0` : sql<boolean>`s.search_text LIKE ${`%${w.replace(/[\\%_]/g, (c) => '\\' + c)}%`}`));
    const indexed = this.dialect === 'sqlite' ? await this.rareInIndex(words) : undefined;
    if (indexed) conditions.unshift(sql<boolean>`s.seq IN (SELECT rowid FROM card_sessions_fts WHERE card_sessions_fts MATCH ${indexed})`);
    const matches = conditions.length ? sql.join(conditions, sql` AND `) : undefined;
    // read from the index, the workspace is a condition on the few rows it names (`+`: not the workspace's index, which
    // SQLite chose without statistics, walking every session of it: 43 ms against 0.01 at 300,000 sessions, h243)
    const byWorkspace = indexed ? sql<string>`+s.workspace_id` : sql<string>`s.workspace_id`;
    let countQ = this.db.selectFrom('card_sessions as s').select((eb) => [eb.fn.countAll<number>().as('c'), eb.fn.max('s.seq').as('newest')]).where(byWorkspace, '=', workspaceId);
    let rowsQ = this.sessionQuery(workspaceId, byWorkspace);
    if (upToSeq !== undefined) {
      countQ = countQ.where('s.seq', '<=', upToSeq);
      rowsQ = rowsQ.where('s.seq', '<=', upToSeq);
    }
    if (matches) {
      countQ = countQ.where(sql<boolean>`(${matches})`);
      rowsQ = rowsQ.where(sql<boolean>`(${matches})`);
    }
    if (gameKey !== undefined) {
      countQ = countQ.where('s.game_key', '=', gameKey);
      rowsQ = rowsQ.where('s.game_key', '=', gameKey);
    }
    const [count, rows] = await Promise.all([
      countQ.executeTakeFirstOrThrow(),
      rowsQ.orderBy('s.started', 'desc').orderBy('s.seq', 'desc').limit(limit).offset(offset).execute(),
    ]);
    const newest = (count as { newest?: number | string | null }).newest;
    return { count: Number(count.c), rows, ...(newest !== null && newest !== undefined ? { upToSeq: Number(newest) } : {}) };
  }

  /**
   * SQLite: the FTS5 query of the search's words of three characters or more (a trigram index finds no shorter one) where
   * the index holds few sessions with them all, undefined otherwise. A rare word is read from the index (300,000 sessions:
   * 1.4 ms against 186 by scanning); a common one is scanned along the list's own order, which stops at the page (read
   * from the index, 300,000 sessions took 219 ms against 52). The stored text is what is matched either way (`instr`).
   */
  private async rareInIndex(words: string[]): Promise<string | undefined> {
    const long = words.filter((w) => [...w].length >= 3);
    if (!long.length) return undefined;
    const query = long.map((w) => `"${w.replaceAll('"', '""')}"`).join(' AND ');
    const probe = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT rowid FROM card_sessions_fts WHERE card_sessions_fts MATCH ${query} LIMIT ${RARE_IN_INDEX + 1})`.execute(this.db);
    return Number(probe.rows[0]?.n) <= RARE_IN_INDEX ? query : undefined;
  }

  /** `asOf`: only while the session's `updated_at` is this (an `If-Match` checked before); false when it is not, or there is none. */
  async updateSession(id: string, workspaceId: string, changes: { name?: string; description?: string; meta_data?: string; game?: string; game_key?: string; platform?: string }, asOf?: string | Date): Promise<boolean> {
    const update = (db: Kysely<Database>, searchText?: string) => {
      let q = db
        .updateTable('card_sessions')
        .set({ ...changes, ...(searchText !== undefined ? { search_text: searchText } : {}), updated_at: laterThan(asOf) })
        .where('id', '=', id)
        .where('workspace_id', '=', workspaceId);
      if (asOf !== undefined) q = q.where(this.updatedMs(), '=', toIso(asOf));
      return q.executeTakeFirst();
    };
    if (changes.name === undefined && changes.description === undefined && changes.platform === undefined && changes.game === undefined) {
      return Number((await update(this.db)).numUpdatedRows) > 0;
    }
    // the search text is made from the whole row: read under the row's lock, so two renames at once leave the text of the last
    return this.db.transaction().execute(async (trx) => {
      let q = trx.selectFrom('card_sessions').select(['name', 'description', 'platform', 'game']).where('id', '=', id).where('workspace_id', '=', workspaceId);
      if (this.dialect === 'postgres') q = q.forUpdate();
      const row = await q.executeTakeFirst();
      if (!row) return false;
      return Number((await update(trx, sessionSearchText({ ...row, ...changes }))).numUpdatedRows) > 0;
    });
  }

  /**
   * Sets the status only when it differs, so closing twice keeps the first `ended`. `asOf`: only while the session's
   * `updated_at` is this (an `If-Match` checked before); false when it was not.
   */
  async setStatus(id: string, workspaceId: string, status: 'live' | 'closed', asOf?: string | Date): Promise<boolean> {
    const now = new Date().toISOString();
    let q = this.db
      .updateTable('card_sessions')
      .set({ status, ended: status === 'closed' ? now : null, updated_at: laterThan(asOf) })
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where('status', '<>', status);
    if (asOf !== undefined) q = q.where(this.updatedMs(), '=', toIso(asOf));
    if (Number((await q.executeTakeFirst()).numUpdatedRows) > 0 || asOf === undefined) return true;
    // nothing written: already so (and unchanged since), or changed since the check
    const row = await this.db.selectFrom('card_sessions').select(['status', 'updated_at']).where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return !!row && row.status === status && toIso(row.updated_at) === toIso(asOf);
  }

  /** `updated_at` as the service reads it, to the millisecond (PostgreSQL may hold microseconds a repair by hand wrote). */
  private updatedMs() {
    return this.dialect === 'postgres' ? sql<string>`date_trunc('milliseconds', updated_at)` : sql<string>`updated_at`;
  }

  async sessionStatusAndEnd(id: string, workspaceId: string): Promise<{ status: string; ended: Date | null } | undefined> {
    const row = await this.db.selectFrom('card_sessions').select(['status', 'ended']).where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return row && { status: row.status, ended: row.ended === null ? null : new Date(toIso(row.ended)) };
  }

  async sessionStatus(id: string, workspaceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('card_sessions').select('status').where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return row?.status;
  }

  /**
   * Uploads to this session that hold this wait for each other until their transactions end
   * (PostgreSQL: an advisory lock, taken before any row; SQLite's transactions run one at a time).
   * Not the session's row: every other write locks rows first and the session last, and an upload
   * holding the session first deadlocked a session delete.
   */
  async holdUploads(id: string): Promise<void> {
    if (this.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`card-session-uploads:${id}`}, 0))`.execute(this.db);
  }

  /**
   * Adds a batch's rows to the session's counters, only while the session is live. It is the
   * last statement of an upload, so the session row is locked just until commit: batches to one
   * session overlap, and a close that committed first makes this match nothing (PostgreSQL
   * re-checks the updated row), which rolls the batch back.
   */
  async addBatchToLiveSession(id: string, workspaceId: string, rows: number, micros: number, arrived: Date): Promise<boolean> {
    // live, or closed after the batch came (its close overtook it while it was read and checked)
    const res = await this.db
      .updateTable('card_sessions')
      .set({ identification_count: sql`identification_count + ${rows}`, total_price: this.totalPlus(micros) })
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where(this.dialect === 'postgres' ? sql<boolean>`(status = 'live' OR (status = 'closed' AND ended > ${arrived.toISOString()}::timestamptz))` : sql<boolean>`(status = 'live' OR (status = 'closed' AND ended > ${arrived.toISOString()}))`)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async sessionExists(id: string, workspaceId: string): Promise<boolean> {
    const row = await this.db.selectFrom('card_sessions').select('id').where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Deletes the session and returns the media keys its rows referenced. The rows are deleted
   * first, returning their keys as they are at that moment: an image attached concurrently
   * either commits before (and its keys come back) or finds its row gone.
   */
  async deleteSession(id: string, workspaceId: string): Promise<string[] | undefined> {
    return this.transaction(async (tx) => {
      if (!(await tx.sessionExists(id, workspaceId))) return undefined;
      const keys = await tx.db.deleteFrom('card_identifications').where('session_id', '=', id).returning(['image_key', 'thumbnail_key']).execute();
      const res = await tx.db.deleteFrom('card_sessions').where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) return undefined;
      const media = keys.flatMap((k) => [k.image_key, k.thumbnail_key]).filter((k): k is string => k !== null);
      // removed after the commit; a process that stops before leaves them to the queue's sweep
      await forgetMedia(tx.db, media);
      return media;
    });
  }

  /** What erasing the workspace's card sessions would take (`--dry-run`): how many, and the files their rows name. */
  async workspaceHoldings(workspaceId: string): Promise<{ sessions: number; media: string[] }> {
    const n = await this.db.selectFrom('card_sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
    const keys = await this.db.selectFrom('card_identifications as i').innerJoin('card_sessions as s', 's.id', 'i.session_id').select(['i.image_key', 'i.thumbnail_key']).where('s.workspace_id', '=', workspaceId).execute();
    return { sessions: Number(n.n), media: keys.flatMap((k) => [k.image_key, k.thumbnail_key]).filter((k): k is string => k !== null) };
  }

  /**
   * Deletes one card row of the workspace and returns the media keys it named (removed by the caller after the commit;
   * a process that stops before leaves them to the sweep), or undefined when there is no such row. `check` sees the row,
   * locked, first, and may refuse by throwing (If-Match).
   */
  async deleteIdentification(id: string, workspaceId: string, check: (row: IdentificationRow) => void = () => {}): Promise<string[] | undefined> {
    return this.transaction(async (tx) => {
      const row = await tx.identificationInWorkspace(id, workspaceId, true);
      if (!row) return undefined;
      check(row);
      const gone = await tx.db.deleteFrom('card_identifications').where('id', '=', id).returning(['image_key', 'thumbnail_key', 'price']).executeTakeFirst();
      if (!gone) return undefined;
      // the session's own count and total, which its detail, list and the cards' pages read (h187: they kept the card);
      // row first, then the session: the order uploads and corrections lock them in
      await tx.bumpCounters(row.session_id, -1, -priceMicros(gone.price === null ? null : Number(gone.price)));
      const media = [gone.image_key, gone.thumbnail_key].filter((k): k is string => k !== null);
      await forgetMedia(tx.db, media);
      return media;
    });
  }

  /** Media files a row no longer names (an image replaced), to be removed after this transaction commits (migration 016). */
  async forgetMedia(keys: readonly (string | null)[]): Promise<void> {
    await forgetMedia(this.db, keys.filter((k): k is string => k !== null));
  }

  /** Files about to be written for a row: removed by the sweep unless a transaction `keepMedia`s them. */
  intendMedia(keys: readonly string[]): Promise<void> {
    return intendMedia(this.db, keys);
  }

  /** Files this transaction's row now names. */
  keepMedia(keys: readonly string[]): Promise<void> {
    return keepMedia(this.db, keys);
  }

  /** Files removed: their entries go too. */
  mediaRemoved(keys: readonly string[]): Promise<void> {
    return mediaRemoved(this.db, keys);
  }

  /** The fields an upload may merge into, for rows of a session with these event ids; on PostgreSQL locked for update in a stable order. */
  async identificationsByEventIds(sessionId: string, eventIds: string[]): Promise<MergeableRow[]> {
    const out: MergeableRow[] = [];
    const sorted = [...eventIds].sort();
    for (let i = 0; i < sorted.length; i += inChunk) {
      let q = this.db
        .selectFrom('card_identifications')
        .select(['id', 'event_id', 'calls', 'duration', 'grading', 'grade', 'sold', 'note', 'price', 'price_basis', 'corrected_at', 'original', 'links', 'price_stats', 'sent_hashes', 'user_set', 'card_key', 'id_type', 'name', 'full_name', 'set_name', 'set_code', 'card_number', 'year'])
        .where('session_id', '=', sessionId)
        .where('event_id', 'in', sorted.slice(i, i + inChunk))
        .orderBy('event_id');
      if (this.dialect === 'postgres') q = q.forUpdate();
      out.push(...(await q.execute()));
    }
    return out;
  }

  /**
   * Inserts rows whose event id is new, numbered (`seq`, the list order) in the order given;
   * returns the event ids actually inserted (others raced in).
   */
  async insertIdentifications(rows: IdentificationValues[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    if (this.dialect === 'postgres' && rows.length > 0) {
      // Two batches inserting the same event ids must take their unique-index locks in one key
      // order or they deadlock, so rows go in sorted by event id. Their list order is the order
      // received: take the sequence numbers first, in that order, and write them explicitly.
      const seqs = await sql<{ seq: number }>`SELECT nextval(pg_get_serial_sequence('card_identifications', 'seq')) AS seq FROM generate_series(1, ${rows.length})`.execute(this.db);
      const numbers = seqs.rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
      rows = rows.map((r, i) => ({ ...r, seq: numbers[i]! })).sort((a, b) => (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0));
    }
    // SQLite runs one write transaction at a time: rows go in as received and AUTOINCREMENT numbers them.
    for (let i = 0; i < rows.length; i += insertChunk) {
      if (i > 0) await nextTurn();
      const res = await this.db
        .insertInto('card_identifications')
        .values(rows.slice(i, i + insertChunk))
        .onConflict((oc) => oc.columns(['session_id', 'event_id']).doNothing())
        .returning('event_id')
        .execute();
      for (const r of res) inserted.add(r.event_id);
    }
    return inserted;
  }

  async updateIdentification(id: string, values: IdentificationUpdate): Promise<void> {
    await this.db.updateTable('card_identifications').set(values).where('id', '=', id).execute();
  }

  /** `knownCount` (the session's counter) saves counting the rows again. */
  async listIdentifications(sessionId: string, eventId: string | undefined, limit: number, offset: number, knownCount?: number): Promise<{ count: number; rows: IdentificationRow[] }> {
    let countQ = this.db.selectFrom('card_identifications').select((eb) => eb.fn.countAll<number>().as('c')).where('session_id', '=', sessionId);
    let pageQ = this.db.selectFrom('card_identifications').select('seq').where('session_id', '=', sessionId);
    if (eventId !== undefined) {
      countQ = countQ.where('event_id', '=', eventId);
      pageQ = pageQ.where('event_id', '=', eventId);
    }
    // one row past the page: the count (the session's counter, or a count read beside the rows, not with them) is then
    // never below the rows an answer shows, nor ends the pages where a row written meanwhile follows (h93: PostgreSQL
    // answered count 312 with 315 rows while a phone wrote).
    // The page's places are read from the (session_id, seq) index and only their rows from the table (one statement, so
    // one snapshot, as before): PostgreSQL read every row the offset passed from the table and formatted its `seen`
    // (h354: the last 500 of 20,000 rows 74 ms, 10 ms so); SQLite already skips them by the index, and is no slower so.
    const rowsQ = this.db.selectFrom('card_identifications').selectAll().select(this.seenText('seen').as('seen_text')).where('seq', 'in', pageQ.orderBy('seq').limit(limit + 1).offset(offset)).orderBy('seq');
    const [counted, fetched] = await Promise.all([knownCount ?? countQ.executeTakeFirstOrThrow().then((r) => Number(r.c)), rowsQ.execute()]);
    const rows = fetched.slice(0, limit);
    // a page past the end holds no row and says nothing of the count (its offset was taken for one, h98)
    return { count: fetched.length ? Math.max(counted, offset + fetched.length) : counted, rows: rows.map(withSeenText) };
  }

  /** `lock`: inside a transaction, hold the row (PostgreSQL) until it ends. */
  async identificationByEventId(sessionId: string, eventId: string, lock = false): Promise<IdentificationRow | undefined> {
    let q = this.db.selectFrom('card_identifications').selectAll().select(this.seenText('seen').as('seen_text')).where('session_id', '=', sessionId).where('event_id', '=', eventId);
    if (lock && this.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row && withSeenText(row);
  }

  /** An identification, only when its session is in the workspace; `lock` as above. */
  async identificationInWorkspace(id: string, workspaceId: string, lock = false): Promise<IdentificationRow | undefined> {
    let q = this.db
      .selectFrom('card_identifications as i')
      .innerJoin('card_sessions as s', 's.id', 'i.session_id')
      .selectAll('i')
      .select(this.seenText('i.seen').as('seen_text'))
      .where('i.id', '=', id)
      .where('s.workspace_id', '=', workspaceId);
    if (lock && this.dialect === 'postgres') q = q.forUpdate('i');
    const row = await q.executeTakeFirst();
    return row && withSeenText(row);
  }

  async summary(sessionId: string): Promise<SummaryRow> {
    const [rows, runs] = await Promise.all([
      this.db
        .selectFrom('card_identifications')
        .select((eb) => [
          eb.fn.countAll<number>().as('identifications'),
          eb.fn.count<number>('card_key').distinct().as('distinct_cards'),
          // exactly, in whole millionths as the running total adds them (h268: PostgreSQL's round takes halves to even): a
          // floating-point sum of 92 prices was a cent off once rounded, and PostgreSQL's and SQLite's sums differ (h264)
          // SQLite's total(), not sum(): sum() of integers fails past 2^63 (9,224 cards at 10^9, h334: a 500), total() adds
          // them as doubles, exact while the sum is under 2^53 millionths (9 billion dollars), which is all a double keeps after
          (this.dialect === 'postgres' ? sql<number | null>`(sum(${microsSql('postgres')}::numeric) / 1000000)::float8` : sql<number | null>`total(${microsSql('sqlite')}) / 1000000.0`).as('total_price'),
          eb.fn.sum<number | null>('calls').as('row_calls'),
          // Grades are validated at upload; a row stored before that (1e308 overflows PostgreSQL's
          // avg) is not a grade, so it can never make the summary fail.
          sql<number | null>`avg(CASE WHEN grade >= 0 AND grade <= 10 THEN grade END)`.as('average_grade'),
        ])
        .where('session_id', '=', sessionId)
        .executeTakeFirstOrThrow(),
      this.db.selectFrom('card_session_calls').select((eb) => eb.fn.sum<number | null>('calls').as('run_calls')).where('session_id', '=', sessionId).executeTakeFirstOrThrow(),
    ]);
    return { ...rows, run_calls: runs.run_calls };
  }

  /** Keeps the highest count reported for each run; returns the count now stored. */
  async recordRunCalls(sessionId: string, run: string, calls: number): Promise<number> {
    const now = new Date().toISOString();
    const greatest = this.dialect === 'sqlite' ? sql<number>`max(card_session_calls.calls, excluded.calls)` : sql<number>`greatest(card_session_calls.calls, excluded.calls)`;
    const row = await this.db
      .insertInto('card_session_calls')
      .values({ session_id: sessionId, run, calls, updated_at: now })
      .onConflict((oc) => oc.columns(['session_id', 'run']).doUpdateSet({ calls: greatest, updated_at: now }))
      .returning('calls')
      .executeTakeFirstOrThrow();
    return Number(row.calls);
  }
}

/**
 * A session's new `updated_at`: now, and after the one a conditional write held (a session's version hashes it, so two
 * writes in one millisecond made a state's version equal an earlier state's, and a late `If-Match` held again: h263).
 */
function laterThan(asOf: string | Date | undefined): string {
  const now = Date.now();
  const held = asOf === undefined ? NaN : Date.parse(toIso(asOf));
  return new Date(Number.isNaN(held) || held < now ? now : held + 1).toISOString();
}
