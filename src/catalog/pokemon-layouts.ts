/**
 * Whether a Pokémon printing prints its attacks on a plain text box (`framed`) or over its artwork
 * (`full`), as far as its rarity tells (docs/recognition.md "Full art"); null where the rarity
 * does not say (promos, gallery cards, V and VMAX designs, Scarlet & Violet's ex and the radiant rares, whose artwork runs behind the text).
 */
export type CardLayout = 'framed' | 'full';

/** The illustration rares and full arts, Black & White to Mega Evolution. */
const FULL_RARITIES = new Set(['Illustration Rare', 'Special Illustration Rare', 'Ultra Rare', 'Hyper Rare', 'Mega Hyper Rare', 'Shiny Ultra Rare', 'Rare Ultra', 'Rare Rainbow']);
/** The regular rarities, each card's artwork in a window above a plain text box. */
const FRAMED_RARITIES = new Set(['Common', 'Uncommon', 'Rare', 'Rare Holo', 'Rare Holo EX', 'Rare Holo LV.X', 'Rare Prime', 'ACE SPEC Rare', 'Rare ACE']);

export function pokemonLayout(card: { rarity: string | null; number: string | null }): CardLayout | null {
  if (card.rarity === null) return null;
  if (card.number !== null && /^(TG|GG)/i.test(card.number)) return null;
  if (FULL_RARITIES.has(card.rarity)) return 'full';
  return FRAMED_RARITIES.has(card.rarity) ? 'framed' : null;
}
