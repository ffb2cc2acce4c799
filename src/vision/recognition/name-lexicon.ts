import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { SpotLexicon } from '../models/ocr-reader.ts';
import type { Spotted } from '../models/ctc-spotting.ts';
import { FORM_PRINTS, FORM_SPECIES } from '../../catalog/pokemon-species-names.ts';

/**
 * The Pokémon species' names a card's name line is looked for (ctc-spotting.ts), in the languages
 * of the Latin-script prints the `pokemon` package lists (the recogniser reads no kana or Hangul):
 * on a card 200 px wide the recogniser misreads a name a letter or two at a time (`Punelino` for
 * Plumeline, `HrachiRadieux` for Jirachi Radieux), which the species names' own lookup
 * (pokemon-species-names.ts, one letter at most) does not undo.
 */
const LANGUAGES = ['en', 'fr', 'de', 'es'] as const;

/**
 * Names shorter than this are not looked for: `Mew`, `Abo`, `Tic` fit somewhere in nearly any line
 * (on the train photos' stage lines `BASE`, `NIVEAU 1` they were the cheapest words), and the
 * recogniser reads such a name whole or not at all.
 */
const MIN_LETTERS = 4;
/**
 * A name this long read whole anywhere in a line (`tECalyrexVMAx320`) is what the line names: the
 * lookups read it there, and a look would only put the bare species in place of the line's form and
 * suffix (on the train photos shrunk to 399 and 401 px it lost Ice Rider Calyrex VMAX so).
 */
const WHOLE_INSIDE = 6;

/**
 * How sure a word found must be (set on the train split's photos, listing-size and shrunk to 400 px,
 * docs/recognition.md "Names spotted"): its cost per letter at most this (misread names 0.5–1.2, the
 * cheapest word in a stage or kind line 3.8 or more) and its margin over any other species' word at
 * least {@link MIN_MARGIN}.
 */
const MAX_PER_LETTER = 1.5;
const MIN_MARGIN = 2;
/**
 * The dearest single step a word found may take: a letter the recogniser read surely as another
 * is that other letter. Misread names the look found on the train photos took 0.0–6.4 (`Galeron` for
 * Galegon); a name read exactly but one letter from a species (a Magic `Quagmire`, Quagsire; a
 * review's simulation of letters read at 0.9) about 11, which the cost per letter alone let through
 * on names of eight letters or more.
 */
const MAX_STEP = 7;

/** The spellings the recogniser can produce: its dictionary has é, è, à, É but no ê, ç, ï, ô, œ. */
function spellings(name: string): string[] {
  const plain = name.normalize('NFC').replace(/[♀♂]/g, '').replace(/œ/g, 'oe').replace(/Œ/g, 'Oe').replace(/æ/g, 'ae').replace(/[ßẞ]/g, 'ss').trim();
  const bare = plain.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC');
  return [...new Set([plain, bare, bare.replace(/[\s.'’]/g, '')])].filter((s) => s.replace(/[^A-Za-z]/g, '').length >= MIN_LETTERS);
}

/** A line's letters, folded, for the lookup of names it already shows. */
const folded = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z]/g, '');

/**
 * Letters a name line must have after a species' name that has forms for the line to be looked at
 * for its forms (`EthernatosRdlauR`, `ClamiralsHis`): a form word's first letters at least.
 */
const FORM_TAIL = 3;

/** What a name line carries after the name that is no form (`MeowthVMAX`): the lookups read it. */
const CARD_SUFFIX = /^(v|vmax|vstar|gx|ex|break|lvx|prime)$/;

/** Names with forms as printed, per list: each form's prints in that list's language (`{}` the species' name there). */
export interface FormNames {
  /** Each species' index in the lists. */
  species: readonly number[];
  /** Per list (as `lists`), the form's prints; none for a list of English names. */
  prints: readonly (readonly string[])[];
}

/**
 * `lists` are the species' names by language, indexed alike (index = Pokédex number − 1). A species'
 * names are one group; each form's names (`Ethernatos Radieux`) one group more, so that two forms of
 * one species (`Sylveroy Cavalier du Froid`, `Sylveroy Cavalier d'Effroi`) are rivals and the bare
 * species inside a form's name is not.
 */
export function speciesLexicon(lists: readonly (readonly string[])[], forms: readonly FormNames[] = []): SpotLexicon {
  const words: string[] = [];
  const groups: number[] = [];
  const formOf: (number | undefined)[] = [];
  const known = new Set<string>();
  const had = new Set<string>();
  const add = (name: string, group: number, of?: number) => {
    for (const s of spellings(name)) {
      // one spelling of one group once (Pikachu is Pikachu in every language listed)
      if (had.has(`${group} ${s}`)) continue;
      had.add(`${group} ${s}`);
      words.push(s);
      groups.push(group);
      formOf.push(of);
      known.add(folded(s));
    }
  };
  for (const list of lists) list.forEach((name, i) => add(name, i));
  const species = Math.max(...lists.map((l) => l.length));
  const withForms = new Set<string>();
  forms.forEach((form, f) => {
    for (const i of form.species) {
      lists.forEach((list, l) => {
        const name = list[i];
        if (!name) return;
        for (const print of form.prints[l] ?? []) {
          add(print.replace('{}', name), species * (f + 1) + i, i);
          // only a print with the form word after the name (`{} Radieux`, not `Strahlendes {}`) begins with the name
          if (print.startsWith('{}')) for (const s of spellings(name)) withForms.add(folded(s));
        }
      });
    }
  });
  const longest = Math.max(...[...known].map((k) => k.length));
  return {
    words,
    groups,
    formOf,
    // a line that begins with a name as read needs no look (`Limagma`, `Absolex`, `ElectrodedeHisui`), nor one holding a
    // long name whole, nor one of too few letters; but one that begins with the name of a species printed with its form
    // word after it, and has more letters after it than a card suffix, may show a form word misread (`EthernatosRdlauR`)
    wants(text) {
      const f = folded(text);
      if (f.length < MIN_LETTERS) return false;
      // every name the line begins with, not the shortest only: `ArcanineGX` begins with `Arcanin` (French) too
      for (let k = MIN_LETTERS; k <= Math.min(f.length, longest); k++) if (known.has(f.slice(0, k)) && (k === f.length || CARD_SUFFIX.test(f.slice(k)))) return false;
      for (let k = MIN_LETTERS; k + FORM_TAIL <= f.length; k++) if (withForms.has(f.slice(0, k))) return true;
      for (let i = 0; i + MIN_LETTERS <= f.length; i++) {
        for (let k = i === 0 ? MIN_LETTERS : WHOLE_INSIDE; k <= Math.min(f.length - i, longest); k++) if (known.has(f.slice(i, i + k))) return false;
      }
      return true;
    },
    accepts: (s: Spotted) => s.perLetter <= MAX_PER_LETTER && s.margin >= MIN_MARGIN && s.placement.worst <= MAX_STEP,
  };
}

let installed: SpotLexicon | undefined;

/** The installed `pokemon` package's lists, read once. */
export function installedSpeciesLexicon(): SpotLexicon {
  if (installed) return installed;
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('pokemon/package.json')), 'data');
  const lists = LANGUAGES.map((lang) => JSON.parse(fs.readFileSync(path.join(dir, `${lang}.json`), 'utf8')) as string[]);
  const index = new Map(lists[0]!.map((name, i) => [name, i]));
  const forms = Object.entries(FORM_SPECIES).map(([form, names]) => ({
    species: names.map((n) => index.get(n)).filter((i) => i !== undefined),
    prints: LANGUAGES.map((lang) => (lang === 'en' ? [] : FORM_PRINTS[form]![lang])),
  }));
  installed = speciesLexicon(lists, forms);
  return installed;
}
