import { fail, type Fields } from './catalog-rows.ts';
import { companyLeadingGrade, gradingCompanyOf } from './grading-companies.ts';

/**
 * The price files' layouts (../shared/catalogs/prices/README.md), and the plain CSV a shop
 * writes itself (`card, date, price, currency[, grade, company, source]`), told apart by their
 * header. Each row becomes one dated price of one card, named by the ids the file has; the
 * importer resolves them against the catalog. All are long format: one row per card and date
 * (or sale). docs/prices.md describes them.
 */

export type PriceGame = 'pokemon' | 'mtg';

/** The ids a row names its card by; the importer tries them in this order. */
export interface CardRef {
  /** The catalog's own key of the card, or one of its aliases (the plain CSV's `card`). */
  cardKey?: string | null;
  pokemonId?: string | null;
  mtgjsonUuid?: string | null;
  scryfallId?: string | null;
}

export interface LayoutPrice {
  kind: 'price';
  /** Null: a price for whatever catalog the import names (the plain CSV). */
  game: PriceGame | null;
  ref: CardRef;
  /** Unique within the source; stored prefixed with the layout's name. */
  rowKey: string;
  /** Stored as the row's `source`; the layout's name when absent. */
  source?: string;
  date: string;
  price: number;
  currency: string;
  graded: boolean;
  grade: string | null;
  qualifier: string | null;
  volume: number | null;
  extra: Record<string, unknown>;
}

/** Why a row is not imported: counted and reported, never an error. */
export type SkipReason = 'ambiguous' | 'no_card_id' | 'no_price';

export interface LayoutSkip {
  kind: 'skip';
  reason: SkipReason;
}

export interface PriceLayout {
  /** Also the `source` stored with each price. */
  name: string;
  /** What the file is, for messages. */
  title: string;
  /** The game every row is of; null when each row says (PSA's `game`) or for any catalog (`anyCatalog`). */
  game: PriceGame | null;
  /** Prices for a catalog of any kind: the rows name cards by the catalog's own keys. */
  anyCatalog?: boolean;
  /** Columns the header must have. */
  columns: readonly string[];
  /** Columns it may have besides; when set, a header with any other column is not this layout. */
  optional?: readonly string[];
  /**
   * Rows with the same key are separate observations (two copies sold the same day at the same
   * grade): the importer numbers them in file order (`#1`, `#2`) rather than take them for one.
   */
  repeats?: boolean;
  /**
   * False where a row's key does not hold the day it is stored under (a PSA lot's URL; a TCGplayer window by its start,
   * stored at its end): a corrected file may move it to another day, so its stored row is looked for on every day.
   */
  datedKeys?: boolean;
  read(f: Fields, ctx?: LayoutContext): LayoutPrice | LayoutSkip;
}

/** What a layout's read is told of the catalog beside the row. */
export interface LayoutContext {
  /** A row's own `source` in one spelling: the file's first of it (`eBay` for a later row's `ebay`). */
  source?: (written: string) => string;
}

const skip = (reason: SkipReason): LayoutSkip => ({ kind: 'skip', reason });

/** The most a price may be, as the card-session and collection fields take (docs/api-decisions.md "Derived price"). */
const MAX_PRICE = 1e9;

/** A price as decimal text (`12.5`, `3000.0`); null when empty, an error naming the line when not a number. */
function money(f: Fields, column: string): number | null {
  const t = f.text(column);
  if (t === null) return null;
  if (!/^\d+(\.\d+)?$/.test(t)) return fail(f.at, `"${column}" must be a price like 12.50, not "${t}"`);
  // as sessions and collections cap a price: a number pasted into the wrong column (a certificate's) was every statistic (h122)
  if (Number(t) > MAX_PRICE) return fail(f.at, `"${column}" is over 1,000,000,000, more than any card sells for: "${t}" (another column's number?)`);
  return Number(t);
}

/**
 * A price that says a card sold or was valued at it: 0 is a gap in a source's series (TCGplayer
 * gives 0.0 for windows without a market price), not a sale, and was taken for one: a Lugia V's
 * `price_stats` had `min` 0.
 */
const priced = (price: number | null): number | null => (price === 0 ? null : price);

/** The earliest day a price may carry: no sale of a card dated before it is on record anywhere. */
const EARLIEST_SALE = '1900-01-01';

/** A day after tomorrow (UTC) has not happened anywhere yet. */
const DAY_MS = 86_400_000;

/**
 * A date on the calendar (2023-02-29 is none), `YYYY-MM-DD` or `YYYY/MM/DD`, and not in the future:
 * a price dated 2204 (a typo for 2024) would become the card's anchor and push its real prices out
 * of `30d` and `365d` (docs/prices.md).
 */
function dateOf(f: Fields, column: string): string {
  // (a day no calendar has is refused by Fields.date)
  const date = f.date(column) ?? fail(f.at, `"${column}" is missing`);
  const t = Date.parse(`${date}T00:00:00Z`);
  if (t > Date.now() + DAY_MS) fail(f.at, `"${column}" is in the future: "${f.text(column)}"`);
  // the mirror of 2204: 0224 for 2024 (or 1899-12-30, a spreadsheet's day 0) was stored as a sale 1,800 years old (h339)
  if (date < EARLIEST_SALE) fail(f.at, `"${column}" is before ${EARLIEST_SALE}, earlier than any card sale a price file records: "${f.text(column)}" (a typo for a later year, or a spreadsheet's empty date?)`);
  return date;
}

/** PSA's qualifiers, printed after the grade in brackets or bare (`MINT 9 (OC)`, `GEM MT 10 OC`). */
const QUALIFIER_AT_END = /\s*(?:\(([A-Za-z]{1,3})\)|(?<=\s)(OC|ST|PD|OF|MK|MC))$/i;
/** Grade words: letters with the marks labels print between them (`NM-MT+`, `NM/M`, `EX.`), no digits. */
const WORDS = '[A-Za-z][A-Za-z ./+-]*';
// a grader's mark may touch the number (`PSA10`, `PSA-10`, as sheets write it); other words may not (`x10`, `Grade10` are no grade 10)
const GRADE_TEXT = new RegExp(`^(?:${WORDS}\\s|(?:PSA|BGS|BVG|CGC|SGC|TAG|ACE|HGA)[-#:]?(?=\\d))?(\\d{1,2}(?:\\.\\d+)?)(?:\\s+${WORDS})?$`, 'i');

/**
 * A grade as printed (`10`, `9.5`, `GEM MT 10`, `PSA 9`, `MINT 9 (OC)`, and the number first:
 * `10 Pristine`, `9.8 NM/M`, `PSA 10 GEM MINT`): its one number (0 to 10) and its qualifier, in
 * brackets as PSA's files write it (`GEM MT 10 OC` → `(OC)`); no number for a grade without one
 * (`Authentic`) or with two (`9 10`), never a guess.
 */
export function gradeNumber(grade: string | null): { value: number | null; qualifier: string | null } {
  if (grade === null) return { value: null, qualifier: null };
  // full-width digits and letters (１０, ＧＥＭ ＭＴ １０) as the ones they stand for
  const text = grade.normalize('NFKC').trim();
  const q = QUALIFIER_AT_END.exec(text);
  const m = GRADE_TEXT.exec(q ? text.slice(0, q.index) : text);
  if (!m) return { value: null, qualifier: null };
  const value = Number(m[1]);
  const qualifier = q ? `(${(q[1] ?? q[2])!.toUpperCase()})` : null;
  return value >= 0 && value <= 10 ? { value, qualifier } : { value: null, qualifier: null };
}

/** Non-empty values of the named columns, as the file has them. */
function kept(f: Fields, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) {
    const v = f.text(c);
    if (v !== null) out[c] = v;
  }
  return out;
}

/** PSA Auction Prices Realized: one graded sale per row, Pokémon and MTG mixed (`game`). */
const psa: PriceLayout = {
  name: 'psa',
  title: 'PSA auction prices realized (graded sales)',
  game: null,
  columns: ['date', 'game', 'pokemon_card_id', 'mtgjson_uuid', 'scryfall_id', 'grade', 'qualifier', 'price_usd', 'lot_url'],
  datedKeys: false,
  read(f) {
    const game = f.need('game').toLowerCase();
    if (game !== 'pokemon' && game !== 'mtg') fail(f.at, `"game" must be pokemon or mtg, not "${game}"`);
    const lot = f.need('lot_url');
    const date = dateOf(f, 'date');
    const price = priced(money(f, 'price_usd'));
    if (price === null) return skip('no_price');
    const ref: CardRef = game === 'pokemon' ? { pokemonId: f.text('pokemon_card_id') } : { mtgjsonUuid: f.text('mtgjson_uuid'), scryfallId: f.text('scryfall_id') };
    if (!ref.pokemonId && !ref.mtgjsonUuid && !ref.scryfallId) return skip('no_card_id');
    return {
      kind: 'price',
      game,
      ref,
      rowKey: lot,
      date,
      price,
      currency: 'USD',
      graded: true,
      grade: f.text('grade'),
      qualifier: f.text('qualifier'),
      volume: null,
      // company and numeric grade where price_stats reads them for a slab of the same grade
      extra: { ...kept(f, ['sale_type', 'auction_house', 'psa_cert', 'lot_url', 'source_card_slug', 'catalog_note']), ...slabFields('PSA', f.text('grade')) },
    };
  },
};

/** TCGplayer market price per 3-day window with the sales in it; sealed products have no card id. */
const tcgplayer3Day: PriceLayout = {
  name: 'tcgplayer-3day',
  title: 'TCGplayer 3-day market price history',
  game: 'pokemon',
  columns: ['pokemon_card_id', 'tcgplayer_product_id', 'window_start', 'window_end', 'market_price_usd', 'volume'],
  datedKeys: false,
  read(f) {
    const product = f.need('tcgplayer_product_id');
    const start = dateOf(f, 'window_start');
    // The price holds at the window's end; the start names the window.
    const end = dateOf(f, 'window_end');
    const price = priced(money(f, 'market_price_usd'));
    if (price === null) return skip('no_price');
    const id = f.text('pokemon_card_id');
    if (!id) return skip('no_card_id');
    return {
      kind: 'price',
      game: 'pokemon',
      ref: { pokemonId: id },
      rowKey: `${product}:${start}`,
      date: end,
      price,
      currency: 'USD',
      graded: false,
      grade: null,
      qualifier: null,
      volume: f.integer('volume'),
      extra: kept(f, ['tcgplayer_product_id', 'window_start', 'product_type', 'name', 'set_code_source', 'scraped_at']),
    };
  },
};

/**
 * TCGplayer daily snapshots. The source names no collector number, so a card is a list of
 * candidate ids (`a|b|c`: the regular, full-art and secret printings of one name in one set);
 * only rows with exactly one candidate can be said to price a card.
 */
const tcgplayerSnapshot: PriceLayout = {
  name: 'tcgplayer-snapshot',
  title: 'TCGplayer daily price snapshots',
  game: 'pokemon',
  columns: ['date', 'pokemon_card_id_candidates', 'tcgplayer_product_id', 'printing', 'market_price_usd'],
  read(f) {
    const date = dateOf(f, 'date');
    const product = f.need('tcgplayer_product_id');
    const price = priced(money(f, 'market_price_usd'));
    const low = money(f, 'low_price_usd');
    const median = money(f, 'median_price_usd');
    if (price === null) return skip('no_price');
    const candidates = (f.text('pokemon_card_id_candidates') ?? '').split('|').map((s) => s.trim()).filter(Boolean);
    if (candidates.length === 0) return skip('no_card_id');
    if (candidates.length > 1) return skip('ambiguous');
    return {
      kind: 'price',
      game: 'pokemon',
      ref: { pokemonId: candidates[0]! },
      rowKey: `${date}:${product}:${f.text('printing') ?? ''}`,
      date,
      price,
      currency: 'USD',
      graded: false,
      grade: null,
      qualifier: null,
      volume: null,
      extra: {
        ...kept(f, ['tcgplayer_product_id', 'printing', 'card_name', 'set_name', 'source_card_id', 'source_last_updated']),
        ...(low !== null ? { low_price_usd: low } : {}),
        ...(median !== null ? { median_price_usd: median } : {}),
      },
    };
  },
};

/**
 * A dated price per MTG printing, by MTGJSON uuid or Scryfall id: the MTGO file in event tickets
 * (kept as TIX, never mixed with dollars) and the MTGGoldfish file in USD differ only in their
 * price column and currency.
 */
function mtgDaily(name: string, title: string, column: string, currency: string, keptColumns: readonly string[]): PriceLayout {
  return {
    name,
    title,
    game: 'mtg',
    columns: ['date', 'scryfall_id', 'mtgjson_uuid', column],
    read(f) {
      const date = dateOf(f, 'date');
      const price = priced(money(f, column));
      if (price === null) return skip('no_price');
      const ref = { mtgjsonUuid: f.text('mtgjson_uuid'), scryfallId: f.text('scryfall_id') };
      if (!ref.mtgjsonUuid && !ref.scryfallId) return skip('no_card_id');
      return {
        kind: 'price',
        game: 'mtg',
        ref,
        rowKey: `${date}:${ref.mtgjsonUuid ?? ref.scryfallId}`,
        date,
        price,
        currency,
        graded: false,
        grade: null,
        qualifier: null,
        volume: null,
        extra: kept(f, keptColumns),
      };
    },
  };
}

/** What `price_stats` matches a read slab by: the company (upper case) and the grade's number. */
function slabFields(company: string | null, grade: string | null): Record<string, unknown> {
  const value = gradeNumber(grade).value;
  return { ...(company !== null ? { company } : {}), ...(value !== null ? { grade_value: value } : {}) };
}

/**
 * Words a shop's sheet writes in the grade or company column of a sale of a card in no slab: `Raw`, `Ungraded`, `none`,
 * `n/a`, `-`, and the conditions raw cards sell by (`NM`, `Lightly Played`, `DMG`). Such a sale was filed as graded
 * (h228: a sheet's `Raw`, `Ungraded` and `NM` rows made the graded figures' minimum $0.90, and the company `none` a grader).
 */
const RAW_WORDS = new Set([
  'raw', 'ungraded', 'notgraded', 'none', 'no', 'na', 'nil', 'null',
  'nm', 'nmmt', 'nmm', 'nearmint', 'mint', 'm', 'lp', 'lightlyplayed', 'lightplay', 'mp', 'moderatelyplayed', 'hp', 'heavilyplayed',
  'played', 'pl', 'dmg', 'damaged', 'poor', 'excellent', 'ex', 'exmt', 'vg', 'verygood', 'good', 'gd', 'fair', 'sp', 'slightlyplayed',
]);
/** A grade or company cell that says the card is in no slab ({@link RAW_WORDS}; a cell of dashes too). */
export function isRawWord(text: string | null): boolean {
  if (text === null) return false;
  const folded = text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return folded === '' || RAW_WORDS.has(folded);
}

const PLAIN_COLUMNS = ['card', 'date', 'price', 'currency'] as const;
const PLAIN_OPTIONAL = ['grade', 'company', 'source'] as const;

/**
 * The plain CSV: `card, date, price, currency[, grade, company, source]`, for a catalog of any
 * kind. `card` is the catalog's key of the card (or an alias: an MTGJSON uuid); a row with a grade
 * or a company is a graded sale. Every row is one observation: two alike are two sales, numbered
 * in file order, so a re-import changes nothing and a price corrected in place is updated.
 * Unlike the public files, a row without a price or currency is an error, not a skip.
 */
const plain: PriceLayout = {
  name: 'csv',
  title: 'plain CSV',
  game: null,
  anyCatalog: true,
  columns: PLAIN_COLUMNS,
  optional: PLAIN_OPTIONAL,
  repeats: true,
  read(f, ctx) {
    const card = f.need('card');
    const date = dateOf(f, 'date');
    const price = money(f, 'price') ?? fail(f.at, '"price" is missing');
    if (price === 0) return skip('no_price');
    const currencyText = f.need('currency');
    if (!/^[A-Za-z]{3}$/.test(currencyText)) fail(f.at, `"currency" must be a three-letter code such as USD or EUR, not "${currencyText}"`);
    const currency = currencyText.toUpperCase();
    const grade = f.text('grade');
    const written = f.text('company')?.toUpperCase() ?? null;
    // a raw card's word (`Raw`, `NM`, `none`) grades nothing; the cell is kept as written
    const rawCompany = isRawWord(written);
    const rawGrade = isRawWord(grade) && (written === null || rawCompany);
    // as a label read names it (Beckett, BVG → BGS), so a slab's graded entries find these sales; any other grader is OTHER
    const company = rawCompany ? (rawGrade || grade === null ? null : companyLeadingGrade(grade)) : (gradingCompanyOf(written) ?? companyLeadingGrade(grade));
    const sourceWritten = f.text('source');
    // one source in any case (`eBay`, `ebay`): the same sales imported under another spelling were stored twice (h228)
    const source = sourceWritten === null ? null : (ctx?.source?.(sourceWritten) ?? sourceWritten);
    const qualifier = gradeNumber(grade).qualifier;
    return {
      kind: 'price',
      game: null,
      ref: { cardKey: card },
      // the importer puts the card it resolved in front and numbers rows alike
      // the company as written: rows imported before names were normalised keep their keys
      rowKey: [date, currency, written ?? '', grade ?? '', source ?? ''].join('|'),
      ...(source !== null ? { source } : {}),
      date,
      price,
      currency,
      graded: (grade !== null && !rawGrade) || company !== null,
      grade,
      qualifier: rawGrade ? null : qualifier,
      volume: null,
      extra: rawGrade ? {} : slabFields(company, grade),
    };
  },
};

const mtgoTix = mtgDaily('mtgo-tix', 'MTGO prices in tix', 'price_tix', 'TIX', ['card_key', 'name', 'set_code']);
const mtgDailyUsd = mtgDaily('mtggoldfish', 'MTG daily prices in USD (MTGGoldfish)', 'price_usd', 'USD', ['name', 'set_code']);

/** In the order tried: the most specific header first (PSA's also has `mtgjson_uuid` and `price_usd`). */
export const PRICE_LAYOUTS: readonly PriceLayout[] = [tcgplayerSnapshot, mtgoTix, psa, tcgplayer3Day, mtgDailyUsd, plain];

/** The layout whose columns the header has (and no others, for a layout that lists its optional ones), or null. */
export function detectLayout(header: readonly string[]): PriceLayout | null {
  const have = new Set(header);
  return (
    PRICE_LAYOUTS.find((l) => {
      if (!l.columns.every((c) => have.has(c))) return false;
      if (!l.optional) return true;
      const allowed = new Set([...l.columns, ...l.optional]);
      return header.every((h) => allowed.has(h));
    }) ?? null
  );
}

/**
 * What keeps a header that names `card` (the plain CSV's own column) from being a plain CSV, for the refusal's message:
 * `as a plain CSV, "notes" is none of its columns (remove it)`, `… it lacks "currency"`. Null for another header. A shop's
 * sheet with one more column, or none for the currency, was refused with the six layouts' columns listed and nothing
 * saying which column was wrong (h316).
 */
export function plainCsvMismatch(header: readonly string[]): string | null {
  if (!header.includes('card')) return null;
  const allowed = new Set<string>([...PLAIN_COLUMNS, ...PLAIN_OPTIONAL]);
  const extra = header.filter((h) => !allowed.has(h));
  const missing = PLAIN_COLUMNS.filter((c) => !header.includes(c));
  const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');
  const parts = [...(extra.length ? [`${quoted(extra)} ${extra.length > 1 ? 'are' : 'is'} none of its columns (remove ${extra.length > 1 ? 'them' : 'it'})`] : []), ...(missing.length ? [`it lacks ${quoted(missing)}`] : [])];
  return parts.length ? `as a plain CSV, ${parts.join(' and ')}` : null;
}

/** A layout's columns for messages: `card, date, price, currency[, grade, company, source]`. */
export const layoutColumns = (l: PriceLayout): string => `${l.columns.join(', ')}${l.optional?.length ? `[, ${l.optional.join(', ')}]` : ''}`;
