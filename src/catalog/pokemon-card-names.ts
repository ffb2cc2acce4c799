import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { oneEditIndex } from '../util/edit-distance.ts';
import { normalizeName } from './card-keys.ts';
import { foldName as fold } from './pokemon-species-names.ts';

/**
 * Trainer and Energy card names in the languages cards are printed in, with the English name the
 * catalogs print: a French `Employés de la Ligue` is League Staff, a German `Liga-Mitarbeiter`
 * too. Species names come from the `pokemon` package (pokemon-species-names.ts); trainer and
 * energy names are in no npm package, so the table is built here from tcgdex/cards-database (MIT)
 * by `scripts/pokemon-card-names.ts` and committed (docs/recognition.md, "Trainer and Energy
 * names in other languages").
 */
export interface CardNameTable {
  source: string;
  languages: string[];
  /** `[english, ...one name per language of `languages`, '' where the source gives none]`. */
  names: string[][];
}

export const CARD_NAMES_FILE = fileURLToPath(new URL('./tables/pokemon-card-names.json', import.meta.url));

/** A name misread by one letter counts from this many letters on (as for species). */
const FUZZY_LETTERS = 7;

export interface CardNames {
  /** The English name a localized trainer or energy name line stands for, or null. */
  english(line: string): { text: string; norm: string } | null;
}

/**
 * Energy types by their English word, in the table's languages (the types as the games print
 * them on French, German, Spanish, Italian and Portuguese cards).
 */
const TYPE_WORDS: Record<string, Record<string, string>> = {
  Grass: { fr: 'Plante', de: 'Pflanzen', es: 'Planta', it: 'Erba', pt: 'Grama' },
  Fire: { fr: 'Feu', de: 'Feuer', es: 'Fuego', it: 'Fuoco', pt: 'Fogo' },
  Water: { fr: 'Eau', de: 'Wasser', es: 'Agua', it: 'Acqua', pt: 'Água' },
  Lightning: { fr: 'Électrique', de: 'Elektro', es: 'Rayo', it: 'Lampo', pt: 'Elétrica' },
  Psychic: { fr: 'Psy', de: 'Psycho', es: 'Psíquica', it: 'Psico', pt: 'Psíquica' },
  Fighting: { fr: 'Combat', de: 'Kampf', es: 'Lucha', it: 'Lotta', pt: 'Luta' },
  Darkness: { fr: 'Obscurité', de: 'Finsternis', es: 'Oscura', it: 'Oscurità', pt: 'Escuridão' },
  Metal: { fr: 'Métal', de: 'Metall', es: 'Metálica', it: 'Metallo', pt: 'Metal' },
  Fairy: { fr: 'Fée', de: 'Feen', es: 'Hada', it: 'Folletto', pt: 'Fada' },
  Dragon: { fr: 'Dragon', de: 'Drachen', es: 'Dragón', it: 'Drago', pt: 'Dragão' },
  Colorless: { fr: 'Incolore', de: 'Farblos', es: 'Incolora', it: 'Incolore', pt: 'Incolor' },
};
/** The word for energy in the table's languages, as a word of a name (`Énergie`, `Grass-Energie`). */
const ENERGY_WORD = /(^|[\s-])(énergie|energie|energía|energia)(?=$|[\s-])/iu;
const TYPE_WORD = new RegExp(`(^|[\\s-])(${Object.keys(TYPE_WORDS).join('|')})(?=$|[\\s-])`);

/**
 * A localized energy name as cards print it. tcgdex writes the type of a special energy in English
 * inside a localized name (`Énergie Metal Revêtement`, `Wachsende Grass-Energie`), where the card
 * prints the type's symbol (a French Coating Metal Energy reads `Énergie Revêtement`) or, on some
 * prints, the language's own word: both are kept beside the name as written.
 */
export function printedForms(name: string, language: string): string[] {
  const m = ENERGY_WORD.test(name) ? TYPE_WORD.exec(name) : null;
  // a word the language spells as English does (French `Dragon`, Portuguese `Metal`) is its own
  const own = m ? TYPE_WORDS[m[2]!]![language] : undefined;
  if (!m || own === m[2]) return [name];
  const at = m.index + m[1]!.length;
  const end = at + m[2]!.length;
  const without = (name.slice(0, at) + name.slice(end)).replace(/\s{2,}/g, ' ').replace(/-{2,}/g, '-').replace(/(^|\s)-|-(?=\s|$)/g, '$1').trim();
  return [name, without, ...(own ? [name.slice(0, at) + own + name.slice(end)] : [])];
}

export function cardNames(table: CardNameTable): CardNames {
  const englishNorms = new Set(table.names.map((row) => fold(row[0]!)));
  // localized (folded) → English; null where two English names share it
  const byNorm = new Map<string, string | null>();
  for (const [english, ...localized] of table.names) {
    for (const name of localized.flatMap((n, k) => (n ? printedForms(n, table.languages[k]!) : []))) {
      const norm = fold(name);
      // a name printed alike in English needs no reading, and one that is another card's English name says nothing
      if (norm.length < 3 || englishNorms.has(norm)) continue;
      const had = byNorm.get(norm);
      byNorm.set(norm, had === undefined || had === english ? english! : null);
    }
  }
  const oneEdit = oneEditIndex(byNorm.keys());
  const answer = (english: string) => ({ text: english, norm: normalizeName(english) });
  return {
    english(line) {
      const norm = fold(line);
      if (!norm || englishNorms.has(norm)) return null;
      const exact = byNorm.get(norm);
      if (exact !== undefined) return exact === null ? null : answer(exact);
      if (norm.length < FUZZY_LETTERS) return null;
      const found = new Set<string | null>(oneEdit(norm).map((n) => byNorm.get(n)!));
      // a misreading as near to two cards is neither
      return found.size === 1 && !found.has(null) ? answer([...found][0]!) : null;
    },
  };
}

let loaded: CardNames | undefined;

/** The committed table, read once. */
export function installedCardNames(): CardNames {
  loaded ??= cardNames(JSON.parse(fs.readFileSync(CARD_NAMES_FILE, 'utf8')) as CardNameTable);
  return loaded;
}
