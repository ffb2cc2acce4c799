/**
 * Reading a text query (plan §2.5): fold, detect the language, find lexicon phrases (longest
 * first; on raw characters for Chinese and Japanese), turn them into concept codes, keep the other
 * words as text terms. Pure: no I/O, the same answer for the same text.
 */
import {
  colorCode,
  familyCode,
  familyOf,
  itemCode,
  objectCode,
  pairCode,
  peopleCode,
  personCountCode,
  type CocoLabel,
  type ColorFamily,
  type ColorName,
  type Concept,
  type ItemKind,
  type PeopleKind,
} from './lexicon/concepts.ts';
import { graderNames, lexiconIndex, spelledAsOwn, spelling, type LexiconEntry, type LexiconIndex } from './lexicon/lexicon.ts';
import { cjkPeopleCounts, countWords, countWordSpellings, crowdWords, detectLanguage, groupWords, stopWords, type QueryLanguage } from './query-language.ts';
import { cjkChar, foldBeforeScripts, foldStrokeless, foldText, spacelessScript, wordsOf } from './text-fold.ts';

/** Longest `_text_data` accepted, in characters (docs/api-decisions.md): a query, not a document. */
export const maxQueryChars = 1000;
/** Words searched; later ones are reported as unread so the cut is visible. */
export const maxQueryWords = 32;

export interface ConceptMatch {
  concept: Concept;
  /** The query's words (folded) that named it. */
  text: string;
}

export interface WeightedCode {
  code: string;
  /** 1 for what the query named; 0.5 for a shade's family (a "navy" query also accepts other blues, less). */
  weight: number;
}

export interface ParsedQuery {
  /** The folded query. */
  text: string;
  language: QueryLanguage;
  concepts: ConceptMatch[];
  /** Concept codes to look for, each once, in query order. */
  codes: WeightedCode[];
  /** Other words, for record text and OCR text, each once, folded. */
  terms: string[];
  /**
   * The words read as concepts, searched as written too (each once, folded): a record whose own
   * words say "jacket" ranks above other upper-body garments for "jacket". Never reported unread.
   */
  literals?: string[];
  /**
   * A kana or Hangul literal's phrase of its character pairs (in `literals` beside it), as the index holds a run: スカート
   * then finds ミニスカート written in a record where no concept was read in it (h213).
   */
  literalRuns?: Record<string, string>;
  /** Words that were not searched because the query is longer than `maxQueryWords`. */
  unread: string[];
  /**
   * Kana and Hangul runs of the query and the phrase of their character pairs each is also searched
   * by (in `terms` beside the run): the index holds such runs as pairs, since the segmenter splits
   * them by guess (プロモカード → プロ | モカ | ード) or not at all (포켓몬카드).
   */
  runs?: { word: string; phrase: string; stemOf?: string }[];
  /**
   * Each query word's other form (in `terms` beside the word): an Arabic word without its article, a Spanish plural in
   * -ces as its singular in -z and the other way (`otherForm`). The word is read when either is found.
   */
  forms?: Record<string, string>;
  /**
   * Runs of words glued by a hyphen, dot, slash or underscore around a lone letter ("B-1234" → `b 1234`), searched as
   * phrases (in `terms`) beside their words: the letter alone is dropped as noise. No word the client typed, so never
   * reported unread.
   */
  glued?: string[];
  /**
   * Glued runs written as one word (`joinedForms`: "Wi-Fi" → `wifi`), in `terms`, each with its words: no word the
   * client typed, so never reported unread, and its words are read when it is found.
   */
  joined?: Record<string, string[]>;
  /** Words as an earlier release's fold spelled them (in `terms` while rows await re-tokenising), each with its word now. */
  legacy?: Record<string, string>;
}

/**
 * Runs of katakana, of hiragana and of Hangul, each apart (the prolonged sound mark ー goes with
 * either kana): Japanese writes names and loanwords in katakana and particles in hiragana, so
 * ピカチュウを is ピカチュウ and を.
 */
const kanaOrHangulRun = /[\u30a0-\u30ff\u31f0-\u31ff]+|[\u3040-\u309f\u30fc]+|[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+/gu;
const kanaOrHangulOnly = /^[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+$/u;
const hangul = /[\uac00-\ud7af]/u;

/** A run's overlapping character pairs, in order ("カード" → カー ード); a run of one character is itself. */
export function charPairs(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  return chars.slice(1).map((c, i) => chars[i]! + c);
}

/**
 * The kana and Hangul runs of a folded token, each as its pairs (so "カード" finds
 * "ポケモンカード" as the phrase "カー ード") and, when longer than two characters, whole.
 */
function runWords(token: string): string[] {
  const out: string[] = [];
  for (const run of token.match(kanaOrHangulRun) ?? []) {
    if ([...run].length > 2) out.push(run);
    out.push(...charPairs(run));
  }
  return out;
}

// Korean particles written onto the noun ("카드를", "피카츄의"): a query word also stands for its stem, searched
// only when the word itself is nowhere in the collection (text-search-service.ts). Not 이, 가, 도, 로: as many
// nouns end in them (고양이 cat, 마이크로 micro) as take them, and 고양이 found 고양시 (a city) through 고양.
const koreanParticles = ['에서', '으로', '에게', '까지', '부터', '처럼', '보다', '을', '를', '은', '는', '의', '에', '와', '과', '만'];
function koreanStem(word: string): string | undefined {
  if (!kanaOrHangulOnly.test(word) || !hangul.test(word)) return undefined;
  const p = koreanParticles.find((x) => word.endsWith(x) && [...word].length - [...x].length >= 2);
  return p ? word.slice(0, word.length - p.length) : undefined;
}

/** Words joined by a hyphen, dot, slash or underscore, with no space: a code, an abbreviation ("B-1234", "x-ray", "J.K."). */
const gluedRun = /[\p{L}\p{M}\p{N}]+(?:[-\u2010\u2011./_][\p{L}\p{M}\p{N}]+)+/gu;
const loneLetter = /^[a-z]$/;

export type QueryErrorCode = 'empty_query' | 'query_too_long';

export interface QueryError {
  code: QueryErrorCode;
  /** A sentence for `detail`. */
  message: string;
}

export type ParseResult = { ok: true; query: ParsedQuery } | { ok: false; error: QueryError };

// One step of the query after lexicon matching, in the order the words came.
type Item = { kind: 'concept'; entries: readonly LexiconEntry[]; text: string } | { kind: 'word'; text: string };

/**
 * `legacyKana`: also search the segmenter's kana pieces, as rows indexed before `TOKENS_VERSION` 5
 * hold them (the server asks while a collection's rows are still being re-tokenised after an upgrade:
 * "プロモカード" missed the rows not yet done).
 */
export function parseQuery(input: string, index: LexiconIndex = lexiconIndex(), options: { legacyKana?: boolean } = {}): ParseResult {
  if ([...input].length > maxQueryChars) {
    return { ok: false, error: { code: 'query_too_long', message: `_text_data is longer than ${maxQueryChars} characters` } };
  }
  const text = foldText(input).trim();
  const tokens = wordsOf(cjkPeopleCounts(text));
  if (tokens.length === 0) {
    // "🙂🙂" or "!!!" is not empty: say what it lacks
    const message = text === '' ? '_text_data is empty: it has no word to search for' : `_text_data has no word to search for, only symbols or punctuation ("${[...input.trim()].slice(0, 20).join('')}")`;
    return { ok: false, error: { code: 'empty_query', message } };
  }
  const query = analyse(text, tokens, index, maxQueryWords, options.legacyKana ?? false, typedSpellings(input), true);
  if (!options.legacyKana) return { ok: true, query };
  // Rows awaiting re-tokenising hold words folded as TOKENS_VERSION 5 did (straße, żółty), or as 6 to 9 did (فاخرة,
  // ٢٠٢٢: before the script fold): searched too, as terms, so a collection of such rows reads them (as literals they
  // were searched but the query was "not understood", h90; h147: Arabic and Hindi rows were 422 until the pass ended).
  // Only words the new fold changed, within the words searched.
  // (a word the new fold leaves as it is, a CJK run the people counts rewrote, is no such word, h90)
  const before = [...wordsOf(foldStrokeless(input).trim()).slice(0, maxQueryWords), ...wordsOf(foldBeforeScripts(input).trim()).slice(0, maxQueryWords)].filter((w) => !tokens.includes(w) && foldText(w) !== w);
  // each with the word as this release folds it: a word found in either spelling is read (h160: both were unread)
  return { ok: true, query: before.length ? { ...query, terms: [...new Set([...query.terms, ...before])], legacy: Object.fromEntries(before.map((w) => [w, foldText(w)])) } : query };
}

/**
 * The concept codes a record's own text names ("vestido rojo" → full body, red, red dress), so a
 * query in another language finds it through the lexicon. Each code once; no length cap (the
 * caller caps the text).
 */
export function conceptCodesIn(input: string, index: LexiconIndex = lexiconIndex()): string[] {
  const text = foldText(input).trim();
  const tokens = wordsOf(cjkPeopleCounts(text));
  if (tokens.length === 0) return [];
  // A shade's family too ("navy blue" is blue), as the index writes both for a shade it saw.
  return analyse(text, tokens, index, Infinity, false, typedSpellings(input)).codes.map((c) => c.code);
}

/** Each folded word of a text with the spellings it was typed in (marks kept: `röd`, `pięć`), for the forms marks tell apart. */
export function typedSpellings(input: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const w of wordsOf(spelling(input))) {
    const k = foldText(w);
    const set = out.get(k) ?? new Set<string>();
    set.add(w);
    out.set(k, set);
  }
  return out;
}

// A grading company's name beside a grade ("PSA 10", "PSA Gem Mint 10", "MINT 9 PSA") is no lexicon word: Polish `psa` is the dog's.
const gradeWord = /^(?:10|[1-9](?:[.,]5)?|gem|mint|grade|graded|slab)$/;

/**
 * Text as it is written into the full-text index: folded, and Chinese and Japanese split into
 * words by the same segmenter queries use, joined by spaces (neither engine splits them itself).
 */
export function indexWords(input: string): string {
  const folded = foldText(input);
  const out: string[] = [];
  for (const token of wordsOf(folded)) {
    const runs = runWords(token);
    if (spacelessScript.test(token)) {
      // the token whole; each run of the script, its dictionary words in order and its letters' pairs (a query's
      // run is searched as either phrase); the letters or digits stuck to it, apart (`การ์ด151`, `pokemonการ์ด`, h124)
      out.push(token);
      for (const part of scriptParts(token)) {
        if (!spacelessScript.test(part)) {
          if (part !== token) out.push(part);
          continue;
        }
        if (part !== token) out.push(part);
        out.push(...spacelessWords(part).filter((w) => w !== part), ...graphemePairs(part));
      }
      continue;
    }
    if (!cjkChar.test(token)) {
      // Hangul: the word as spaced, and its runs' pairs (a compound 포켓몬카드 holds 포켓몬); an Arabic word with its
      // article also without it (TOKENS_VERSION 11)
      const bare = withoutArabicArticle(token);
      out.push(token, ...runs.filter((w) => w !== token), ...(bare ? [bare] : []));
      continue;
    }
    const lang = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u.test(token) ? 'ja' : 'zh';
    for (const s of segmenter(lang).segment(token)) {
      if (s.isWordLike === false) continue;
      // kana pieces are the segmenter's guesses: the runs' pairs below stand for them
      if (kanaOrHangulOnly.test(s.segment)) continue;
      // 人 counting seats, servings or customers (3人掛け, お一人様) is written with what it counts: a query's 人 finds
      // people, not the sofa (h218)
      const next = token.slice(s.index + s.segment.length, s.index + s.segment.length + 1);
      if (s.segment === '人' && seatsOrServings.test(next)) {
        out.push(`人${next}`);
        continue;
      }
      out.push(...(cjkChar.test(s.segment) ? [s.segment] : wordsOf(s.segment)));
    }
    out.push(...runs);
  }
  out.push(...joinedForms(folded).map((f) => f.joined));
  return out.join(' ');
}

const joinablePart = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{N}]+$/u;
const digitsOnly = /^\p{N}+$/u;

/**
 * Each run of two to four words glued by a hyphen, dot, slash or underscore, written as one word ("Wi-Fi" → `wifi`,
 * "A-1234" → `a1234`, "e-mail" → `email`): what a shop writes joined, a buyer writes apart and the other way, and
 * neither found the other (s73 noticed: "wifi" did not find "Wi-Fi", nor "A1234" "A-1234"). A record's text holds the
 * joined word beside its parts (TOKENS_VERSION 19); a query searches it beside its words. Runs of digits alone
 * (dates, "3.5") are numbers, not words, and are left apart.
 */
export function joinedForms(folded: string): { joined: string; parts: string[] }[] {
  const out: { joined: string; parts: string[] }[] = [];
  for (const m of folded.matchAll(gluedRun)) {
    const parts = wordsOf(m[0]);
    if (parts.length < 2 || parts.length > 4 || !parts.every((p) => joinablePart.test(p)) || parts.every((p) => digitsOnly.test(p))) continue;
    const joined = parts.join('');
    if (joined.length <= 24 && !out.some((o) => o.joined === joined)) out.push({ joined, parts });
  }
  return out;
}

/**
 * `typed`: each folded word with the spellings the text typed it in; `whole`: the text is a query (a form that is its
 * language's only is read alone as its concept when `ownLanguageAlone` says so; a record's text is not a query).
 */
function analyse(text: string, tokens: readonly string[], index: LexiconIndex, maxWords: number, legacyKana = false, typed: ReadonlyMap<string, ReadonlySet<string>> = new Map(), whole = false): ParsedQuery {
  let language = detectLanguage(text, tokens, typed);
  const units = expandCjk(tokens, index, language);
  const searched = units.slice(0, maxWords);
  const unread = units.slice(maxWords).map((u) => u.text);
  const items = matchPhrases(searched, index);
  // marks the fold took off tell a word from the lexicon form it folds to
  const spelledWithMarks = (word: string) => [...(typed.get(word) ?? [])].some((w) => w !== word);
  const personEntry = (k: number) => items[k]?.kind === 'concept' && items[k].entries.some((e) => e.concept.kind === 'object' && e.concept.name === 'person');
  items.forEach((item, i) => {
    if (item.kind !== 'concept' || item.text.includes(' ')) return;
    const ownReading = item.entries.some((e) => e.lang === language);
    // A number word that folds to a lexicon form is the number when typed with its marks (`pięć`, five; `piec`, an oven),
    // before a people word ("piec osob"), or where the query's language does not read the form ("four cats": French four,
    // an oven): "pięć osób" lost its count and was an oven (h197).
    if (countWords.has(item.text)) {
      const marked = [...(typed.get(item.text) ?? [])].some((w) => countWordSpellings.has(w));
      if (marked || personEntry(i + 1) || personEntry(i + 2) || !ownReading) items[i] = { kind: 'word', text: item.text };
      return;
    }
    // A function word of the query's language is no other language's thing (sv `man`, "one": "som man ser på bilden" is
    // no person; `män`, men, typed so, is)
    if (stopWords[language]?.has(item.text) && !ownReading && !spelledWithMarks(item.text)) items[i] = { kind: 'word', text: item.text };
  });

  const stops = new Set([...(stopWords[language] ?? []), ...(stopWords.en ?? [])]);
  const concepts: ConceptMatch[] = [];
  const codes = new Map<string, number>();
  const addCode = (code: string, weight: number) => codes.set(code, Math.max(weight, codes.get(code) ?? 0));
  const terms: string[] = [];
  const formOf = new Map<string, string>();
  const stopped: string[] = [];
  const spellingsOf = (item: Item) => (item.text.includes(' ') ? undefined : typed.get(item.text));
  // A form that is its language's only, alone in a query (stop words aside): its concept where `ownLanguageAlone` says the
  // other reading is no thing a shopper searches for ("gonna", "mes"); the query is then read as that language.
  const readAlone = whole && items.filter((item) => item.kind === 'concept' || !(stops.has(item.text) || /^[a-z]$/.test(item.text))).length === 1 ? items.find((item) => item.kind === 'concept') : undefined;
  const lone = readAlone?.kind === 'concept' && resolve(readAlone.entries, language, spellingsOf(readAlone)).length === 0 ? readAlone.entries.filter((e) => e.alone) : [];
  if (lone.length) language = lone[0]!.lang;
  const resolved = items.map((item) => (item.kind !== 'concept' ? [] : item === readAlone && lone.length ? resolve(lone, language) : resolve(item.entries, language, spellingsOf(item))));
  // "PSA 10", "PSA Gem Mint 10", "MINT 9 PSA": the grader, not Polish psa (the dog's)
  items.forEach((item, i) => {
    if (item.kind === 'concept' && graderNames.has(item.text) && [i - 2, i - 1, i + 1, i + 2].some((k) => gradeWord.test(items[k]?.text ?? ''))) resolved[i] = [];
  });
  // A form that is its language's only (Spanish café) names its colour only beside a thing it colours ("zapatos café",
  // "sofá café", one function word between at most): "café con leche", "Café del Mar" are cafés (h90).
  const thing = (k: number) => (resolved[k] ?? []).some((c) => c.kind === 'object' || c.kind === 'item');
  const isStop = (k: number) => items[k]?.kind === 'word' && stopWords[language]?.has(items[k].text) === true;
  // ...but not "of": "taza de café", "mesa de café" are a coffee cup and a coffee table (h269: searched brown)
  const bridges = (k: number) => isStop(k) && !ofWords.has(items[k]!.text);
  // "color café", "zapatos color café": the word colour says what follows is one
  const colourWord = (k: number) => items[k]?.kind === 'word' && ['color', 'colour', 'colore', 'cor', 'couleur', 'farbe', 'kleur', 'kolor', 'kolorze', 'renk', 'renkli', 'farg', 'fargen'].includes(items[k].text);
  // (colours only: an Italian or Dutch object word that is also an English word, `cane`, `beer`, is the thing wherever
  // the text is read as its language: "cane nero" is a black dog)
  items.forEach((item, i) => {
    if (item.kind !== 'concept' || (item === readAlone && lone.length) || !item.entries.every((e) => e.ownOnly && !spelledAsOwn(e, spellingsOf(item)) && e.concept.kind === 'color')) return;
    const beside = thing(i - 1) || thing(i + 1) || colourWord(i - 1) || (bridges(i - 1) && thing(i - 2)) || (bridges(i + 1) && thing(i + 2));
    if (!beside) resolved[i] = [];
  });
  // "table lamp", "lámpara de mesa", "lampe de table", "table tennis": the table word says what the lamp or the game is
  // for, and no table is searched (h269: a home-decor shop's table lamps were dining tables); the word stays a word
  const tableFor = (k: number) => items[k] !== undefined && tableUses.has(items[k].text.split(' ')[0]!);
  items.forEach((item, i) => {
    if (item.kind !== 'concept' || !resolved[i]!.some((c) => c.kind === 'object' && c.name === 'dining table')) return;
    if (tableFor(i + 1) || (items[i - 1] !== undefined && ofWords.has(items[i - 1]!.text) && tableFor(i - 2))) resolved[i] = resolved[i]!.filter((c) => !(c.kind === 'object' && c.name === 'dining table'));
  });

  items.forEach((item, i) => {
    if (item.kind === 'word' || resolved[i]!.length === 0) {
      // (a form that names its concept only in another language's text is its words here: `ownLanguageOnly`)
      // A lone Latin letter is what an apostrophe leaves ("dog's" → dog, s; "l'avion"): noise, like a stop word.
      for (const word of item.kind === 'word' ? [item.text] : item.text.split(' ')) {
        if (stops.has(word) || /^[a-z]$/.test(word)) {
          stopped.push(word);
          continue;
        }
        const other = otherForm(word, language);
        terms.push(word, ...(other ? [other] : []));
        if (other) formOf.set(word, other);
      }
      return;
    }
    for (const concept of resolved[i]!) {
      if (!concepts.some((c) => c.concept.kind === concept.kind && c.concept.name === concept.name)) concepts.push({ concept, text: item.text });
      for (const c of codesOf(concept)) addCode(c.code, c.weight);
    }
  });
  for (const code of pairCodes(items, resolved, stops, language)) addCode(code, 1);
  // People counts: a number word or digits beside a people word, or a group word.
  const isPerson = (k: number) => (resolved[k] ?? []).some((c) => c.kind === 'object' && c.name === 'person');
  const counted = new Set<string>();
  items.forEach((item, i) => {
    if (item.kind === 'concept' && isPerson(i) && groupWords.has(item.text)) addCode(personCountCode(6)!, 1);
    if (item.kind !== 'word') return;
    // "group of people", "人のグループ" (people's group): the people word may come two before
    if (groupWords.has(item.text) && (isPerson(i - 2) || isPerson(i - 1) || isPerson(i + 1) || isPerson(i + 2))) {
      addCode(personCountCode(6)!, 1);
      counted.add(item.text);
      return;
    }
    if (crowdWords.has(item.text)) {
      addCode(objectCode('person'), 1);
      addCode(personCountCode(6)!, 1);
      counted.add(item.text);
      return;
    }
    const n = /^[1-9][0-9]?$/.test(item.text) ? Number(item.text) : countWords.get(item.text);
    if (n !== undefined && (isPerson(i + 1) || isPerson(i + 2) || isPerson(i - 1))) {
      addCode(personCountCode(n)!, 1);
      counted.add(item.text);
    }
  });
  if (counted.size) {
    for (let k = terms.length - 1; k >= 0; k--) if (counted.has(terms[k]!)) terms.splice(k, 1);
  }
  // Kana and Hangul runs: searched whole and as the phrase of their pairs, as the index holds them; not
  // as the segmenter's pieces of them, which matched unrelated records ("ー", "モカ").
  const runs: { word: string; phrase: string; stemOf?: string }[] = [];
  // what the lexicon, the people counts or the stop words already took is no run of its own (ハンドバッグ is a handbag)
  const taken = [...items.filter((item) => item.kind === 'concept').map((item) => item.text), ...counted, ...stopped].sort((a, b) => b.length - a.length);
  const leftOf = (run: string) => [...taken.reduce((rest, t) => rest.replaceAll(t, ' '), run)].filter((c) => c !== ' ').length;
  for (const token of tokens.slice(0, maxWords)) {
    for (const run of token.match(kanaOrHangulRun) ?? []) {
      if (leftOf(run) < 2) continue;
      const stem = koreanStem(run);
      for (const word of [run, stem]) {
        if (word === undefined || [...word].length < 2 || runs.some((r) => r.word === word)) continue;
        runs.push({ word, phrase: charPairs(word).join(' '), ...(word === stem ? { stemOf: run } : {}) });
      }
    }
  }
  // Thai, Lao, Khmer, Myanmar runs: searched whole, as the phrase of their dictionary words and as the phrase of their
  // letters' pairs, as the index holds them (a word the dictionary does not know is cut one way inside a title and
  // another alone: a Khmer word was found on SQLite and not on PostgreSQL, h124). Letters or digits stuck to a run
  // are words of their own.
  for (const token of tokens.slice(0, maxWords)) {
    if (!spacelessScript.test(token)) continue;
    const parts = scriptParts(token);
    if (parts.length > 1) {
      const at = terms.indexOf(token);
      if (at >= 0) terms.splice(at, 1);
    }
    for (const part of parts) {
      if (!spacelessScript.test(part)) {
        if (parts.length > 1) terms.push(part);
        continue;
      }
      if (runs.some((r) => r.word === part)) continue;
      runs.push({ word: part, phrase: spacelessWords(part).join(' ') });
      const pairs = graphemePairs(part).join(' ');
      if (pairs !== part) runs.push({ word: part, phrase: pairs });
    }
  }
  if (runs.length) {
    if (!legacyKana) for (let k = terms.length - 1; k >= 0; k--) if (kanaOrHangulOnly.test(terms[k]!) && !runs.some((r) => r.word === terms[k])) terms.splice(k, 1);
    for (const r of runs) terms.push(r.word, ...(r.phrase !== r.word ? [r.phrase] : []));
  }
  // A lone letter glued by a hyphen, dot, slash or underscore to a word the query searches is part of a code ("B-1234",
  // "x-ray"), not what an apostrophe leaves: the run is also searched as the phrase of its words, so "B-1234" ranks the
  // record saying B-1234 above one saying A-1234 (h338: both matched "1234" alone, at one distance, in insertion order).
  const glued: string[] = [];
  for (const m of text.matchAll(gluedRun)) {
    const parts = wordsOf(m[0]);
    if (!parts.some((p) => loneLetter.test(p)) || !parts.every((p) => stopped.includes(p) || terms.includes(p)) || !parts.some((p) => terms.includes(p))) continue;
    const phrase = parts.join(' ');
    if (!glued.includes(phrase)) glued.push(phrase);
  }
  terms.push(...glued);
  // …and every glued run as the one word a record may write it as ("Wi-Fi" finds "WiFi", "A-1234" finds "A1234"),
  // searched beside its words; its words are read when it is found
  const joined: Record<string, string[]> = {};
  for (const f of joinedForms(text)) if (!terms.includes(f.joined)) joined[f.joined] = f.parts;
  terms.push(...Object.keys(joined));
  // A query of nothing but function words ("of the and") is still searched for them, literally.
  if (concepts.length === 0 && terms.length === 0) terms.push(...stopped);
  const literals = [...new Set(items.filter((item, i) => item.kind === 'concept' && resolved[i]!.length > 0).map((item) => item.text))].filter((w) => !terms.includes(w));
  const literalRuns: Record<string, string> = {};
  for (const w of literals) if (kanaOrHangulOnly.test(w) && [...w].length > 2) literalRuns[w] = charPairs(w).join(' ');

  return {
    text,
    language,
    concepts,
    codes: [...codes].map(([code, weight]) => ({ code, weight })),
    terms: [...new Set(terms)],
    literals: [...literals, ...Object.values(literalRuns)],
    ...(Object.keys(literalRuns).length ? { literalRuns } : {}),
    unread,
    ...(runs.length ? { runs } : {}),
    ...(formOf.size ? { forms: Object.fromEntries(formOf) } : {}),
    ...(glued.length ? { glued } : {}),
    ...(Object.keys(joined).length ? { joined } : {}),
  };
}

/** The codes a concept is searched by. */
function codesOf(concept: Concept): WeightedCode[] {
  switch (concept.kind) {
    case 'object':
      return [{ code: objectCode(concept.name as CocoLabel), weight: 1 }];
    case 'item':
      return [{ code: itemCode(concept.name as ItemKind), weight: 1 }];
    case 'people':
      return [{ code: peopleCode(concept.name as PeopleKind), weight: 1 }];
    case 'color': {
      const name = concept.name as ColorName;
      const family = familyOf[name];
      // A family word ("blue") means the family; a shade ("navy") means itself first.
      if (family === name) return [{ code: familyCode(family), weight: 1 }];
      return [{ code: colorCode(name), weight: 1 }, { code: familyCode(family), weight: 0.5 }];
    }
  }
}

/**
 * A word several languages read differently means what the query's language says; when that
 * language does not know it, every reading counts. Homonyms within a language give all theirs.
 */
function resolve(entries: readonly LexiconEntry[], language: QueryLanguage, spellings?: ReadonlySet<string>): Concept[] {
  // (an own-language form typed with its language's marks, `röd`, `tåg`, is that language's anywhere)
  const usable = entries.filter((e) => !e.ownOnly || e.lang === language || spelledAsOwn(e, spellings));
  const own = usable.filter((e) => e.lang === language);
  const chosen = own.length > 0 ? own : usable;
  const out: Concept[] = [];
  for (const e of chosen) if (!out.some((c) => c.kind === e.concept.kind && c.name === e.concept.name)) out.push(e.concept);
  return out;
}

// Languages whose colour adjective usually follows its noun ("coche rojo", "سيارة حمراء").
const colourAfterNoun: ReadonlySet<QueryLanguage> = new Set(['es', 'fr', 'pt', 'ar', 'id', 'it']);

/**
 * A colour next to an object or garment ("red car", "coche rojo", "红色的车") names a red car,
 * not a car and something red: the pair code ranks images where the detector saw the two
 * together. The neighbour on the side the language puts nouns is tried first; one function word
 * may stand between them (的, de).
 */
function pairCodes(items: readonly Item[], resolved: readonly Concept[][], stops: ReadonlySet<string>, language: QueryLanguage): string[] {
  const out = new Set<string>();
  const isStop = (k: number) => items[k]?.kind === 'word' && stops.has(items[k].text);
  const things = (k: number) => (resolved[k] ?? []).filter((c) => c.kind === 'object' || c.kind === 'item');
  const [near, far] = colourAfterNoun.has(language) ? [-1, 1] : [1, -1];
  for (let i = 0; i < items.length; i++) {
    const colours = resolved[i]!.filter((c) => c.kind === 'color');
    if (colours.length === 0) continue;
    const candidates = [i + near, i + far];
    if (isStop(i + near)) candidates.push(i + 2 * near);
    if (isStop(i + far)) candidates.push(i + 2 * far);
    const j = candidates.find((k) => things(k).length > 0);
    if (j === undefined) continue;
    for (const colour of colours) {
      const family: ColorFamily = familyOf[colour.name as ColorName];
      for (const t of things(j)) out.add(pairCode(t, family));
    }
  }
  return [...out];
}

type Unit = { kind: 'word'; text: string } | { kind: 'concept'; entries: readonly LexiconEntry[]; text: string };

/** A token cut where Thai (Lao, Khmer, Myanmar) letters meet others: `pokemonการ์ด151` is `pokemon`, `การ์ด`, `151`. */
function scriptParts(token: string): string[] {
  return token.match(/[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+|[^\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+/gu) ?? [token];
}

/** Overlapping pairs of a run's letters, each with its marks (ร์ is one), as kana runs are indexed. */
function graphemePairs(run: string): string[] {
  const letters = [...graphemes.segment(run)].map((g) => g.segment);
  if (letters.length < 2) return letters;
  return letters.slice(1).map((g, i) => letters[i]! + g);
}
const graphemes = new Intl.Segmenter('th', { granularity: 'grapheme' });

/** A Thai (Lao, Khmer, Myanmar) run's words, by ICU's dictionary for its script. */
function spacelessWords(token: string): string[] {
  return [...segmenter('th').segment(token)].filter((s) => s.isWordLike !== false).map((s) => s.segment);
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(lang: string): Intl.Segmenter {
  let s = segmenters.get(lang);
  if (!s) segmenters.set(lang, (s = new Intl.Segmenter(lang, { granularity: 'word' })));
  return s;
}

/** What follows 人 where it counts seats, servings or customers (3人掛け, 4人用, 2人分, 5人前, 7人乗り, お一人様, 一人暮らし). */
const seatsOrServings = /^[掛用分前乗様暮]$/u;

/** Short words a shop writes onto a katakana thing (ミニスカート, ローテーブル, ポロシャツ, エコバッグ, ハイヒール, モスグリーン). */
const shortModifiers = new Set(['ミニ', 'ロー', 'エコ', 'ポロ', 'ワイ', 'ネル', 'チノ', 'ヨガ', 'ピー', 'ボア', 'ハイ', 'モス', 'ブル', 'ガン']);

/**
 * Katakana words that end or begin as a lexicon word does but are words of their own, read as no thing or colour
 * wherever they stand in a run (h218: ポークソーセージ was sage, メタルスライム lime, グレートデーン grey).
 */
const notCompounds = ['ソーセージ', 'メッセージ', 'パッセージ', 'マッサージ', 'スライム', 'グレート', 'グレード', 'スピーチ', 'スプレッド', 'ドレッド', 'アレキサンド'];

/** A katakana letter or the prolonged sound mark (not the middle dot ・, which parts words). */
const katakanaLetter = /[\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff]/u;

/**
 * Chinese and Japanese words are found on the characters, longest first, because the segmenter
 * splits some lexicon words (连衣裙 → 连 | 衣裙). A one-character word (红, 猫) counts only where
 * the segmenter sees a word of its own or a run made only of lexicon words (黑狗), so 白 in
 * 白菜 (cabbage) is not "white". What is left is segmented into words; Latin letters inside such
 * a token ("red椅子") go on as ordinary words.
 */
function expandCjk(tokens: readonly string[], index: LexiconIndex, language: QueryLanguage): Unit[] {
  const units: Unit[] = [];
  for (const token of tokens) {
    if (!cjkChar.test(token)) {
      units.push({ kind: 'word', text: token });
      continue;
    }
    const chars = [...token];
    const segLang = language === 'ja' ? 'ja' : 'zh';
    const segments = [...segmenter(segLang).segment(token)].map((s) => ({
      start: [...token.slice(0, s.index)].length,
      chars: [...s.segment],
      wordLike: s.isWordLike ?? true,
    }));
    const segmentAt = (i: number) => segments.find((s) => i >= s.start && i < s.start + s.chars.length)!;
    const longestAt = (cs: readonly string[], i: number): number => {
      for (let n = Math.min(index.maxCjkLength, cs.length - i); n >= 1; n--) {
        if (index.cjk.has(cs.slice(i, i + n).join(''))) return n;
      }
      return 0;
    };
    // whether lexicon words (those `keep` takes) make up the whole of `cs`
    const coveredByLexicon = (cs: readonly string[], keep: (key: string) => boolean = () => true) => {
      for (let i = 0; i < cs.length; ) {
        const n = longestAt(cs, i);
        if (n === 0 || !keep(cs.slice(i, i + n).join(''))) return false;
        i += n;
      }
      return true;
    };
    const isColour = (key: string) => index.cjk.get(key)!.every((e) => e.concept.kind === 'color');
    const matched = new Array<boolean>(chars.length).fill(false);
    const found: { at: number; n: number }[] = [];
    for (let i = 0; i < chars.length; ) {
      let n = longestAt(chars, i);
      if (n === 1) {
        const seg = segmentAt(i);
        if (!(seg.chars.length === 1 || coveredByLexicon(seg.chars))) n = 0;
      }
      // a count of seats, servings or customers, not of people in the photo: 3人掛け, 4人用, 2人分, お一人様, 一人暮らし (h213);
      // お二人 ("the two of them") is people
      if (n === 1 && chars[i] === '人' && seatsOrServings.test(chars[i + 1] ?? '')) n = 0;
      if (n > 0 && chars.slice(i, i + n).every((c) => katakanaLetter.test(c))) {
        // A katakana word is one loanword or name. A lexicon word inside a longer one counts where the compound
        // names its thing last (テニスボール, ランニングシューズ; before colour words only: …カーディガンネイビー) or
        // its colour first (ブルーアイズ), after or before a word of its own of three letters or more, or after a
        // short modifier a shop writes onto things (ミニスカート, ポロシャツ, ローテーブル, エコバッグ): not as a
        // syllable or two of another word (シンクロ is no sink, スライム no lime, グレート no grey, エンドレス no
        // dress, メッセージ no sage). A two-letter one only as the whole word (サクリファイス is no chair, サキュバス
        // no bus, トリプル no bird) or as the last of lexicon words making up the run (ネコイヌ). Where lexicon
        // words make up the run, its colours and its last thing count: ドレスシューズ are shoes, カップケーキ a cake.
        let a = i;
        let b = i + n;
        while (a > 0 && katakanaLetter.test(chars[a - 1]!)) a--;
        while (b < chars.length && katakanaLetter.test(chars[b]!)) b++;
        const key = chars.slice(i, i + n).join('');
        const colour = isColour(key);
        const before = chars.slice(a, i).join('');
        // the run's end, or colour words alone after it (…カーディガンネイビー)
        const last = i + n === b || (!colour && coveredByLexicon(chars.slice(i + n, b), isColour));
        const whole = a === i && b === i + n;
        const thingLast = n >= 3 && last && (i - a >= 3 || i === a || shortModifiers.has(before));
        const colourFirst = n >= 3 && colour && a === i && b - (i + n) >= 3;
        const covered = (colour || last) && coveredByLexicon(chars.slice(a, b));
        // words of their own that end or begin as a lexicon word does, inside longer runs too (ポークソーセージ is no sage)
        const run = chars.slice(a, b).join('');
        const ownWord = notCompounds.some((w) => {
          if (w === key) return false;
          for (let at = run.indexOf(w); at >= 0; at = run.indexOf(w, at + 1)) if (a + at < i + n && a + at + [...w].length > i) return true;
          return false;
        });
        if (ownWord || (!whole && !thingLast && !colourFirst && !covered)) n = 0;
      }
      if (n === 0) {
        i++;
        continue;
      }
      found.push({ at: i, n });
      matched.fill(true, i, i + n);
      i += n;
    }
    // Emit, in order: matched words, and the unmatched rest as segmenter words.
    let i = 0;
    while (i < chars.length) {
      const f = found.find((x) => x.at === i);
      if (f) {
        const key = chars.slice(i, i + f.n).join('');
        units.push({ kind: 'concept', entries: index.cjk.get(key)!, text: key });
        i += f.n;
        continue;
      }
      let j = i;
      while (j < chars.length && !matched[j]) j++;
      const rest = chars.slice(i, j).join('');
      for (const s of segmenter(segLang).segment(rest)) {
        if (s.isWordLike === false) continue;
        for (const w of cjkChar.test(s.segment) ? [s.segment] : wordsOf(s.segment)) units.push({ kind: 'word', text: w });
      }
      i = j;
    }
  }
  return units;
}

// Arabic writes the article and some prepositions and conjunctions onto the word (السيارة "the
// car", وسيارة "and a car"); the lexicon holds bare words, so these are tried without them.
const arabicClitics = ['وال', 'بال', 'كال', 'فال', 'لل', 'ال', 'و', 'ب', 'ل', 'ف'];
const arabicWord = /^\p{Script=Arabic}+$/u;

// A record's own words are not in the lexicon, so only the article and what is written onto it (وال بال كال فال لل ال)
// come off them, leaving three letters or more: a record titled البطاقة was found by no query typed بطاقة (h146). The
// lone letters و ب ل ف begin too many words to be taken off one the lexicon does not know.
const arabicArticles = arabicClitics.filter((c) => [...c].length > 1);

/** An Arabic word without its article (البطاقة → بطاقة, للبطاقة → بطاقة), or undefined where it has none. */
export function withoutArabicArticle(word: string): string | undefined {
  if (!arabicWord.test(word)) return undefined;
  const article = arabicArticles.find((a) => word.startsWith(a) && [...word].length - a.length >= 3);
  return article ? word.slice(article.length) : undefined;
}

/**
 * A Spanish noun in -z makes its plural in -ces (luz luces, altavoz altavoces, lápiz lápices), which neither Snowball's
 * Spanish stem (`altavoc` against `altavoz`) nor a prefix joins: "altavoces" was a 422 against records saying
 * "Altavoz" on both backends (h269). Read so in Spanish text and in text of no told language; a consonant before
 * -ces (dulces) is no such plural.
 */
function spanishOtherNumber(word: string, language: string): string | undefined {
  if (language !== 'es' && language !== 'simple') return undefined;
  if (/^[a-zñ]+[aeiou]ces$/.test(word)) return `${word.slice(0, -3)}z`;
  if (/^[a-zñ]+[aeiou]z$/.test(word)) return `${word.slice(0, -1)}ces`;
  return undefined;
}

/** "Of" in the languages whose colour-only forms (`ownOnly`) could stand after one: what follows it is what the thing holds or is for. */
const ofWords = new Set(['de', 'del', 'des', 'du', 'da', 'do', 'di', 'dei', 'della', 'of', 'van', 'von']);

/** What a table word beside it says the thing is for, as folded (lamps, table tennis): no table (`parseQuery`). */
const tableUses = new Set(['lamp', 'lamps', 'lampara', 'lamparas', 'lampe', 'lampes', 'lampada', 'lampade', 'lampadas', 'candeeiro', 'candeeiros', 'luminaria', 'luminarias', 'abajur', 'lampa', 'lampy', 'lampor', 'lamba', 'lambasi', 'лампа', 'лампы', 'лампу', 'tennis', 'tenis']);

/** A query word's other form it is also looked for by (`ParsedQuery.forms`), or undefined. */
const otherForm = (word: string, language: string): string | undefined => withoutArabicArticle(word) ?? spanishOtherNumber(word, language);

function lookupWord(word: string, vocabulary: ReadonlySet<string>): string {
  if (vocabulary.has(word) || !arabicWord.test(word)) return word;
  for (const c of arabicClitics) {
    if (word.startsWith(c) && [...word].length - [...c].length >= 2 && vocabulary.has(word.slice(c.length))) return word.slice(c.length);
  }
  return word;
}

const vocabularies = new WeakMap<LexiconIndex, ReadonlySet<string>>();
function vocabularyOf(index: LexiconIndex): ReadonlySet<string> {
  let v = vocabularies.get(index);
  if (!v) {
    v = new Set([...index.phrases.keys()].flatMap((k) => k.split(' ')));
    vocabularies.set(index, v);
  }
  return v;
}

/** Longest lexicon phrase first over consecutive words ("navy blue" before "blue"). */
function matchPhrases(units: readonly Unit[], index: LexiconIndex): Item[] {
  const vocabulary = vocabularyOf(index);
  const items: Item[] = [];
  for (let i = 0; i < units.length; ) {
    const u = units[i]!;
    if (u.kind === 'concept') {
      items.push(u);
      i++;
      continue;
    }
    let done = false;
    for (let n = index.maxPhraseWords; n >= 1 && !done; n--) {
      const run = units.slice(i, i + n);
      if (run.length < n || run.some((r) => r.kind !== 'word')) continue;
      const key = run.map((r) => lookupWord(r.text, vocabulary)).join(' ');
      const entries = index.phrases.get(key);
      if (entries) {
        items.push({ kind: 'concept', entries, text: key });
        i += n;
        done = true;
      }
    }
    if (!done) {
      items.push({ kind: 'word', text: u.text });
      i++;
    }
  }
  return items;
}

