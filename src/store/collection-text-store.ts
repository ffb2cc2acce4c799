import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { fromJson, type Database, type DialectName } from './database.ts';
import { allCodes } from '../text-search/lexicon/concepts.ts';
import { untoldRecordLanguages } from '../text-search/inflections.ts';

/** How far text search has looked at a record's image (the backfill's states). */
export type SeenState = 'done' | 'pending' | 'no_image' | 'failed';

/** A record's row of text search (migration 009). */
export interface TextRow {
  /** Concept codes of what was seen, space-separated. */
  seen: string;
  /** The record's own words, folded and segmented, with the concept codes they name. */
  body: string;
  ocr: string;
  /** The body's language (query-language.ts). */
  lang: string;
  /** `[L, u, v, share]` of the image's dominant colours. */
  colors: number[][];
  /** The raw observation (seen-tokens.ts `Observed`), or null when the image was not looked at. */
  observed: unknown;
  seenVersion: number;
  seenState: SeenState;
  lastError?: string | null;
}

/** A record the text-search backfill works on: its text row's key and attempts, its data and collection's product field. */
export interface BackfillRow {
  key: number;
  collection_id: string;
  attempts: number;
  data: unknown;
  product_field: string | null;
}

/** Rows as the drivers give them (PostgreSQL's bigint as text) with numbers for numbers. */
const numbered = (rows: BackfillRow[]): BackfillRow[] => rows.map((r) => ({ ...r, key: Number(r.key), attempts: Number(r.attempts) }));

/** The collection's own name suffix: ids are UUIDs, kept to their hex digits for identifiers. */
const suffix = (collectionId: string) => {
  const hex = collectionId.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{1,40}$/.test(hex)) throw new Error(`collection id ${JSON.stringify(collectionId)} cannot name an index`);
  return hex;
};

/** SQLite: the collection's contentless FTS5 table (rowid = record key). */
export const ftsTable = (collectionId: string) => `collection_fts_${suffix(collectionId)}`;
/** PostgreSQL: the collection's partial GIN index over `tsv`. */
export const pgTextIndexName = (collectionId: string) => `collection_text_gin_${suffix(collectionId)}`;

/**
 * PostgreSQL's Snowball configuration for a language the text was detected in; `simple` (no
 * stemming) for the languages it has none for (Chinese, Japanese, Bengali, Urdu).
 */
export const pgConfigOf: Readonly<Record<string, string>> = {
  en: 'english',
  es: 'spanish',
  fr: 'french',
  pt: 'portuguese',
  ru: 'russian',
  ar: 'arabic',
  hi: 'hindi',
  de: 'german',
  id: 'indonesian',
  it: 'italian',
  nl: 'dutch',
  sv: 'swedish',
  tr: 'turkish',
};

/** The configuration every record's Latin words are also stemmed with (`pgTextVector`), and queries too. */
export const englishWords = 'loupe_english_words';

/**
 * The configuration a record's own words are stemmed with: its language's Snowball stems with every
 * word kept (`loupe_<language>_words`, migration 015: SQLite's porter tokenizer drops no word,
 * and PostgreSQL's own `english` dropped "up" and "down", a 422 there), and where no language could be
 * told (`simple`: a shop title of a few words without a stop word, "Vintage leather wallets") English,
 * as SQLite's porter stems every record (unstemmed, "wallet" did not find "wallets"). Chinese,
 * Japanese, Bengali and Urdu stay unstemmed.
 */
export const pgWordsConfig = (lang: string) => (lang === 'simple' ? englishWords : pgConfigOf[lang] ? `loupe_${pgConfigOf[lang]}_words` : 'simple');

/**
 * The European languages whose stems a record of no told language is also given (`untoldRecordLanguages`, which SQLite
 * makes a query word's other forms in too): a two-word title, "Chitarra classica", "Fernglas 10x42", is often in one of
 * them, and SQLite's prefix search found "chitarre" and "Ferngläser" there where PostgreSQL, stemming it as English
 * only, answered 422 (h269).
 */
const untoldLanguages = untoldRecordLanguages.map((l) => pgConfigOf[l]!);

/** Every configuration a record of language `lang` is stemmed with (`pgTextVector`): its own, then English's or, untold, the European languages' too. */
export const pgRecordConfigs = (lang: string): string[] => {
  const own = pgWordsConfig(lang);
  return lang === 'simple' ? [own, ...untoldLanguages.map((l) => `loupe_${l}_words`)] : own === englishWords ? [own] : [own, englishWords];
};

/**
 * The languages a collection's text rows are in, by a skip scan of the `collection_text_lang` index (migration 046): one
 * look per language, where `SELECT DISTINCT lang` read every row (the same SQL on both engines).
 */
export async function collectionLangs(db: Kysely<Database>, collectionId: string): Promise<string[]> {
  const res = await sql<{ lang: string }>`WITH RECURSIVE l(lang) AS (
      SELECT (SELECT lang FROM collection_text WHERE collection_id = ${collectionId} ORDER BY lang LIMIT 1)
      UNION ALL
      SELECT (SELECT t.lang FROM collection_text t WHERE t.collection_id = ${collectionId} AND t.lang > l.lang ORDER BY t.lang LIMIT 1) FROM l WHERE l.lang IS NOT NULL
    )
    SELECT lang FROM l WHERE lang IS NOT NULL`.execute(db);
  return res.rows.map((r) => r.lang);
}

let codeSet: Set<string> | undefined;
const conceptCodes = () => (codeSet ??= new Set(allCodes()));

/** Words a document holds, for BM25's length: what both engines count as its tokens. */
const tokenCount = (t: Pick<TextRow, 'seen' | 'body' | 'ocr'>) => [t.seen, t.body, t.ocr].reduce((n, s) => n + (s ? s.split(' ').filter(Boolean).length : 0), 0);

/** PostgreSQL: a collection's partial GIN index over `tsv`; fastupdate off, as a pending list would be scanned by every search (the 005 lesson). */
export const pgTextIndexDdl = (collectionId: string) =>
  `CREATE INDEX IF NOT EXISTS ${pgTextIndexName(collectionId)} ON collection_text USING gin (tsv) WITH (fastupdate = off) WHERE collection_id = '${collectionId.replace(/'/g, "''")}'`;

/**
 * PostgreSQL: a text row's `tsv` and `doc_len`, made from its stored words (a write, and a move from SQLite). The concept
 * codes the record's words named are kept as written (queries look for them with `simple`); only the words themselves go
 * through the language's stemmer.
 */
export function pgTextVector(t: Pick<TextRow, 'seen' | 'body' | 'ocr' | 'lang'>): { tsv: RawBuilder<string>; doc_len: number } {
  const [cfg, ...others] = pgRecordConfigs(t.lang);
  const tokens = t.body.split(' ');
  const words = tokens.filter((w) => !conceptCodes().has(w));
  const codes = tokens.filter((w) => conceptCodes().has(w)).join(' ');
  // A record is read as one language, but a shop's Spanish record still says "guitars" and "USB cable": its Latin
  // words are stemmed as English too, as SQLite's porter stems every record (h261: "guitar" became `guit`, and
  // "guitar" did not find "guitars" there); a record of no told language by the European languages too (h269). Each
  // configuration adds only the lexemes none before it made, so a word several stem alike is counted once; the search
  // takes the best lexeme of each query word (pg-collection-queries.ts). Each stemming is a column of one subquery,
  // made once however often the later ones name it (OFFSET 0 keeps the planner from pulling the subquery up, which
  // would write each stemming out again wherever it is named).
  const latin = words.filter((w) => /[a-z]/.test(w)).join(' ');
  const extra = latin ? others : [];
  const columns = [sql`to_tsvector(${cfg}::regconfig, ${words.join(' ')}) AS s0`, ...extra.map((other, k) => sql`to_tsvector(${other}::regconfig, ${latin}) AS ${sql.raw(`s${k + 1}`)}`)];
  const column = (k: number) => sql.raw(`s${k}`);
  const parts = [column(0), ...extra.map((_, k) => sql`ts_delete(${column(k + 1)}, ${sql.join(Array.from({ length: k + 1 }, (_, j) => sql`tsvector_to_array(${column(j)})`), sql` || `)})`)];
  const body = sql`(SELECT ${sql.join(parts, sql` || `)} FROM (SELECT ${sql.join(columns)} OFFSET 0) stems)`;
  return {
    tsv: sql<string>`setweight(to_tsvector('simple', ${t.seen}), 'A') || setweight(${body} || to_tsvector('simple', ${codes}), 'B') || setweight(to_tsvector('simple', ${t.ocr}), 'C')`,
    doc_len: tokenCount(t),
  };
}

/**
 * Writes of text search's rows and indexes, always inside the caller's transaction, so a record
 * and its text commit together. SQLite's FTS5 table is contentless (it has no foreign key), so
 * its rows are written and deleted here explicitly.
 */
export class CollectionTextStore {
  /** Collections whose FTS5 table or GIN index this process has made sure of. */
  private readonly ready = new Set<string>();

  constructor(private readonly dialect: DialectName) {}

  /**
   * Collections whose table or index a transaction still open made: not `ready` until it commits. A
   * rolled-back transaction (a full disk) took its CREATE with it, and every later insert into that
   * collection failed ("no such table") until a restart, the table being remembered as made.
   */
  private readonly madeIn = new WeakMap<Transaction<Database> | Kysely<Database>, Set<string>>();

  private async ensure(trx: Transaction<Database> | Kysely<Database>, collectionId: string): Promise<void> {
    if (this.ready.has(collectionId) || this.madeIn.get(trx)?.has(collectionId)) return;
    const name = this.dialect === 'sqlite' ? ftsTable(collectionId) : pgTextIndexName(collectionId);
    // one that exists before this transaction made it was committed by another
    const existing =
      this.dialect === 'sqlite'
        ? (await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE name = ${name}`.execute(trx)).rows[0]!.n > 0
        : (await sql<{ r: string | null }>`SELECT to_regclass(${name})::text AS r`.execute(trx)).rows[0]!.r !== null;
    if (existing || !trx.isTransaction) {
      if (!existing) await this.create(trx, collectionId);
      this.ready.add(collectionId);
      return;
    }
    await this.create(trx, collectionId);
    const made = this.madeIn.get(trx) ?? new Set<string>();
    made.add(collectionId);
    this.madeIn.set(trx, made);
  }

  private async create(trx: Transaction<Database> | Kysely<Database>, collectionId: string): Promise<void> {
    if (this.dialect === 'sqlite') {
      // porter over unicode61: English stemming, Unicode case folding and every Latin diacritic
      // folded (remove_diacritics 2), as text-fold.ts folds queries.
      await sql.raw(`CREATE VIRTUAL TABLE IF NOT EXISTS ${ftsTable(collectionId)} USING fts5(seen, body, ocr, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`).execute(trx);
    } else {
      await sql.raw(pgTextIndexDdl(collectionId)).execute(trx);
    }
  }

  /** Inserts or replaces the text row of record `key`. */
  async write(trx: Transaction<Database>, collectionId: string, key: number, t: TextRow): Promise<void> {
    await this.ensure(trx, collectionId);
    const now = new Date().toISOString();
    const values = {
      key,
      collection_id: collectionId,
      seen: t.seen,
      body: t.body,
      ocr: t.ocr,
      lang: t.lang,
      colors: JSON.stringify(t.colors),
      observed: t.observed === null ? null : JSON.stringify(t.observed),
      seen_version: t.seenVersion,
      seen_state: t.seenState,
      last_error: t.lastError ?? null,
      updated_at: now,
    };
    if (this.dialect === 'sqlite') {
      await trx.insertInto('collection_text').values(values).onConflict((oc) => oc.column('key').doUpdateSet({ ...values, attempts: 0 })).execute();
      const fts = sql.raw(ftsTable(collectionId));
      await sql`DELETE FROM ${fts} WHERE rowid = ${key}`.execute(trx);
      await sql`INSERT INTO ${fts} (rowid, seen, body, ocr) VALUES (${key}, ${t.seen}, ${t.body}, ${t.ocr})`.execute(trx);
      return;
    }
    const vector = pgTextVector(t);
    await trx
      .insertInto('collection_text')
      .values({ ...values, ...vector })
      .onConflict((oc) => oc.column('key').doUpdateSet({ ...values, attempts: 0, ...vector }))
      .execute();
  }

  /** The row of record `key`, if it has one. */
  async get(db: Kysely<Database>, key: number): Promise<TextRow | undefined> {
    const r = await db.selectFrom('collection_text').select(['seen', 'body', 'ocr', 'lang', 'colors', 'observed', 'seen_version', 'seen_state', 'last_error']).where('key', '=', key).executeTakeFirst();
    if (!r) return undefined;
    return {
      seen: r.seen,
      body: r.body,
      ocr: r.ocr,
      lang: r.lang,
      colors: fromJson<number[][]>(r.colors),
      observed: r.observed === null ? null : fromJson<unknown>(r.observed),
      seenVersion: Number(r.seen_version),
      seenState: r.seen_state as SeenState,
      lastError: r.last_error,
    };
  }

  /** The stored colours (`[L, u, v, share]`) of these records. */
  async colorsOf(db: Kysely<Database>, keys: number[]): Promise<Map<number, number[][]>> {
    const out = new Map<number, number[][]>();
    for (const [key, r] of await this.colorsAndBodiesOf(db, keys, false)) out.set(key, r.colors);
    return out;
  }

  /**
   * {@link colorsOf} with each row's body and the token version it was written at (what a colour word alone's re-rank
   * reads, own-words.ts); without `bodies`, the colours only (a body is up to 16 KB): `body` '' and `version` 0.
   */
  async colorsAndBodiesOf(db: Kysely<Database>, keys: number[], bodies = true): Promise<Map<number, { colors: number[][]; body: string; version: number }>> {
    const out = new Map<number, { colors: number[][]; body: string; version: number }>();
    for (let i = 0; i < keys.length; i += 500) {
      const rows = await db
        .selectFrom('collection_text')
        .select(['key', 'colors'])
        .$if(bodies, (q) => q.select(['body', 'seen_version']))
        .where('key', 'in', keys.slice(i, i + 500))
        .execute();
      for (const r of rows) out.set(Number(r.key), { colors: fromJson<number[][]>(r.colors), body: r.body ?? '', version: Number(r.seen_version ?? 0) });
    }
    return out;
  }

  /** What was seen (concept codes) and the own words (with the codes they name) of these records. */
  async seenAndBodiesOf(db: Kysely<Database>, keys: number[]): Promise<Map<number, { seen: string; body: string }>> {
    const out = new Map<number, { seen: string; body: string }>();
    for (let i = 0; i < keys.length; i += 500) {
      const rows = await db.selectFrom('collection_text').select(['key', 'seen', 'body']).where('key', 'in', keys.slice(i, i + 500)).execute();
      for (const r of rows) out.set(Number(r.key), { seen: r.seen ?? '', body: r.body ?? '' });
    }
    return out;
  }

  /** How far text search has looked at a collection's images, for `ping`. */
  async progress(db: Kysely<Database>, collectionId: string): Promise<Record<SeenState, number>> {
    const rows = await db.selectFrom('collection_text').select(['seen_state']).select((eb) => eb.fn.countAll<number>().as('n')).where('collection_id', '=', collectionId).groupBy('seen_state').execute();
    const out: Record<SeenState, number> = { done: 0, pending: 0, no_image: 0, failed: 0 };
    for (const r of rows) out[r.seen_state as SeenState] = Number(r.n);
    return out;
  }

  /** A collection's rows tokenised by an older release than `version`, which the backfill makes again. */
  async olderTokens(db: Kysely<Database>, collectionId: string, version: number): Promise<number> {
    const r = await db.selectFrom('collection_text').select((eb) => eb.fn.countAll<number>().as('n')).where('collection_id', '=', collectionId).where('seen_state', 'in', ['done', 'no_image']).where('seen_version', '<', version).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Rows looked at without one of `parts` (an upgrade added a view, or the operator turned a part
   * on), whose record has an image URL to look at again, with keys in `(after, upTo]`, in key
   * order. Records sent as base64 kept no image: theirs stay as they were seen. The test reads
   * every row's observation (no index holds it), so callers walk the keys in spans: a query over
   * 100,000 rows took 600 ms in SQLite, which runs on the server's event loop.
   */
  async partlySeen(db: Kysely<Database>, parts: readonly string[], after: number, upTo: number, maxAttempts: number): Promise<BackfillRow[]> {
    const want = JSON.stringify(parts);
    const rows =
      this.dialect === 'sqlite'
        ? await sql<BackfillRow>`
      SELECT t.key, t.collection_id, t.attempts, r.data, c.product_field FROM collection_text t
      JOIN collection_records r ON r.key = t.key
      JOIN collections c ON c.id = t.collection_id
      WHERE t.key > ${after} AND t.key <= ${upTo} AND t.seen_state = 'done' AND t.observed IS NOT NULL AND t.attempts < ${maxAttempts}
        AND json_type(r.data, '$._url') = 'text'
        AND EXISTS (SELECT 1 FROM json_each(${want}) w WHERE w.value NOT IN (SELECT p.value FROM json_each(t.observed, '$.parts') p))
      ORDER BY t.key`.execute(db)
        : await sql<BackfillRow>`
      SELECT t.key, t.collection_id, t.attempts, r.data, c.product_field FROM collection_text t
      JOIN collection_records r ON r.key = t.key
      JOIN collections c ON c.id = t.collection_id
      WHERE t.key > ${after} AND t.key <= ${upTo} AND t.seen_state = 'done' AND t.observed IS NOT NULL AND t.attempts < ${maxAttempts}
        AND jsonb_typeof(r.data_b -> '_url') = 'string'
        AND NOT (coalesce(t.observed -> 'parts', '[]'::jsonb) @> ${want}::jsonb)
      ORDER BY t.key`.execute(db);
    return numbered(rows.rows);
  }

  /**
   * Records of keyword-searchable collections without a text row yet, by key, at most `n` (the backfill's first step, at
   * every start). Each such collection is asked in turn, its records in key order through migration 048's index: one
   * statement over all records walked every record of every collection in key order, custom collections' too, which
   * have no text rows (h362: 25,000 custom records beside 2,000 of a product collection, PostgreSQL read 2,940 buffers
   * in 7–17 ms; now 186 in 1.5 ms). The same rows: the first `n` by key of every collection's first `n`.
   */
  async recordsWithoutText(db: Kysely<Database>, n: number): Promise<BackfillRow[]> {
    const searchable = await db.selectFrom('collections').select(['id', 'product_field']).where('type', '<>', 'custom').execute();
    const rows: BackfillRow[] = [];
    for (const c of searchable) {
      const found = await sql<Omit<BackfillRow, 'product_field'>>`
        SELECT r.key, r.collection_id, 0 AS attempts, r.data FROM collection_records r
        WHERE r.collection_id = ${c.id} AND NOT EXISTS (SELECT 1 FROM collection_text t WHERE t.key = r.key)
        ORDER BY r.key LIMIT ${n}`.execute(db);
      rows.push(...numbered(found.rows.map((r) => ({ ...r, product_field: c.product_field }))));
    }
    return rows.sort((a, b) => a.key - b.key).slice(0, n);
  }

  /** Rows whose image is not seen yet (pending, or failed under `maxAttempts`), at most `n`. */
  toLookAt(db: Kysely<Database>, n: number, maxAttempts: number): Promise<BackfillRow[]> {
    return this.backfillRows(db, sql`t.seen_state IN ('pending', 'failed') AND t.attempts < ${maxAttempts}`, n);
  }

  /** Rows done (or with no image) tokenised by a version before `version`, at most `n`. */
  tokenisedBefore(db: Kysely<Database>, version: number, n: number): Promise<BackfillRow[]> {
    return this.backfillRows(db, sql`t.seen_state IN ('done', 'no_image') AND t.seen_version < ${version}`, n);
  }

  /** Text rows meeting `where` (over `t`, the text row), with their record's data and collection's product field, by key. */
  private async backfillRows(db: Kysely<Database>, where: RawBuilder<unknown>, n: number): Promise<BackfillRow[]> {
    const rows = await sql<BackfillRow>`
      SELECT t.key, t.collection_id, t.attempts, r.data, c.product_field FROM collection_text t
      JOIN collection_records r ON r.key = t.key
      JOIN collections c ON c.id = t.collection_id
      WHERE ${where}
      ORDER BY t.key LIMIT ${n}`.execute(db);
    return numbered(rows.rows);
  }

  /** Claims a row by raising its attempts from `attempts`: of two nodes reading the same row, one goes on. */
  async claim(db: Kysely<Database>, key: number, attempts: number): Promise<boolean> {
    const r = await db.updateTable('collection_text').set({ attempts: attempts + 1 }).where('key', '=', key).where('attempts', '=', attempts).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Rows still `pending` after `maxAttempts` claims: each look at their image ended with the process (a kill, an image
   * that takes the server down), and the backfill asks no more, so `ping` counted them pending for good (h345). Marked
   * failed with `reason`; returns how many.
   */
  async giveUpUnfinished(db: Kysely<Database>, maxAttempts: number, reason: string): Promise<number> {
    const r = await db.updateTable('collection_text').set({ seen_state: 'failed', last_error: reason }).where('seen_state', '=', 'pending').where('attempts', '>=', maxAttempts).executeTakeFirst();
    return Number(r.numUpdatedRows ?? 0);
  }

  /** A row's attempts set, so the backfill asks no more (`maxAttempts`: an image refused for good). */
  async setAttempts(db: Kysely<Database>, key: number, attempts: number): Promise<void> {
    await db.updateTable('collection_text').set({ attempts }).where('key', '=', key).execute();
  }

  /** Writes a record's first text row, unless the record went or was given one meanwhile (by an insert). */
  async writeIfMissing(db: Kysely<Database>, collectionId: string, key: number, row: TextRow): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const still = await trx.selectFrom('collection_records').select('key').where('key', '=', key).executeTakeFirst();
      const has = await trx.selectFrom('collection_text').select('key').where('key', '=', key).executeTakeFirst();
      if (still && !has) await this.write(trx, collectionId, key, row);
    });
  }

  /**
   * Writes a row unless its record went meanwhile. `write` resets attempts: `attempts` sets them after (a final
   * failure), else a failed row keeps the ones it had and any other state starts again from 0.
   */
  async rewrite(db: Kysely<Database>, collectionId: string, key: number, row: TextRow, attempts?: number, words?: (data: Record<string, unknown>) => { body: string; lang: string }): Promise<void> {
    await db.transaction().execute(async (trx) => {
      let q = trx.selectFrom('collection_records').select(['key', 'data']).where('key', '=', key);
      // an update of the record waits for this row's write, or this for its: the body is never of the record before it
      if (words && this.dialect === 'postgres') q = q.forUpdate();
      const still = await q.executeTakeFirst();
      if (!still) return;
      const before = await trx.selectFrom('collection_text').select('attempts').where('key', '=', key).executeTakeFirst();
      // `words`: the body made again from the record as it is now, not as the caller read it before its image was looked
      // at (seconds before: an update meanwhile wrote its own words, which the row would otherwise lose at this version)
      await this.write(trx, collectionId, key, words ? { ...row, ...words(fromJson<Record<string, unknown>>(still.data)) } : row);
      const keep = attempts ?? (row.seenState === 'failed' ? Number(before?.attempts ?? 0) : 0);
      if (keep) await trx.updateTable('collection_text').set({ attempts: keep }).where('key', '=', key).execute();
    });
  }

  /** The largest key of a text row (0 when there is none): where {@link partlySeen}'s walk ends. */
  async lastKey(db: Kysely<Database>): Promise<number> {
    const r = await db.selectFrom('collection_text').select((eb) => eb.fn.max('key').as('k')).executeTakeFirst();
    return Number(r?.k ?? 0);
  }

  /** Before the records go (their rows cascade): the FTS5 rows, which no foreign key reaches. */
  async deleteKeys(trx: Transaction<Database>, collectionId: string, keys: number[]): Promise<void> {
    if (this.dialect !== 'sqlite' || !keys.length) return;
    if (!(await this.hasFtsTable(trx, collectionId))) return;
    const fts = sql.raw(ftsTable(collectionId));
    for (let i = 0; i < keys.length; i += 500) {
      await sql`DELETE FROM ${fts} WHERE rowid IN (${sql.join(keys.slice(i, i + 500))})`.execute(trx);
    }
  }

  /**
   * SQLite: the keyword table's segments written again as one, without what deleted rows left (a contentless FTS5 table
   * keeps a deleted row's terms until its segments merge). False where there is no such table (PostgreSQL: its dead rows
   * go with VACUUM FULL).
   */
  async optimize(trx: Transaction<Database>, collectionId: string): Promise<boolean> {
    if (this.dialect !== 'sqlite') return false;
    if (!(await this.hasFtsTable(trx, collectionId))) return false;
    const fts = sql.raw(ftsTable(collectionId));
    await sql`INSERT INTO ${fts}(${fts}) VALUES ('optimize')`.execute(trx);
    return true;
  }

  private async hasFtsTable(trx: Transaction<Database>, collectionId: string): Promise<boolean> {
    const exists = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${ftsTable(collectionId)}`.execute(trx);
    return Number(exists.rows[0]?.n) > 0;
  }

  /** With the collection: its FTS5 table or GIN index. */
  async drop(trx: Transaction<Database>, collectionId: string): Promise<void> {
    if (this.dialect === 'sqlite') await sql.raw(`DROP TABLE IF EXISTS ${ftsTable(collectionId)}`).execute(trx);
    else await sql.raw(`DROP INDEX IF EXISTS ${pgTextIndexName(collectionId)}`).execute(trx);
    this.ready.delete(collectionId);
  }
}
