/**
 * The one text normalisation text search uses, for lexicon forms, queries and (from step 4 of
 * the plan) the record text written to the index: what is equal after this fold matches, on
 * both backends. Anything that writes text into the index must fold it with this same function,
 * or a folded query term stops matching the unfolded stored one.
 */

import { foldLatinStrokes, foldScripts, withoutBidi } from '../util/script-fold.ts';

// Latin letters with a diacritic lose it, as FTS5's `remove_diacritics 2` does: shoppers type
// "avion" for "avión" and "cafe" for "café".
const latinBase = /[a-z\u00df-\u00ff\u0100-\u024f]/;
const combining = /[\u0300-\u036f]/;
const cyrillic = /[\u0400-\u04ff]/;
const greek = /[\u0370-\u03ff\u1f00-\u1fff]/;

// Marks that change how a word is drawn, not which word it is: joiners (Bengali ra-phala is
// written with and without ZWJ), soft hyphens, Arabic tatweel and short vowels, Hebrew points, the Devanagari
// nukta (ज़/ज are both common spellings), and emoji variation selectors (a phone's 🛋️ is 🛋 and U+FE0F).
const invisible = /[\u00ad\u200b-\u200d\u2060\ufeff\u0640]|\p{Variation_Selector}/gu;
// Hebrew points and cantillation too (since TOKENS_VERSION 8): Hebrew is written without them, and a record with
// niqqud (שָׁלוֹם) was found by no query typed without (שלום), h94.
const droppedMarks = /[\u064b-\u065f\u0670\u093c\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]/g;

const arabicAlef = /[\u0622\u0623\u0625\u0671]/g;

export function foldText(text: string): string {
  // since TOKENS_VERSION 10 also directional marks dropped and what one script types two ways made one (foldScripts:
  // ٢٠٢٢ is 2022, ساعه finds ساعة, Urdu کلب finds كلب, h146)
  return foldLatinStrokes(foldScripts(withoutBidi(foldStrokeless(text))));
}

/** The fold of TOKENS_VERSION 6 to 9 (strokes taken, scripts and directional marks not): how rows that await re-tokenising hold their words. */
export function foldBeforeScripts(text: string): string {
  return foldLatinStrokes(foldStrokeless(text));
}

/** The fold of TOKENS_VERSION 5 (ł, ß… kept): how rows that await re-tokenising hold their words. */
export function foldStrokeless(text: string): string {
  const lower = text.normalize('NFKC').toLowerCase().replace(invisible, '').replace(droppedMarks, '');
  let out = '';
  let prev = '';
  for (const ch of lower.normalize('NFD')) {
    if (combining.test(ch)) {
      if (latinBase.test(prev)) continue;
      // ё and е: Russian writes ё optionally, so a query with е must find it.
      if (ch === '\u0308' && prev === '\u0435') continue;
      // stress marks (соба́ка) are a reading aid on a Cyrillic vowel, not another word; the breve of й stays
      if ((ch === '\u0301' || ch === '\u0300') && cyrillic.test(prev)) continue;
      // Greek tonos and dialytika (since TOKENS_VERSION 9): capitals are written without them, so "ΑΘΗΝΑ" and a query
      // typed "αθήνα" never met (h117); polytonic breathings too
      if (greek.test(prev)) continue;
    } else {
      prev = ch;
    }
    out += ch;
  }
  // final sigma is sigma: a word cut short or typed on another keyboard ends in σ
  return out.normalize('NFC').replace(arabicAlef, '\u0627').replace(/ς/g, 'σ');
}

/** Han ideographs, hiragana, katakana (and their half-width forms): scripts written without spaces. */
export const cjkChar = /[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]/u;

/**
 * Thai, Lao, Khmer and Myanmar: scripts written without spaces between words, which ICU's dictionaries (Intl.Segmenter)
 * split into words. A title's word was found by no query (only its whole spaceless run was, h117).
 */
export const spacelessScript = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]/u;

/** Words of a folded text: runs of letters, marks and digits. Everything else separates. */
export function wordsOf(folded: string): string[] {
  return folded.match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
}
