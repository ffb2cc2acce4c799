/** Series whose Pokémon print −30: the Wizards and EX eras (the Black Star Promos of 2003–06 too), and Sword & Shield on. */
const MINUS_30 = new Set(['Base', 'Gym', 'Neo', 'E-Card', 'EX', 'NP', 'Sword & Shield', 'Scarlet & Violet', 'Mega Evolution']);
/** Series whose Pokémon print −20: Diamond & Pearl (2007) through Sun & Moon. */
const MINUS_20 = new Set(['Diamond & Pearl', 'Platinum', 'HeartGold & SoulSilver', 'Black & White', 'XY', 'Sun & Moon']);
/** Sets whose cards are reprints of several eras, each with its own resistance (Celebrations' Classic Collection). */
const MIXED_SETS = new Set(['cel25c']);

/**
 * The resistance a Pokémon printing shows, by its series: the game printed −30 from the Base Set
 * through the EX series, −20 from Diamond & Pearl through Sun & Moon, and −30 again since Sword &
 * Shield (2020). A photo too small for the collector line still shows it beside the weakness
 * (docs/recognition.md "Resistance"): it tells a name's Sword & Shield printing from its XY one,
 * which share a yellow border (asked for Pokémon cards only: trainers and energies print none). Null
 * for series that are not one era (`POP`, `Other`) and for sets of reprints.
 */
export function pokemonResistance(series: string | null, setCode: string | null = null): 20 | 30 | null {
  if (series === null || (setCode !== null && MIXED_SETS.has(setCode))) return null;
  return MINUS_30.has(series) ? 30 : MINUS_20.has(series) ? 20 : null;
}
