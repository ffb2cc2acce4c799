import { createHash, randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { normalizeName, normalizeNameBefore032, normalizeNameBefore035 } from '../catalog/card-keys.ts';
import { refreshCatalogNames } from './catalog-names.ts';
import type { CatalogCardsTable, CatalogImportRowsTable, CatalogSetsTable, CatalogsTable, Database, Store } from './database.ts';
import { fromJson, toIso } from './database.ts';
import { betweenBatches, selectedValue, withStagedImport } from './import-staging.ts';

export interface CatalogSummary {
  id: string;
  name: string;
  kind: string;
  version: number;
  cards: number;
  sets: number;
  createdAt: string;
  updatedAt: string;
}

/** A card as the importer hands it over: folded columns made, JSON not yet serialised. */
export interface CatalogCardInput {
  /** Unique within the catalog; re-importing a row with the same key updates it. */
  key: string;
  name: string;
  nameNorm: string;
  setCode: string | null;
  setName: string | null;
  /** The collector number (or print code, or issue number) as printed. */
  number: string | null;
  numberNorm: string | null;
  rarity: string | null;
  /** Text, as sessions store it (spec 1: `year` is a string). */
  year: string | null;
  /** What the format has beyond the columns above, under the format's own names. */
  fields: Record<string, unknown>;
  /** Marketplace and reference pages: site → URL. */
  links: Record<string, string>;
  /** Other ids the same card is known by (MTGJSON face uuids), for joining prices. */
  aliases: string[];
  /** Facts identification filters on: `oversized`, `digital`, `promo`, `placeholder_code`, … */
  flags: string[];
}

export interface CatalogSetInput {
  code: string;
  name: string;
  series: string | null;
  /** The total printed on the cards (`/165`). */
  printedTotal: number | null;
  /** Every card of the set, secret rares included. */
  total: number | null;
  /** ISO date `YYYY-MM-DD`. */
  releaseDate: string | null;
  extra: Record<string, unknown>;
}

export interface StoredCard extends CatalogCardInput {
  source: string;
  createdAt: string;
  updatedAt: string;
}

export interface StoredSet extends CatalogSetInput {
  source: string;
}

/** What an import did to rows of one table. */
export interface RowCounts {
  created: number;
  updated: number;
  unchanged: number;
  /** Rows left as they were because a more complete source wrote them (see `source_rank`). */
  kept: number;
}

export interface CatalogImport {
  catalog: string;
  kind: string;
  /** The format the rows were read from (`pokemon`, `mtgjson`, `mtg-pool`, …). */
  source: string;
  /** A row is never replaced by a row of a lower rank. */
  rank: number;
  /** Card keys made of set names and numbers (sports checklists, comics, shop CSVs), not the source's own ids. */
  keyedByName?: boolean;
  sets: readonly CatalogSetInput[];
  /** Read once, in order; keys are unique (the importer checked). */
  cards: Iterable<CatalogCardInput>;
  cardCount: number;
  /** Rows written so far (sets and cards), after each batch. */
  onProgress?: (written: number, total: number) => void;
  /**
   * The catalog as the importer found it before reading its files (null: absent), whose sets
   * the rows were read against: the import is refused (`CatalogChangedDuringImport`) if another
   * import changed the catalog since. Left out, the check starts at `applyImport`'s own read.
   */
  readAs?: { id: string; version: number } | null;
  /** Cards of this import's source that its file lacks are removed, with their prices and reference images (`--remove-missing`). */
  removeMissing?: boolean;
  /** With `removeMissing`: remove them however many (`--force`); else more than a tenth of the format's cards (over 10) is refused. */
  force?: boolean;
  /**
   * Called once every row is staged and what the import would change is known, before the transaction that writes it
   * (so a question it asks holds no lock): false writes nothing and `applyImport` throws `ImportNotWritten` with the
   * plan (a dry run); a throw writes nothing either (a question answered no).
   */
  beforeWrite?: (plan: CatalogImportPlan) => Promise<boolean>;
}

/** What an import would do, decided after staging and before writing: the outcome's counts, and the catalog as it would be. */
export interface CatalogImportPlan {
  createdCatalog: boolean;
  /** The catalog's version, cards and sets once written. */
  version: number;
  cardCount: number;
  setCount: number;
  sets: RowCounts;
  cards: RowCounts;
  notInFile: number;
  notInFileAlike: number;
  removed: { cards: number; prices: number; images: number };
  /** With `removeMissing`: the first few cards it removes, by key. */
  removedExamples: { key: string; name: string; number: string | null; setCode: string | null }[];
}

/** How many of the cards an import would remove `CatalogImportPlan.removedExamples` lists. */
const removedExampleCount = 5;

export interface CatalogImportOutcome {
  catalog: CatalogSummary;
  /** Whether this import made the catalog. */
  createdCatalog: boolean;
  sets: RowCounts;
  cards: RowCounts;
  /** Cards the catalog held from this import's source that its file does not: kept, as an import only adds and updates (h103). */
  notInFile: number;
  /** Of those, cards with the name and number of a card this import created under another key (a set renamed in a checklist: its every card made again). */
  notInFileAlike: number;
  /** With `removeMissing`: the cards not in the file removed (then `notInFile` is 0), and their prices and reference images. */
  removed: { cards: number; prices: number; images: number };
}

/** A name found by text search, with how many of the catalog's cards bear it. */
export interface NameMatch {
  name: string;
  nameNorm: string;
  cards: number;
  /**
   * Higher is closer. The engine's own measure, so comparable within one result only: BM25 over
   * the shared trigrams on SQLite (unbounded), trigram similarity on PostgreSQL (0–1); for a query
   * under 3 characters, on both, the share of the name the query covers as its start (1 = exact).
   */
  score: number;
}

/** Folded queries longer than this are cut: a card name is shorter, and each character is a trigram to look up. */
const maxQueryChars = 64;

/**
 * pg_trgm similarity below which a name is no candidate. Measured on the full MTG names with two
 * letters replaced (bench/catalog-search.ts): 0.3 (pg_trgm's default) keeps the right name in the
 * top 3 for 90 % of names, 0.2 for 98 %, 0.1 for 99 % at a few ms a search; SQLite's OR of
 * trigrams has no floor (any shared trigram makes a candidate).
 */
const pgSimilarityFloor = 0.1;

/** The catalog exists with another kind of cards. */
export class CatalogKindConflict extends Error {
  constructor(
    readonly catalog: string,
    readonly kind: string,
  ) {
    super(`catalog ${catalog} holds ${kind} cards`);
  }
}

/**
 * Another import (of cards, sets or reference images: each moves the version) changed the
 * catalog between this import's read of it and its write: nothing was written.
 */
export class CatalogChangedDuringImport extends Error {
  constructor(readonly catalog: string) {
    super(`catalog ${catalog} was changed by another import while this one ran`);
  }
}

/** `beforeWrite` answered false: nothing was written; `plan` is what the import would have done. */
export class ImportNotWritten extends Error {
  constructor(readonly plan: CatalogImportPlan) {
    super('import planned, not written');
  }
}

/** `--remove-missing` would take more than a tenth of the format's cards: a file holding part of the catalog, most likely. */
export class RemoveMissingRefused extends Error {
  constructor(
    readonly catalog: string,
    readonly source: string,
    readonly missing: number,
    readonly total: number,
  ) {
    super(`--remove-missing would remove ${missing} of the ${total} cards of format ${source} in catalog ${catalog}`);
  }
}

/** Whether the catalog read first (null: absent) is still the one found now; an empty catalog made meanwhile counts as absent. */
function sameCatalog(first: { id: string; version: number } | null, now: CatalogSummary | null): boolean {
  if (first === null) return now === null || (now.version === 0 && now.cards === 0);
  return now !== null && now.id === first.id && now.version === first.version;
}

/**
 * Rows per INSERT: 19 parameters each keeps a batch far under SQLite's 32,766 and PostgreSQL's
 * 65,535 bound parameters, and a batch of large MTG rows under a few MB of SQL.
 */
const batchRows = 500;

const hashOf = (value: unknown): string => createHash('sha1').update(JSON.stringify(value)).digest('base64url');

/**
 * What makes a card not in the file alike to one the file made, likely the same card under a new key:
 * its name, number and year; for a comic its title, volume and variant too, since its volumes and
 * variant covers share series name and issue number and mostly have no year (Thor (1998) #32 and
 * Thor (2020) #32, h136, h143: Marvel's two files counted 12 variant covers alike).
 */
function alikeKey(nameNorm: string, numberNorm: string | null, year: string | null, fields?: unknown): string {
  const base = `${nameNorm}|${numberNorm ?? ''}|${year ?? ''}`;
  if (fields === undefined) return base;
  const f = (typeof fields === 'string' ? fromJson<Record<string, unknown>>(fields) : fields) as Record<string, unknown> | null;
  const text = (k: string) => (typeof f?.[k] === 'string' || typeof f?.[k] === 'number' ? String(f[k]) : '');
  return `${base}|${normalizeName(text('title'))}|${text('origin_date')}|${normalizeName(text('variant'))}`;
}

const emptyCounts = (): RowCounts => ({ created: 0, updated: 0, unchanged: 0, kept: 0 });

/** Catalogs, their sets and cards, on SQLite or PostgreSQL. */
export class CatalogStore {
  constructor(readonly store: Store) {}

  private get db(): Kysely<Database> {
    return this.store.db;
  }

  private toSummary(r: Selectable<CatalogsTable>): CatalogSummary {
    return {
      id: r.id,
      name: r.name,
      kind: r.kind,
      version: Number(r.version),
      cards: Number(r.card_count),
      sets: Number(r.set_count),
      createdAt: toIso(r.created_at),
      updatedAt: toIso(r.updated_at),
    };
  }

  async list(): Promise<CatalogSummary[]> {
    const rows = await this.db.selectFrom('catalogs').selectAll().orderBy('name').execute();
    return rows.map((r) => this.toSummary(r));
  }

  async get(name: string): Promise<CatalogSummary | null> {
    const row = await this.db.selectFrom('catalogs').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? this.toSummary(row) : null;
  }

  /**
   * Deletes the catalog of that name with its sets, cards, names, prices and reference artworks (the
   * tables' cascades); its summary as it was, or null when there is none.
   */
  async delete(name: string): Promise<CatalogSummary | null> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('catalogs').selectAll().where('name', '=', name).executeTakeFirst();
      if (!row) return null;
      await trx.deleteFrom('catalogs').where('id', '=', row.id).execute();
      return this.toSummary(row);
    });
  }

  /** The catalog of that name, made empty if it does not exist yet. */
  async create(name: string, kind: string): Promise<CatalogSummary> {
    return this.db.transaction().execute(async (trx) => (await this.claim(trx, name, kind)).catalog);
  }

  /** Inserts the catalog row if missing, then reads it (locked on PostgreSQL, so imports into one catalog take turns). */
  private async claim(trx: Transaction<Database>, name: string, kind: string): Promise<{ catalog: CatalogSummary; created: boolean }> {
    const now = new Date().toISOString();
    const inserted = await trx
      .insertInto('catalogs')
      .values({ id: randomUUID(), name, kind, version: 0, card_count: 0, set_count: 0, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    let q = trx.selectFrom('catalogs').selectAll().where('name', '=', name);
    if (this.store.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirstOrThrow();
    if (row.kind !== kind) throw new CatalogKindConflict(name, row.kind);
    return { catalog: this.toSummary(row), created: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 };
  }

  async sets(catalogId: string): Promise<StoredSet[]> {
    const rows = await this.db.selectFrom('catalog_sets').selectAll().where('catalog_id', '=', catalogId).orderBy('code').execute();
    return rows.map((r) => this.toSet(r));
  }

  private toSet(r: Selectable<CatalogSetsTable>): StoredSet {
    return {
      code: r.code,
      name: r.name,
      series: r.series,
      printedTotal: r.printed_total === null ? null : Number(r.printed_total),
      total: r.total === null ? null : Number(r.total),
      releaseDate: r.release_date,
      extra: fromJson(r.extra),
      source: r.source,
    };
  }

  private toCard(r: Selectable<CatalogCardsTable>): StoredCard {
    return {
      key: r.card_key,
      name: r.name,
      nameNorm: r.name_norm,
      setCode: r.set_code,
      setName: r.set_name,
      number: r.number,
      numberNorm: r.number_norm,
      rarity: r.rarity,
      year: r.year,
      fields: fromJson(r.fields),
      links: fromJson(r.links),
      aliases: fromJson(r.aliases),
      flags: fromJson(r.flags),
      source: r.source,
      createdAt: toIso(r.created_at),
      updatedAt: toIso(r.updated_at),
    };
  }

  async card(catalogId: string, key: string): Promise<StoredCard | null> {
    const row = await this.db.selectFrom('catalog_cards').selectAll().where('catalog_id', '=', catalogId).where('card_key', '=', key).executeTakeFirst();
    return row ? this.toCard(row) : null;
  }

  /** Cards in key order after `after`, for walking a whole catalog in pages (index builds, exports). */
  async cards(catalogId: string, options: { after?: string; limit: number; setCode?: string | readonly string[] | undefined; setName?: string | undefined }): Promise<StoredCard[]> {
    let q = this.db.selectFrom('catalog_cards').selectAll().where('catalog_id', '=', catalogId);
    if (options.after !== undefined) q = q.where('card_key', '>', options.after);
    if (options.setCode !== undefined) q = typeof options.setCode === 'string' ? q.where('set_code', '=', options.setCode) : q.where('set_code', 'in', [...options.setCode]);
    if (options.setName !== undefined) q = q.where('set_name', '=', options.setName);
    const rows = await q.orderBy('card_key').limit(options.limit).execute();
    return rows.map((r) => this.toCard(r));
  }

  /**
   * Every card key of a catalog and every alias (MTGJSON face uuids) with the key it names, for
   * joining an external file's ids to cards in one pass (price imports).
   */
  async cardIdentities(catalogId: string): Promise<{ keys: Set<string>; aliases: Map<string, string> }> {
    const rows = await this.db.selectFrom('catalog_cards').select(['card_key', 'aliases']).where('catalog_id', '=', catalogId).execute();
    const keys = new Set<string>();
    const aliases = new Map<string, string>();
    for (const r of rows) {
      keys.add(r.card_key);
      for (const a of fromJson<string[]>(r.aliases)) aliases.set(a, r.card_key);
    }
    return { keys, aliases };
  }

  /**
   * Cards an outside id names: the card's key (`sv3pt5-1`, a Scryfall id), one of its aliases (an
   * MTGJSON face uuid), or the Gatherer multiverse id its Gatherer link carries. Read with the
   * engines' JSON operators: SQLite's json_each and json_extract, PostgreSQL's jsonb containment.
   */
  async cardsByIdentifier(catalogId: string, id: string): Promise<StoredCard[]> {
    const gatherer = `%multiverseid=${id}`;
    const rows = await this.db
      .selectFrom('catalog_cards')
      .selectAll()
      .where('catalog_id', '=', catalogId)
      .where((eb) => {
        const pg = this.store.dialect === 'postgres';
        const named = [eb('card_key', '=', id), pg ? eb(sql<boolean>`aliases @> jsonb_build_array(${id}::text)`, '=', true) : eb.exists(sql`(SELECT 1 FROM json_each(catalog_cards.aliases) WHERE value = ${id})`)];
        // a multiverse id is digits only, so it cannot carry LIKE's wildcards
        if (/^\d{1,12}$/.test(id)) named.push(eb(pg ? sql<string>`links->>'gatherer'` : sql<string>`json_extract(links, '$.gatherer')`, 'like', gatherer));
        return eb.or(named);
      })
      .orderBy('card_key')
      .limit(20)
      .execute();
    return rows.map((r) => this.toCard(r));
  }

  /** Whether any card of the catalog is in the set `setCode` (exactly as stored). */
  async holdsSet(catalogId: string, setCode: string): Promise<boolean> {
    const row = await this.db.selectFrom('catalog_cards').select('card_key').where('catalog_id', '=', catalogId).where('set_code', '=', setCode).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** The distinct set codes and set names on the catalog's cards (for catalogs without a sets table: Yu-Gi-Oh!, sport checklists, comics). */
  async cardSets(catalogId: string): Promise<{ code: string | null; name: string | null }[]> {
    const rows = await this.db.selectFrom('catalog_cards').select(['set_code', 'set_name']).distinct().where('catalog_id', '=', catalogId).execute();
    return rows.map((r) => ({ code: r.set_code, name: r.set_name }));
  }

  /** Cards whose folded number is `numberNorm` (`numberKey` of catalog/card-keys.ts), optionally in one set; exact. */
  async cardsByNumber(catalogId: string, numberNorm: string, options: { setCode?: string | readonly string[] | undefined; setName?: string | undefined } = {}): Promise<StoredCard[]> {
    let q = this.db.selectFrom('catalog_cards').selectAll().where('catalog_id', '=', catalogId).where('number_norm', '=', numberNorm);
    if (options.setCode !== undefined) q = typeof options.setCode === 'string' ? q.where('set_code', '=', options.setCode) : q.where('set_code', 'in', [...options.setCode]);
    if (options.setName !== undefined) q = q.where('set_name', '=', options.setName);
    const rows = await q.orderBy('card_key').execute();
    return rows.map((r) => this.toCard(r));
  }

  /** Cards whose folded name is `nameNorm` (a `NameMatch.nameNorm`), optionally in one set; exact. */
  async cardsByName(catalogId: string, nameNorm: string, options: { setCode?: string | readonly string[] | undefined; setName?: string | undefined; limit?: number } = {}): Promise<StoredCard[]> {
    let q = this.db.selectFrom('catalog_cards').selectAll().where('catalog_id', '=', catalogId).where('name_norm', '=', nameNorm);
    if (options.setCode !== undefined) q = typeof options.setCode === 'string' ? q.where('set_code', '=', options.setCode) : q.where('set_code', 'in', [...options.setCode]);
    if (options.setName !== undefined) q = q.where('set_name', '=', options.setName);
    const rows = await q.orderBy('card_key').limit(options.limit ?? 1000).execute();
    return rows.map((r) => this.toCard(r));
  }

  /**
   * The catalog's names closest to `text` (as OCR read it: folded here like the catalog's names,
   * so case, accents, spaces and punctuation do not count), best first, by the engine's trigram
   * index: FTS5 `trigram` with BM25 on SQLite, pg_trgm's similarity on PostgreSQL. Every trigram
   * of the query is a separate term, so a name still matches when a typo breaks some of them.
   * Trigrams need 3 characters: a shorter query finds the names it starts (an exact name first).
   */
  async searchNames(catalogId: string, text: string, options: { limit?: number } = {}): Promise<NameMatch[]> {
    const limit = Math.max(1, Math.min(Math.floor(options.limit ?? 10), 200));
    const query = [...normalizeName(text)].slice(0, maxQueryChars).join('');
    const chars = [...query].length;
    if (chars === 0) return [];
    if (chars < 3) return this.namesStartingWith(catalogId, query, chars, limit);
    if (this.store.dialect === 'sqlite') {
      // The text each name is indexed under is padded like pg_trgm's words (migration 005); so is the query.
      const padded = [...`  ${query} `];
      const terms = new Set<string>();
      for (let i = 0; i + 3 <= padded.length; i++) terms.add(padded.slice(i, i + 3).join(''));
      const match = [...terms].map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
      const { rows } = await sql<{ name: string; name_norm: string; card_count: number; rank: number }>`
        SELECT n.name, n.name_norm, n.card_count, bm25(catalog_names_fts) AS rank
        FROM catalog_names_fts JOIN catalog_names n ON n.id = catalog_names_fts.rowid
        WHERE catalog_names_fts MATCH ${match} AND n.catalog_id = ${catalogId}
        ORDER BY rank, n.name_norm
        LIMIT ${limit}`.execute(this.db);
      return rows.map((r) => ({ name: r.name, nameNorm: r.name_norm, cards: Number(r.card_count), score: -Number(r.rank) }));
    }
    // pg_trgm's `%` takes its threshold from a setting; set_config(…, true) scopes it to this transaction.
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('pg_trgm.similarity_threshold', ${String(pgSimilarityFloor)}, true)`.execute(trx);
      const { rows } = await sql<{ name: string; name_norm: string; card_count: number; score: number }>`
        SELECT name, name_norm, card_count, similarity(name_norm, ${query}) AS score
        FROM catalog_names
        WHERE catalog_id = ${catalogId} AND name_norm % ${query}
        ORDER BY score DESC, name_norm
        LIMIT ${limit}`.execute(trx);
      return rows.map((r) => ({ name: r.name, nameNorm: r.name_norm, cards: Number(r.card_count), score: Number(r.score) }));
    });
  }

  private async namesStartingWith(catalogId: string, query: string, chars: number, limit: number): Promise<NameMatch[]> {
    const rows = await this.db
      .selectFrom('catalog_names')
      .select(['name', 'name_norm', 'card_count'])
      .where('catalog_id', '=', catalogId)
      .where(sql<string>`substr(name_norm, 1, ${chars})`, '=', query)
      .orderBy(sql`length(name_norm)`)
      .orderBy('name_norm')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ name: r.name, nameNorm: r.name_norm, cards: Number(r.card_count), score: chars / [...r.name_norm].length }));
  }

  /**
   * Writes one import so that the catalog is either as it was or fully updated, while holding
   * SQLite's one write lock only briefly. What the catalog holds is read first, outside any
   * transaction, and the rows to write are decided against it: unchanged rows (same content hash)
   * are not written, a row from a more complete source is not replaced. The card rows to write
   * are staged in `catalog_import_rows` by short statements; then one transaction checks that no
   * other import changed the catalog meanwhile (`CatalogChangedDuringImport` otherwise), writes
   * the sets, moves the staged cards in with one INSERT … SELECT, refreshes the names and moves the
   * version when any row was written. The staged rows go whatever happens.
   */
  async applyImport(input: CatalogImport): Promise<CatalogImportOutcome> {
    const now = new Date().toISOString();
    const total = input.sets.length + input.cardCount;
    let written = 0;
    const progress = (n: number) => {
      written += n;
      input.onProgress?.(written, total);
    };

    const before = await this.get(input.catalog);
    if (before && before.kind !== input.kind) throw new CatalogKindConflict(before.name, before.kind);
    if (input.readAs !== undefined && !sameCatalog(input.readAs, before)) throw new CatalogChangedDuringImport(input.catalog);
    const existingSets = new Map(before ? (await this.db.selectFrom('catalog_sets').select(['code', 'content_hash', 'source_rank']).where('catalog_id', '=', before.id).execute()).map((r) => [r.code, r]) : []);
    const sets = emptyCounts();
    const setRows: Omit<Insertable<CatalogSetsTable>, 'catalog_id'>[] = [];
    for (const s of input.sets) {
      const content_hash = hashOf([input.source, s.code, s.name, s.series, s.printedTotal, s.total, s.releaseDate, s.extra]);
      const was = existingSets.get(s.code);
      if (was && Number(was.source_rank) > input.rank) sets.kept++;
      else if (was && was.content_hash === content_hash) sets.unchanged++;
      else {
        if (was) sets.updated++;
        else sets.created++;
        setRows.push({
          code: s.code,
          name: s.name,
          series: s.series,
          printed_total: s.printedTotal,
          total: s.total,
          release_date: s.releaseDate,
          extra: JSON.stringify(s.extra),
          source: input.source,
          source_rank: input.rank,
          content_hash,
          created_at: now,
          updated_at: now,
        });
      }
    }

    const inFile = new Set<string>();
    const existingCards = new Map(before ? (await this.db.selectFrom('catalog_cards').select(['card_key', 'content_hash', 'source_rank', 'name_norm', 'number_norm', 'year', 'aliases', 'links', 'source', ...(input.kind === 'comics' ? (['fields'] as const) : [])]).where('catalog_id', '=', before.id).execute()).map((r) => [r.card_key, r]) : []);
    return withStagedImport(this.db, 'catalog_import_rows', async (importId) => {
      // Names a card had before this import renamed it: they go from the search rows if no card bears them any more.
      const renamedFrom = new Set<string>();
      // a new card's name and number: one not in the file with the same is likely the same card under a new key, where
      // keys are made of set names (sports checklists, comics, a CSV without a key column); a Pokémon or Magic id is
      // the source's own, and reprints share names and numbers (2ED and LEB, MID and DBL: false alarms, h135)
      const createdAs = new Set<string>();
      const keyedByName = input.keyedByName === true;
      const cards = emptyCounts();
      let staged = 0;
      let batch: Insertable<CatalogImportRowsTable>[] = [];
      let skipped = 0;
      const flush = async () => {
        if (batch.length) await this.db.insertInto('catalog_import_rows').values(batch).execute();
        staged += batch.length;
        const done = batch.length + skipped;
        batch = [];
        skipped = 0;
        await betweenBatches();
        progress(done);
      };
      for (const c of input.cards) {
        inFile.add(c.key);
        const was = existingCards.get(c.key);
        // A row replaced keeps what only the earlier import knew: its aliases (an MTGJSON uuid, which price files
        // name cards by) and its links, beside the new ones (a Scryfall file imported over MTGJSON lost both, and
        // would again on its next re-import, the row then Scryfall's); the new links win. So an alias or link,
        // once known, stays: none is ever taken back by an import.
        const oldAliases = was ? fromJson<unknown>(was.aliases) : null;
        const oldLinks = was ? fromJson<unknown>(was.links) : null;
        const extraAliases = Array.isArray(oldAliases) ? oldAliases.filter((a): a is string => typeof a === 'string' && !c.aliases.includes(a)).sort() : [];
        const mergedAliases = extraAliases.length ? [...c.aliases, ...extraAliases] : c.aliases;
        // the new source's keys in its own order, then the old ones it lacks: a re-import of the same file hashes as
        // before (PostgreSQL's jsonb hands keys back in its own order)
        const extraLinks = oldLinks && typeof oldLinks === 'object' && !Array.isArray(oldLinks) ? Object.entries(oldLinks as Record<string, string>).filter(([k]) => !Object.hasOwn(c.links, k)) : [];
        const mergedLinks = extraLinks.length ? { ...c.links, ...Object.fromEntries(extraLinks.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) } : c.links;
        const fields = JSON.stringify(c.fields);
        const links = JSON.stringify(mergedLinks);
        const aliases = JSON.stringify(mergedAliases);
        const flags = JSON.stringify(c.flags);
        const content_hash = cardContentHash(input.source, c, c.nameNorm, [fields, links, aliases, flags]);
        if (was && Number(was.source_rank) > input.rank) {
          cards.kept++;
          skipped++;
        } else if (was && (was.content_hash === content_hash || (was.name_norm === c.nameNorm && hashesBefore(input.source, c, [fields, links, aliases, flags]).includes(was.content_hash)))) {
          cards.unchanged++;
          skipped++;
        } else {
          if (was) {
            cards.updated++;
            if (was.name_norm !== c.nameNorm) renamedFrom.add(was.name_norm);
          } else {
            cards.created++;
            createdAs.add(alikeKey(c.nameNorm, c.numberNorm, c.year, input.kind === 'comics' ? c.fields : undefined));
          }
          batch.push({ import_id: importId, card_key: c.key, set_code: c.setCode, set_name: c.setName, name: c.name, name_norm: c.nameNorm, number: c.number, number_norm: c.numberNorm, rarity: c.rarity, year: c.year, fields, links, aliases, flags, content_hash, created_at: now });
        }
        if (batch.length + skipped >= batchRows) await flush();
      }
      await flush();

      let notInFile = 0;
      let notInFileAlike = 0;
      const missing: string[] = [];
      // of this file's own source only: a catalog of two files (MTGJSON printings and its supplement) holds the other's
      for (const [key, row] of existingCards) {
        if (inFile.has(key) || row.source !== input.source) continue;
        missing.push(key);
        if (input.removeMissing) renamedFrom.add(row.name_norm);
        else if (keyedByName && createdAs.has(alikeKey(row.name_norm, row.number_norm, row.year, input.kind === 'comics' ? (row as { fields?: unknown }).fields : undefined))) notInFileAlike++;
      }
      if (!input.removeMissing) notInFile = missing.length;
      // a file holding part of the catalog (one of several files of a format, Marvel's comics and its recent issues;
      // one set of a checklist) would take the rest with it: more than a tenth of the format's cards (over 10) is refused
      // without --force, nothing written (h143: the file's own size was no measure, either way)
      const ofFormat = [...existingCards.values()].filter((r) => r.source === input.source).length;
      if (input.removeMissing && !input.force && missing.length > 10 && missing.length > 0.1 * ofFormat) throw new RemoveMissingRefused(input.catalog, input.source, missing.length, ofFormat);
      // decided against the catalog as read before staging; the transaction checks it is still that one (sameCatalog),
      // so what is planned here, and shown to a person before a removal, is what is written
      if (input.beforeWrite) {
        const removing = input.removeMissing ? missing : [];
        const changes = sets.created + sets.updated + cards.created + cards.updated + removing.length > 0;
        const version = before?.version ?? 0;
        const plan: CatalogImportPlan = {
          createdCatalog: before === null,
          version: changes ? version + 1 : version,
          cardCount: existingCards.size + cards.created - removing.length,
          setCount: existingSets.size + sets.created,
          sets,
          cards,
          notInFile,
          notInFileAlike,
          removed: { cards: removing.length, ...(before && removing.length ? await this.removedWith(before.id, removing) : { prices: 0, images: 0 }) },
          removedExamples: before && removing.length ? await this.cardsByKey(before.id, [...removing].sort().slice(0, removedExampleCount)) : [],
        };
        if (!(await input.beforeWrite(plan))) {
          progress(input.sets.length);
          throw new ImportNotWritten(plan);
        }
      }

      return await this.db.transaction().execute(async (trx) => {
        const { catalog, created } = await this.claim(trx, input.catalog, input.kind);
        if (!sameCatalog(before, catalog)) throw new CatalogChangedDuringImport(input.catalog);
        for (let i = 0; i < setRows.length; i += batchRows) {
          await trx
            .insertInto('catalog_sets')
            .values(setRows.slice(i, i + batchRows).map((r) => ({ ...r, catalog_id: catalog.id })))
            .onConflict((oc) =>
              oc.columns(['catalog_id', 'code']).doUpdateSet((eb) => ({
                name: eb.ref('excluded.name'),
                series: eb.ref('excluded.series'),
                printed_total: eb.ref('excluded.printed_total'),
                total: eb.ref('excluded.total'),
                release_date: eb.ref('excluded.release_date'),
                extra: eb.ref('excluded.extra'),
                source: eb.ref('excluded.source'),
                source_rank: eb.ref('excluded.source_rank'),
                content_hash: eb.ref('excluded.content_hash'),
                updated_at: eb.ref('excluded.updated_at'),
              })),
            )
            .execute();
        }
        if (staged > 0) {
          const moved = await this.moveStagedCards(trx, importId, catalog.id, input.source, input.rank, now);
          if (moved !== staged) throw new Error(`import ${importId}: ${staged} card rows staged, ${moved} found to write`);
        }
        progress(input.sets.length);

        const removed = { cards: 0, prices: 0, images: 0 };
        if (input.removeMissing) {
          for (let i = 0; i < missing.length; i += batchRows) {
            const keys = missing.slice(i, i + batchRows);
            removed.cards += Number((await trx.deleteFrom('catalog_cards').where('catalog_id', '=', catalog.id).where('card_key', 'in', keys).executeTakeFirst()).numDeletedRows);
            removed.prices += Number((await trx.deleteFrom('catalog_prices').where('catalog_id', '=', catalog.id).where('card_key', 'in', keys).executeTakeFirst()).numDeletedRows);
            removed.images += Number((await trx.deleteFrom('catalog_images').where('catalog_id', '=', catalog.id).where('card_key', 'in', keys).executeTakeFirst()).numDeletedRows);
          }
        }

        if (cards.created + cards.updated + removed.cards > 0) await refreshCatalogNames(trx, this.store.dialect, catalog.id, [...renamedFrom]);

        const changed = sets.created + sets.updated + cards.created + cards.updated + removed.cards > 0;
        const row = await trx
          .updateTable('catalogs')
          .set({
            version: changed ? catalog.version + 1 : catalog.version,
            card_count: existingCards.size + cards.created - removed.cards,
            set_count: existingSets.size + sets.created,
            ...(changed ? { updated_at: now } : {}),
          })
          .where('id', '=', catalog.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return { catalog: this.toSummary(row), createdCatalog: created, sets, cards, notInFile, notInFileAlike, removed };
      });
    });
  }

  /** The prices and reference images the cards of these keys hold: what removing them takes with them. */
  private async removedWith(catalogId: string, keys: readonly string[]): Promise<{ prices: number; images: number }> {
    const counted = { prices: 0, images: 0 };
    for (let i = 0; i < keys.length; i += batchRows) {
      const batch = keys.slice(i, i + batchRows);
      const [prices, images] = await Promise.all(
        (['catalog_prices', 'catalog_images'] as const).map(async (table) => Number((await this.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('catalog_id', '=', catalogId).where('card_key', 'in', batch).executeTakeFirstOrThrow()).n)),
      );
      counted.prices += prices!;
      counted.images += images!;
    }
    return counted;
  }

  /** The cards of these keys, by key, with what names them to a person. */
  private async cardsByKey(catalogId: string, keys: readonly string[]): Promise<CatalogImportPlan['removedExamples']> {
    const rows = await this.db.selectFrom('catalog_cards').select(['card_key', 'name', 'number', 'set_code']).where('catalog_id', '=', catalogId).where('card_key', 'in', keys).execute();
    // in the order given (the engines' collations order keys differently)
    const at = new Map(keys.map((k, i) => [k, i]));
    return rows.sort((a, b) => at.get(a.card_key)! - at.get(b.card_key)!).map((r) => ({ key: r.card_key, name: r.name, number: r.number, setCode: r.set_code }));
  }

  /**
   * The staged rows of one import into the catalog's cards, in one statement, so the work under
   * the write lock is SQLite's (or PostgreSQL's) own. Returns the rows inserted or updated.
   */
  private async moveStagedCards(trx: Transaction<Database>, importId: string, catalogId: string, source: string, rank: number, now: string): Promise<number> {
    const typed = (value: string | number, type: Parameters<typeof selectedValue>[2]) => selectedValue(this.store.dialect, value, type);
    const result = await sql`
      INSERT INTO catalog_cards (catalog_id, card_key, set_code, set_name, name, name_norm, number, number_norm, rarity, year,
                                 fields, links, aliases, flags, source, source_rank, content_hash, created_at, updated_at)
      SELECT ${typed(catalogId, 'uuid')}, card_key, set_code, set_name, name, name_norm, number, number_norm, rarity, year,
             fields, links, aliases, flags, ${typed(source, 'text')}, ${typed(rank, 'integer')}, content_hash, ${typed(now, 'timestamptz')}, ${typed(now, 'timestamptz')}
      FROM catalog_import_rows WHERE import_id = ${importId}
      ON CONFLICT (catalog_id, card_key) DO UPDATE SET
        set_code = excluded.set_code, set_name = excluded.set_name, name = excluded.name, name_norm = excluded.name_norm,
        number = excluded.number, number_norm = excluded.number_norm, rarity = excluded.rarity, year = excluded.year,
        fields = excluded.fields, links = excluded.links, aliases = excluded.aliases, flags = excluded.flags,
        source = excluded.source, source_rank = excluded.source_rank, content_hash = excluded.content_hash, updated_at = excluded.updated_at`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  }
}


type CardHashed = { key: string; name: string; setCode: string | null; setName: string | null; number: string | null; numberNorm: string | null; rarity: string | null; year: string | null };

/** What an import compares to tell a card unchanged: its source and every stored value, `fields` to `flags` as JSON. */
export function cardContentHash(source: string, c: CardHashed, nameNorm: string, [fields, links, aliases, flags]: readonly [string, string, string, string]): string {
  return hashOf([source, c.key, c.name, nameNorm, c.setCode, c.setName, c.number, c.numberNorm, c.rarity, c.year, fields, links, aliases, flags]);
}

/**
 * The content hashes a card's row may hold from releases that folded names otherwise (before 032: a kana's voiced
 * marks dropped; before 035: Latin strokes kept). The migrations folded stored names again but left their hashes, so
 * the next import of an unchanged file counted those cards updated and moved the catalog's version (h160): such a row
 * is unchanged.
 */
export function hashesBefore(source: string, c: CardHashed & { nameNorm: string }, json: readonly [string, string, string, string]): string[] {
  return [normalizeNameBefore032(c.name), normalizeNameBefore035(c.name)].filter((n, i, all) => n !== c.nameNorm && all.indexOf(n) === i).map((n) => cardContentHash(source, c, n, json));
}
