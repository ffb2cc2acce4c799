import { importCatalog, type CatalogImportRequest, type CatalogImportResult, type ImportProgress } from '../catalog/catalog-import.ts';
import { importPrices, PriceImportError, type PriceImportProgress, type PriceImportRequest, type PriceImportResult } from '../catalog/price-import.ts';
import { CatalogFileError } from '../catalog/record-stream.ts';
import { dayOf } from '../catalog/price-stats.ts';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { numberKey, normalizeName } from '../catalog/card-keys.ts';
import { imageSubfolders, referenceFiles, ReferenceFolderError, type MatchMode, type ReferenceFile } from '../catalog/reference-images.ts';
import type { CatalogImageInput, CatalogImageStore } from '../store/catalog-image-store.ts';
import { CatalogChangedDuringImport, CatalogKindConflict, RemoveMissingRefused, type CatalogStore, type StoredCard } from '../store/catalog-store.ts';
import { ARTWORK_VERSION } from '../vision/recognition/card-artwork.ts';
import type { VisionService } from './vision-service.ts';
import type { PriceStore } from '../store/price-store.ts';
import { badRequest, notFound, ServiceError } from './errors.ts';

/** What `loupe catalog list` shows per catalog. */
export interface CatalogListing {
  catalog: string;
  kind: string;
  cards: number;
  /** Reference images (`loupe catalog images`). */
  images: number;
  /** Dated price rows (`loupe prices import`). */
  prices: number;
  sets: number;
  version: number;
  updated_at: string;
}

const catalogName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Card catalogs and their prices: importing them from the public files the card world publishes, and listing them. */
export interface CatalogImagesRequest {
  catalog: string;
  dir: string;
  match: MatchMode;
  /** `number` matching: the set the files' numbers are in, when the files do not say. */
  setCode?: string | undefined;
}

export interface CatalogImagesProgress {
  done: number;
  total: number;
}

export interface CatalogImagesResult {
  catalog: string;
  files: number;
  /** References written or kept: `created + updated + unchanged`. */
  attached: number;
  created: number;
  updated: number;
  unchanged: number;
  /** The catalog's references after the run. */
  images: number;
  /** Files no card was attached from, each with why: no card or several cards named, no card seen in the image, not an image. */
  unmatched: { file: string; reason: string }[];
}

/** A card as `loupe catalog cards` lists it: `card` is the key a plain price CSV names it by. */
export interface FoundCard {
  card: string;
  name: string;
  number: string | null;
  /** The code the card prints, as recognition answers give it (`MEW`); the set's id where it prints none. */
  set_code: string | null;
  /** The set as the catalog keys it (`sv3pt5`), which `--set` takes too. */
  set_id: string | null;
  set_name: string | null;
  rarity: string | null;
  year: string | null;
}

export class CatalogService {
  constructor(
    private readonly store: CatalogStore,
    private readonly prices: PriceStore,
    private readonly images?: { store: CatalogImageStore; vision: VisionService },
  ) {}

  /**
   * Imports one catalog file (and its sets file). Nothing is written unless every record reads
   * cleanly; a bad record is a 400 whose detail names the file, the line and the record.
   */
  async import(request: CatalogImportRequest, onProgress?: (p: ImportProgress) => void): Promise<CatalogImportResult> {
    if (!catalogName.test(request.catalog)) throw badRequest(`A catalog name is 1–64 ASCII letters (A–Z, a–z), digits, ".", "_" or "-", starting with a letter or digit; "${request.catalog}" is not.`);
    try {
      return await importCatalog(this.store, request, onProgress);
    } catch (err) {
      if (err instanceof CatalogFileError) throw new ServiceError(400, 'catalog_file_invalid', `${err.message}. Nothing was imported; the catalog is as it was.`);
      if (err instanceof CatalogKindConflict) throw new ServiceError(409, 'catalog_kind_conflict', `Catalog ${err.catalog} holds ${err.kind} cards; import ${request.kind} cards into another catalog (--catalog NAME).`);
      if (err instanceof CatalogChangedDuringImport) throw new ServiceError(409, 'catalog_changed', `Catalog ${err.catalog} was changed by another import (of cards, sets or reference images) while this one read its files. Nothing was imported; the catalog is as the other import left it. Run this import again.`);
      if (err instanceof RemoveMissingRefused) {
        const n = (x: number) => x.toLocaleString('en-US');
        throw new ServiceError(409, 'remove_missing_refused', `--remove-missing would remove ${n(err.missing)} of the ${n(err.total)} cards of format ${err.source} in catalog ${err.catalog}: this file lacks them. A file that holds part of the catalog (one set, or one of several files of this format: each removes the others' cards) would take the rest with it. Nothing was imported; the catalog is as it was. If this file is the whole catalog, run the import again with --force.`);
      }
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

  /**
   * A catalog's cards with their keys (`loupe catalog cards`): by a name as typed (the closest names
   * first, by the engines' trigram index, typos allowed), by a collector number (folded as
   * identification folds it), or in key order; each optionally in one set.
   */
  async findCards(request: { catalog: string; name?: string | undefined; number?: string | undefined; setCode?: string | undefined; limit: number }): Promise<{ catalog: string; cards: FoundCard[] }> {
    const catalog = await this.store.get(request.catalog);
    if (!catalog) throw new ServiceError(404, 'catalog_not_found', `No catalog is named "${request.catalog}": \`loupe catalog list\` shows the imported ones.`);
    const { limit } = request;
    let setCode: string | readonly string[] | undefined = request.setCode;
    let setName: string | undefined;
    // a set code the catalog does not hold would answer nothing, silently; in a catalog whose cards carry a set's
    // name and no code (sport checklists, comics) the name as any case writes it, as recognition's set_code hint takes it
    if (request.setCode !== undefined && !(await this.store.holdsSet(catalog.id, request.setCode))) {
      // the code a card prints, which answers give as `set_code` (BST for the set swsh5, h153), as the /tcg_id hint takes
      // it: every set printing it (BRS is swsh9 and its gallery swsh9tg, h158), and a set id in any case
      const wanted = request.setCode.trim().toUpperCase();
      const sets = (await this.store.sets(catalog.id)).filter((s) => s.code.toUpperCase() === wanted || (typeof s.extra.ptcgoCode === 'string' && s.extra.ptcgoCode.toUpperCase() === wanted));
      // sets whose cards the catalog holds (an imported set without cards answered an empty list, h162)
      const held: string[] = [];
      for (const s of sets) if (await this.store.holdsSet(catalog.id, s.code)) held.push(s.code);
      if (held.length) setCode = held;
    }
    if (typeof setCode === 'string' && !(await this.store.holdsSet(catalog.id, setCode))) {
      const wanted = setCode.trim().toLowerCase();
      setName = (await this.store.cardSets(catalog.id)).find((s) => s.code === null && s.name !== null && s.name.toLowerCase() === wanted)?.name ?? undefined;
      if (setName === undefined) throw badRequest(`No card of ${catalog.name} is in a set with the code "${setCode}" (codes as imported: the Pokémon data's set ids such as sv3pt5 or the code its cards print such as MEW, MTGJSON's set codes such as LEA; a sport checklist's or comics catalog's set by its name; \`loupe catalog cards\` lists them on each card).`);
      setCode = undefined;
    }
    let cards: StoredCard[] = [];
    if (request.name !== undefined) {
      if (!normalizeName(request.name)) throw badRequest('--name holds no letter or digit to search by.');
      for (const match of await this.store.searchNames(catalog.id, request.name, { limit: 50 })) {
        cards.push(...(await this.store.cardsByName(catalog.id, match.nameNorm, { setCode, setName, limit: limit - cards.length })));
        if (cards.length >= limit) break;
      }
    } else if (request.number !== undefined) {
      cards = (await this.store.cardsByNumber(catalog.id, numberKey(request.number), { setCode, setName })).slice(0, limit);
    } else {
      cards = await this.store.cards(catalog.id, { limit, setCode, setName });
    }
    // set_code as answers give it (h272: it was the set's id, sv3pt5 where /tcg_id answers MEW)
    const printed = new Map<string, string>();
    if (catalog.kind === 'pokemon') for (const s of await this.store.sets(catalog.id)) if (typeof s.extra.ptcgoCode === 'string' && s.extra.ptcgoCode.trim()) printed.set(s.code, s.extra.ptcgoCode);
    return { catalog: catalog.name, cards: cards.map((c) => ({ card: c.key, name: c.name, number: c.number, set_code: (c.setCode !== null ? printed.get(c.setCode) : undefined) ?? c.setCode, set_id: c.setCode, set_name: c.setName, rarity: c.rarity, year: c.year })) };
  }

  async list(): Promise<{ catalogs: CatalogListing[] }> {
    const [catalogs, prices, images] = await Promise.all([this.store.list(), this.prices.counts(), this.images?.store.counts() ?? new Map<string, number>()]);
    return {
      catalogs: catalogs.map((c) => ({ catalog: c.name, kind: c.kind, cards: c.cards, images: images.get(c.id) ?? 0, prices: prices.get(c.id) ?? 0, sets: c.sets, version: c.version, updated_at: c.updatedAt })),
    };
  }

  /**
   * Deletes a catalog and everything imported into it (a stray or test import would otherwise be
   * searched by every recognition for good): what it held, or the catalog's 404.
   */
  async delete(name: string, options: { dryRun?: boolean } = {}): Promise<{ deleted: string; kind: string; cards: number; sets: number; prices: number; images: number }> {
    const known = await this.store.get(name);
    if (!known) throw notFound(`Catalog ${name}`);
    const [prices, images] = await Promise.all([this.prices.counts(), this.images?.store.counts() ?? new Map<string, number>()]);
    // what the delete answers, read from the catalog's row as the delete reads it (`--dry-run`)
    const gone = options.dryRun ? known : await this.store.delete(name);
    if (!gone) throw notFound(`Catalog ${name}`);
    return { deleted: gone.name, kind: gone.kind, cards: gone.cards, sets: gone.sets, prices: prices.get(gone.id) ?? 0, images: images.get(gone.id) ?? 0 };
  }

  /**
   * Takes a card's wrong or unwanted prices out (`loupe prices delete`): all of them, or those of one
   * day, source and price. The card is the catalog's key as `loupe catalog cards` shows it (or an
   * alias a price file may use: an MTGJSON uuid). A re-import of a file that holds them brings them back.
   */
  async deletePrices(request: { catalog: string; card: string; date?: string | undefined; source?: string | undefined; price?: number | undefined; currency?: string | undefined; graded?: boolean | undefined }, options: { dryRun?: boolean } = {}): Promise<{ catalog: string; card: string; deleted: number; left: number }> {
    const catalog = await this.store.get(request.catalog);
    if (!catalog) throw new ServiceError(404, 'catalog_not_found', `No catalog is named "${request.catalog}": \`loupe catalog list\` shows the imported ones.`);
    if (request.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(request.date)) throw badRequest(`--date must be a day written YYYY-MM-DD, not "${request.date}"`);
    // 2026-02-30 deleted nothing on SQLite and was PostgreSQL's own error there (h121)
    if (request.date !== undefined && dayOf(request.date) === null) throw badRequest(`--date is not a day of the calendar: "${request.date}"`);
    if (request.price !== undefined && !(Number.isFinite(request.price) && request.price > 0)) throw badRequest('--price must be a price above 0, as the file wrote it (12.50)');
    if (request.currency !== undefined && !/^[A-Za-z]{3}$/.test(request.currency)) throw badRequest(`--currency must be a three-letter code such as USD, not "${request.currency}"`);
    const ids = await this.store.cardIdentities(catalog.id);
    const card = ids.keys.has(request.card) ? request.card : (ids.aliases.get(request.card) ?? request.card);
    const out = await this.prices.deleteCardPrices(catalog.id, card, { date: request.date, source: request.source, price: request.price, currency: request.currency?.toUpperCase(), graded: request.graded }, options.dryRun === true);
    if (out.deleted === 0 && out.left === 0) throw new ServiceError(404, 'not_found', `Catalog ${catalog.name} holds no price of card "${request.card}" (\`loupe catalog cards --catalog ${catalog.name}\` shows the cards' keys).`);
    return { catalog: catalog.name, card, ...out };
  }

  /**
   * Attaches a folder's reference scans to a catalog's cards (docs/recognition.md "Artwork"): each
   * file is matched to exactly one card by `match` (never guessed: a file naming no card or
   * several is reported, not attached), its artwork hash made in the vision workers, and all of
   * them written in one transaction. Re-running over the same files changes nothing.
   */
  async attachImages(request: CatalogImagesRequest, onProgress?: (p: CatalogImagesProgress) => void): Promise<CatalogImagesResult> {
    if (!this.images) throw new ServiceError(503, 'unavailable', 'Reference images need the vision workers, which this process does not run.');
    const catalog = await this.store.get(request.catalog);
    if (!catalog) throw new ServiceError(404, 'catalog_not_found', `No catalog is named "${request.catalog}": \`loupe catalog list\` shows the imported ones.`);
    let files: ReferenceFile[];
    try {
      files = await referenceFiles(request.dir);
    } catch (err) {
      if (err instanceof ReferenceFolderError) throw badRequest(err.message);
      throw err;
    }
    if (!files.length) {
      // subfolders are not looked into (a folder of sets would mix them): name those that hold images
      const subs = await imageSubfolders(request.dir);
      const hint = subs.length ? ` (only its subfolders do, which are not looked into: ${subs.slice(0, 5).map((s) => `${s.dir} holds ${s.images}`).join('; ')}${subs.length > 5 ? `; ${subs.length - 5} more` : ''}; give one of them as --dir)` : '';
      throw badRequest(`The folder ${request.dir} holds no image files${hint}.`);
    }
    // a --set the catalog does not hold would match nothing, or be passed over by --match id: say so instead
    if (request.setCode && !(await this.store.holdsSet(catalog.id, request.setCode))) {
      throw badRequest(`No card of ${catalog.name} is in a set with the code "${request.setCode}" (codes as imported: the Pokémon data's set ids such as sv3pt5, MTGJSON's set codes such as LEA).`);
    }
    const unmatched: CatalogImagesResult['unmatched'] = [];
    const rows = new Map<string, CatalogImageInput & { file: string }>();
    let done = 0;
    for (const f of files) {
      const cards = await this.cardsNamedBy(catalog.id, f, request);
      if (cards.length !== 1) {
        unmatched.push({ file: f.name, reason: cards.length ? `${cards.length} cards match: ${cards.slice(0, 5).map((c) => c.key).join(', ')}${cards.length > 5 ? ', …' : ''}` : `no card of ${catalog.name} has ${this.clueOf(f, request)}` });
      } else {
        const key = cards[0]!.key;
        const taken = rows.get(key);
        if (taken) unmatched.push({ file: f.name, reason: `${key} already has a reference in this folder: ${taken.file}` });
        else await this.reference(f, key, rows, unmatched, this.images.vision);
      }
      onProgress?.({ done: ++done, total: files.length });
    }
    const outcome = await this.images.store.attach(catalog.id, [...rows.values()]);
    return { catalog: catalog.name, files: files.length, attached: rows.size, created: outcome.created, updated: outcome.updated, unchanged: outcome.unchanged, images: outcome.total, unmatched };
  }

  /** One file's artwork made in the vision workers, as a row for `key`, or the reason it could not be. */
  private async reference(f: ReferenceFile, key: string, rows: Map<string, CatalogImageInput & { file: string }>, unmatched: CatalogImagesResult['unmatched'], vision: VisionService): Promise<void> {
    const bytes = await readFile(f.file);
    // before the bytes go to a vision worker, which takes them over (the hash of an emptied buffer was the same for every file)
    const contentHash = createHash('sha1').update(bytes).digest('hex');
    const outcome = await vision.cardOutcome(async () => bytes, 'artwork');
    if ('error' in outcome) return void unmatched.push({ file: f.name, reason: outcome.error.text });
    const made = outcome.ok;
    if (!made.found || !made.artwork) return void unmatched.push({ file: f.name, reason: made.unfit ?? 'no card was found in the image' });
    rows.set(key, { file: f.name, cardKey: key, sourceFile: f.name, width: made.width, height: made.height, artwork: made.artwork, artworkVersion: ARTWORK_VERSION, contentHash });
  }

  /** What a file named its card by, as the reason it matched none says it. */
  private clueOf(f: ReferenceFile, request: CatalogImagesRequest): string {
    const setCode = f.setCode ?? request.setCode;
    const inSet = setCode ? ` in set ${setCode}` : '';
    if (request.match === 'id') return f.ids.length > 1 ? `any of the ids ${f.ids.map((i) => `"${i}"`).join(', ')}` : `the id "${f.ids[0] ?? ''}"`;
    if (request.match === 'number') return f.number ? `the number "${f.number}"${inSet}` : 'a number (the file names none)';
    return f.cardName ? `the name "${f.cardName}"${inSet}` : 'a name (the file names none)';
  }

  private async cardsNamedBy(catalogId: string, f: ReferenceFile, request: CatalogImagesRequest): Promise<StoredCard[]> {
    const setCode = f.setCode ?? request.setCode;
    if (request.match === 'id') {
      for (const id of f.ids) {
        const found = await this.store.cardsByIdentifier(catalogId, id);
        if (found.length) return found;
      }
      return [];
    }
    if (request.match === 'number') return f.number ? this.store.cardsByNumber(catalogId, numberKey(f.number), { setCode }) : [];
    return f.cardName ? this.store.cardsByName(catalogId, normalizeName(f.cardName), { setCode, limit: 20 }) : [];
  }
}
