/**
 * The record's own words for the text index (plan §2.2): every string value a client stored
 * (tags, categories, titles, custom attributes), not ids, URLs or the fields the server owns.
 * Concept codes the lexicon finds in it are added, so "vestido rojo" is found by "red dress".
 */
import { detectLanguage, type QueryLanguage } from './query-language.ts';
import { colorCode, colorNames, familyCode, familyOf, itemCode, itemKinds, type ColorName, type ItemKind } from './lexicon/concepts.ts';
import { conceptCodesIn, indexWords, typedSpellings } from './query.ts';
import { foldText, wordsOf } from './text-fold.ts';
import { nameColor } from '../vision/models/dominant-colors.ts';

/** Record text beyond this many characters is not indexed (a record is not a document store). */
export const maxRecordTextChars = 16 * 1024;
const maxDepth = 3;
/** `_tags` entries with a `prob` below this are left out of the record's words (docs/api-decisions.md, text search). */
export const minTagProb = 0.1;

// Fields whose strings are not words about the image.
const skippedFields = new Set(['_id', '_url', '_base64', '_file', '_objects', '_dominant_colors']);
const urlLike = /^[a-z][a-z0-9+.-]*:\/\/\S*$/i;
const uuidLike = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const numberLike = /^[\s\d.,:+\-/]*$/;

function collect(value: unknown, depth: number, out: string[], budget: { left: number }): void {
  if (budget.left <= 0 || depth > maxDepth) return;
  if (typeof value === 'string') {
    const s = value.trim();
    if (!s || urlLike.test(s) || uuidLike.test(s) || numberLike.test(s)) return;
    const taken = s.slice(0, budget.left);
    budget.left -= taken.length + 1;
    out.push(taken);
  } else if (Array.isArray(value)) {
    for (const v of value) collect(v, depth + 1, out, budget);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // A key is the record's format, as `_tags`' names are, and the same on every record: its value says what the
      // record is (h261: `{"title": {"en": …, "es": …}}` and `{"variants": [{"qty": 2}]}` were found by "es" and "qty",
      // and the language codes made an English record Spanish to PostgreSQL's stemmer). A flag's key is its meaning.
      if ((v === true || isScore(v)) && !k.startsWith('_')) collect(k, depth + 1, out, budget);
      else collect(v, depth + 1, out, budget);
    }
  }
}

/** A label map's score (`{"chair": 0.92}`): a share of 0–1 at or over `minTagProb`, as `_tags`' probabilities are read. */
const isScore = (v: unknown): boolean => typeof v === 'number' && v >= minTagProb && v < 1;

export interface RecordText {
  /** Folded, segmented words plus concept codes, for the index's body column. */
  body: string;
  /** The text's language, which chooses PostgreSQL's stemmer for it. */
  lang: QueryLanguage;
}

/** Fields the spec or the server fill, in the taxonomy's English whatever the shop writes in. */
const taxonomyFields = new Set(['Top Category', 'Category']);

/** `productField` is the collection's product id field: an id, not words. */
export function recordText(data: Record<string, unknown>, productField?: string | null): RecordText {
  const parts: string[] = [];
  // the shop's own words, which tell the record's language (languageOf)
  const own: string[] = [];
  const budget = { left: maxRecordTextChars };
  for (const [k, v] of Object.entries(data)) {
    if (skippedFields.has(k) || k === productField) continue;
    // `_tags` (spec 2 §2) is the taxonomy's map: its names (Top Category, Color, pre-filled) are
    // the format's, the same on every record, and only its values say what the record is.
    if (k === '_tags' && v && typeof v === 'object' && !Array.isArray(v)) {
      for (const tags of Object.values(v)) {
        for (const tag of Array.isArray(tags) ? tags : [tags]) {
          // a tag given with a probability under `minTagProb` (an extracted colour covering 3 % of the
          // garment) is not a word about the record: "pink" found a navy jacket through it
          if (tag && typeof tag === 'object' && 'prob' in tag && typeof tag.prob === 'number' && tag.prob < minTagProb) continue;
          collect(tag && typeof tag === 'object' && 'name' in tag ? (tag as { name: unknown }).name : tag, 1, parts, budget);
        }
      }
      continue;
    }
    // A top-level flag's key is left out, unlike a nested one's (`{"features": {"waterproof": true}}`): at the top, flags
    // are the shop's own fields (`in_stock`, `active`, `available`), the same English words on every record, which
    // tipped a record's language as the title maps' keys did (h268, after h263 asked for them)
    const from = parts.length;
    collect(v, 1, parts, budget);
    if (!k.startsWith('_') && !taxonomyFields.has(k)) own.push(...parts.slice(from));
  }
  const raw = parts.join('\n');
  const folded = foldText(raw);
  const words = wordsOf(folded);
  const items = [...itemCodesOf(data._objects), ...itemColourCodesOf(data._dominant_colors)];
  if (words.length === 0) return { body: items.join(' '), lang: 'simple' };
  const codes = conceptCodesIn(raw);
  return { body: [indexWords(raw), ...codes, ...items.filter((c) => !codes.includes(c))].join(' '), lang: languageOf(own, raw, folded, words) };
}

/**
 * The record's language, told by the shop's own fields where they hold words: the spec's and the server's (`_tags`
 * extracted as `Clothing/Tops`, `Top Category`, `_tags_simple`) are English on every record, and with `extract_tags` a
 * Spanish record was stemmed as English on PostgreSQL (h281: "ligero" found it on SQLite only). Else all of it.
 */
function languageOf(own: string[], raw: string, folded: string, words: string[]): QueryLanguage {
  const ownRaw = own.join('\n');
  const ownFolded = foldText(ownRaw);
  const ownWords = wordsOf(ownFolded);
  return ownWords.length ? detectLanguage(ownFolded, ownWords, typedSpellings(ownRaw)) : detectLanguage(folded, words, typedSpellings(raw));
}

/**
 * The garment kinds a fashion record's items were found as (`_objects[].name`: `upper body`,
 * `footwear`, …), as the codes "shirt", "chaussures" or "裙子" are read to: the server saw them,
 * so text search finds them as it finds the objects it saw.
 */
/**
 * The colour codes of a record's extracted item colours (`_dominant_colors.names`, by share, as the whole image's are
 * written), so a colour search finds a navy garment in a photo whose other people are not navy (h83: candidates came
 * from the whole photo's colours alone).
 */
/** The codes a record's body holds for its extracted `_dominant_colors` (the server's, not the record's own words). */
export function extractedColourCodes(data: Record<string, unknown>): string[] {
  return itemColourCodesOf(data._dominant_colors);
}

function itemColourCodesOf(colours: unknown): string[] {
  if (!colours || typeof colours !== 'object') return [];
  const { names: given, percentages, luv_colors: luv } = colours as { names?: unknown; percentages?: unknown; luv_colors?: unknown };
  // a client's own colours (kept as sent) come without palette names: named as the server names what it measures, so a
  // colour word finds them as it finds extracted ones
  const names = Array.isArray(given) ? given : Array.isArray(luv) ? luv.map((c) => (Array.isArray(c) && c.length === 3 && c.every((x) => typeof x === 'number') ? nameColor(c) : undefined)) : undefined;
  if (!Array.isArray(names) || !Array.isArray(percentages)) return [];
  const out: string[] = [];
  names.forEach((name, i) => {
    const share = Number(percentages[i]) / 100;
    if (typeof name !== 'string' || !(colorNames as readonly string[]).includes(name) || !(share >= 0.1)) return;
    const times = share >= 0.6 ? 3 : share >= 0.3 ? 2 : 1;
    const family = familyOf[name as ColorName];
    for (let t = 0; t < times; t++) out.push(familyCode(family), ...(family !== name ? [colorCode(name as ColorName)] : []));
  });
  return out;
}

function itemCodesOf(objects: unknown): string[] {
  if (!Array.isArray(objects)) return [];
  const out = new Set<string>();
  for (const o of objects) {
    const name = o && typeof o === 'object' ? (o as { name?: unknown }).name : undefined;
    if (typeof name === 'string' && (itemKinds as readonly string[]).includes(name)) out.add(itemCode(name as ItemKind));
  }
  return [...out];
}
