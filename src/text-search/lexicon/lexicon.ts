/**
 * The lexicon: words for every concept in every language (`docs/text-search.md`), folded and
 * indexed once for lookup. It is the synonym mechanism of both backends, so SQLite and
 * PostgreSQL read a query alike.
 */
import { cocoLabels, colorNames, itemKinds, peopleKinds, type Concept, type LanguageWords } from './concepts.ts';
import { ar } from './ar.ts';
import { bn } from './bn.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { hi } from './hi.ts';
import { it } from './it.ts';
import { ja } from './ja.ts';
import { nl } from './nl.ts';
import { pl } from './pl.ts';
import { pt } from './pt.ts';
import { ru } from './ru.ts';
import { sv } from './sv.ts';
import { tr } from './tr.ts';
import { ur } from './ur.ts';
import { zh } from './zh.ts';
import { cjkChar, foldText, wordsOf } from '../text-fold.ts';

/** Ethnologue's ten most spoken languages (the minimum), then the extras. */
export const requiredLanguages = ['en', 'zh', 'hi', 'es', 'fr', 'ar', 'bn', 'pt', 'ru', 'ur'] as const;
export const lexiconLanguages = [...requiredLanguages, 'ja', 'de', 'it', 'nl', 'pl', 'tr', 'sv'] as const;
export type LexiconLanguage = (typeof lexiconLanguages)[number];

export const lexiconWords: Readonly<Record<LexiconLanguage, LanguageWords>> = { en, zh, hi, es, fr, ar, bn, pt, ru, ur, ja, de, it, nl, pl, tr, sv };

/**
 * Forms that name two concepts in one language, on purpose: the word really means both and the
 * query cannot tell which (`orange` the colour and the fruit). A query with one ORs both
 * concepts. Any other form naming two concepts is a mistake, and `lexicon.test.ts` fails on it.
 */
export const homonyms: Readonly<Partial<Record<LexiconLanguage, readonly string[]>>> = {
  en: ['orange'],
  es: ['naranja', 'naranjas'],
  fr: ['orange', 'oranges'],
  pt: ['laranja', 'laranjas'],
  hi: ['नारंगी'],
  bn: ['কমলা'],
  ur: ['نارنگی'],
  ja: ['オレンジ'],
  de: ['orange'],
};

/**
 * Forms that name their concept only in text read as their own language: elsewhere they are another
 * language's everyday word (Spanish café is brown, French, German and Portuguese café a café: "Chaises
 * de café bleues" was a brown chair). Text in another language searches them as plain words. Italian and
 * Dutch words that are also everyday English words, or another lexicon language's function words, are
 * here too: "cane nero" is a black dog and "candy cane" a word, "rode auto" a red car and "the rider
 * rode" words, French "mes photos" keeps its `mes`.
 */
export const ownLanguageOnly: Readonly<Partial<Record<LexiconLanguage, readonly string[]>>> = {
  es: ['café'],
  // German `Handy`, a mobile phone, is English "handy": a music stand "also handy for a guitar player" was a phone (h269)
  de: ['handy'],
  it: ['cane', 'panini', 'sci', 'viola', 'gonna', 'donne', 'bruno', 'bruna', 'bianca', 'bianchi', 'donna', 'nero', 'verdi', 'mela', 'cagna'],
  nl: ['beer', 'rode', 'wit', 'mes', 'messen', 'appel', 'appels', 'bal', 'tas', 'tafel', 'boten', 'gele', 'honden', 'treinen', 'olifant', 'roze'],
  // Polish, Turkish and Swedish: each file's header says why (pl `pies`, English "pies"; tr `sarı`, "sari"; sv `röd`, "rod", `tåg`, "tag").
  // Since review h201, names and words of card titles and other languages' text too: it `bruno`, `bianca`, `donna`, `nero`,
  // `verdi`, `mela`, `cagna` (Bruno Mars, Donna Karan, Nero coffee, Verdi); nl `tas` (French "un tas"), `tafel` (German
  // "Tafel Schokolade"), `boten`, `gele`, `honden` and `treinen` (MTG's Honden, Blake Treinen), `olifant`, `roze`; tr `top`
  // ("crop top"), `bot`, `araba` and `oto` (card names), `elma`, `çanta` (Spanish "canta"); sv `kor` (MTG's Kor), `mus`
  // (German "Mus"), `vit` (French "il vit"), `silver` (English: "Silver Drake" was read as Swedish), `pall`, `bruna`
  // (Bruna, Light of Alabaster), `sängen`, `fåren`; pl `torbie`, `koń`
  // (pl `psa`, the dog's, is PSA the card grader too: only in Polish text, and never before a grade, "PSA 10"; `stole`, on the
  // table, is English "stole")
  pl: ['pies', 'psy', 'psa', 'stole', 'pilot', 'miś', 'nóż', 'torbie', 'koń'],
  tr: ['sarı', 'fil', 'mont', 'adam', 'jean', 'kase', 'masa', 'füme', 'surat', 'top', 'bot', 'araba', 'elma', 'oto', 'çanta'],
  sv: ['ko', 'röd', 'röda', 'blått', 'vita', 'gula', 'grå', 'cerise', 'tåg', 'barn', 'slips', 'sax', 'drake', 'häst', 'säng', 'bord', 'bok', 'kor', 'mus', 'vit', 'silver', 'pall', 'bruna', 'sängen', 'fåren'],
};

/**
 * Forms of {@link ownLanguageOnly} read as their concept when one is the whole query (stop words aside): the other
 * reading is no thing a shopper looks for in a photo collection (English "gonna", French "appel", German "hast"
 * and "Messen", English "sang"), so `gonna` alone is a skirt rather than a 422 in a collection where no record says it.
 * The others stay words alone, as their other reading is such a thing: `cane` (cane furniture, a walking cane, a candy
 * cane), `panini` (the sticker maker), `viola` (the instrument), `beer`, `rode` (RØDE microphones), `bal` (Turkish honey),
 * `pies`, `psy` and `psa` (Yu-Gi-Oh! PSY-Frame, PSA grading), `pilot`, `nóż` as "noz" (Portuguese walnut), `sarı` as
 * "sari", `adam` and `jean` (names), `kase` (German Käse), `surat` (the city), `röd` as "rod", `röda` as "roda" (a
 * wheel), `blått` as "Blatt", `vita`, `gula` (Indonesian sugar), `grå` as "gra" (a game), `cerise` (French cherry),
 * `tåg` as "tag", `barn`, `slips`, `sax`, `drake`, `stole`; and `mes`, alone a French function word ("my"). Typed with their own letters (`röd`, `tåg`, `sarı`, `nóż`),
 * Polish, Turkish and Swedish forms are their language's anyway ({@link LexiconEntry.marked}).
 */
export const ownLanguageAlone: Readonly<Partial<Record<LexiconLanguage, readonly string[]>>> = {
  de: ['handy'],
  it: ['sci', 'gonna', 'donne', 'mela', 'bianca', 'bianchi', 'nero', 'verdi', 'bruno', 'bruna'],
  nl: ['wit', 'messen', 'appel', 'appels', 'tas', 'tafel', 'honden', 'treinen', 'olifant', 'gele', 'roze'],
  pl: ['miś'],
  tr: ['fil', 'mont', 'masa', 'füme', 'araba', 'elma'],
  sv: ['ko', 'häst', 'säng', 'bord', 'bok', 'kor', 'vit', 'bruna'],
};

/**
 * Languages whose {@link ownLanguageOnly} forms meet the other language's word only through the fold, which takes their
 * letters' marks off (`röd` → "rod", `tåg` → "tag", `sarı` → "sari", `nóż` → "noz"): typed with those marks, the form is
 * its language's wherever it stands. (Not Spanish `café`: French and Portuguese write it so too.)
 */
const markedOwnLanguages: ReadonlySet<string> = new Set(['pl', 'tr', 'sv']);

export interface LexiconEntry {
  concept: Concept;
  lang: LexiconLanguage;
  /** In {@link ownLanguageOnly}: the concept only where the text is read as `lang`. */
  ownOnly?: true;
  /** An `ownOnly` form's spellings with its language's marks (lower case, NFC): typed so, it is `lang`'s anywhere. */
  marked?: string[];
  /** In {@link ownLanguageAlone}: read as its concept when it is the whole query. */
  alone?: true;
}

/**
 * Card graders' names that a lexicon language writes as a word: Polish `psa` is the dog's, and PSA grades cards ("PSA 10
 * Charizard", a price row's "MINT 9,PSA", a folder `psa/`). Such a form is no evidence of its language, and no concept
 * beside a grade (query.ts).
 */
export const graderNames: ReadonlySet<string> = new Set(['psa']);

/** A word as typed, before the fold takes the marks off: NFKC, lower case, NFC (`Röd` → `röd`). */
export const spelling = (word: string): string => word.normalize('NFKC').toLowerCase().normalize('NFC');

/** Whether the query typed an `ownOnly` form with its language's marks (`spellings`: how it typed the form's folded word). */
export const spelledAsOwn = (e: LexiconEntry, spellings: ReadonlySet<string> | undefined): boolean =>
  !!e.marked && !!spellings && e.marked.some((m) => spellings.has(m));

export interface LexiconIndex {
  /** Spaced scripts: the folded words of a form joined by one space. */
  phrases: ReadonlyMap<string, readonly LexiconEntry[]>;
  /** The most words any phrase has, so matching knows how far to look ahead. */
  maxPhraseWords: number;
  /** Chinese and Japanese forms, folded, matched as substrings. */
  cjk: ReadonlyMap<string, readonly LexiconEntry[]>;
  /** The longest CJK form in characters. */
  maxCjkLength: number;
}

/** Every (concept, form) of one language, forms as written. */
export function* formsOf(words: LanguageWords): Generator<{ concept: Concept; form: string }> {
  for (const name of cocoLabels) for (const form of words.objects[name]) yield { concept: { kind: 'object', name }, form };
  for (const name of colorNames) for (const form of words.colors[name]) yield { concept: { kind: 'color', name }, form };
  for (const name of itemKinds) for (const form of words.items[name]) yield { concept: { kind: 'item', name }, form };
  for (const name of peopleKinds) for (const form of words.people[name]) yield { concept: { kind: 'people', name }, form };
}

/** The lookup key of a form: CJK forms keep their characters (spaces dropped), others are their words joined by a space. */
export function formKey(form: string): { key: string; cjk: boolean } {
  const folded = foldText(form);
  if (cjkChar.test(folded)) return { key: wordsOf(folded).join(''), cjk: true };
  return { key: wordsOf(folded).join(' '), cjk: false };
}

const sameConcept = (a: Concept, b: Concept) => a.kind === b.kind && a.name === b.name;

export function buildLexiconIndex(languages: Readonly<Record<string, LanguageWords>> = lexiconWords): LexiconIndex {
  const phrases = new Map<string, LexiconEntry[]>();
  const cjk = new Map<string, LexiconEntry[]>();
  let maxPhraseWords = 1;
  let maxCjkLength = 1;
  for (const [lang, words] of Object.entries(languages)) {
    const ownOnly = new Set((ownLanguageOnly[lang as LexiconLanguage] ?? []).map((f) => formKey(f).key));
    const alone = new Set((ownLanguageAlone[lang as LexiconLanguage] ?? []).map((f) => formKey(f).key));
    for (const { concept, form } of formsOf(words)) {
      const { key, cjk: isCjk } = formKey(form);
      if (!key) continue;
      const map = isCjk ? cjk : phrases;
      const list = map.get(key) ?? [];
      let entry = list.find((e) => e.lang === lang && sameConcept(e.concept, concept));
      if (!entry) {
        entry = { concept, lang: lang as LexiconLanguage, ...(ownOnly.has(key) ? { ownOnly: true as const } : {}), ...(alone.has(key) ? { alone: true as const } : {}) };
        list.push(entry);
      }
      const spelled = spelling(form);
      if (entry.ownOnly && markedOwnLanguages.has(lang) && spelled !== key && !key.includes(' ')) {
        entry.marked ??= [];
        if (!entry.marked.includes(spelled)) entry.marked.push(spelled);
      }
      map.set(key, list);
      if (isCjk) maxCjkLength = Math.max(maxCjkLength, [...key].length);
      else maxPhraseWords = Math.max(maxPhraseWords, key.split(' ').length);
    }
  }
  return { phrases, maxPhraseWords, cjk, maxCjkLength };
}

let shared: LexiconIndex | undefined;

/** The index of the shipped lexicon, built on first use (a few milliseconds) and kept. */
export function lexiconIndex(): LexiconIndex {
  shared ??= buildLexiconIndex();
  return shared;
}
