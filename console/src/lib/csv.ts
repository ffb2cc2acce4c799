import type { Identification } from '../types.ts';

/** The columns of a session export, in the order a spreadsheet user reads them; most are the row's own fields. */
export const csvHeaders = ['event_id', 'seen', 'name', 'full_name', 'set_name', 'set_code', 'card_number', 'year', 'subcategory', 'price_usd', 'grade', 'condition', 'confidence', 'distance', 'corrected', 'sold', 'note', 'image', 'series'] as const;

const derived: Partial<Record<(typeof csvHeaders)[number], (row: Identification) => unknown>> = {
  price_usd: (r) => r.price,
  condition: (r) => r.grading?.grades?.condition,
  // a yes/no column says no (blank read as "unknown" in a sheet)
  sold: (r) => r.sold === true,
  corrected: (r) => r.corrected === true,
};

/**
 * `2026-12-02 08:00:00`, a spreadsheet's date (the API's microseconds and Z it reads as text), in the time zone the
 * page shows times in, which the column's header names: written in UTC, a Tokyo morning's sales fell on the day
 * before in the accountant's sheet, the page beside it showing the day they were made (h121).
 */
function localTime(seen: unknown, zone: string): unknown {
  if (typeof seen !== 'string') return seen;
  const at = new Date(seen);
  if (Number.isNaN(at.getTime())) return seen;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

const valueOf = (row: Identification, header: (typeof csvHeaders)[number], zone: string): unknown =>
  header === 'seen' ? localTime(row.seen, zone) : derived[header] ? derived[header](row) : (row as Record<string, unknown>)[header];

/** Columns of text a spreadsheet would take for a number or a date, when written as one. */
// a season (`2003-04`) became April 2003 and a set code `1-10` a date (h224)
const textColumns = new Set<(typeof csvHeaders)[number]>(['event_id', 'card_number', 'year', 'set_code', 'series']);

/**
 * A card number, event id, season or set code a spreadsheet would change, as the text formula `="025"`, which spreadsheets show as
 * written: `025` lost its zero, `4/102` became a date, a 13-digit event id `1.79617E+12`, and saving the sheet wrote
 * that back (h157). Other text, and a whole number of up to 11 digits, is written as it is.
 */
export function textCell(value: unknown): unknown {
  return typeof value === 'string' && /^[0-9][0-9/.-]*$/.test(value) && !/^[1-9][0-9]{0,10}$/.test(value) ? { formulaText: value } : value;
}

/** The browser's time zone (`Asia/Tokyo`), as the page's times are shown in. */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (a card note starting
 * with `=`, `+`, `-`, `@`, tab or carriage return) is prefixed with `'`: an export of data that
 * came from a stream's viewers must not execute in the shop owner's spreadsheet. Numbers stay numbers,
 * and so does text that is one (`-1`).
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && 'formulaText' in value) return `"=""${String((value as { formulaText: string }).formulaText)}"""`;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = typeof value === 'string' ? value : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  // a plain negative number (a comic's issue #-1, h136) runs nothing: kept as written
  if (/^[=+\-@\t\r]/.test(text) && !/^-[0-9]+(?:\.[0-9]+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The whole export; CRLF line ends and a byte-order mark so Excel reads UTF-8 names (Pokémon) right. */
export function sessionCsv(rows: readonly Identification[], zone = browserZone()): string {
  const lines = [csvHeaders.map((h) => csvField(h === 'seen' ? `seen (${zone})` : h)).join(',')];
  for (const row of rows) lines.push(csvHeaders.map((h) => csvField(textColumns.has(h) ? textCell(valueOf(row, h, zone)) : valueOf(row, h, zone))).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** A file name from a session's name: letters, digits, dashes. */
export function csvFileName(sessionName: string, id: string): string {
  // letters of any script stay (a Japanese or Korean name gave "session-…"); Latin accents go, a voiced kana stays itself
  const folded = sessionName.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').normalize('NFC');
  // a vowel or tone mark is part of its letter (Thai, Hindi, Arabic names were cut at each one, h117)
  const base = [...folded.replace(/[^\p{L}\p{M}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '')].slice(0, 60).join('').replace(/-+$/, '');
  return `${base || 'session'}-${id.slice(0, 8)}.csv`;
}
