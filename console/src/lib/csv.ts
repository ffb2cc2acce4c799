import type { Identification } from '../types.ts';

/** The columns of a session export, in the order a spreadsheet user reads them. */
export const csvColumns: { header: string; value: (row: Identification) => unknown }[] = [
  { header: 'event_id', value: (r) => r.event_id },
  { header: 'seen', value: (r) => r.seen },
  { header: 'name', value: (r) => r.name },
  { header: 'full_name', value: (r) => r.full_name },
  { header: 'set_name', value: (r) => r.set_name },
  { header: 'set_code', value: (r) => r.set_code },
  { header: 'card_number', value: (r) => r.card_number },
  { header: 'year', value: (r) => r.year },
  { header: 'subcategory', value: (r) => r.subcategory },
  { header: 'price_usd', value: (r) => r.price },
  { header: 'grade', value: (r) => r.grade },
  { header: 'condition', value: (r) => r.grading?.grades?.condition },
  { header: 'confidence', value: (r) => r.confidence },
  { header: 'distance', value: (r) => r.distance },
  { header: 'corrected', value: (r) => r.corrected },
  { header: 'sold', value: (r) => r.sold },
  { header: 'note', value: (r) => r.note },
  { header: 'image', value: (r) => r.image },
];

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (a card note starting
 * with `=`, `+`, `-`, `@`, tab or carriage return) is prefixed with `'`: an export of data that
 * came from a stream's viewers must not execute in the shop owner's spreadsheet. Numbers stay numbers.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = typeof value === 'string' ? value : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The whole export; CRLF line ends and a byte-order mark so Excel reads UTF-8 names (Pokémon) right. */
export function sessionCsv(rows: readonly Identification[]): string {
  const lines = [csvColumns.map((c) => c.header).join(',')];
  for (const row of rows) lines.push(csvColumns.map((c) => csvField(c.value(row))).join(','));
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** A file name from a session's name: letters, digits, dashes. */
export function csvFileName(sessionName: string, id: string): string {
  const base = sessionName.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\w-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `${base || 'session'}-${id.slice(0, 8)}.csv`;
}
