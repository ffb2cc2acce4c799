import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { editDistance, oneEditIndex } from '../util/edit-distance.ts';
import { normalizeName } from './card-keys.ts';

/**
 * Pokémon species names in the languages cards are printed in, from the `pokemon` npm package
 * (MIT; 1,025 species by National Pokédex number, one JSON list per language). The catalogs are
 * English, so a French card's "Khélocrok" names nothing in them until it is read as "Chewtle".
 * Spanish and Italian cards print the English names; German, French, Japanese, Korean, Chinese,
 * Russian and Thai ones do not.
 */
const LANGUAGES = ['fr', 'de', 'es', 'ja', 'ko', 'ru', 'th', 'zh-hans', 'zh-hant'] as const;

/**
 * What a card's name line may carry after the species (`Moumouflon V`, `Dracaufeu-GX`), folded as
 * {@link normalizeName} folds them, longest first so `vmax` is not taken for `v`.
 */
const SUFFIXES = ['vmax', 'vstar', 'break', 'lvx', 'prime', 'gx', 'ex', 'v'];
/**
 * Logo suffixes as the recogniser misreads them, glued to the name: the small `ex` as `cx`
 * (`MiascaradeCx`) or, at small sizes, `ey` (`Feunardey`), the `V` logo as a `y` (`Zaciany`,
 * `SorcilenceY`). Taken only after a species name read exactly, English or not, and never where the
 * whole line is a name itself. Not a lone `e` (`Milobelluse`): a misread name ending in an extra `e`
 * would become an ex.
 */
const LOGO_MISREAD: [string, string][] = [['cx', 'ex'], ['ey', 'ex'], ['y', 'v']];
/** English spellings of those suffixes, as the catalogs print them (the older `EX` is `ex` folded). */
export const SUFFIX_TEXT: Readonly<Record<string, string>> = { vmax: 'VMAX', vstar: 'VSTAR', break: 'BREAK', lvx: 'LV.X', prime: 'Prime', gx: 'GX', ex: 'ex', v: 'V' };
/**
 * Forms printed around the species name, folded, and the English word the catalogs put before it
 * (`Goupix d'Alola` / `Alola-Vulpix` / `Vulpix de Alola` → `Alolan Vulpix`, `Ethernatos Radieux` →
 * `Radiant Eternatus`). Spanish and Italian print the English species with their own form words.
 */
const FORMS_AFTER: [string, string][] = [
  ['dalola', 'Alolan'], ['degalar', 'Galarian'], ['dehisui', 'Hisuian'], ['depaldea', 'Paldean'],
  ['dealola', 'Alolan'], ['dialola', 'Alolan'], ['digalar', 'Galarian'], ['dihisui', 'Hisuian'], ['dipaldea', 'Paldean'],
  ['radieux', 'Radiant'], ['radieuse', 'Radiant'], ['radiante', 'Radiant'],
  ['cavalierdufroid', 'Ice Rider'], ['cavalierdeffroi', 'Shadow Rider'],
  ['poingfinal', 'Single Strike'], ['millepoings', 'Rapid Strike'],
  // Spanish, Italian and Portuguese cards print the riders' and Urshifu's styles after the English species (tcgdex)
  ['jineteglacial', 'Ice Rider'], ['cavaliereglaciale', 'Ice Rider'], ['cavaleiroglacial', 'Ice Rider'],
  ['jineteespectral', 'Shadow Rider'], ['cavalierespettrale', 'Shadow Rider'], ['cavaleiroespectral', 'Shadow Rider'],
  ['golpebrusco', 'Single Strike'], ['singolcolpo', 'Single Strike'], ['golpedecisivo', 'Single Strike'],
  ['golpefluido', 'Rapid Strike'], ['pluricolpo', 'Rapid Strike'],
];
const FORMS_BEFORE: [string, string][] = [
  ['alola', 'Alolan'], ['galar', 'Galarian'], ['hisui', 'Hisuian'], ['paldea', 'Paldean'],
  ['strahlendes', 'Radiant'], ['strahlender', 'Radiant'], ['strahlende', 'Radiant'],
  ['schimmelreiter', 'Ice Rider'], ['rappenreiter', 'Shadow Rider'],
  // `Fließender-Angriff-Wulaosu`: the ß as the recogniser reads it (foldName) and as the catalogs fold it
  ['fokussierterangriff', 'Single Strike'], ['fliebenderangriff', 'Rapid Strike'], ['fliessenderangriff', 'Rapid Strike'],
];

/**
 * The species each form is printed with, as the catalogs name its cards (the Pokémon TCG data
 * project's card names, 2026-11: `Galarian Obstagoon`, `Paldean Clodsire`, `Radiant Hisuian
 * Sneasler`). A form word read only in part or misread ({@link FORM_CUT_MIN}, {@link FORM_EDITS})
 * counts only after one of its species: an English name misread by a letter is a species too often
 * (`Klinklng` is `Klink` and a tail), and no card is a Rapid Strike Klink.
 */
export const FORM_SPECIES: Readonly<Record<string, readonly string[]>> = {
  Alolan: ['Rattata', 'Raticate', 'Raichu', 'Sandshrew', 'Sandslash', 'Vulpix', 'Ninetales', 'Diglett', 'Dugtrio', 'Meowth', 'Persian', 'Geodude', 'Graveler', 'Golem', 'Grimer', 'Muk', 'Exeggutor', 'Marowak'],
  Galarian: ['Meowth', 'Perrserker', 'Ponyta', 'Rapidash', 'Slowpoke', 'Slowbro', 'Slowking', "Farfetch'd", "Sirfetch'd", 'Weezing', 'Mr. Mime', 'Mr. Rime', 'Articuno', 'Zapdos', 'Moltres', 'Corsola', 'Cursola', 'Zigzagoon', 'Linoone', 'Obstagoon', 'Darumaka', 'Darmanitan', 'Yamask', 'Runerigus', 'Stunfisk'],
  Hisuian: ['Growlithe', 'Arcanine', 'Voltorb', 'Electrode', 'Typhlosion', 'Qwilfish', 'Overqwil', 'Sneasel', 'Sneasler', 'Samurott', 'Lilligant', 'Basculin', 'Basculegion', 'Zorua', 'Zoroark', 'Braviary', 'Sliggoo', 'Goodra', 'Avalugg', 'Decidueye'],
  Paldean: ['Tauros', 'Wooper', 'Clodsire'],
  Radiant: ['Alakazam', 'Blastoise', 'Charizard', 'Charjabug', 'Eevee', 'Eternatus', 'Gardevoir', 'Greninja', 'Hawlucha', 'Heatran', 'Sneasler', 'Jirachi', 'Steelix', 'Tsareena', 'Venusaur'],
  'Ice Rider': ['Calyrex'],
  'Shadow Rider': ['Calyrex'],
  'Single Strike': ['Urshifu'],
  'Rapid Strike': ['Urshifu'],
};
/**
 * How each form is printed around the species' name (`{}`) on French, German and Spanish cards, as
 * the forms above read them: what the name lexicon looks for on a misread name line
 * (vision/recognition/name-lexicon.ts), the species' name read and its form word not (`EthernatosRdlauR`).
 */
export const FORM_PRINTS: Readonly<Record<string, Readonly<Record<'fr' | 'de' | 'es', readonly string[]>>>> = {
  Alolan: { fr: ["{} d'Alola"], de: ['Alola-{}'], es: ['{} de Alola'] },
  Galarian: { fr: ['{} de Galar'], de: ['Galar-{}'], es: ['{} de Galar'] },
  Hisuian: { fr: ['{} de Hisui'], de: ['Hisui-{}'], es: ['{} de Hisui'] },
  Paldean: { fr: ['{} de Paldea'], de: ['Paldea-{}'], es: ['{} de Paldea'] },
  Radiant: { fr: ['{} Radieux', '{} Radieuse'], de: ['Strahlendes {}', 'Strahlender {}', 'Strahlende {}'], es: ['{} Radiante'] },
  'Ice Rider': { fr: ['{} Cavalier du Froid'], de: ['Schimmelreiter-{}'], es: ['{} Jinete Glacial'] },
  'Shadow Rider': { fr: ["{} Cavalier d'Effroi"], de: ['Rappenreiter-{}'], es: ['{} Jinete Espectral'] },
  'Single Strike': { fr: ['{} Poing Final'], de: ['Fokussierter-Angriff-{}'], es: ['{} Golpe Brusco'] },
  'Rapid Strike': { fr: ['{} Mille Poings'], de: ['Fließender-Angriff-{}'], es: ['{} Golpe Fluido'] },
};
const formSpecies = new Map(Object.entries(FORM_SPECIES).map(([form, names]) => [form, new Set(names.map((n) => normalizeName(n)))]));

/**
 * A form word after the species, cut short at the name bar's edge or misread at small sizes
 * (`ClamiraldeH`, `TyphlosioneHi`, `SylveroyCruF`): its letters, this many at least, found in
 * order in one form word only (by its English meaning), from the word's first or second letter.
 * The species before it must be read exactly, and four letters long at least.
 */
const FORM_CUT_MIN = 3;
const FORM_CUT_SPECIES = 4;

/** A lowercase l and an i are one letter to the recogniser at small sizes (`Typhlosionde Hil`), as to name likeness. */
const foldLI = (s: string) => s.replace(/l/g, 'i');

/**
 * `part`'s letters in order in `word`, the first at `word`'s first or second letter or just after
 * its particle (`de`, `di`: `Clamiral&Hil` lost the `de`), l and i alike.
 */
function cutShortOf(part: string, word: string): boolean {
  [part, word] = [foldLI(part), foldLI(word)];
  const particle = /^d[ei]?/.exec(word)?.[0].length ?? 0;
  const start = word.indexOf(part[0]!);
  if (start < 0 || start > Math.max(1, particle)) return false;
  let at = start + 1;
  for (const ch of part.slice(1)) {
    at = word.indexOf(ch, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/**
 * A whole form word misread (`Radjaux`, `Radieuoo` for `Radieux`): at most this many edits (letters
 * changed, lost or added), on a word this long at least, so that they are a third of it at most.
 */
const FORM_EDITS = 2;
const FORM_EDIT_LETTERS = 6;
const misreadOf = (part: string, word: string) =>
  word.length >= FORM_EDIT_LETTERS && Math.abs(part.length - word.length) <= FORM_EDITS && editDistance(foldLI(part), foldLI(word)) <= FORM_EDITS;

/**
 * A species name misread by one letter counts when the name is long enough for one letter to be
 * a small share of it (likeness 0.85: seven letters and more).
 */
const FUZZY_MIN = 0.85;
const FUZZY_LETTERS = 7;

/**
 * Folded as the catalogs' names are, and the ligatures written out: the lists spell `Nœunœuf`,
 * the recogniser reads `Noeunoeuf`. An ß as the recogniser reads it, a B (it has no ß: `GroBer Luftballon`,
 * `FurnifraB`), not as the catalogs fold it (ss, since migration 035: two letters from the read, which then named
 * nothing, h187).
 */
export const foldName = (name: string) => normalizeName(name.replace(/œ/g, 'oe').replace(/Œ/g, 'Oe').replace(/æ/g, 'ae').replace(/Æ/g, 'Ae').replace(/[ßẞ]/g, 'B'));

const kana = /[\u3040-\u30ff]/;

export interface SpeciesNames {
  /** The English name a localized name line stands for (`Moumouflon V` → `Dubwool V`), or null when it names no species or is English already. */
  english(line: string): { text: string; norm: string } | null;
  /** Whether a name is an English species name as it is (`Jirachi`). */
  isEnglish(name: string): boolean;
}

/** Builds the lookup from lists indexed alike (index = Pokédex number − 1); `english` is the catalogs' language. */
export function speciesNames(english: readonly string[], localized: readonly (readonly string[])[]): SpeciesNames {
  const englishNorms = new Set(english.map(normalizeName));
  const englishIndex = new Map(english.map((n, i) => [normalizeName(n), i]));
  const byNorm = new Map<string, number>();
  for (const list of localized) {
    list.forEach((name, i) => {
      const norm = foldName(name);
      // a name that is English too (Pikachu, Arbok) needs no reading; one shared by two species says nothing
      if (!norm || englishNorms.has(norm)) return;
      const had = byNorm.get(norm);
      byNorm.set(norm, had === undefined || had === i ? i : -1);
    });
  }
  // a kana's voiced mark the recogniser lost (ヒカチュウ for ピカチュウ): the name without its marks, where one species
  // has it so (カラカラ and ガラガラ, Cubone and Marowak, have one; the fold keeps the marks since migration 032, h158)
  const markless = (t: string) => t.normalize('NFD').replace(/[\u3099\u309a]/g, '').normalize('NFC');
  const byMarkless = new Map<string, number>();
  for (const [norm, i] of byNorm) {
    if (i < 0 || !kana.test(norm)) continue;
    const key = markless(norm);
    const had = byMarkless.get(key);
    byMarkless.set(key, had === undefined || had === i ? i : -1);
  }
  // one letter misread, lost or added
  const oneEdit = oneEditIndex(byNorm.keys());
  const exactly = (stem: string): number | null => {
    const i = byNorm.get(stem) ?? (kana.test(stem) ? byMarkless.get(markless(stem)) : undefined);
    return i !== undefined && i >= 0 ? i : null;
  };
  const nearly = (stem: string): number | null => {
    if (byNorm.has(stem) || stem.length < FUZZY_LETTERS || englishNorms.has(stem)) return null;
    const found = new Set<number>();
    for (const n of oneEdit(stem)) if (1 - 1 / Math.max(stem.length, n.length) >= FUZZY_MIN) found.add(byNorm.get(n)!);
    // a misreading as near to two species is neither
    return found.size === 1 && !found.has(-1) ? [...found][0]! : null;
  };
  /** The species under a form word, in any language or in English (`vulpixdealola`). */
  const exactlyInForm = (stem: string): number | null => exactly(stem) ?? englishIndex.get(stem) ?? null;
  return {
    isEnglish: (name) => englishNorms.has(normalizeName(name)),
    english(line) {
      const norm = foldName(line);
      if (!norm || englishNorms.has(norm)) return null;
      const bySuffix: [string, string | null][] = [
        [norm, null],
        ...SUFFIXES.filter((s) => norm.endsWith(s) && norm.length > s.length + 2).map((s): [string, string] => [norm.slice(0, -s.length), s]),
      ];
      // a logo misread after a name read exactly, whichever its language (`Lugiay` is Lugia V)
      for (const [tail, suffix] of LOGO_MISREAD) {
        if (!norm.endsWith(tail) || norm.length < tail.length + 3 || byNorm.has(norm)) continue;
        const i = exactlyInForm(norm.slice(0, -tail.length));
        if (i === null) continue;
        const text = `${english[i]!} ${SUFFIX_TEXT[suffix]!}`;
        return { text, norm: normalizeName(text) };
      }
      // [species, card suffix, form]
      const tries: [string, string | null, string | null][] = bySuffix.flatMap(([stem, suffix]) => [
        [stem, suffix, null] as [string, string | null, string | null],
        ...FORMS_AFTER.filter(([f]) => stem.endsWith(f) && stem.length > f.length + 2).map(([f, en]): [string, string | null, string] => [stem.slice(0, -f.length), suffix, en]),
        ...FORMS_BEFORE.filter(([f]) => stem.startsWith(f) && stem.length > f.length + 2).map(([f, en]): [string, string | null, string] => [stem.slice(f.length), suffix, en]),
      ]);
      // every exact reading before any near one: `moumouflonv` is Moumouflon V, not a misread Moumouflon
      for (const exact of [true, false]) {
        for (const [stem, suffix, form] of tries) {
          const i = exact ? (form ? exactlyInForm(stem) : exactly(stem)) : nearly(stem);
          if (i === null) continue;
          const text = [form, english[i]!, suffix ? SUFFIX_TEXT[suffix]! : null].filter(Boolean).join(' ');
          return { text, norm: normalizeName(text) };
        }
      }
      // a form word cut short after a species read exactly, the longest species first; then a whole form word misread
      for (const formOf of [cutShortOf, misreadOf]) {
        for (const [stem, suffix] of bySuffix) {
          for (let k = stem.length - FORM_CUT_MIN; k >= FORM_CUT_SPECIES; k--) {
            const i = exactlyInForm(stem.slice(0, k));
            if (i === null) continue;
            const tail = stem.slice(k);
            const forms = new Set(FORMS_AFTER.filter(([f, en]) => formOf(tail, f) && formSpecies.get(en)!.has(normalizeName(english[i]!))).map(([, en]) => en));
            if (forms.size !== 1) break;
            const text = [...forms, english[i]!, suffix ? SUFFIX_TEXT[suffix]! : null].filter(Boolean).join(' ');
            return { text, norm: normalizeName(text) };
          }
        }
      }
      return null;
    },
  };
}

let loaded: SpeciesNames | undefined;

/** The installed package's lists, read once. */
export function installedSpeciesNames(): SpeciesNames {
  if (loaded) return loaded;
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('pokemon/package.json')), 'data');
  const read = (lang: string) => JSON.parse(fs.readFileSync(path.join(dir, `${lang}.json`), 'utf8')) as string[];
  loaded = speciesNames(read('en'), LANGUAGES.map(read));
  return loaded;
}
