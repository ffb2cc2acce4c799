import type SQLite from 'better-sqlite3';
import { refoldCardKey } from './session-card-keys.ts';
import { bidiMarks, foldLatinStrokes, foldScripts } from '../util/script-fold.ts';

// The SQL functions of the embedded database's connections and what they need, apart from database.ts so that a read
// worker (sqlite-read-pool.ts) registers the same ones without loading the stores, the migrations and pg.

/**
 * Text as a case-blind search compares it, the same on both backends: composed (NFC), lower case,
 * with the two letters whose lower case depends on context made one: JavaScript lowers a final Σ
 * to ς and İ to i + a combining dot, PostgreSQL's lower() (character by character) to σ and i.
 */
export function foldForSearch(text: string): string {
  // accents too: "pokemon" finds "Pokémon", "electrique" "Électrique" (a French shop's sessions were found
  // only as typed with their accents); only the Latin, Greek and Cyrillic combining marks, so a Japanese
  // voiced kana (its mark is U+3099) stays itself
  // voiced kana stays itself; width goes (NFKC): "psa" finds "ＰＳＡ１０", "ポケモン" finds "ﾎﾟｹﾓﾝ", as Japanese input methods type them
  // NFKC first, then lower case: NFKC makes capitals of its own (™ TM, № No, 𝐏𝐒𝐀 PSA), which PostgreSQL's
  // LIKE then told apart while SQLite's (ASCII case-blind) did not; marks stripped after it, as it puts back ǅ's caron
  // since the forty-third session also the Latin letters whose stroke or ligature no decomposition takes away, as text
  // search folds them and the game filter ß: "strasse" finds "Straße", "lodz" "Łódź", "coeur" "Cœur" (h152)
  return foldLatinStrokes(foldScripts(text.normalize('NFKC').toLowerCase().normalize('NFD').replace(searchDropped, '').normalize('NFC').replace(/ς/g, 'σ')));
}

/**
 * What the search fold drops: the Latin, Greek and Cyrillic combining marks; since the thirty-ninth session also
 * Hebrew points and cantillation, Arabic short vowels and tatweel, and the invisible soft hyphen, zero-width spaces and
 * joiners, as text search's fold does (`שלום` did not find a session written `שָׁלוֹם`, nor `Glurak` one written
 * `Glu\u00adrak`, h94). A Japanese voiced kana's mark (U+3099) stays. Then the letters and digits one script types
 * two ways are made one (`foldScripts`: ٢٠٢٤ is 2024, ة is ه, Urdu ک is ك, h146).
 */
// since the forty-second session also directional marks and isolates (a phone's paste of mixed-direction text), and the
// Devanagari nukta, as text search drops it (h146)
export const searchDroppedClass = `[\u0300-\u036f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670\u0640\u00ad\u200b-\u200d\u2060\ufeff\u093c${bidiMarks}]`;
const searchDropped = new RegExp(searchDroppedClass, 'g');

/** SQL functions every connection to the embedded database needs. */
export function registerFunctions(sqlite: SQLite.Database): void {
  // SQLite's own lower() folds A-Z only: "ÉCLAIR" would never match a search for "éclair".
  // folded and composed (NFC): "Pokémon" typed composed finds a name sent decomposed, as PostgreSQL's lower(normalize(…))
  sqlite.function('unicode_lower', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? foldForSearch(v) : v));
  // an FTS5 row's length in tokens, all columns: the sum of the varints of its `_docsize` record
  // migration 021 makes stored card keys again with it
  sqlite.function('loupe_refold_card_key', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? refoldCardKey(v) : v));
  sqlite.function('fts5_row_tokens', { deterministic: true }, (v: unknown) => (v instanceof Uint8Array ? sumVarints(v) : 0));
}

/** The sum of the SQLite varints in `b` (FTS5's size records). */
export function sumVarints(b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < b.length; ) {
    let v = 0;
    for (let n = 0; i < b.length; n++) {
      const c = b[i++]!;
      if (n === 8) {
        v = v * 256 + c;
        break;
      }
      v = v * 128 + (c & 0x7f);
      if (!(c & 0x80)) break;
    }
    sum += v;
  }
  return sum;
}
