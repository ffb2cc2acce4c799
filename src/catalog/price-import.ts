import type { CatalogStore } from '../store/catalog-store.ts';
import type { PriceInput, PriceStore } from '../store/price-store.ts';
import { Fields, Remarks, fail, placeText, type RecordPlace } from './catalog-rows.ts';
import { PRICE_LAYOUTS, detectLayout, layoutColumns, plainCsvMismatch, type CardRef, type LayoutContext, type LayoutPrice, type PriceLayout, type SkipReason } from './price-layouts.ts';
import { CatalogFileError, looksLikeJson, readCsvRecords } from './record-stream.ts';

export interface PriceImportRequest {
  catalog: string;
  file: string;
  /** Import again the sales deleted one by one (`loupe prices delete --price`), which are otherwise skipped. */
  restoreDeleted?: boolean | undefined;
}

export type PriceImportProgress = { phase: 'read'; file: string; bytes: number; size: number; records: number } | { phase: 'write'; written: number; total: number };

export interface PriceImportResult {
  catalog: string;
  file: string;
  /** The layout read, also the `source` of every stored row (`psa`, `tcgplayer-3day`, …) but the plain CSV's, which names its own. */
  layout: string;
  /** Data rows in the file. */
  rows: number;
  /** Rows stored (created, updated or unchanged) per currency. */
  currencies: Record<string, number>;
  /** Of the rows stored, graded sales. */
  graded: number;
  /** Distinct cards the stored rows price. */
  cards: number;
  /** `not_in_file`: stored rows of the file's cards and days (per source) the file lacks, kept. */
  prices: { created: number; updated: number; unchanged: number; not_in_file: number; deleted_before: number; total: number };
  /** Rows repeated identically in the file, stored once. */
  duplicates: number;
  /** Rows not imported, by reason; every row of the file is stored, a duplicate or here. */
  skipped: Record<SkipReason | 'unknown_card' | 'other_game', number>;
  remarks: string[];
  seconds: { read: number; write: number };
}

/** The import cannot go into that catalog (absent, or of another game); `status` as the service answers it. */
export class PriceImportError extends Error {
  constructor(
    readonly status: 404 | 409,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const GAMES: Record<string, string> = { pokemon: 'Pokémon', mtg: 'MTG' };

// one and many: "1 rows have no price" read as a typo
const SKIP_REMARKS: Record<SkipReason, [string, string]> = {
  ambiguous: ['{n} row names several candidate cards (the file gives no collector number to tell them apart): skipped', '{n} rows name several candidate cards (the file gives no collector number to tell them apart): skipped'],
  no_card_id: ['{n} row names no card (sealed products, printings the file could not link): skipped', '{n} rows name no card (sealed products, printings the file could not link): skipped'],
  no_price: ['{n} row has no price (none, or 0): skipped', '{n} rows have no price (none, or 0): skipped'],
};
const seconds = (ms: number) => Math.round(ms / 10) / 100;

/**
 * A card key from the row's ids: the plain CSV's card is a key or an alias; Pokémon ids are keys;
 * MTG rows by face uuid (an alias), else by Scryfall id (the key).
 */
function resolve(ref: CardRef, ids: { keys: Set<string>; aliases: Map<string, string> }): string | null {
  if (ref.cardKey) {
    if (ids.keys.has(ref.cardKey)) return ref.cardKey;
    // a key copied from a Mac or a PDF, decomposed (NFD), names the card its composed form names (h224: skipped as
    // unknown, the remark showing a key that looked the same)
    const composed = ref.cardKey.normalize('NFC');
    return ids.keys.has(composed) ? composed : (ids.aliases.get(ref.cardKey) ?? ids.aliases.get(composed) ?? null);
  }
  if (ref.pokemonId) return ids.keys.has(ref.pokemonId) ? ref.pokemonId : null;
  if (ref.mtgjsonUuid) {
    const key = ids.aliases.get(ref.mtgjsonUuid);
    if (key !== undefined) return key;
  }
  if (ref.scryfallId && ids.keys.has(ref.scryfallId)) return ref.scryfallId;
  return null;
}

/** Currencies written with three decimals (and MTGO's tix, any): their prices are not remarked for their decimals (h232). */
const THREE_DECIMALS = new Set(['TIX', 'KWD', 'BHD', 'OMR', 'JOD', 'TND', 'LYD', 'IQD']);

/** A source as one, whatever its case, width or spaces (as `loupe prices delete --source` matches it). */
const sourceFold = (s: string): string => s.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/** Bad lines named in one import's error; the rest counted. */
const maxBadLines = 20;

const refText = (ref: CardRef) => ref.cardKey ?? ref.pokemonId ?? ref.mtgjsonUuid ?? ref.scryfallId ?? '';
const publicGames = (kind: string) => kind === 'pokemon' || kind === 'mtg';

/**
 * Reads a price file (CSV, gzipped or not) in one of the known layouts, found by its header,
 * checks every row, resolves each to a card of the catalog, then stores all in one transaction
 * (the file is read as a stream; the rows checked are held until then, so nothing is written
 * before the last one is read).
 * Rows that cannot be said to price one card of this catalog are skipped and counted by reason
 * (several candidate cards, no card id, an id the catalog lacks, another game); a malformed row
 * is an error naming its line, before anything is written.
 */
export async function importPrices(catalogs: CatalogStore, prices: PriceStore, request: PriceImportRequest, onProgress?: (p: PriceImportProgress) => void): Promise<PriceImportResult> {
  const catalog = await catalogs.get(request.catalog);
  if (!catalog) throw new PriceImportError(404, 'catalog_not_found', `There is no catalog ${request.catalog}: import its cards first (loupe catalog import).`);
  const file = request.file;
  const layouts = PRICE_LAYOUTS.map((l) => `${l.title} (${layoutColumns(l)})`).join('; ');
  if (await looksLikeJson(file)) throw new CatalogFileError(file, null, `is JSON; price files are CSV with a header, one of: ${layouts}`);

  const readStart = performance.now();
  const ids = await catalogs.cardIdentities(catalog.id);
  const remarks = new Remarks();
  const skipped: PriceImportResult['skipped'] = { ambiguous: 0, no_card_id: 0, no_price: 0, unknown_card: 0, other_game: 0 };
  const rows = new Map<string, { input: PriceInput; at: RecordPlace }>();
  // a plain CSV's source in one spelling: the file's first here, then (below, once its cards are known) the one the
  // card's stored prices have: `ebay` after `eBay` (h228: the same sales imported again were stored twice)
  const spellings = new Map<string, string>();
  let respelt: string | undefined;
  const context: LayoutContext = {
    source: (written) => {
      const spelt = spellings.get(sourceFold(written));
      if (spelt === undefined) spellings.set(sourceFold(written), written);
      else if (spelt !== written) respelt = written;
      return spelt ?? written;
    },
  };
  let layout: PriceLayout | null = null;
  let records = 0;
  let duplicates = 0;
  // rows alike in a layout whose rows are separate observations: how many so far, per key
  const repeats = new Map<string, number>();
  const bad: CatalogFileError[] = [];
  let badCount = 0;
  const bytes = (read: number, size: number) => onProgress?.({ phase: 'read', file, bytes: read, size, records });
  try {
    for await (const read of readCsvRecords(file, bytes)) {
      const at: RecordPlace = { file, line: read.line, index: null, path: null };
      // a header in any case (a spreadsheet's `Card,Date,Price,Currency`, h228), as the comics importer reads one
      const r = { ...read, value: Object.fromEntries(Object.entries(read.value).map(([k, v]) => [k.trim().toLowerCase(), v])) };
      if (!layout) {
        const written = Object.keys(read.value);
        const header = Object.keys(r.value);
        if (header.length < written.length) fail({ ...at, line: 1 }, `the header (${written.join(', ')}) names a column twice`);
        // a European spreadsheet's export, separated by semicolons, reads as one column
        const semicolons = header.length === 1 && header[0]!.includes(';') ? ' (the file looks separated by semicolons: price files are separated by commas)' : '';
        // a plain CSV's header with a column too many or too few says which, before the layouts' list (h316)
        const plainMiss = plainCsvMismatch(header);
        layout = detectLayout(header) ?? fail({ ...at, line: 1 }, `the header (${written.join(', ')}) is none of the price layouts known${semicolons}${plainMiss ? ` (${plainMiss})` : ''}: ${layouts}`);
        if (layout.game && layout.game !== catalog.kind) {
          throw new PriceImportError(409, 'catalog_kind_conflict', `${file} holds ${GAMES[layout.game]} prices (${layout.title}); catalog ${catalog.name} holds ${catalog.kind} cards.`);
        }
        if (!layout.anyCatalog && !publicGames(catalog.kind)) {
          throw new PriceImportError(409, 'catalog_kind_conflict', `Catalog ${catalog.name} holds ${catalog.kind} cards; ${layout.title} prices are Pokémon and MTG prices (for other cards write the plain CSV: ${layoutColumns(PRICE_LAYOUTS.find((l) => l.anyCatalog)!)}).`);
        }
      }
      records++;
      let row: ReturnType<PriceLayout['read']>;
      respelt = undefined;
      try {
        row = layout.read(new Fields(r.value, at), context);
      } catch (err) {
        // every bad line named at once, up to 20 (h155: a file of three bad lines took three nightly runs to mend)
        if (!(err instanceof CatalogFileError)) throw err;
        if (bad.length < maxBadLines) bad.push(err);
        badCount++;
        continue;
      }
      if (row.kind === 'skip') {
        skipped[row.reason]++;
        remarks.add(SKIP_REMARKS[row.reason], `line ${r.line}`);
        continue;
      }
      if (row.game !== null && row.game !== catalog.kind) {
        skipped.other_game++;
        remarks.add([`{n} row prices ${GAMES[row.game]} cards, not ${catalog.kind}: skipped`, `{n} rows price ${GAMES[row.game]} cards, not ${catalog.kind}: skipped`], `line ${r.line}`);
        continue;
      }
      const cardKey = resolve(row.ref, ids);
      if (cardKey === null) {
        skipped.unknown_card++;
        remarks.add(['{n} row names a card the catalog does not have: skipped', '{n} rows name a card the catalog does not have: skipped'], `${refText(row.ref)} on line ${r.line}`);
        continue;
      }
      if (layout.repeats) {
        // keyed by the card found (a file may name it by key or by alias), numbered in file order
        const key = `${cardKey}|${row.rowKey}`;
        const n = (repeats.get(key) ?? 0) + 1;
        repeats.set(key, n);
        row.rowKey = `${key}#${n}`;
      }
      const input = toInput(layout, row, cardKey);
      const before = rows.get(input.rowKey);
      if (before) {
        if (JSON.stringify(before.input) === JSON.stringify(input)) {
          duplicates++;
          continue;
        }
        fail(at, `the price "${row.rowKey}" is already ${placeText(before.at)} with other values`);
      }
      rows.set(input.rowKey, { input, at });
      // a price a currency does not write (`1.234` in euros: a thousand and more, written with a point?): kept as read,
      // and said (h228: stored as €1.234, and a $0.001 sale made a card's lowest price 0)
      if (layout.name === 'csv' && !THREE_DECIMALS.has(input.currency) && (input.price < 0.01 || Number(input.price.toFixed(2)) !== input.price)) {
        remarks.add([`{n} price has more than two decimals or is under 0.01: kept as read; check the file's number format (a point or comma between thousands?)`, `{n} prices have more than two decimals or are under 0.01: kept as read; check the file's number format (a point or comma between thousands?)`], `${input.price} ${input.currency} on line ${r.line}`);
      }
      // said of rows kept only (h230: a skipped row was counted)
      if (respelt !== undefined) remarks.add([`{n} row spells its source otherwise than the file's rows before it: read as "${input.source}", one source`, `{n} rows spell their source otherwise than the file's rows before them: read as "${input.source}", one source`], `"${respelt}" on line ${r.line}`);
    }
  } catch (err) {
    // the file's shape stopped the reading: the bad rows read before it are named with it (h158: they were dropped)
    if (!(err instanceof CatalogFileError) || !bad.length) throw err;
    const list = bad.map((e) => `${e.where ? `${e.where}: ` : ''}${e.problem}`).join('; ');
    throw new CatalogFileError(file, err.where, `${err.problem}; before it, ${badCount} bad line${badCount > 1 ? 's' : ''}: ${list}${badCount > bad.length ? `; and ${badCount - bad.length} more` : ''}`);
  }
  if (bad.length) {
    const [first, ...more] = bad;
    const others = more.map((e) => `${e.where ? `${e.where}: ` : ''}${e.problem}`);
    const rest = badCount - bad.length;
    throw new CatalogFileError(file, first!.where, `${first!.problem}${others.length ? `; ${badCount - 1} more bad line${badCount > 2 ? 's' : ''}: ${others.join('; ')}${rest ? `; and ${rest} more` : ''}` : ''}`);
  }
  if (!layout) throw new CatalogFileError(file, null, 'holds no price rows');
  const readMs = performance.now() - readStart;

  const writeStart = performance.now();
  const inputs = [...rows.values()].map((r) => r.input);
  if (layout.name === 'csv') {
    await spellAsStored(prices, catalog.id, inputs, remarks);
    doubledCards(inputs, remarks, catalog.name);
  }
  const outcome = await prices.applyImport({ catalogId: catalog.id, rows: inputs, datedKeys: layout.datedKeys !== false, ...(request.restoreDeleted ? { restoreDeleted: true } : {}), onProgress: (written, total) => onProgress?.({ phase: 'write', written, total }) });
  const currencies: Record<string, number> = {};
  for (const p of inputs) currencies[p.currency] = (currencies[p.currency] ?? 0) + 1;
  return {
    catalog: catalog.name,
    file,
    layout: layout.name,
    rows: records,
    currencies,
    graded: inputs.filter((p) => p.graded).length,
    cards: new Set(inputs.map((p) => p.cardKey)).size,
    prices: { created: outcome.created, updated: outcome.updated, unchanged: outcome.unchanged, not_in_file: outcome.not_in_file, deleted_before: outcome.deleted_before, total: outcome.total },
    duplicates,
    skipped,
    remarks: [
      ...remarks.list(),
      ...(outcome.deleted_before
        ? [`${outcome.deleted_before} sale${outcome.deleted_before > 1 ? 's' : ''} of this file ${outcome.deleted_before > 1 ? 'were' : 'was'} deleted with \`loupe prices delete --price\` and ${outcome.deleted_before > 1 ? 'are' : 'is'} not imported again (\`--restore-deleted\` takes ${outcome.deleted_before > 1 ? 'them' : 'it'} back)`]
        : []),
      ...(outcome.not_in_file
        ? [`${outcome.not_in_file} stored price${outcome.not_in_file > 1 ? 's' : ''} of the file's cards and days ${outcome.not_in_file > 1 ? 'are' : 'is'} not in this file and kept: an import never removes, and a day's sales are matched by their place in it, so a sale taken out of a day shifts the others. To make a day as the file has it: loupe prices delete --catalog ${catalog.name} --card <card> --date <date> (with --currency and --graded yes|no as the file's sales, so the day's others stay), then import the file again (first: ${outcome.notInFileExample})`]
        : []),
    ],
    seconds: { read: seconds(readMs), write: seconds(performance.now() - writeStart) },
  };
}

/**
 * A plain CSV's sources spelt as the card's stored prices spell them (the earliest spelling where they have several):
 * rows are keyed by their source, so `ebay` after `eBay` stored the same sales twice (h228). Read by the file's cards
 * alone (h230: every stored price of the catalog was read, whatever the file). The file's own spellings are one by now,
 * so a card's rows of a source change spelling together and keep their numbers.
 */
async function spellAsStored(prices: PriceStore, catalogId: string, inputs: PriceInput[], remarks: Remarks): Promise<void> {
  const cards = [...new Set(inputs.filter((p) => p.source !== 'csv').map((p) => p.cardKey))];
  if (!cards.length) return;
  const stored = new Map<string, string>();
  for (const r of await prices.sourcesOf(catalogId, cards)) {
    const key = `${r.cardKey}\u0000${sourceFold(r.source)}`;
    if (!stored.has(key)) stored.set(key, r.source);
  }
  for (const p of inputs) {
    const spelt = stored.get(`${p.cardKey}\u0000${sourceFold(p.source)}`);
    if (spelt === undefined || spelt === p.source) continue;
    const at = p.rowKey.lastIndexOf(`|${p.source}#`);
    if (at < 0) continue;
    remarks.add([`{n} row names its source as the card's stored prices spell it otherwise: stored as "${spelt}", one source`, `{n} rows name their source as their cards' stored prices spell it otherwise: stored as "${spelt}", one source`], `"${p.source}" for ${p.cardKey}`);
    p.rowKey = `${p.rowKey.slice(0, at)}|${spelt}${p.rowKey.slice(at + 1 + p.source.length)}`;
    p.source = spelt;
  }
}

/**
 * Cards whose sales in a plain CSV are one run of sales written twice over (two alike are two sales, so a file pasted
 * twice doubled every count without a word, h228): said, as a file doubled by mistake is more likely than a card that
 * sold the same copies again in the same order. Runs of two sales or more only.
 */
function doubledCards(inputs: readonly PriceInput[], remarks: Remarks, catalog: string): void {
  const sale = (p: PriceInput) => JSON.stringify([p.cardKey, p.date, p.price, p.currency, p.graded, p.grade, p.source, p.extra]);
  const twiceOver = (sales: readonly string[]) => {
    const half = sales.length / 2;
    return half >= 2 && Number.isInteger(half) && sales.slice(0, half).every((s, i) => s === sales[half + i]);
  };
  const undo = `if it was doubled by mistake, delete the card's sales (loupe prices delete --catalog ${catalog} --card <card> --date <date>, with --source as the file's) and import it once: an import never removes`;
  // the whole file twice over, one sale a card or many (h232: a file of one sale a card, pasted twice, said nothing)
  if (twiceOver(inputs.map(sale))) {
    remarks.add(`the file's sales are written twice over, in the same order: imported as that many sales again (two alike are two); ${undo}`, `${inputs.length / 2} sales`);
    return;
  }
  const byCard = new Map<string, string[]>();
  for (const p of inputs) {
    const sales = byCard.get(p.cardKey);
    if (sales) sales.push(sale(p));
    else byCard.set(p.cardKey, [sale(p)]);
  }
  for (const [card, sales] of byCard) {
    if (twiceOver(sales)) remarks.add([`{n} card's sales are written twice over, in the same order: imported as that many sales again (two alike are two); ${undo}`, `{n} cards' sales are written twice over, in the same order: imported as that many sales again (two alike are two); ${undo}`], card);
  }
}

function toInput(layout: PriceLayout, row: LayoutPrice, cardKey: string): PriceInput {
  return {
    rowKey: `${layout.name}:${row.rowKey}`,
    cardKey,
    source: row.source ?? layout.name,
    date: row.date,
    price: row.price,
    currency: row.currency,
    graded: row.graded,
    grade: row.grade,
    qualifier: row.qualifier,
    volume: row.volume,
    extra: row.extra,
  };
}
