import { dayOf } from './price-stats.ts';
import type { CatalogCardInput, CatalogSetInput } from '../store/catalog-store.ts';
import { normalizeName, numberKey } from './card-keys.ts';
import { CatalogFileError, describeAt } from './record-stream.ts';

/** A card (or printing, or issue) as every format is normalised to before it is stored. */
/** A card as a format reads it; the importer adds the folded name and number. */
export type CardRow = Omit<CatalogCardInput, 'nameNorm' | 'numberNorm'>;

export type SetRow = CatalogSetInput;

/** Where a record was read, for messages: the file and `line N (record K)`. */
export interface RecordPlace {
  file: string;
  line: number;
  index: number | null;
  path: string | null;
}

export const placeText = (p: RecordPlace): string => describeAt(p.line, p.index, p.path);

export function fail(p: RecordPlace, problem: string): never {
  throw new CatalogFileError(p.file, placeText(p), problem);
}

/** A record's fields with checks that name the record and the field when they fail. */
export class Fields {
  constructor(
    readonly value: Record<string, unknown>,
    readonly at: RecordPlace,
  ) {}

  static of(value: unknown, at: RecordPlace): Fields {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(at, `is not an object (${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`);
    return new Fields(value as Record<string, unknown>, at);
  }

  has(name: string): boolean {
    const v = this.value[name];
    return v !== undefined && v !== null && v !== '';
  }

  /** Text (numbers are taken as their decimal text); null when absent or empty. */
  text(name: string): string | null {
    const v = this.value[name];
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') {
      const t = v.trim();
      return t === '' ? null : t;
    }
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return fail(this.at, `"${name}" must be text, not ${describe(v)}`);
  }

  need(name: string): string {
    return this.text(name) ?? fail(this.at, `"${name}" is missing`);
  }

  /** An integer; CSV text like `165` is accepted. */
  integer(name: string): number | null {
    const v = this.value[name];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
    return fail(this.at, `"${name}" must be an integer, not ${describe(v)}`);
  }

  /**
   * A year (text starting with four digits: `2022`, `2022-06-01`, `2022-23`); null when absent.
   * Text that says more than the year (a season, `2003-04`; a date) is also kept as sent in `fields`
   * under the column's name (h224: a basketball season was stored as `2003` and its text lost).
   * Text that says the year is unknown (`Unknown Publication Year`, `n/a`, `?`), or with `lenient`
   * any text (a mapped CSV column: "Spring 1999", "c.1990"), is no year: the text is kept in
   * `fields` under the column's name and a remark counts it. Other text is refused, not stored empty.
   */
  year(name: string, remarks?: Remarks, fields?: Record<string, unknown>, lenient = false): string | null {
    const t = this.text(name);
    if (t === null) return null;
    // full-width digits (２０２３), as a Japanese spreadsheet types them, are a year too
    const y = yearOf(t.normalize('NFKC'));
    if (y !== null) {
      if (fields && t.normalize('NFKC').trim() !== y) fields[name] = t;
      return y;
    }
    if (!lenient && !unknownYear(t)) return fail(this.at, `"${name}" must be a year (four digits), not "${t.slice(0, 40)}"`);
    if (fields) fields[name] = t;
    remarks?.add([`{n} record gives "${name}" as no year: stored without a year, the text kept in its fields`, `{n} records give "${name}" as no year: stored without a year, the text kept in their fields`], `${placeText(this.at)}: "${t.slice(0, 40)}"`);
    return null;
  }

  /** A list of text values; null when absent. */
  textList(name: string): string[] | null {
    const v = this.value[name];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return fail(this.at, `"${name}" must be a list of text values, not ${describe(v)}`);
    return v as string[];
  }

  object(name: string): Fields | null {
    const v = this.value[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'object' || Array.isArray(v)) return fail(this.at, `"${name}" must be an object, not ${describe(v)}`);
    return new Fields(v as Record<string, unknown>, this.at);
  }

  boolean(name: string): boolean | null {
    const v = this.value[name];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    return fail(this.at, `"${name}" must be true or false, not ${describe(v)}`);
  }

  /** A date as `YYYY-MM-DD` (`YYYY/MM/DD` as the Pokémon data writes it is accepted). */
  date(name: string): string | null {
    const t = this.text(name);
    if (t === null) return null;
    const m = /^(\d{4})[-/](\d{2})[-/](\d{2})$/.exec(t);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[3]) < 1 || Number(m[3]) > 31) return fail(this.at, `"${name}" must be a date YYYY-MM-DD or YYYY/MM/DD, not "${t}"`);
    const day = `${m[1]}-${m[2]}-${m[3]}`;
    // a day no calendar has (2023/02/29, year 0000): SQLite stored it, PostgreSQL refused the whole import with its own
    // error, and a folder holding one could not be moved there (h198)
    if (dayOf(day) === null) return fail(this.at, `"${name}" is not a day of the calendar: "${t}"`);
    return day;
  }

  /** The record without the named fields and without empty values: what a row keeps in `fields`. */
  rest(...taken: string[]): Record<string, unknown> {
    const skip = new Set(taken);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.value)) {
      if (skip.has(k) || v === undefined || v === null || v === '') continue;
      out[k] = v;
    }
    return out;
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

/** Text that says a year is not known rather than giving a wrong one. */
export const unknownYear = (text: string): boolean => /^[\s?\-–—.]+$/.test(text) || /\b(unknown|unk|n\/a|none|tbd|tba|undated|no date)\b/i.test(text);

/** A year as text from a number, `2021`, or a date. */
export function yearOf(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const m = /^(\d{4})/.exec(String(value).trim());
  return m ? m[1]! : null;
}

/** The folded columns stored beside a row for lookups. */
export function foldedName(row: CardRow): string {
  return normalizeName(row.name);
}
export function foldedNumber(row: CardRow): string | null {
  return row.number === null || row.flags.includes('placeholder_code') ? null : numberKey(row.number);
}

/**
 * Sizes a card's text may take: far past any real card (the longest Magic name is 141 characters),
 * short of what would bloat the name index and every answer naming the card (a 20 MB name imported).
 */
const TEXT_LIMITS: [keyof CardRow, number][] = [
  ['key', 1000],
  ['name', 1000],
  ['setName', 1000],
  ['setCode', 200],
  ['number', 200],
  ['rarity', 200],
  ['year', 200],
];
const EXTRA_JSON_LIMIT = 64 * 1024;

/** What of a card is too large to import, or undefined. */
function tooLong(row: CardRow): string | undefined {
  for (const [field, max] of TEXT_LIMITS) {
    const v = row[field];
    if (typeof v === 'string' && v.length > max) return `the card's ${field} has ${v.length} characters; at most ${max}`;
  }
  const extra = JSON.stringify({ fields: row.fields, links: row.links, aliases: row.aliases }).length;
  if (extra > EXTRA_JSON_LIMIT) return `the card's other fields take ${Math.ceil(extra / 1024)} KiB of JSON; at most ${EXTRA_JSON_LIMIT / 1024} KiB`;
  return undefined;
}

/**
 * Rows of one import by key. A key seen twice is the same card twice: identical rows are kept
 * once (and counted), different rows are an error naming both records, since a later one
 * silently winning would hide a broken file.
 */
export class RowSet {
  readonly rows = new Map<string, { row: CardRow; at: RecordPlace }>();
  duplicates = 0;

  add(row: CardRow, at: RecordPlace): void {
    const long = tooLong(row);
    if (long) fail(at, long);
    const before = this.rows.get(row.key);
    if (!before) {
      this.rows.set(row.key, { row, at });
      return;
    }
    if (JSON.stringify(before.row) === JSON.stringify(row)) {
      this.duplicates++;
      return;
    }
    fail(at, `card "${row.key}" is already ${placeText(before.at)} with other values (every card needs its own key)`);
  }
}

/** Counted remarks about an import that are not errors (a card naming an unknown set, a fixed quirk). */
export class Remarks {
  private readonly counts = new Map<string, { count: number; first: string }>();

  /**
   * `what` is the remark with `{n}` where the count goes, or its `[one, many]` forms (`1 row names`,
   * `2 rows name`); `example` names the first case.
   */
  add(what: string | readonly [string, string], example: string): void {
    const key = typeof what === 'string' ? what : what.join('\u0000');
    const r = this.counts.get(key);
    if (r) r.count++;
    else this.counts.set(key, { count: 1, first: example });
  }

  list(): string[] {
    return [...this.counts].map(([key, r]) => {
      const [one, many = one] = key.split('\u0000') as [string, string?];
      return `${(r.count === 1 ? one : many).replace('{n}', r.count.toLocaleString('en-US'))} (first: ${r.first})`;
    });
  }
}

/** What a format reader is given besides its files. */
export interface ReadContext {
  /** Sets the catalog already holds, for cards that name their set by code only. */
  knownSets: ReadonlyMap<string, SetRow>;
  remarks: Remarks;
  /** Called per record read, with the file's bytes read so far and its size. */
  onRecord(file: string): void;
  onBytes(file: string, read: number, size: number): void;
}

/** What a format reader returns: rows checked and ready to store. */
export interface ReadResult {
  /** The shape that was read: `pokemon`, `mtgjson`, `scryfall`, `mtg-pool`, … */
  format: string;
  /**
   * How complete this source's rows are. A row is never replaced by one of a lower rank: the MTG
   * booster-pool supplement (no multiverse or TCGplayer ids, no MTGJSON uuids) must not overwrite
   * the MTGJSON printing of the same Scryfall card, whichever is imported first.
   */
  rank: number;
  sets: SetRow[];
  cards: RowSet;
  records: number;
}

export const placeOf = (file: string, r: { line: number; index: number | null; path?: string | null }, oneLine = true): RecordPlace => ({
  file,
  line: r.line,
  index: oneLine ? r.index : null,
  path: r.path ?? null,
});
