/**
 * The resistance a Pokémon printing shows, by its series: the game printed −30 from the Base Set
 * through the EX series, −20 from Diamond & Pearl (2007) through Sun & Moon, and −30 again since
 * Sword & Shield (2020). A photo too small for the collector line still shows it beside the
 * weakness (docs/recognition.md "Resistance"): it tells a name's Sword & Shield printing from its
 * XY one, which share a yellow border. Null for trainers and energies, and for series that mix or
 * are not one era (`POP`, `Other`, `NP`).
 */
const MINUS_30 = new Set(['Base', 'Gym', 'Neo', 'E-Card', 'EX', 'Sword & Shield', 'Scarlet & Violet', 'Mega Evolution']);
const MINUS_20 = new Set(['Diamond & Pearl', 'Platinum', 'HeartGold & SoulSilver', 'Black & White', 'XY', 'Sun & Moon']);

export function pokemonResistance(series: string | null, supertype: unknown): 20 | 30 | null {
  if (series === null || (supertype !== 'Pokémon' && supertype !== 'Pokemon')) return null;
  return MINUS_30.has(series) ? 30 : MINUS_20.has(series) ? 20 : null;
}
