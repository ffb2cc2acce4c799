import { createHash } from 'node:crypto';
import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import {
  LINE_FENCE,
  PRICE_CURRENCY,
  PRICE_STATS_SETS,
  TRIM_DIVISOR,
  exactMean,
  finishStats,
  slabFilter,
  usableRates,
  type PriceStatsEntry,
  type PriceStatsOptions,
  type PriceStatsType,
  type RawPriceStats,
} from '../catalog/price-stats.ts';
import type { CatalogPriceImportRowsTable, CatalogPricesTable, Database, Store } from './database.ts';
import { fromBool, fromJson, toIso } from './database.ts';
import { betweenBatches, selectedValue, withStagedImport } from './import-staging.ts';

/** One dated price of one catalog card, as an import hands it over. */
export interface PriceInput {
  /** Unique in the catalog, source included: a re-import with the same key updates. */
  rowKey: string;
  cardKey: string;
  source: string;
  /** `YYYY-MM-DD`. */
  date: string;
  price: number;
  /** `USD`, or `TIX` for MTGO event tickets: never mixed. */
  currency: string;
  graded: boolean;
  grade: string | null;
  qualifier: string | null;
  volume: number | null;
  extra: Record<string, unknown>;
}

/** A stored price; the fields `price-stats.ts` reads (date, price, graded, currency) among them. */
export interface StoredPrice extends PriceInput {
  updatedAt: string;
}

export interface PriceImport {
  catalogId: string;
  /** Rows of one source; keys are unique (the importer checked). */
  rows: readonly PriceInput[];
  /** Rows written so far, after each batch. */
  onProgress?: (written: number, total: number) => void;
  /** Sales deleted with `loupe prices delete --price` are imported again (and forgotten as deleted); else skipped. */
  restoreDeleted?: boolean;
  /** False where a row's key does not hold its day (`PriceLayout.datedKeys`): stored rows are read on every day of the file's cards. */
  datedKeys?: boolean;
}

export interface PriceImportOutcome {
  created: number;
  updated: number;
  unchanged: number;
  /**
   * Stored rows of a card, day and source the file holds, that the file does not: kept (a sale left out of a later
   * file of that day stays, docs/prices.md), and counted, so a corrected file's dropped sale is not taken for gone (h107).
   */
  not_in_file: number;
  /** Rows of the file that were deleted one by one (`loupe prices delete --price`): skipped, unless `restoreDeleted`. */
  deleted_before: number;
  /** The first such row, for the import's remark. */
  notInFileExample?: string;
  /** The catalog's price rows after the import, every source. */
  total: number;
}

/** 15 parameters a row: 500 rows stay far under both backends' bound-parameter limits. */
const batchRows = 500;

/** A sale's price as a deletion remembers it: `USD 1`, `EUR 15.5`. */
const priceText = (p: { price: number; currency: string }): string => `${p.currency} ${p.price}`;

/** A numbered sale's group, its key without the number (`…|USD|||#2` → `…|USD|||`); undefined for a key of no number. */
const groupOf = (rowKey: string): string | undefined => {
  const m = /^(.*)#\d+$/.exec(rowKey);
  return m ? m[1] : undefined;
};

const hashOf = (p: PriceInput): string =>
  createHash('sha1').update(JSON.stringify([p.cardKey, p.source, p.date, p.price, p.currency, p.graded, p.grade, p.qualifier, p.volume, p.extra])).digest('base64url');

/** Dated card prices on SQLite or PostgreSQL. */
export class PriceStore {
  constructor(readonly store: Store) {}

  private get db(): Kysely<Database> {
    return this.store.db;
  }

  /**
   * Writes one import's rows, upserting by (catalog, row key); rows whose content did not change
   * are not written. As for catalog imports (`CatalogStore.applyImport`), the rows to write are
   * decided outside any transaction and staged in `catalog_price_import_rows` by short statements,
   * then moved in with one INSERT … SELECT in one transaction: all or nothing, with SQLite's one
   * write lock held only for SQLite's own work. An upsert writes a row's whole content, so an
   * import meeting another of the same file writes the same rows; only its counts may differ.
   */
  async applyImport(input: PriceImport): Promise<PriceImportOutcome> {
    const sources = [...new Set(input.rows.map((r) => r.source))];
    const existing = new Map<string, string>();
    // the days of the file's cards (per source), to count stored rows of those days the file no longer holds; a
    // numbered sale (`…#2`) only against its own group (card, day, currency, grade, company): a file of another currency
    // or of graded sales alone was told of every stored price of its cards' days (h155)
    const fileDays = new Set(input.rows.map((r) => `${r.source}\u0000${r.cardKey}\u0000${r.date}`));
    const fileKeys = new Set(input.rows.map((r) => r.rowKey));
    const fileGroups = new Set(input.rows.map((r) => groupOf(r.rowKey)).filter((g): g is string => g !== undefined));
    // only the file's cards' stored rows: every stored row of the source was read, so a nightly import's time grew with
    // the prices kept (0.01 s at 3,000 rows, 0.8 s at 209,000 for the same 300-row file, h155)
    const cards = [...new Set(input.rows.map((r) => r.cardKey))];
    // and of the file's days, when it holds few (a night's file: one), by the index on (catalog, card, date)
    const days = [...new Set(input.rows.map((r) => r.date))];
    let notInFile = 0;
    let notInFileExample: string | undefined;
    for (const source of sources) {
      for (let i = 0; i < cards.length; i += batchRows) {
        const rows = await this.db
          .selectFrom('catalog_prices')
          .select(['row_key', 'content_hash', 'card_key', 'date'])
          .where('catalog_id', '=', input.catalogId)
          .where('source', '=', source)
          .where('card_key', 'in', cards.slice(i, i + batchRows))
          // a key that does not hold its day (a PSA lot moved to the next day by a corrected file) is looked for on
          // every day: it was counted as created, though its row was updated in place (h228)
          .$if(input.datedKeys !== false && days.length <= batchRows, (q) => q.where('date', 'in', days))
          .execute();
        for (const r of rows) {
          existing.set(r.row_key, r.content_hash);
          if (fileKeys.has(r.row_key)) continue;
          const group = groupOf(r.row_key);
          if (group !== undefined ? fileGroups.has(group) : fileDays.has(`${source}\u0000${r.card_key}\u0000${r.date}`)) {
            notInFile++;
            notInFileExample ??= `${r.card_key} on ${r.date}`;
          }
        }
      }
    }
    const now = new Date().toISOString();
    // a deleted sale is skipped when the file holds its price again in its place, whatever else changed beside it (a
    // volume, h156); another price there is a correction (h155)
    const deleted = new Map<string, string | null>();
    for (let i = 0; i < cards.length; i += batchRows) {
      const rows = await this.db.selectFrom('catalog_price_deletions').select(['row_key', 'deleted_prices']).where('catalog_id', '=', input.catalogId).where('card_key', 'in', cards.slice(i, i + batchRows)).execute();
      for (const r of rows) deleted.set(r.row_key, r.deleted_prices);
    }
    const deletedKeys = new Set(
      input.rows
        .filter((p) => {
          if (!deleted.has(p.rowKey)) return false;
          const prices = deleted.get(p.rowKey);
          return prices === null || prices!.split('\n').includes(priceText(p));
        })
        .map((p) => p.rowKey),
    );
    const outcome = { created: 0, updated: 0, unchanged: 0, not_in_file: notInFile, deleted_before: 0, ...(notInFileExample ? { notInFileExample } : {}) };
    const total = input.rows.length;
    let written = 0;
    let staged = 0;
    return withStagedImport(this.db, 'catalog_price_import_rows', async (importId) => {
      let batch: Insertable<CatalogPriceImportRowsTable>[] = [];
      let skipped = 0;
      const flush = async () => {
        if (batch.length) await this.db.insertInto('catalog_price_import_rows').values(batch).execute();
        staged += batch.length;
        written += batch.length + skipped;
        const any = batch.length + skipped > 0;
        batch = [];
        skipped = 0;
        await betweenBatches();
        if (any) input.onProgress?.(written, total);
      };
      for (const p of input.rows) {
        if (deletedKeys.has(p.rowKey) && !input.restoreDeleted) {
          outcome.deleted_before++;
          skipped++;
          continue;
        }
        const content_hash = hashOf(p);
        const before = existing.get(p.rowKey);
        if (before === content_hash) {
          outcome.unchanged++;
          skipped++;
        } else {
          if (before === undefined) outcome.created++;
          else outcome.updated++;
          batch.push({
            import_id: importId,
            row_key: p.rowKey,
            card_key: p.cardKey,
            source: p.source,
            date: p.date,
            price: p.price,
            currency: p.currency,
            graded: this.store.dialect === 'sqlite' ? Number(p.graded) : p.graded,
            grade: p.grade,
            qualifier: p.qualifier,
            volume: p.volume,
            extra: JSON.stringify(p.extra),
            content_hash,
            created_at: now,
          });
        }
        if (batch.length + skipped >= batchRows) await flush();
      }
      await flush();
      return await this.db.transaction().execute(async (trx) => {
        if (staged > 0) {
          const typed = (value: string, type: Parameters<typeof selectedValue>[2]) => selectedValue(this.store.dialect, value, type);
          const result = await sql`
            INSERT INTO catalog_prices (catalog_id, row_key, card_key, source, date, price, currency, graded, grade, qualifier, volume, extra, content_hash, created_at, updated_at)
            SELECT ${typed(input.catalogId, 'uuid')}, row_key, card_key, source, date, price, currency, graded, grade, qualifier, volume, extra, content_hash,
                   ${typed(now, 'timestamptz')}, ${typed(now, 'timestamptz')}
            FROM catalog_price_import_rows WHERE import_id = ${importId}
            ON CONFLICT (catalog_id, row_key) DO UPDATE SET
              card_key = excluded.card_key, source = excluded.source, date = excluded.date, price = excluded.price,
              currency = excluded.currency, graded = excluded.graded, grade = excluded.grade, qualifier = excluded.qualifier,
              volume = excluded.volume, extra = excluded.extra, content_hash = excluded.content_hash, updated_at = excluded.updated_at`.execute(trx);
          const moved = Number(result.numAffectedRows ?? 0);
          if (moved !== staged) throw new Error(`price import ${importId}: ${staged} rows staged, ${moved} found to write`);
        }
        // restored: no longer remembered as deleted
        // (only the price restored: another deleted at that place stays deleted, h158)
        if (input.restoreDeleted && deletedKeys.size) {
          const gone: string[] = [];
          for (const p of input.rows) {
            if (!deletedKeys.has(p.rowKey)) continue;
            const left = (deleted.get(p.rowKey) ?? '').split('\n').filter((t) => t !== '' && t !== priceText(p));
            if (!left.length) gone.push(p.rowKey);
            else await trx.updateTable('catalog_price_deletions').set({ deleted_prices: left.join('\n') }).where('catalog_id', '=', input.catalogId).where('row_key', '=', p.rowKey).execute();
          }
          for (let i = 0; i < gone.length; i += batchRows) await trx.deleteFrom('catalog_price_deletions').where('catalog_id', '=', input.catalogId).where('row_key', 'in', gone.slice(i, i + batchRows)).execute();
        }
        const { n } = await trx.selectFrom('catalog_prices').select((eb) => eb.fn.countAll<number>().as('n')).where('catalog_id', '=', input.catalogId).executeTakeFirstOrThrow();
        return { ...outcome, total: Number(n) };
      });
    });
  }

  private toPrice(r: Selectable<CatalogPricesTable>): StoredPrice {
    return {
      rowKey: r.row_key,
      cardKey: r.card_key,
      source: r.source,
      date: r.date,
      price: Number(r.price),
      currency: r.currency,
      graded: fromBool(r.graded) ?? false,
      grade: r.grade,
      qualifier: r.qualifier,
      volume: r.volume === null ? null : Number(r.volume),
      extra: fromJson(r.extra),
      updatedAt: toIso(r.updated_at),
    };
  }

  /**
   * The TCGplayer product each of these cards' imported prices name (TCGplayer's own price files
   * carry it), the one priced last where several are: the card's marketplace page, for catalogs
   * that carry no links of their own (the Pokémon data project's cards name none).
   */
  async tcgplayerProducts(catalogId: string, cardKeys: readonly string[]): Promise<Map<string, string>> {
    if (!cardKeys.length) return new Map();
    const product = this.store.dialect === 'postgres' ? sql<string | null>`extra ->> 'tcgplayer_product_id'` : sql<string | number | null>`json_extract(extra, '$.tcgplayer_product_id')`;
    const rows = await this.db
      .selectFrom('catalog_prices')
      .select(['card_key', product.as('product'), (eb) => eb.fn.max('date').as('last')])
      .where('catalog_id', '=', catalogId)
      .where('card_key', 'in', [...new Set(cardKeys)])
      .where(product, 'is not', null)
      .groupBy(['card_key', product])
      .orderBy('last', 'desc')
      .orderBy(product)
      .execute();
    const out = new Map<string, string>();
    for (const r of rows) {
      const id = String(r.product);
      if (!out.has(r.card_key) && /^\d{1,12}$/.test(id)) out.set(r.card_key, id);
    }
    return out;
  }

  /** The sources the cards' prices are stored under, as spelt, each card's oldest first (by the index on catalog and card). */
  async sourcesOf(catalogId: string, cardKeys: readonly string[]): Promise<{ cardKey: string; source: string }[]> {
    const out: { cardKey: string; source: string }[] = [];
    for (let i = 0; i < cardKeys.length; i += batchRows) {
      const rows = await this.db
        .selectFrom('catalog_prices')
        .select(['card_key', 'source'])
        .select((eb) => eb.fn.min('created_at').as('first'))
        .where('catalog_id', '=', catalogId)
        .where('card_key', 'in', cardKeys.slice(i, i + batchRows))
        .groupBy(['card_key', 'source'])
        .orderBy('card_key')
        .orderBy('first')
        .orderBy('source')
        .execute();
      for (const r of rows) out.push({ cardKey: r.card_key, source: r.source });
    }
    return out;
  }

  /** A card's prices, oldest first, every source and currency (price-stats keeps to USD itself). */
  async observations(catalogId: string, cardKey: string, options: { source?: string; currency?: string } = {}): Promise<StoredPrice[]> {
    let q = this.db.selectFrom('catalog_prices').selectAll().where('catalog_id', '=', catalogId).where('card_key', '=', cardKey);
    if (options.source !== undefined) q = q.where('source', '=', options.source);
    if (options.currency !== undefined) q = q.where('currency', '=', options.currency);
    const rows = await q.orderBy('date').orderBy('row_key').execute();
    return rows.map((r) => this.toPrice(r));
  }

  /**
   * `price_stats` of one card (spec 3 §2; every figure in docs/prices.md), computed in SQL by
   * the engine: PostgreSQL's `percentile_cont`, `stddev_samp`, `regr_slope` and `regr_r2`;
   * SQLite's `percentile_cont` and `median` with the deviations, regression and standard
   * deviations summed in the query (it has no such aggregates). The rounding and the forecast
   * are `finishStats`, shared with the TypeScript reference (`priceStats`) that both are tested
   * against. Empty when the card has no price in USD or in a currency with a rate.
   */
  async priceStats(catalogId: string, cardKey: string, options: PriceStatsOptions = {}): Promise<PriceStatsEntry[]> {
    const query = this.store.dialect === 'postgres' ? pgStatsQuery : sqliteStatsQuery;
    const { rows } = await query(catalogId, cardKey, options).execute(this.db);
    return rows.map((r) => ({
      stats_type: r.stats_type,
      interval: r.period,
      start_date: r.start_date,
      value: finishStats({
        n: Number(r.n),
        min: num(r.min),
        max: num(r.max),
        mean: exactMean(num(r.mean_micros), Number(r.n)),
        std: numOrNull(r.std),
        q1: num(r.q1),
        median: num(r.median),
        q3: num(r.q3),
        latest: num(r.latest),
        latest_date: r.latest_date,
        oldest: num(r.oldest),
        oldest_date: r.oldest_date,
        trimmed_mean: exactMean(num(r.trimmed_micros), Number(r.trimmed_n)),
        line_n: Number(r.line_n),
        line_mean: exactMean(num(r.line_micros), Number(r.line_n)),
        line_range: num(r.line_range),
        line_span: num(r.line_span),
        slope: numOrNull(r.slope),
        r2: numOrNull(r.r2),
        mean_x: num(r.mean_x),
        last_x: num(r.last_x),
        volatility: numOrNull(r.volatility),
        mixed: Number(r.kinds) > 1,
      }),
    }));
  }

  /** A card's prices that `priceStats` leaves out for want of a rate, counted by currency. */
  async leftOutCurrencies(catalogId: string, cardKey: string, options: PriceStatsOptions = {}): Promise<Record<string, number>> {
    const known = [PRICE_CURRENCY, ...usableRates(options.rates).map(([c]) => c)];
    const rows = await this.db
      .selectFrom('catalog_prices')
      .select((eb) => ['currency', eb.fn.countAll<number>().as('n')])
      .where('catalog_id', '=', catalogId)
      .where('card_key', '=', cardKey)
      .where('currency', 'not in', known)
      .groupBy('currency')
      .orderBy('currency')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.currency, Number(r.n)]));
  }

  /**
   * Deletes one card's prices, all or those of a day, a source and a price (`loupe prices delete`):
   * a wrong sale could not be taken out, since a file without it leaves the stored row as it was.
   * Returns how many went and how many of the card's prices are left.
   */
  async deleteCardPrices(catalogId: string, cardKey: string, only: { date?: string | undefined; source?: string | undefined; price?: number | undefined; currency?: string | undefined; graded?: boolean | undefined } = {}, dryRun = false): Promise<{ deleted: number; left: number }> {
    // a dry run is the same delete, rolled back: its counts are the real run's by construction, not a second query's
    let rolledBack: { deleted: number; left: number } | undefined;
    return this.db.transaction().execute(async (trx) => {
      let q = trx.deleteFrom('catalog_prices').where('catalog_id', '=', catalogId).where('card_key', '=', cardKey);
      if (only.date !== undefined) q = q.where('date', '=', only.date);
      // a source as a shop writes it: eBay or ebay (ASCII case, alike on both backends)
      if (only.source !== undefined) q = q.where(sql`lower(source)`, '=', only.source.toLowerCase());
      if (only.price !== undefined) q = q.where('price', '=', only.price);
      if (only.currency !== undefined) q = q.where('currency', '=', only.currency);
      if (only.graded !== undefined) q = q.where('graded', '=', this.store.dialect === 'sqlite' ? Number(only.graded) : only.graded);
      // a sale named by its price is a wrong one: remembered, so a re-import of its file does not bring it back (h145);
      // a day or a card deleted whole is to be made again from a file (the not_in_file remark's advice)
      const gone = await q.returning(['row_key', 'price', 'currency']).execute();
      const deleted = gone.length;
      if (only.price !== undefined && gone.length) {
        const now = new Date().toISOString();
        // every price deleted at a place is kept (h156: deleting a correction forgot the wrong sale deleted before it)
        for (const g of gone) {
          const text = priceText({ price: Number(g.price), currency: g.currency });
          const before = await trx.selectFrom('catalog_price_deletions').select('deleted_prices').where('catalog_id', '=', catalogId).where('row_key', '=', g.row_key).executeTakeFirst();
          if (!before) await trx.insertInto('catalog_price_deletions').values({ catalog_id: catalogId, row_key: g.row_key, card_key: cardKey, deleted_at: now, deleted_prices: text }).execute();
          else if (before.deleted_prices !== null && !before.deleted_prices.split('\n').includes(text)) {
            await trx.updateTable('catalog_price_deletions').set({ deleted_prices: `${before.deleted_prices}\n${text}`, deleted_at: now }).where('catalog_id', '=', catalogId).where('row_key', '=', g.row_key).execute();
          }
        }
      }
      const left = await trx.selectFrom('catalog_prices').select((eb) => eb.fn.countAll<number>().as('n')).where('catalog_id', '=', catalogId).where('card_key', '=', cardKey).executeTakeFirstOrThrow();
      const counts = { deleted, left: Number(left.n) };
      if (dryRun) {
        rolledBack = counts;
        throw new DryRunRollback();
      }
      return counts;
    }).catch((err: unknown) => {
      if (err instanceof DryRunRollback && rolledBack) return rolledBack;
      throw err;
    });
  }

  /** Price rows per catalog id (catalogs without prices are absent). */
  async counts(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('catalog_prices')
      .select((eb) => ['catalog_id', eb.fn.countAll<number>().as('n')])
      .groupBy('catalog_id')
      .execute();
    return new Map(rows.map((r) => [r.catalog_id, Number(r.n)]));
  }
}

/** One (type, interval) group as the statistics queries return it. */
/** A row of the statistics query: one (type, interval) group's raw figures (`n` comes back as text from PostgreSQL's count). */
type StatsRow = Omit<RawPriceStats, 'n' | 'mean' | 'trimmed_mean' | 'line_n' | 'line_mean' | 'mixed'> & { kinds: number | string; ord: number; stats_type: PriceStatsType; period: string; start_date: string | null; n: number | string; mean_micros: number | string; trimmed_micros: number | string; trimmed_n: number | string; line_micros: number | string; line_n: number | string };

/**
 * Means are summed in whole millionths of a dollar, which both engines add exactly in any order:
 * their own `avg` of doubles differed in the last bit (PostgreSQL accumulates otherwise), so a mean
 * of 0.75, 0.75, 0.76, 0.76 was 0.76 on SQLite and 0.75 on PostgreSQL. `exactMean` divides.
 */
const MICROS = sql.raw('floor(price * 1000000 + 0.5)');
const TRIMMED_TEXT = `price_rank > size / ${TRIM_DIVISOR} AND price_rank <= size - size / ${TRIM_DIVISOR}`;
const TRIMMED = sql.raw(TRIMMED_TEXT);
/**
 * The lowest and the highest price the trimmed mean keeps, and the two middle prices (one for an odd count), on every
 * row of its group: the price at a rank is the same whichever of equal prices the engine ranked first.
 */
const TRIM_BOUNDS = sql.raw(
  `min(CASE WHEN ${TRIMMED_TEXT} THEN price END) OVER (PARTITION BY ord) AS lo, max(CASE WHEN ${TRIMMED_TEXT} THEN price END) OVER (PARTITION BY ord) AS hi, ` +
    'min(CASE WHEN price_rank = (size + 1) / 2 THEN price END) OVER (PARTITION BY ord) AS lo_mid, min(CASE WHEN price_rank = size / 2 + 1 THEN price END) OVER (PARTITION BY ord) AS hi_mid',
);
/**
 * A price of the trend's line (price-stats.ts `RawPriceStats.line_n`): from the lowest to the highest price the
 * trimmed mean keeps, both included, so that which of equal prices an engine ranked first does not matter; where it
 * keeps every one (below 10 prices), only those within `LINE_FENCE` times of the middle prices (h296).
 */
const LINE = sql.raw(`(price >= lo AND price <= hi AND (size >= ${TRIM_DIVISOR} OR (price <= ${LINE_FENCE} * hi_mid AND price * ${LINE_FENCE} >= lo_mid)))`);

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The (type, interval) groups with their days, as SQL VALUES; constants of the code, never input. */
const statsSets = sql.join(PRICE_STATS_SETS.map((s) => sql`(${sql.lit(s.ord)}, ${sql.lit(s.stats_type)}, ${sql.lit(s.interval)}, ${s.days === null ? sql`NULL` : sql.lit(s.days)})`));

/** US dollars per unit of the row's currency; NULL for a currency without a configured rate. */
const rateOf = (options: PriceStatsOptions): RawBuilder<unknown> =>
  sql`CASE p.currency WHEN ${sql.lit(PRICE_CURRENCY)} THEN CAST(1 AS double precision) ${sql.join(
    usableRates(options.rates).map(([c, r]) => sql`WHEN ${c} THEN CAST(${r} AS double precision)`),
    sql` `,
  )} END`;

/** Whether a graded row counts toward `graded`: of the slab's company and grade when one was read. */
function slabMatch(options: PriceStatsOptions, company: (field: string) => RawBuilder<unknown>): RawBuilder<unknown> {
  const slab = slabFilter(options);
  const tests: RawBuilder<unknown>[] = [];
  if (slab.company !== null) tests.push(sql`upper(${company('company')}) = ${slab.company}`);
  if (slab.grade !== null) tests.push(sql`CAST(${company('grade_value')} AS double precision) = ${slab.grade}`);
  if (slab.gradeless) tests.push(sql`${company('grade_value')} IS NULL`);
  return tests.length ? sql.join(tests, sql` AND `) : sql`1 = 1`;
}

/** Rows of one card in dollars, the anchor (latest day) and the groups' start dates: SQL both engines read. */
function groups(catalogId: string, cardKey: string, options: PriceStatsOptions, dialect: 'postgres' | 'sqlite'): RawBuilder<unknown> {
  const pg = dialect === 'postgres';
  const field = (f: string) => (pg ? sql`(p.extra ->> ${f})` : sql`json_extract(p.extra, ${`$.${f}`})`);
  const day = pg ? sql`(p.date - DATE '1970-01-01')` : sql`(unixepoch(p.date) / 86400)`;
  const start = pg ? sql`a.d - (s.days - 1)` : sql`date(a.d, printf('-%d days', s.days - 1))`;
  const graded = pg ? sql`o.graded` : sql`o.graded = 1`;
  return sql`
    obs AS (
      SELECT date, row_key, graded, slab_ok, price * rate AS price, x
      FROM (
        SELECT p.date, p.row_key, p.graded, p.price, ${rateOf(options)} AS rate, CAST(${day} AS double precision) AS x, ${slabMatch(options, field)} AS slab_ok
        FROM catalog_prices p
        WHERE p.catalog_id = ${catalogId} AND p.card_key = ${cardKey}
      ) q
      WHERE rate IS NOT NULL
    ),
    anchor AS (SELECT max(date) AS d FROM obs),
    sets(ord, stats_type, period, days) AS (VALUES ${statsSets}),
    bounds AS (
      SELECT s.ord, s.stats_type, s.period, CASE WHEN s.days IS NULL THEN NULL ELSE ${start} END AS start_date
      FROM sets s CROSS JOIN anchor a
      WHERE a.d IS NOT NULL
    ),
    g AS (
      SELECT b.ord, b.stats_type, b.period, b.start_date, o.date, o.row_key, o.price, o.x, o.graded
      FROM obs o JOIN bounds b
        ON (b.stats_type = 'overall' OR (b.stats_type = 'graded' AND ${graded} AND o.slab_ok) OR (b.stats_type = 'ungraded' AND NOT ${graded}))
        AND (b.start_date IS NULL OR o.date >= b.start_date)
    )`;
}

/**
 * PostgreSQL: the engine's own aggregates. Observations of one day are ordered by row key, shorter
 * first, then in byte order (COLLATE "C", as SQLite's BINARY), so `latest`, `oldest` and the
 * changes agree; shorter first keeps a file's repeated rows in its order past nine (`#10` after
 * `#9`: a busy day's 10th sale came before its 2nd, and `latest` and volatility were wrong, h196).
 */
function pgStatsQuery(catalogId: string, cardKey: string, options: PriceStatsOptions) {
  return sql<StatsRow>`
    WITH ${groups(catalogId, cardKey, options, 'postgres')},
    w AS (
      SELECT g.*,
        row_number() OVER (PARTITION BY ord ORDER BY price) AS price_rank,
        count(*) OVER (PARTITION BY ord) AS size
      FROM g
    ),
    b AS (SELECT w.*, ${TRIM_BOUNDS} FROM w),
    k AS (
      SELECT b.*, ${LINE} AS on_line,
        CASE WHEN ${LINE} THEN price / NULLIF(lag(price) OVER (PARTITION BY ord, ${LINE} ORDER BY date, length(row_key), row_key COLLATE "C"), 0) - 1 END AS change
      FROM b
    )
    SELECT ord, stats_type, period, to_char(start_date, 'YYYY-MM-DD') AS start_date,
      count(*) AS n, min(price) AS min, max(price) AS max, sum(${MICROS}) AS mean_micros, stddev_samp(price) AS std,
      percentile_cont(0.25) WITHIN GROUP (ORDER BY price) AS q1,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY price) AS median,
      percentile_cont(0.75) WITHIN GROUP (ORDER BY price) AS q3,
      (array_agg(price ORDER BY date DESC, length(row_key) DESC, row_key COLLATE "C" DESC))[1] AS latest, to_char(max(date), 'YYYY-MM-DD') AS latest_date,
      (array_agg(price ORDER BY date, length(row_key), row_key COLLATE "C"))[1] AS oldest, to_char(min(date), 'YYYY-MM-DD') AS oldest_date,
      sum(${MICROS}) FILTER (WHERE ${TRIMMED}) AS trimmed_micros, count(*) FILTER (WHERE ${TRIMMED}) AS trimmed_n,
      count(*) FILTER (WHERE on_line) AS line_n, sum(${MICROS}) FILTER (WHERE on_line) AS line_micros,
      max(price) FILTER (WHERE on_line) - min(price) FILTER (WHERE on_line) AS line_range, max(x) FILTER (WHERE on_line) - min(x) FILTER (WHERE on_line) AS line_span,
      regr_slope(price, x) FILTER (WHERE on_line) AS slope, regr_r2(price, x) FILTER (WHERE on_line) AS r2, avg(x) FILTER (WHERE on_line) AS mean_x, max(x) AS last_x,
      stddev_samp(change) AS volatility, count(DISTINCT graded) AS kinds
    FROM k
    GROUP BY ord, stats_type, period, start_date
    ORDER BY ord`;
}

/**
 * SQLite: `percentile_cont` and `median` are the engine's (better-sqlite3 builds it with
 * SQLITE_ENABLE_PERCENTILE); standard deviations and the least-squares line are summed from
 * deviations about the means (the group's for `std`, the line's prices' for the line: two passes, as
 * the reference), `sqrt` is the engine's.
 */
function sqliteStatsQuery(catalogId: string, cardKey: string, options: PriceStatsOptions) {
  return sql<StatsRow>`
    WITH ${groups(catalogId, cardKey, options, 'sqlite')},
    w AS (
      SELECT g.*,
        row_number() OVER (PARTITION BY ord ORDER BY price) AS price_rank,
        row_number() OVER (PARTITION BY ord ORDER BY date DESC, length(row_key) DESC, row_key DESC) AS from_latest,
        row_number() OVER (PARTITION BY ord ORDER BY date, length(row_key), row_key) AS from_oldest,
        count(*) OVER (PARTITION BY ord) AS size,
        avg(price) OVER (PARTITION BY ord) AS pm
      FROM g
    ),
    b AS (SELECT w.*, ${TRIM_BOUNDS} FROM w),
    k AS (
      SELECT b.*, ${LINE} AS on_line,
        CASE WHEN ${LINE} THEN price / NULLIF(lag(price) OVER (PARTITION BY ord, ${LINE} ORDER BY date, length(row_key), row_key), 0) - 1 END AS change,
        avg(CASE WHEN ${LINE} THEN price END) OVER (PARTITION BY ord) AS lpm,
        avg(CASE WHEN ${LINE} THEN x END) OVER (PARTITION BY ord) AS lxm
      FROM b
    ),
    c AS (SELECT k.*, avg(change) OVER (PARTITION BY ord) AS cm FROM k),
    a AS (
      SELECT ord, stats_type, period, start_date,
        count(*) AS n, min(price) AS min, max(price) AS max, sum(${MICROS}) AS mean_micros,
        percentile_cont(price, 0.25) AS q1, median(price) AS median, percentile_cont(price, 0.75) AS q3,
        max(CASE WHEN from_latest = 1 THEN price END) AS latest, max(date) AS latest_date,
        max(CASE WHEN from_oldest = 1 THEN price END) AS oldest, min(date) AS oldest_date,
        sum(CASE WHEN ${TRIMMED} THEN ${MICROS} END) AS trimmed_micros, count(CASE WHEN ${TRIMMED} THEN 1 END) AS trimmed_n,
        count(CASE WHEN on_line THEN 1 END) AS line_n, sum(CASE WHEN on_line THEN ${MICROS} END) AS line_micros,
        max(CASE WHEN on_line THEN price END) - min(CASE WHEN on_line THEN price END) AS line_range, max(CASE WHEN on_line THEN x END) - min(CASE WHEN on_line THEN x END) AS line_span,
        sum((price - pm) * (price - pm)) AS syy,
        sum(CASE WHEN on_line THEN (price - lpm) * (price - lpm) END) AS lyy, sum(CASE WHEN on_line THEN (x - lxm) * (x - lxm) END) AS sxx,
        sum(CASE WHEN on_line THEN (x - lxm) * (price - lpm) END) AS sxy,
        avg(CASE WHEN on_line THEN x END) AS mean_x, max(x) AS last_x,
        count(change) AS nc, sum((change - cm) * (change - cm)) AS scc, count(DISTINCT graded) AS kinds
      FROM c
      GROUP BY ord, stats_type, period, start_date
    )
    SELECT ord, stats_type, period, start_date, n, min, max, mean_micros, q1, median, q3, latest, latest_date, oldest, oldest_date, trimmed_micros, trimmed_n,
      line_n, line_micros, line_range, line_span, mean_x, last_x, kinds,
      CASE WHEN n > 1 THEN sqrt(syy / (n - 1)) END AS std,
      CASE WHEN sxx > 0 THEN sxy / sxx END AS slope,
      CASE WHEN sxx > 0 THEN CASE WHEN lyy = 0 THEN 1.0 ELSE sxy * sxy / (sxx * lyy) END END AS r2,
      CASE WHEN nc > 1 THEN sqrt(scc / (nc - 1)) END AS volatility
    FROM a
    ORDER BY ord`;
}

/** Thrown inside a dry run's transaction so that it rolls back. */
class DryRunRollback extends Error {}
