/**
 * The folded forms of a card's name and collector number. Catalogs store them at import and
 * recognition compares what it reads against them, so both sides must fold alike: this module is
 * the one definition.
 */
import { foldLatinStrokes } from '../util/script-fold.ts';

/**
 * A number as a catalog key: upper-case, no spaces, leading zeros dropped from its digits
 * (`097` → `97`, `SWSH001` → `SWSH1`, `TG05` → `TG5`), so a printed and a catalog number compare.
 */
export function numberKey(number: string): string {
  const s = number.toUpperCase().replace(/\s+/g, '');
  const m = /^([A-Z]*)0*(\d+)(.*)$/.exec(s);
  return m ? `${m[1]}${m[2]}${m[3]}` : s;
}

/**
 * Names compared without accents, case, punctuation or spaces; `♀`/`♂` kept as letters. A kana's voiced and
 * semi-voiced marks stay (since migration 032): ガラガラ (Marowak) is not カラカラ (Cubone), h152.
 */
export function normalizeName(name: string): string {
  // the Latin letters no decomposition takes apart (ß, ł, ı, ø, œ…) folded as session and text search fold them, since
  // migration 035: a Turkish shop's `Işık` was found by `ışık` on SQLite and not on PostgreSQL (h181)
  return foldLatinStrokes(unmarkedLower(name)).replace(NOT_LETTERS, '');
}

/** `normalizeName` before migration 035: Latin strokes and ligatures kept. */
export function normalizeNameBefore035(name: string): string {
  return unmarkedLower(name).replace(NOT_LETTERS, '');
}

const NOT_LETTERS = /[^\p{L}\p{N}]+/gu;
/** Text without accents, in any width (NFKD), recomposed: a kana's voiced marks stay (ガラガラ is not カラカラ). */
export const withoutMarks = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, (m) => (m === '\u3099' || m === '\u309a' ? m : ''))
    .normalize('NFC');

/** Lower case without accents (a kana's voiced marks kept, recomposed), `♀`/`♂` as letters. */
const unmarkedLower = (name: string): string => withoutMarks(name.replace(/♀/g, ' f ').replace(/♂/g, ' m ')).toLowerCase();

/** `normalizeName` before migration 032: kana voiced marks dropped too. */
export function normalizeNameBefore032(name: string): string {
  return name
    .replace(/♀/g, ' f ')
    .replace(/♂/g, ' m ')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}
