import { parseQuery, type ParsedQuery } from '../../src/text-search/query.ts';
import { detectLanguage } from '../../src/text-search/query-language.ts';
import { foldText, wordsOf } from '../../src/text-search/text-fold.ts';

/** A text query as the parser reads it; throws where it reads none. */
export function parsed(text: string): ParsedQuery {
  const r = parseQuery(text);
  if (!r.ok) throw new Error(`expected a query, got ${r.error.code}`);
  return r.query;
}
/** The concept codes a query searches, sorted. */
export const codes = (text: string): string[] => parsed(text).codes.map((c) => c.code).sort();
/** The language the parser tells a text to be in (no typed spellings). */
export const lang = (s: string): string => detectLanguage(foldText(s), wordsOf(foldText(s)));
