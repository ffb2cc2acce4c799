import { extractedColourCodes, recordText } from '../../text-search/record-text.ts';
import { TOKENS_VERSION } from '../../text-search/seen-tokens.ts';
import { serverTags, serverTagsSimple } from '../visual-search/items.ts';

/** What a colour word's re-rank reads of a record's text row. */
export interface StoredBody {
  body: string;
  /** The token version the row was written at. */
  version: number;
}

/**
 * The words and concept codes of a record's own fields, as its index body holds them, less what the server made from its
 * photo: the colours extracted (`_dominant_colors`) and, with `extract_tags`, the tags (`_tags`, and the `_tags_simple`
 * made from them), whose colour names ranked a trace of red as "the seller says red" (h242: 13.6 % burgundy at ½).
 */
export function ownWordCodes(data: Record<string, unknown>, productField: string | null | undefined): string[] {
  const { _dominant_colors: _, ...own } = data;
  if (data.extract_tags === true) {
    if (serverTagsSimple(data)) delete own._tags_simple;
    // a `_tags` the client sent is kept as sent, and is its words
    if (serverTags(data)) delete own._tags;
  }
  return recordText(own, productField).body.split(' ');
}

/**
 * Whether a record's own words hold one of `codes`, as {@link ownWordCodes} says. Its stored body is those words and codes
 * with the extracted colours' codes besides, written from its stored data: where the row is this release's and no server
 * tags are taken out (`extract_tags`), a code in the body that no extracted colour put there is the record's own, and one
 * not in the body is none. Reading the words again for each of a colour word's 1,000 candidates was most of such a
 * search's time (`npm run bench -- text-search`, "blue"); the body decides all but the records whose extracted colours
 * hold the code too.
 */
export function ownWordsName(data: Record<string, unknown>, productField: string | null | undefined, codes: readonly string[], stored: StoredBody | undefined): boolean {
  if (stored && stored.version >= TOKENS_VERSION && data.extract_tags !== true) {
    const tokens = new Set(stored.body.split(' '));
    const inBody = codes.filter((x) => tokens.has(x));
    if (!inBody.length) return false;
    const extracted = new Set(extractedColourCodes(data));
    if (inBody.some((x) => !extracted.has(x))) return true;
  }
  return ownWordCodes(data, productField).some((w) => codes.includes(w));
}
