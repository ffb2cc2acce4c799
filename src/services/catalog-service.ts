import { importCatalog, type CatalogImportRequest, type CatalogImportResult, type ImportProgress } from '../catalog/catalog-import.ts';
import { importPrices, PriceImportError, type PriceImportProgress, type PriceImportRequest, type PriceImportResult } from '../catalog/price-import.ts';
import { CatalogFileError } from '../catalog/record-stream.ts';
import { CatalogKindConflict, type CatalogStore } from '../store/catalog-store.ts';
import type { PriceStore } from '../store/price-store.ts';
import { badRequest, ServiceError } from './errors.ts';

/** What `loupe catalog list` shows per catalog. */
export interface CatalogListing {
  catalog: string;
  kind: string;
  cards: number;
  /** Reference images: imported by a later command, 0 until then. */
  images: number;
  /** Dated price rows (`loupe prices import`). */
  prices: number;
  sets: number;
  version: number;
  updated_at: string;
}

const catalogName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Card catalogs and their prices: importing them from the public files the card world publishes, and listing them. */
export class CatalogService {
  constructor(
    private readonly store: CatalogStore,
    private readonly prices: PriceStore,
  ) {}

  /**
   * Imports one catalog file (and its sets file). Nothing is written unless every record reads
   * cleanly; a bad record is a 400 whose detail names the file, the line and the record.
   */
  async import(request: CatalogImportRequest, onProgress?: (p: ImportProgress) => void): Promise<CatalogImportResult> {
    if (!catalogName.test(request.catalog)) throw badRequest(`A catalog name is 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit; "${request.catalog}" is not.`);
    try {
      return await importCatalog(this.store, request, onProgress);
    } catch (err) {
      if (err instanceof CatalogFileError) throw new ServiceError(400, 'catalog_file_invalid', `${err.message}. Nothing was imported; the catalog is as it was.`);
      if (err instanceof CatalogKindConflict) throw new ServiceError(409, 'catalog_kind_conflict', `Catalog ${err.catalog} holds ${err.kind} cards; import ${request.kind} cards into another catalog (--catalog NAME).`);
      throw err;
    }
  }

  /**
   * Imports one price file into a catalog's prices. Nothing is written unless every row reads
   * cleanly; a bad row is a 400 naming the file and line.
   */
  async importPrices(request: PriceImportRequest, onProgress?: (p: PriceImportProgress) => void): Promise<PriceImportResult> {
    try {
      return await importPrices(this.store, this.prices, request, onProgress);
    } catch (err) {
      if (err instanceof CatalogFileError) throw new ServiceError(400, 'price_file_invalid', `${err.message}. Nothing was imported; the prices are as they were.`);
      if (err instanceof PriceImportError) throw new ServiceError(err.status, err.code, err.message);
      throw err;
    }
  }

  async list(): Promise<{ catalogs: CatalogListing[] }> {
    const [catalogs, prices] = await Promise.all([this.store.list(), this.prices.counts()]);
    return {
      catalogs: catalogs.map((c) => ({ catalog: c.name, kind: c.kind, cards: c.cards, images: 0, prices: prices.get(c.id) ?? 0, sets: c.sets, version: c.version, updated_at: c.updatedAt })),
    };
  }
}
