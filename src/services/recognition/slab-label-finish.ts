import type { Finish } from '../../catalog/printing-finish.ts';

/**
 * The finish a grading label prints for the copy it holds (`CHARIZARD - HOLO`, `PROMO - REV.FOIL`, `1ST EDITION HOLO`,
 * `NON-HOLO`, `ETCHED FOIL`): the `Foil/Holo` tag's best evidence, since the catalog row cannot tell a common's reverse
 * holo from the plain copy and the grader saw the card (docs/api-decisions.md, `_tags`).
 *
 * Only the descriptor position counts: the run of descriptor words that ends a line (finish words, their patterns,
 * edition and variety words), and on the name line only after the name, so that a card or set named with such a word
 * says nothing (`FOIL` is a Magic card, `REVERSE VALLEY` a Pokémon stadium, `HOLON PHANTOMS` a set, `ETCHED ORACLE` a
 * Magic card). Words are whole: `HOLON` is no `HOLO`.
 */

/** Words that say the copy is foil. */
const FOIL_WORDS = new Set(['HOLO', 'HOLOFOIL', 'FOIL', 'ETCHED']);
/**
 * Words that stand in a descriptor beside a finish word: its negation, reverse, foil patterns, editions and varieties.
 * They never say the finish alone (`1ST EDITION` names no finish).
 */
const DESCRIPTOR_WORDS = new Set([
  'NON', 'REVERSE', 'REV', 'CRACKED', 'ICE', 'COSMOS', 'GALAXY', 'SWIRL', 'MIRROR', 'RAINBOW', 'TEXTURED', 'SURGE', 'CONFETTI',
  '1ST', 'FIRST', 'ED', 'EDITION', 'SHADOWLESS', 'UNLIMITED', 'PROMO', 'STAFF', 'PRERELEASE', 'STAMPED', 'RARE',
]);

/**
 * Descriptor words the OCR glues to the finish word after them (`1STEDITIONHOLO`, `SHADOWLESSHOLO`, `REVFOIL`). A NON
 * glued to a word before it too is not parted: `SNORLAXNONHOLO` (a plain copy) and `TOUCANNONHOLO` (Toucannon, foil)
 * cannot be told apart, so such a line says no finish rather than a wrong one.
 */
const GLUED_BEFORE_FINISH = new RegExp(`(${[...DESCRIPTOR_WORDS].sort((a, b) => b.length - a.length).map((w) => (w === 'NON' ? '(?<![A-Z])NON' : w)).join('|')})(?=HOLO|FOIL|ETCHED)`, 'g');

/**
 * A label's text with the OCR's glue undone: a descriptor word glued to the finish word after it parted, and NON's O
 * read as a zero (`N0N-HOLO`) made NON, so that a plain copy is never read as a foil one.
 */
export function partedFinishWords(text: string): string {
  return text
    .toUpperCase()
    .replace(/(^|[^A-Z0-9])N0N(?=[-\s.]*(HOLO|FOIL))/g, '$1NON')
    .replace(/1ST(?=ED)/g, '1ST ')
    .replace(GLUED_BEFORE_FINISH, '$1 ');
}

/** A collector number ending a line after its name (CGC's `Dragonite - Holo 4/62`, `… #4`): no descriptor. */
const NUMBER_AT_END = /[\s-]*(#\s?[A-Z0-9-]+|[A-Z]{0,4}[0-9]{1,4}[A-Z]?\s?\/\s?[A-Z]{0,4}[0-9]{1,4})\s*$/;

/** A label's words, the OCR's glued finish words parted (`REV.FOIL`, `REVERSEHOLO`, `NONHOLO`, `1STEDITION`). */
function words(text: string): string[] {
  return partedFinishWords(text)
    .replace(NUMBER_AT_END, '')
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
}

/** The finish the descriptor words ending `text` say, or null; `afterName`: they must follow other words (the name). */
function finishAtEnd(text: string, afterName: boolean): Finish | null {
  const w = words(text);
  let start = w.length;
  while (start > 0 && (FOIL_WORDS.has(w[start - 1]!) || DESCRIPTOR_WORDS.has(w[start - 1]!))) start--;
  // a name line of finish words only: a finish word first is a card's name (Magic's Foil, printed `Foil - Foil` for its
  // foil copy), the rest its descriptor; a descriptor's own first word (NON-HOLO, REVERSE HOLO) names no card
  if (afterName && start === 0 && FOIL_WORDS.has(w[0] ?? '')) start = 1;
  if (afterName && start === 0) return null;
  const run = w.slice(start);
  const at = run.findIndex((x) => FOIL_WORDS.has(x));
  if (at < 0) return null;
  // NON-HOLO, NON-FOIL: the grader says the copy is plain
  return run.some((x, i) => x === 'NON' && FOIL_WORDS.has(run[i + 1] ?? '')) ? 'Non-Foil' : 'Foil';
}

/**
 * The finish a label's lines say: `name` is the card's name as read (its descriptor follows it), `lines` the label's
 * other lines that may hold a variety (not the grade, certificate or subgrade lines). Null where none says one, or where
 * they disagree (a misread; the catalog's word is then the tag's).
 */
export function labelFinish(name: string | null, lines: readonly string[]): Finish | null {
  const said = new Set([...(name ? [finishAtEnd(name, true)] : []), ...lines.map((l) => finishAtEnd(l, false))].filter((f): f is Finish => f !== null));
  return said.size === 1 ? [...said][0]! : null;
}
