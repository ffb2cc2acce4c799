import type { Kysely } from 'kysely';
import type { Database, Store } from './database.ts';

/** One reference image of one catalog card, as `loupe catalog images` hands it over. */
export interface CatalogImageInput {
  cardKey: string;
  sourceFile: string;
  width: number;
  height: number;
  artwork: string;
  artworkVersion: string;
  /** SHA-1 of the file's bytes. */
  contentHash: string;
}

export interface CatalogImagesOutcome {
  created: number;
  updated: number;
  unchanged: number;
  /** The catalog's references after the run. */
  total: number;
}

/** A catalog's artwork hashes of one method version, in card-key order. */
export interface CatalogArtworks {
  keys: string[];
  hashes: string[];
}

/** Reference images of catalog cards (migration 007), on SQLite or PostgreSQL. */
export class CatalogImageStore {
  constructor(readonly store: Store) {}

  private get db(): Kysely<Database> {
    return this.store.db;
  }

  /**
   * Writes one run's references in one transaction, one per card (a later file for the same card
   * replaces the earlier), and moves the catalog's version so every server process reloads its
   * references. Rows whose file and method did not change are left as they were.
   */
  async attach(catalogId: string, rows: readonly CatalogImageInput[]): Promise<CatalogImagesOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      let created = 0;
      let updated = 0;
      let unchanged = 0;
      // the catalog's references in one read, not one a row: a catalog may have one per card
      const existing = new Map((await trx.selectFrom('catalog_images').select(['card_key', 'content_hash', 'artwork_version', 'source_file']).where('catalog_id', '=', catalogId).execute()).map((r) => [r.card_key, r]));
      for (const r of rows) {
        const old = existing.get(r.cardKey);
        if (old && old.content_hash === r.contentHash && old.artwork_version === r.artworkVersion && old.source_file === r.sourceFile) {
          unchanged++;
          continue;
        }
        const values = { source_file: r.sourceFile, width: r.width, height: r.height, artwork: r.artwork, artwork_version: r.artworkVersion, content_hash: r.contentHash, updated_at: now };
        if (old) {
          await trx.updateTable('catalog_images').set(values).where('catalog_id', '=', catalogId).where('card_key', '=', r.cardKey).execute();
          updated++;
        } else {
          await trx.insertInto('catalog_images').values({ catalog_id: catalogId, card_key: r.cardKey, created_at: now, ...values }).execute();
          created++;
        }
      }
      if (created + updated > 0) await trx.updateTable('catalogs').set((eb) => ({ version: eb('version', '+', 1), updated_at: now })).where('id', '=', catalogId).execute();
      const total = await trx.selectFrom('catalog_images').select((eb) => eb.fn.countAll<number>().as('n')).where('catalog_id', '=', catalogId).executeTakeFirstOrThrow();
      return { created, updated, unchanged, total: Number(total.n) };
    });
  }

  /** Reference counts per catalog id. */
  async counts(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('catalog_images').select(['catalog_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('catalog_id').execute();
    return new Map(rows.map((r) => [r.catalog_id, Number(r.n)]));
  }

  /** Every reference's artwork hash of one method version. */
  async artworks(catalogId: string, artworkVersion: string): Promise<CatalogArtworks> {
    const rows = await this.db.selectFrom('catalog_images').select(['card_key', 'artwork']).where('catalog_id', '=', catalogId).where('artwork_version', '=', artworkVersion).orderBy('card_key').execute();
    return { keys: rows.map((r) => r.card_key), hashes: rows.map((r) => r.artwork) };
  }
}
