/**
 * A parsed query as the two backends' full-text query languages: an FTS5 MATCH string and
 * PostgreSQL `to_tsquery` input. Both are built only from quoted terms and the OR operator, so
 * nothing a client types can become syntax: every term is a string literal of the query
 * language, its quote characters doubled. (The parser already keeps only letters, marks and
 * digits in a term; the quoting is the guarantee that does not depend on that.) Both strings are
 * meant to be passed as bound parameters, never spliced into SQL.
 */
import { lexiconIndex } from './lexicon/lexicon.ts';
import type { ParsedQuery } from './query.ts';
import { lowerBound } from '../util/lower-bound.ts';

// Languages whose words SQLite cannot stem (FTS5's porter is English-only): a term of five
// letters or more is also looked for in its other inflected forms the collection holds (`inflections.ts`),
// which finds "zapato" from "zapatos" and "avions" from "avion". Plan §2.4. And a query whose language could
// not be told (`simple`: a lone plural, `piccioni`, `flamingor`), which PostgreSQL stems by every
// language of the collection's rows: on SQLite it was a 422 where PostgreSQL found the records (h197).
const prefixStemmed = new Set(['es', 'fr', 'pt', 'ru', 'de', 'id', 'it', 'nl', 'pl', 'tr', 'sv', 'simple']);
// Russian: four, as its stems may be three letters (`inflections.ts`) and many nouns end in one letter: "кожа" was a 422
// on SQLite where PostgreSQL's stemmer found a record saying "кожи" (h338).
const prefixMinLetters = (language: string) => (language === 'ru' ? 4 : 5);
const prefixKeep = 4;

/**
 * A query word's other forms the collection's index holds, by the word (folded, as a term or literal): what the SQLite
 * adapter found of `inflectedForms`. Each is searched as written, in the word's group.
 */
export type Inflections = ReadonlyMap<string, readonly string[]>;
const none: Inflections = new Map();

/** A string as an FTS5 string literal: in double quotes, inner ones doubled. */
export const fts5String = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** A string as a quoted tsquery lexeme: in single quotes, quotes and backslashes doubled. */
export const tsqueryLexeme = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** The first letters of a word that its other forms share, where SQLite looks for them (a word of five letters or more). */
function prefixOf(term: string, language: string): string | undefined {
  if (!prefixStemmed.has(language)) return undefined;
  const letters = [...term];
  if (letters.length < prefixMinLetters(language) || !/^\p{L}+$/u.test(term)) return undefined;
  return letters.slice(0, Math.max(prefixKeep, letters.length - 2)).join('');
}

/**
 * The FTS5 MATCH expression: every concept code and term ORed, so BM25 ranks records by how many
 * and how rare the matches are. Null when there is nothing to search for.
 */
export function toFts5Match(q: ParsedQuery, inflections: Inflections = none): string | null {
  const parts = toFts5Phrases(q, inflections);
  return parts.length > 0 ? parts.join(' OR ') : null;
}

/** The phrases `toFts5Match` ORs, each a MATCH expression of its own (BM25 sums over them). */
export function toFts5Phrases(q: ParsedQuery, inflections: Inflections = none): string[] {
  return toFts5PhraseGroups(q, inflections).flat();
}

/**
 * The words SQLite also looks for in their other inflected forms (`Inflections`): the terms, and the words read as
 * concepts whose prefix begins no other language's lexicon word (`literalPhrases`), of five letters or more in a
 * language FTS5 cannot stem.
 */
export function inflectedWords(q: ParsedQuery): string[] {
  const words = q.terms.filter((t) => prefixOf(t, q.language));
  for (const literal of q.literals ?? []) if (literalPhrases(literal, q).inflect) words.push(literal);
  return [...new Set(words)];
}

/**
 * The phrases grouped by the word they look for: a term with its other forms (`"binocular"`, `"binoculars"`) is one
 * group, whose best phrase counts for a record, as PostgreSQL's one lexeme set does; summed, a record holding the word
 * matched both and scored twice what it scores there (h251), and a second query word it lacked moved it further away.
 * A phrase two groups share is in the first.
 */
export function toFts5PhraseGroups(q: ParsedQuery, inflections: Inflections = none): string[][] {
  const seen = new Set<string>();
  const groups: string[][] = [];
  const add = (phrases: string[]) => {
    const fresh = phrases.filter((p) => !seen.has(p));
    for (const p of fresh) seen.add(p);
    if (fresh.length) groups.push(fresh);
  };
  for (const { code } of q.codes) add([fts5String(code)]);
  const formsOf = (word: string) => (prefixOf(word, q.language) ? (inflections.get(word) ?? []) : []);
  for (const term of q.terms) add([term, ...formsOf(term)].map(fts5String));
  // a word read as a concept is looked for as written with its other forms too, as another word is: "Kaffeetassen" did
  // not find the record saying "Kaffeetasse" by its own word on SQLite, where PostgreSQL's stemmer did (h269)
  for (const literal of q.literals ?? []) {
    const { phrases, inflect } = literalPhrases(literal, q);
    add([...phrases, ...(inflect ? formsOf(literal) : [])].map(fts5String));
  }
  return groups;
}

let singleWordForms: string[] | undefined;
/** The lexicon's one-word forms (folded), sorted, for the forms a prefix begins. */
const lexiconWordsSorted = () => (singleWordForms ??= [...lexiconIndex().phrases.keys()].filter((k) => !k.includes(' ')).sort());

/** The lexicon's one-word forms that begin with `prefix`. */
function formsBeginning(prefix: string): string[] {
  const all = lexiconWordsSorted();
  const out: string[] = [];
  for (let i = lowerBound(all, prefix); i < all.length && all[i]!.startsWith(prefix); i++) out.push(all[i]!);
  return out;
}

/**
 * A word read as a concept as the words of its group: as written, and in its other inflected forms, the crude stem SQLite
 * can do (`inflect`), unless its prefix begins a word another language's lexicon lists (`jacke` → `jack`, which begins
 * `jacket`; French `trains` → `trai`, English `trainers`). Such a word is another word, which PostgreSQL's stemmers keep
 * apart (the German stem of `jacke` is `jack`, the English one of `jacket` `jacket`), and a record holding it is found by
 * its own concept code; matched by the prefix too, "Leather jacket" ranked above "Jacke aus Leder" for `jacken` on SQLite
 * and not on PostgreSQL (h281). There the word's own language's forms of the same concept that the prefix begins are
 * searched as written instead (`jacke`, `jacken`): the inflections the stemmer joins, as far as the lexicon lists them.
 */
function literalPhrases(literal: string, q: ParsedQuery): { phrases: string[]; inflect: boolean } {
  const prefix = prefixOf(literal, q.language);
  if (!prefix || prefix === literal) return { phrases: [literal], inflect: false };
  const phrases = lexiconIndex().phrases;
  const named = q.concepts.filter((m) => m.text === literal).map((m) => m.concept);
  const same = (c: { kind: string; name: string }) => named.some((n) => n.kind === c.kind && n.name === c.name);
  // the word's language: the query's where the word is its (`trains` is French in "les trains rouges", and English
  // `trainers` another word), else those the lexicon lists it in
  const own = (phrases.get(literal) ?? []).filter((e) => same(e.concept)).map((e) => e.lang as string);
  const langs = new Set(own.includes(q.language) ? [q.language] : own.length ? own : [q.language]);
  const begun = formsBeginning(prefix).filter((f) => f !== literal);
  const strays = begun.filter((f) => !phrases.get(f)!.some((e) => langs.has(e.lang)));
  if (!strays.length) return { phrases: [literal], inflect: true };
  const siblings = begun.filter((f) => phrases.get(f)!.some((e) => langs.has(e.lang) && same(e.concept)));
  return { phrases: [literal, ...siblings], inflect: false };
}

/**
 * BM25's idf of a phrase found in `df` of `n` documents, in the form that stays positive (Lucene's,
 * `ln(1 + (N − df + 0.5) / (df + 0.5))`): the classic form falls to nothing once a word is in half
 * the documents, so in a shop where most records say "scarf" every "scarf" answer was at the same
 * distance, about 100, whatever its prominence.
 */
export const bm25Idf = (df: number, n: number) => Math.log(1 + (Math.max(n, df) - df + 0.5) / (df + 0.5));

/** The idf FTS5's `bm25()` applies (the classic form, floored at 1e-6), to take back out of its scores. */
export const fts5Idf = (df: number, n: number) => Math.max(1e-6, Math.log((Math.max(n, df) - df + 0.5) / (df + 0.5)));

export interface PgTsqueries {
  /** For `to_tsquery('simple', $n)`: concept codes, matched as written. Empty when none. */
  codes: string;
  /** For `to_tsquery(<language config>, $n)`: the text terms, stemmed by the configuration. Empty when none. */
  terms: string;
}

/** `to_tsquery` input for codes and for text terms, each an OR of quoted lexemes. */
export function toPgTsqueries(q: ParsedQuery): PgTsqueries {
  return {
    codes: q.codes.map((c) => tsqueryLexeme(c.code)).join(' | '),
    terms: [...q.terms, ...(q.literals ?? [])].map(tsqueryLexeme).join(' | '),
  };
}
