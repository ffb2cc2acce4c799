/**
 * Letters and digits that writers of one script type two ways, made one (h146, a shop writing Arabic,
 * Urdu, Hebrew and Hindi): Arabic-Indic, Persian/Urdu, Devanagari and Bengali digits as 0–9; the
 * Arabic taa marbuta (ة) as heh and alef maqsura (ى) as yeh, as everyday Arabic typing writes them;
 * the Urdu and Persian keyboards' kaf (ک), yeh (ی) and hehs (ہ ھ ۀ ۂ, and ە, what ۀ leaves once its
 * hamza is dropped, h147) as the Arabic keyboard's; the
 * Hebrew geresh and gershayim (׳ ״) as the apostrophe and quote Israeli keyboards type; the curly
 * apostrophes (’ ‘ ʼ ‛) as ' and the hyphens and dashes (‐ ‑ ‒ – −) as -. One
 * character for one, so SQL's translate() repeats it exactly.
 */
// since the forty-third session also the typographic apostrophes and hyphens a phone's smart punctuation types for ' and -
// (an iPhone's "Boss’s Orders" found no "Boss's Orders" session, and counted as another card, h152)
export const SCRIPT_FOLD_FROM = '٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹०१२३४५६७८९০১২৩৪৫৬৭৮৯ةىکیہھۀۂە׳״’‘ʼ‛‐‑‒–−';
export const SCRIPT_FOLD_TO = '0123456789012345678901234567890123456789هيكيههههه\'"\'\'\'\'-----';

const map = new Map([...SCRIPT_FOLD_FROM].map((c, i) => [c, [...SCRIPT_FOLD_TO][i]!]));
const folded = new RegExp(`[${SCRIPT_FOLD_FROM}]`, 'gu');

export const foldScripts = (text: string): string => text.replace(folded, (c) => map.get(c)!);

/**
 * Directional marks and isolates a phone inserts around pasted mixed-direction text (LRM, RLM, the
 * embeddings, overrides and isolates, the Arabic letter mark): never part of a word.
 */
export const bidiMarks = '\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c';

const bidi = new RegExp(`[${bidiMarks}]`, 'g');

export const withoutBidi = (text: string): string => text.replace(bidi, '');

if ([...SCRIPT_FOLD_FROM].length !== [...SCRIPT_FOLD_TO].length) throw new Error('script-fold: SCRIPT_FOLD_FROM and SCRIPT_FOLD_TO differ in length');

/**
 * Latin letters whose stroke or ligature no decomposition takes away, typed without it as the others are typed without
 * their accents: Polish ł (zolty for żółty), Turkish dotless ı (sari for sarı), Nordic ø, Croatian đ, French œ (coeur),
 * and German ß as the ss Swiss German and keyboards without it write. Text search folds them (since TOKENS_VERSION 6),
 * and session search (since the forty-third session).
 */
export const latinStrokes: Readonly<Record<string, string>> = { ł: 'l', ı: 'i', ø: 'o', đ: 'd', ħ: 'h', ŧ: 't', œ: 'oe', æ: 'ae', ß: 'ss' };
const stroked = new RegExp(`[${Object.keys(latinStrokes).join('')}]`, 'g');

export const foldLatinStrokes = (text: string): string => text.replace(stroked, (c) => latinStrokes[c]!);
