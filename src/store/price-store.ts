import { createHash } from 'node:crypto';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CatalogPricesTable, Database, Store } from './database.ts';
import { fromBool, fromJson, toIso } from './database.ts';

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
}

export interface PriceImportOutcome {
  created: number;
  updated: number;
  unchanged: number;
  /** The catalog's price rows after the import, every source. */
  total: number;
}

/** 15 parameters a row: 500 rows stay far under both backends' bound-parameter limits. */
const batchRows = 500;

const hashOf = (p: PriceInput): string =>
  createHash('sha1').update(JSON.stringify([p.cardKey, p.source, p.date, p.price, p.currency, p.graded, p.grade, p.qualifier, p.volume, p.extra])).digest('base64url');

/** Dated card prices on SQLite or PostgreSQL. */
export class PriceStore {
  constructor(readonly store: Store) {}

  private get db(): Kysely<Database> {
    return this.store.db;
  }

  /**
   * Writes one import's rows in one transaction, upserting by (catalog, row key); rows whose
   * content did not change are not written. Any failure rolls all of it back.
   */
  async applyImport(input: PriceImport): Promise<PriceImportOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const sources = [...new Set(input.rows.map((r) => r.source))];
      const existing = new Map<string, string>();
      for (const source of sources) {
        const rows = await trx.selectFrom('catalog_prices').select(['row_key', 'content_hash']).where('catalog_id', '=', input.catalogId).where('source', '=', source).execute();
        for (const r of rows) existing.set(r.row_key, r.content_hash);
      }
      const now = new Date().toISOString();
      const outcome = { created: 0, updated: 0, unchanged: 0 };
      const pending: Insertable<CatalogPricesTable>[] = [];
      for (const p of input.rows) {
        const content_hash = hashOf(p);
        const before = existing.get(p.rowKey);
        if (before === content_hash) {
          outcome.unchanged++;
          continue;
        }
        if (before === undefined) outcome.created++;
        else outcome.updated++;
        pending.push({
          catalog_id: input.catalogId,
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
          updated_at: now,
        });
      }
      const total = input.rows.length;
      let written = input.rows.length - pending.length;
      for (let i = 0; i < pending.length; i += batchRows) {
        const batch = pending.slice(i, i + batchRows);
        await trx
          .insertInto('catalog_prices')
          .values(batch)
          .onConflict((oc) =>
            oc.columns(['catalog_id', 'row_key']).doUpdateSet((eb) => ({
              card_key: eb.ref('excluded.card_key'),
              source: eb.ref('excluded.source'),
              date: eb.ref('excluded.date'),
              price: eb.ref('excluded.price'),
              currency: eb.ref('excluded.currency'),
              graded: eb.ref('excluded.graded'),
              grade: eb.ref('excluded.grade'),
              qualifier: eb.ref('excluded.qualifier'),
              volume: eb.ref('excluded.volume'),
              extra: eb.ref('excluded.extra'),
              content_hash: eb.ref('excluded.content_hash'),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .execute();
        written += batch.length;
        input.onProgress?.(written, total);
      }
      const { n } = await trx.selectFrom('catalog_prices').select((eb) => eb.fn.countAll<number>().as('n')).where('catalog_id', '=', input.catalogId).executeTakeFirstOrThrow();
      return { ...outcome, total: Number(n) };
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

  /** A card's prices, oldest first, every source and currency (price-stats keeps to USD itself). */
  async observations(catalogId: string, cardKey: string, options: { source?: string; currency?: string } = {}): Promise<StoredPrice[]> {
    let q = this.db.selectFrom('catalog_prices').selectAll().where('catalog_id', '=', catalogId).where('card_key', '=', cardKey);
    if (options.source !== undefined) q = q.where('source', '=', options.source);
    if (options.currency !== undefined) q = q.where('currency', '=', options.currency);
    const rows = await q.orderBy('date').orderBy('row_key').execute();
    return rows.map((r) => this.toPrice(r));
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
