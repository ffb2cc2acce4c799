import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { FilterError } from '../store/filters/filter-error.ts';
import { Slots } from '../util/slots.ts';
import { clientGoneSignal, downloadOwner } from '../util/download-scope.ts';
import { filterToSql } from '../store/filters/pg-filter.ts';
import type { CollectionRecord, StoredRecord } from '../store/collection-store.ts';
import { fromJson, type Database, type Store } from '../store/database.ts';
import { fromPgVector, pgVector } from '../store/pg-vector.ts';
import { hashBandBits } from '../store/migrations/019-hash-bands.ts';
import { englishWords, pgRecordConfigs, pgWordsConfig, collectionLangs } from '../store/collection-text-store.ts';
import type { ParsedQuery } from '../text-search/query.ts';
import { toPgTsqueries } from '../text-search/query-compile.ts';
import type { CollectionQueries, Filter, Hit, TextHit, TextMemo } from './collection-queries.ts';

/** BM25 as the embedded engine ranks it (k1 1.2, b 0.75, idf `ln(1 + (N − df + 0.5)/(df + 0.5))`: query-compile.ts `bm25Idf`), with the same column weights. */
const k1 = 1.2;
const b = 0.75;

/**
 * HNSW search breadth: pgvector's default ef_search (40) bounds how many rows one scan returns,
 * so it must grow with k; iterative scans (pgvector 0.8) keep scanning when a filter rejects
 * candidates, up to max_scan_tuples. Filtered scans get a wider beam: at ef 64 a 50 % filter gave
 * recall@30 0.89 on 5k records (bench/collections.ts).
 */
// the page asked for and a margin for relaxed order: `k + from` past 2000 (paging far, or one record per
// product) must not come back short (it was capped at 2000)
const overfetch = (limit: number) => limit + Math.min(limit + 20, 2000);
// unfiltered, at least 256, as the embedded index's pool (hnsw-index.ts MIN_UNFILTERED_POOL): pages up to 128
// deep come from one beam, so walking them with `from` neither repeats nor skips records (each page had its
// own: 16 repeats in 40 pages at 50,000 records); about 3 ms more a search at 30,000 × 256-d
export const efSearch = (k: number, filtered: boolean) => Math.min(1000, filtered ? Math.max(200, 4 * k) : Math.max(256, 2 * k));
/** pgvector's default stop for iterative scans (hnsw.max_scan_tuples), raised for larger pages. */
const maxScanTuples = (limit: number) => Math.max(20_000, 4 * limit);
/**
 * A filter matching at most this many records is searched exactly, as the embedded index does
 * (hnsw-index.ts): an HNSW scan stops at max_scan_tuples and can miss a few far records that
 * match, where the interface promises k when k records match.
 */
const exactUnder = 3000;
/** Matches ranked at least, whatever a request's first page: its re-ranking's widening reads on from the same ranking. */
const rankedAtLeast = 1000;
/** How many (collection change, filter) pairs remember whether their filter matches few records. */
const fewCacheSize = 256;
/**
 * Planner costs for reading records by a client's filter. PostgreSQL prices a row's filter as a cheap operator and a
 * page as a read from disk; here the pages are cached and the filter is a jsonpath over each row's jsonb, about a
 * microsecond. So a page from 1000 of a category of 1 in 20 walked the records in key order through 22,000 of them
 * (14–25 ms at 25,000 records) rather than read the category's 1,250 by the GIN index and sort them (2.5–4 ms); at 20×
 * the row's cost it takes the index (a count of 70 % of the records too: 13 → 11 ms). The cost of starting parallel
 * workers is scaled alike, so the dearer rows do not make them look cheap (they were slower: 13 → 18 ms).
 */
const filterRowCosts = { cpu_tuple_cost: '0.2', parallel_setup_cost: '20000' } as const;
/**
 * Longest a query with a client's filter may run (PostgreSQL's `statement_timeout` for it): scans of
 * 100,000 records with ordinary filters take well under a second here. Past it the request is a
 * 400 naming the filter (services/visual-search/filters.ts).
 */
export const FILTER_STATEMENT_MS = 5_000;

/**
 * The transaction's statements end at {@link FILTER_STATEMENT_MS}, or sooner where the operator's
 * own `statement_timeout` is shorter (it is never loosened); each is planned for its own filter; and
 * `settings` (planner settings of the caller) hold for the transaction too. One statement, one round trip.
 *
 * A filter is a parameter of a statement that `store/pg-tuning.ts` prepares by name, and after five
 * runs on a connection PostgreSQL may keep a generic plan, made without the filter's value: one for
 * every filter of that shape, whatever it matches. Such a plan walked every record in key order to find
 * one SKU (31 ms at 25,000 records, 0.2 ms by the GIN index a plan for the value takes), so these
 * statements are planned for their values each time (`plan_cache_mode`, some 0.1 ms more a statement).
 */
export async function limitStatement(trx: Kysely<Database>, settings: Readonly<Record<string, string>> = {}): Promise<void> {
  const more = Object.entries({ plan_cache_mode: 'force_custom_plan', ...settings }).map(([name, value]) => sql`, set_config(${sql.lit(name)}, ${value}, true)`);
  // a wait on another's lock (a collection made or dropped, an operator's DDL) ends before the
  // statement's time does, as lock_not_available (55P03: a 503, retry): it ran into the statement
  // timeout and was answered as the client's filter's fault (400). 4 s, or 80 % of an operator's
  // shorter statement_timeout (as set just before, in the inner select), and never above an operator's shorter lock_timeout.
  await sql`SELECT set_config('lock_timeout', CASE WHEN current_setting('lock_timeout') <> '0' AND current_setting('lock_timeout')::interval < make_interval(secs => t.l / 1000.0) THEN current_setting('lock_timeout') ELSE t.l::text END, true)${sql.join(more, sql``)}
    FROM (SELECT LEAST(${sql.lit(FILTER_LOCK_MS)}, floor(extract(epoch FROM s.statement::interval) * 800)::int) AS l
      FROM (SELECT set_config('statement_timeout', CASE WHEN current_setting('statement_timeout') <> '0' AND current_setting('statement_timeout')::interval < make_interval(secs => ${sql.lit(FILTER_STATEMENT_MS / 1000)}) THEN current_setting('statement_timeout') ELSE ${sql.lit(String(FILTER_STATEMENT_MS))} END, true) AS statement) s) t`.execute(trx);
}

/** Longest a filtered query waits on another's lock: under {@link FILTER_STATEMENT_MS}, so a lock wait is told from a slow filter. */
const FILTER_LOCK_MS = 4_000;

/** PostgreSQL's cancel of a statement past its `statement_timeout` (SQLSTATE 57014), as the client's filter's fault. */
function filterTimedOut(err: unknown): never {
  if ((err as { code?: unknown } | null)?.code === '57014') {
    throw new FilterError('', `the filter ran past the time one query may take (${FILTER_STATEMENT_MS / 1000} s, or the database's own shorter limit) over this collection; make it more specific (an anchored $regex, fewer alternatives: docs/filters.md)`);
  }
  throw err;
}

/**
 * Collections on PostgreSQL: filters become SQL over the `data_b` JSONB column (`data` as sent, migration 018), vectors are
 * searched with the collection's own partial HNSW index (created with its first vector). The
 * index's predicate names the collection id as a literal, so queries must too: the id is a UUID
 * validated before it gets here.
 */
export class PgCollectionQueries implements CollectionQueries {
  /**
   * Per collection change number: the stemmers its record text was indexed with, and BM25's
   * document count and average length (reading them costs a scan of the collection's rows). The
   * backfill writes text rows without a change number, so they are also read again after a minute.
   */
  private readonly textStats = new Map<string, { seq: number; at: number; configs: string[]; n: number; avgdl: number }>();

  /** Whether a filter matches at most {@link exactUnder} records, per collection change: one count per request, not per widening. */
  private readonly few = new Map<string, boolean>();

  /**
   * Queries with a client's filter hold at most half the pool's connections at once, and those of
   * one account one fewer than that (the rest of its own wait): each may run its 5 s
   * ({@link FILTER_STATEMENT_MS}). One token keeping six in flight held the whole pool, every
   * account's session list answering in 5 s meanwhile; with a shared half only, its queue of slow
   * filters made another account's filtered query wait 19 s (reviewers' probes).
   */
  private readonly filterSlots: Slots;
  private readonly accountSlots = new Map<string, Slots>();

  constructor(private readonly store: Store) {
    this.filterSlots = new Slots(Math.max(1, Math.floor((store.poolSize ?? 10) / 2)));
  }

  /**
   * Runs a query whose filter a client wrote under {@link FILTER_STATEMENT_MS}: a `$regex` that
   * keeps PostgreSQL's engine busy (`[ab]*a[ab]{255}…` over long values: 9 s for 3 records, and on
   * after the client left) is cancelled, not left holding a connection other accounts wait for.
   */
  private filtered<T>(filter: Filter | undefined, run: (db: Kysely<Database>) => Promise<T>, settings: Readonly<Record<string, string>> = {}): Promise<T> {
    if (!filter || !Object.keys(filter).length) return run(this.store.db);
    return this.planned(filter, settings, run);
  }

  /**
   * `run` in a transaction whose statements are planned with `settings` (set in one statement, one round trip); with a
   * client's filter, limited as {@link filtered} runs it (the filter slots, {@link limitStatement}).
   */
  private planned<T>(filter: Filter | undefined, settings: Readonly<Record<string, string>>, run: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const withFilter = filter !== undefined && Object.keys(filter).length > 0;
    const go = () =>
      this.store.db.transaction().execute(async (trx) => {
        if (withFilter) await limitStatement(trx, settings);
        else if (Object.keys(settings).length) await sql`SELECT ${sql.join(Object.entries(settings).map(([name, value]) => sql`set_config(${sql.lit(name)}, ${value}, true)`))}`.execute(trx);
        return run(trx);
      });
    return withFilter ? this.limited(go) : go();
  }

  /** A filtered query (whose transaction calls {@link limitStatement}) in the filter slots, its timeout the client's filter's fault. */
  private limited<T>(fn: () => Promise<T>): Promise<T> {
    return this.inFilterSlots(() => fn().catch(filterTimedOut));
  }

  /** `fn` in one of the account's filter slots and one of the pool's half; not run at all for a client that left while it waited. */
  private inFilterSlots<T>(fn: () => Promise<T>): Promise<T> {
    const owner = downloadOwner();
    const inPool = () =>
      this.filterSlots.run(() => {
        // the client's leaving, not the downloads' time budget: a long pass (allNearDupPairs) past 60 s failed its next filtered query
        const gone = clientGoneSignal();
        if (gone?.aborted) throw gone.reason instanceof Error ? gone.reason : new Error('the request was cancelled by its client');
        return fn();
      });
    if (!owner) return inPool();
    let mine = this.accountSlots.get(owner);
    // one fewer than the pool's half: another account always finds one free of this one's
    if (!mine) this.accountSlots.set(owner, (mine = new Slots(Math.max(1, this.filterSlots.size - 1))));
    const slots = mine;
    return slots.run(inPool).finally(() => {
      if (slots.idle && this.accountSlots.get(owner) === slots) this.accountSlots.delete(owner);
    });
  }

  private async matchesFew(c: CollectionRecord, filter: Filter): Promise<boolean> {
    const key = `${c.id}:${c.seq}:${JSON.stringify(filter)}`;
    let held = this.few.get(key);
    if (held === undefined) {
      const n = await this.filtered(filter, (db) => sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT 1 FROM collection_records WHERE ${this.where(c, filter)} LIMIT ${exactUnder + 1}) m`.execute(db), filterRowCosts);
      held = Number(n.rows[0]?.n ?? 0) <= exactUnder;
      if (this.few.size >= fewCacheSize) this.few.delete(this.few.keys().next().value!);
      this.few.set(key, held);
    }
    return held;
  }

  private async statsOf(c: CollectionRecord): Promise<{ configs: string[]; n: number; avgdl: number }> {
    let held = this.textStats.get(c.id);
    if (!held || held.seq !== c.seq || Date.now() - held.at > 60_000) {
      const own = sql.lit(c.id);
      const langs = await collectionLangs(this.store.db, c.id);
      const sizes = await sql<{ n: number; avgdl: number | null }>`SELECT count(*) AS n, avg(doc_len)::float8 AS avgdl FROM collection_text WHERE collection_id = ${own}`.execute(this.store.db);
      held = { seq: c.seq, at: Date.now(), configs: [...new Set(langs.flatMap((lang) => pgRecordConfigs(lang)))], n: Number(sizes.rows[0]?.n ?? 0), avgdl: Math.max(1, Number(sizes.rows[0]?.avgdl ?? 1)) };
      this.textStats.set(c.id, held);
    }
    return held;
  }

  /**
   * Record text is stemmed in its own language and its Latin words as English too (a record of no told language by the
   * European languages too), so a query's words are stemmed by English, by every language the collection's records
   * are stemmed in and by none (`simple`).
   */
  private async textConfigs(c: CollectionRecord, q: ParsedQuery): Promise<string[]> {
    return [...new Set(['simple', englishWords, pgWordsConfig(q.language), ...(await this.statsOf(c)).configs])];
  }

  /**
   * The tsquery of a parsed query, and what each query word is looked for as: one group a word, as SQLite's phrase
   * groups, holding the word's stemming by each configuration (a tsvector with positions: a word of several words, `t
   * shirt`, is a phrase, as the tsquery and FTS5 match it). A word's stems in several languages are one word, counted
   * once: a record's count of it is that of its most frequent stemming, and its document frequency the records holding
   * any (counted by lexeme, a rarer stem's idf ranked a Spanish record's "guitars" far above an English record's, h261).
   */
  private async tsquery(c: CollectionRecord, q: ParsedQuery): Promise<{ query: RawBuilder<unknown>; groups: RawBuilder<unknown>[][] } | undefined> {
    const { codes, terms } = toPgTsqueries(q);
    const queries: RawBuilder<unknown>[] = [];
    const groups: RawBuilder<unknown>[][] = [];
    if (codes) {
      queries.push(sql`to_tsquery('simple', ${codes})`);
      for (const { code } of q.codes) groups.push([sql`to_tsvector('simple', ${code})`]);
    }
    if (terms) {
      const configs = await this.textConfigs(c, q);
      for (const cfg of configs) queries.push(sql`to_tsquery(${cfg}::regconfig, ${terms})`);
      for (const word of [...q.terms, ...(q.literals ?? [])]) groups.push(configs.map((cfg) => sql`to_tsvector(${cfg}::regconfig, ${word})`));
    }
    if (!queries.length) return undefined;
    return { query: sql.join(queries, sql` || `), groups };
  }

  async text(c: CollectionRecord, q: ParsedQuery, k: number, filter?: Filter, memo?: TextMemo): Promise<TextHit[]> {
    if (k <= 0) return [];
    for (let again = 1; ; again--) {
      const held = memo?.held as { ranked: { key: number; score: number }[]; complete: boolean } | undefined;
      const ranked = held && (held.complete || held.ranked.length >= k) ? held.ranked : await this.ranked(c, q, Math.max(k, rankedAtLeast), filter);
      if (!ranked) return [];
      if (memo && ranked !== held?.ranked) memo.held = { ranked, complete: ranked.length < Math.max(k, rankedAtLeast) };
      const first = ranked.slice(0, k);
      if (!first.length) return [];
      const rows = await sql<{ key: number; record_id: string; data: unknown }>`SELECT key, record_id, data FROM collection_records WHERE collection_id = ${sql.lit(c.id)} AND key = ANY(${first.map((r) => r.key)}::bigint[])`.execute(this.store.db);
      const byKey = new Map(this.rows(rows.rows).map((r) => [r.key, r]));
      // A record deleted since it was ranked (in the request's memo, or between the two statements) is ranked again
      // without it: left out, fewer than k came back where k still matched, which the re-ranking's widening and product
      // grouping read as the matches' end (h358). Once: a deletion during that second ranking too is left out.
      if (byKey.size < first.length && again > 0) {
        if (memo) memo.held = undefined;
        continue;
      }
      return first.flatMap((r) => {
        const record = byKey.get(r.key);
        return record ? [{ record, score: r.score }] : [];
      });
    }
  }

  /**
   * The keys and BM25 scores of the best `k` matches (after the filter), best first; undefined when the query has
   * nothing to look for. Every match is scored whatever the limit, so a request asks once for more than it may need
   * (text()'s memo): the re-ranking's widening asked again for 4× as many, scoring every match again (h353, s75).
   */
  private async ranked(c: CollectionRecord, q: ParsedQuery, k: number, filter?: Filter): Promise<{ key: number; score: number }[] | undefined> {
    const t = await this.tsquery(c, q);
    if (!t) return undefined;
    const own = sql.lit(c.id);
    // Unfiltered, no match is joined to its record here (text() reads the first k's); a filter needs every match's record.
    const filtered = filter && Object.keys(filter).length ? sql`AND (${filterToSql(filter, 'r.data_b')})` : sql``;
    // Document frequencies are counted over the matches themselves: every record holding a query
    // lexeme matches the OR query, so the counts are exact and need no statistics table. The
    // candidates are read with the collection's own GIN index (its predicate repeats the literal).
    const { n, avgdl } = await this.statsOf(c);
    const num = (x: number) => sql.raw(String(x));
    const words = sql.join(t.groups.flatMap((stemmings, g) => stemmings.map((v, a) => sql`(${num(g)}, ${num(a)}, ${v})`)));
    // N may lag a backfill by a minute (statsOf): it is never taken below a term's own count.
    // Each match keeps only the query's lexemes (ts_delete of the rest, in C) before it is
    // unnested: unnesting whole documents cost 5-7x more with 17 lexemes a record.
    // A stemming `a` of word `g` is its lexemes at their offsets from its first (`len` of them). One lexeme counts its
    // weighted occurrences; several, a phrase, count where each stands at its offset from the first (the positions of
    // the match): counted by its lexemes apart, "t-shirt" gave a record saying only "shirt" its score (h281), where
    // FTS5's phrase "t shirt" counts only the phrase. Positions are read only for a query with a word of several words
    // (at 10,000 records "navy blue t-shirt" takes 54 ms where it took 44 counted by lexeme; read for every query, they
    // cost "vintage leather" 1.8×, h287).
    const phrased = [...q.terms, ...(q.literals ?? [])].some((w) => w.includes(' '));
    const weight = (w: RawBuilder<unknown>) => sql`CASE ${w} WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.0 ELSE 0.5 END`;
    const phrases = phrased
      ? sql`,
      occ AS MATERIALIZED (
        SELECT c.key, c.doc_len, u.lexeme, p.pos, p.w FROM cand c, unnest(c.found) AS u, unnest(u.positions, u.weights) AS p(pos, w)
        WHERE u.lexeme IN (SELECT lexeme FROM qp WHERE len > 1)
      ),
      phrase AS (
        SELECT o.key, q.g, q.a, o.pos, max(o.w) AS w, max(o.doc_len) AS doc_len, count(*) AS have, max(q.len) AS len
        FROM occ o JOIN qp q ON q.lexeme = o.lexeme AND q.off = 0 AND q.len > 1
        JOIN qp e ON e.g = q.g AND e.a = q.a
        JOIN occ x ON x.key = o.key AND x.lexeme = e.lexeme AND x.pos = o.pos + e.off
        GROUP BY o.key, q.g, q.a, o.pos
      ),
      many AS (SELECT key, g, max(doc_len) AS doc_len, sum(${weight(sql`w`)})::float8 AS tf FROM phrase WHERE have = len GROUP BY key, g, a)`
      : sql``;
    // without a phrase, a word's lexemes alone, in one row, as before positions were read: the planner's estimates of
    // the rows per stemming made the aggregates' tables ten times the size, and the query 15 % slower
    const lexemes = phrased
      ? sql`qp AS (
        SELECT DISTINCT g, a, lexeme, off, len FROM (
          SELECT v.g, v.a, u.lexeme, p.pos - min(p.pos) OVER (PARTITION BY v.g, v.a) AS off, count(*) OVER (PARTITION BY v.g, v.a) AS len
          FROM (VALUES ${words}) AS v(g, a, t), unnest(v.t) AS u, unnest(u.positions) AS p(pos)
        ) s
      ),
      qw AS MATERIALIZED (SELECT DISTINCT g, lexeme FROM qp WHERE len = 1),
      qs AS (SELECT coalesce(array_agg(DISTINCT lexeme), '{}') AS l FROM qp)`
      : sql`qw AS (SELECT DISTINCT v.g, u.lexeme FROM (VALUES ${sql.join(t.groups.map((stemmings, g) => sql`(${num(g)}, ${sql.join(stemmings.map((v) => sql`tsvector_to_array(${v})`), sql` || `)})`))}) AS v(g, l), unnest(v.l) AS u(lexeme)),
      qs AS (SELECT coalesce(array_agg(DISTINCT lexeme), '{}') AS l FROM qw)`;
    const query = sql<{ key: number; score: number }>`
      WITH ${lexemes},
      cand AS MATERIALIZED (
        SELECT t.key, t.doc_len, ts_delete(t.tsv, tsvector_to_array(ts_delete(t.tsv, qs.l))) AS found
        FROM collection_text t, qs
        WHERE t.collection_id = ${own} AND t.tsv @@ (${t.query})
      ),
      hits AS (
        SELECT c.key, c.doc_len, u.lexeme, (SELECT sum(${weight(sql`w`)}) FROM unnest(u.weights) AS w)::float8 AS tf
        FROM cand c, unnest(c.found) AS u
      ),
      one AS (SELECT h.key, qw.g, max(h.doc_len) AS doc_len, max(h.tf) AS tf FROM hits h JOIN qw USING (lexeme) GROUP BY h.key, qw.g)${phrases},
      best AS (${phrased ? sql`SELECT key, g, max(doc_len) AS doc_len, max(tf) AS tf FROM (SELECT * FROM one UNION ALL SELECT * FROM many) m GROUP BY key, g` : sql`SELECT * FROM one`}),
      df AS (SELECT g, count(*)::float8 AS df FROM best GROUP BY g),
      scored AS (
        SELECT b.key, sum(ln(1 + (greatest(${num(n)}, d.df) - d.df + 0.5) / (d.df + 0.5)) * b.tf * ${num(k1 + 1)} / (b.tf + ${num(k1)} * (1 - ${num(b)} + ${num(b)} * b.doc_len / ${num(avgdl)}))) AS score
        FROM best b JOIN df d USING (g)
        GROUP BY b.key
      )
      ${
        filter && Object.keys(filter).length
          ? sql`SELECT sc.key, sc.score FROM scored sc JOIN collection_records r ON r.key = sc.key WHERE r.collection_id = ${own} ${filtered} ORDER BY sc.score DESC, sc.key LIMIT ${k}`
          : sql`SELECT key, score FROM scored ORDER BY score DESC, key LIMIT ${k}`
      }`;
    // The matches are read through the collection's GIN index: a query of several words stemmed by each language is an
    // OR of a dozen lexemes or more, which the planner took for a large share of the rows and scanned every row for,
    // testing each (66 → 35 ms for "vintage leather" at 25,000 records, 3,251 matches; "person", 10,092, no slower).
    const res = await this.planned(filter, { enable_seqscan: 'off' }, (trx) => query.execute(trx));
    return res.rows.map((r) => ({ key: Number(r.key), score: Number(r.score) }));
  }

  async present(c: CollectionRecord, q: ParsedQuery): Promise<Set<string>> {
    const looks: RawBuilder<unknown>[] = [];
    const terms = [...new Set([...q.codes.map((x) => x.code), ...q.terms])];
    for (const [i, term] of terms.entries()) {
      const one = q.codes.some((x) => x.code === term) ? { ...q, terms: [], literals: [], codes: [{ code: term, weight: 1 }] } : { ...q, codes: [], literals: [], terms: [term] };
      const t = await this.tsquery(c, one);
      if (t) looks.push(sql`(SELECT ${sql.raw(String(i))} AS i FROM collection_text WHERE collection_id = ${sql.lit(c.id)} AND tsv @@ (${t.query}) LIMIT 1)`);
    }
    if (!looks.length) return new Set();
    // Each word's look is the collection's GIN index, never a scan of its rows: for LIMIT 1 the planner scans rows in
    // the hope of an early match, which for a word no record holds read every row (70–120 ms at 25,000 records, a
    // linear cost; the index answers in under a millisecond either way). One statement for every word.
    const found = await this.planned(undefined, { enable_seqscan: 'off', enable_indexscan: 'off' }, (trx) => sql<{ i: number }>`${sql.join(looks, sql` UNION ALL `)}`.execute(trx));
    return new Set(found.rows.map((r) => terms[Number(r.i)]!));
  }

  private where(c: CollectionRecord, filter?: Filter): RawBuilder<unknown> {
    const own = sql`collection_id = ${sql.lit(c.id)}`;
    return filter && Object.keys(filter).length ? sql`${own} AND (${filterToSql(filter)})` : own;
  }

  private rows(rows: { key: number | string; record_id: string; data: unknown }[]): StoredRecord[] {
    return rows.map((r) => ({ key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }));
  }

  async count(c: CollectionRecord, filter?: Filter): Promise<number> {
    const res = await this.filtered(filter, (db) => sql<{ n: number }>`SELECT count(*) AS n FROM collection_records WHERE ${this.where(c, filter)}`.execute(db), filterRowCosts);
    return Number(res.rows[0]?.n ?? 0);
  }

  async find(c: CollectionRecord, filter: Filter | undefined, limit: number, offset: number, after?: number): Promise<StoredRecord[]> {
    const from = after === undefined ? sql`` : sql` AND key > ${after}`;
    const res = await this.filtered(filter, (db) => sql<{ key: number; record_id: string; data: unknown }>`SELECT key, record_id, data FROM collection_records WHERE ${this.where(c, filter)}${from} ORDER BY key LIMIT ${limit} OFFSET ${offset}`.execute(db), filterRowCosts);
    return this.rows(res.rows);
  }

  async random(c: CollectionRecord, count: number, filter?: Filter): Promise<StoredRecord[]> {
    const res = await this.filtered(filter, (db) => sql<{ key: number; record_id: string; data: unknown }>`SELECT key, record_id, data FROM collection_records WHERE ${this.where(c, filter)} ORDER BY random() LIMIT ${count}`.execute(db), filterRowCosts);
    return this.rows(res.rows);
  }

  async lookup(c: CollectionRecord, recordId: string): Promise<{ record: StoredRecord; vector: Float32Array; hash?: string } | undefined> {
    const res = await sql<{ key: number; record_id: string; data: unknown; v: Buffer | null; hash: string | null }>`SELECT key, record_id, data, vector_send(embedding) AS v, hash::text AS hash FROM collection_records WHERE ${this.where(c)} AND record_id = ${recordId}`.execute(this.store.db);
    const row = res.rows[0];
    if (!row?.v) return undefined;
    return { record: this.rows([row])[0]!, vector: fromPgVector(row.v), ...(row.hash ? { hash: row.hash } : {}) };
  }

  /**
   * A nearest-neighbour search's transaction: few matches of a filter compared with each (no index scan, which never
   * misses one); otherwise the index and key lookups, whatever the planner estimates.
   */
  private async vectorSearch<T>(c: CollectionRecord, limit: number, filter: Filter | undefined, fn: (trx: Transaction<Database>, few: boolean) => Promise<T>): Promise<T> {
    const filtered = filter !== undefined && Object.keys(filter).length > 0;
    const few = filtered && (await this.matchesFew(c, filter));
    const settings: Record<string, string> = {
      ...(few
        ? { enable_indexscan: 'off' }
        : // a prepared statement's generic plan (LIMIT unknown) and large limits chose a scan of every record, and a hash
          // join reading every record's data (a capacity run: k 50 in 22–40 ms, k 63 in 460–500 ms at 50,000 records)
          { enable_seqscan: 'off', enable_hashjoin: 'off', enable_mergejoin: 'off' }),
      'hnsw.ef_search': String(efSearch(limit, filtered)),
      'hnsw.iterative_scan': 'relaxed_order',
      'hnsw.max_scan_tuples': String(maxScanTuples(limit)),
    };
    // the settings in one statement (three before, and two more with a filter): each a round trip. Their values are
    // parameters, so that the statement's text, which store/pg-tuning.ts prepares by name, does not vary with k
    return this.planned(filter, settings, (trx) => fn(trx, few));
  }

  private async nearest(c: CollectionRecord, query: Float32Array, limit: number, filter?: Filter): Promise<Hit[]> {
    if (!c.dimensions || query.length !== c.dimensions) return [];
    const dims = sql.raw(String(c.dimensions));
    const q = pgVector(query);
    return this.vectorSearch(c, limit, filter, async (trx) => {
      // relaxed_order may return rows slightly out of order, so the first `limit` rows are not
      // the best `limit`: take more, sort, then cut.
      // the candidates carry their key and distance only; the records' data is read for the page kept.
      // Ordered by the output column by name: the ORDER BY written out again, with the query vector as a parameter of
      // its own, was not the select list's expression to PostgreSQL, so it computed both for every candidate, each
      // reading the candidate's 7 KB vector from TOAST again (82 at k 30; each of a few-match filter's 1,250 on the
      // exact path: 25 → 18 ms a statement at 25,000 × 1792-d, h366, docs/vector-index.md)
      const res = await sql<{ key: number; record_id: string; data: unknown; distance: number }>`
        WITH hits AS MATERIALIZED (
          SELECT key, (embedding::vector(${dims})) <=> ${q}::vector(${dims}) AS distance
          FROM collection_records
          WHERE ${this.where(c, filter)}
          ORDER BY distance
          LIMIT ${overfetch(limit)}
        ), kept AS (SELECT key, distance FROM hits ORDER BY distance, key LIMIT ${limit})
        SELECT r.key, r.record_id, r.data, kept.distance FROM kept JOIN collection_records r ON r.key = kept.key ORDER BY kept.distance, kept.key`.execute(trx);
      return res.rows.map((r) => ({ record: { key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }, distance: Number(r.distance) }));
    });
  }

  async neighbours(c: CollectionRecord, records: StoredRecord[], maxDistance: number, limit: number, filter?: Filter): Promise<Map<number, Hit[]>> {
    const out = new Map<number, Hit[]>();
    if (!c.dimensions || !records.length) return out;
    const dims = sql.raw(String(c.dimensions));
    const keys = records.map((r) => r.key);
    // each record's own search by the index (LATERAL), all of a page in one statement; as `nearest`, more taken and cut.
    // A filter few records match is read once and each record compared with those (scanned again for each of the
    // sixteen, one statement ran past the filter's 5 s at 300,000 records, h268)
    const rows = await this.vectorSearch(c, limit, filter, async (trx, few) =>
      (
        await sql<{ src: number; key: number; record_id: string; data: unknown; distance: number }>`
        WITH src AS MATERIALIZED (
          SELECT key, embedding::vector(${dims}) AS v FROM collection_records
          WHERE collection_id = ${sql.lit(c.id)} AND key = ANY(${keys}::bigint[]) AND embedding IS NOT NULL
        ),
        ${few ? sql`m AS MATERIALIZED (SELECT key, embedding::vector(${dims}) AS v FROM collection_records WHERE ${this.where(c, filter)} AND embedding IS NOT NULL),` : sql``}
        hits AS MATERIALIZED (
          SELECT src.key AS src, n.key, n.distance FROM src CROSS JOIN LATERAL (${
            few
              ? sql`SELECT m.key, m.v <=> src.v AS distance FROM m ORDER BY m.v <=> src.v LIMIT ${overfetch(limit)}`
              : sql`SELECT key, (embedding::vector(${dims})) <=> src.v AS distance
            FROM collection_records
            WHERE ${this.where(c, filter)}
            ORDER BY (embedding::vector(${dims})) <=> src.v
            LIMIT ${overfetch(limit)}`
          }) n
        ),
        kept AS (SELECT src, key, distance, row_number() OVER (PARTITION BY src ORDER BY distance, key) AS i FROM hits)
        SELECT kept.src, r.key, r.record_id, r.data, kept.distance FROM kept JOIN collection_records r ON r.key = kept.key
        WHERE kept.i <= ${limit} AND kept.distance <= ${maxDistance}
        ORDER BY kept.src, kept.distance, kept.key`.execute(trx)
      ).rows,
    );
    for (const r of rows) {
      const src = Number(r.src);
      if (!out.has(src)) out.set(src, []);
      out.get(src)!.push({ record: { key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }, distance: Number(r.distance) });
    }
    return out;
  }

  knn(c: CollectionRecord, query: Float32Array, k: number, filter?: Filter): Promise<Hit[]> {
    return this.nearest(c, query, k, filter);
  }

  async range(c: CollectionRecord, query: Float32Array, maxDistance: number, limit: number, filter?: Filter): Promise<Hit[]> {
    return (await this.nearest(c, query, limit, filter)).filter((h) => h.distance <= maxDistance);
  }

  async nearHashes(c: CollectionRecord, hash: string, maxBits: number, query: Float32Array, limit: number, filter?: Filter): Promise<Hit[]> {
    if (!c.dimensions || query.length !== c.dimensions || !/^[01]{256}$/.test(hash)) return [];
    const dims = sql.raw(String(c.dimensions));
    // Within 16 bits a row shares a band with the query (migration 019): its GIN index finds the
    // candidates. Further apart, the bits are counted over every row of the collection.
    const banded = maxBits < hashBandBits.length ? sql`AND loupe_hash_bands(hash) && loupe_hash_bands(${hash}::bit(256))` : sql``;
    const res = await this.filtered(filter, (db) => sql<{ key: number; record_id: string; data: unknown; distance: number }>`
      SELECT key, record_id, data, (embedding::vector(${dims})) <=> ${pgVector(query)}::vector(${dims}) AS distance
      FROM collection_records
      WHERE ${this.where(c, filter)} AND hash IS NOT NULL ${banded} AND bit_count(hash # ${hash}::bit(256)) <= ${maxBits}
        AND bit_count(hash) > ${maxBits} AND bit_count(hash) < ${256 - maxBits}
      ORDER BY distance, key
      LIMIT ${limit}`.execute(db));
    return res.rows.map((r) => ({ record: { key: Number(r.key), recordId: r.record_id, data: fromJson<Record<string, unknown>>(r.data) }, distance: Number(r.distance) }));
  }

  applied(): void {
    // The table is the index.
  }

  loadState(): undefined {
    // nothing is read into memory: the table's own index answers
    return undefined;
  }

  async load(): Promise<void> {}

  async forget(): Promise<void> {}

  // the database holds the indexes; files a move from SQLite left are the operator's to remove (docs/operations.md, "Erasure")
  async removeLeftovers(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
