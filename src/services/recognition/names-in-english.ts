import { normalizeName } from '../../catalog/card-keys.ts';
import { installedCardNames } from '../../catalog/pokemon-card-names.ts';
import { installedSpeciesNames, type SpeciesNames } from '../../catalog/pokemon-species-names.ts';
import type { CardTextClues } from './card-text.ts';

/**
 * The name lines that name a Pokémon species, or a trainer or energy card, in another language,
 * with the English name the catalogs print (pokemon-species-names.ts, pokemon-card-names.ts).
 */
export function withNamesInEnglish<C extends CardTextClues>(clues: C): C {
  const species = installedSpeciesNames();
  const cards = installedCardNames();
  return {
    ...clues,
    names: clues.names.map((n) => {
      const english = species.english(n.text) ?? cards.english(n.text);
      if (english) return { ...n, english };
      const spotted = n.spotted ? spottedSpecies(species, n.spotted) : null;
      return spotted ? { ...n, english: spotted, englishSpotted: true as const } : n;
    }),
  };
}

/**
 * The English name a misread name line stands for by the species name spotted in it: the line with
 * the name put in (`JirachiRadieux`, Radiant Jirachi), else the name alone (a suffix misread after it
 * is lost: `Sarmuraic` is Golisopod, whose printings its HP then tells apart); an English name as it is.
 */
export function spottedSpecies(species: SpeciesNames, spotted: { text: string; word: string; outside: number }): { text: string; norm: string } | null {
  const put = species.english(spotted.text);
  if (put || spotted.outside > BARE_OUTSIDE) return put;
  return species.english(spotted.word) ?? (species.isEnglish(spotted.word) ? { text: spotted.word, norm: normalizeName(spotted.word) } : null);
}

/**
 * Letters the reading may have outside a name found for the bare name to stand for the line: a suffix
 * misread (`Sarmuraic`), not another card's name around a species' (`Steel LeafChampion`, a Magic card,
 * holds `Seel`: the generated held-out photo was named so in the bench's first run).
 */
const BARE_OUTSIDE = 2;

