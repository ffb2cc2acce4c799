/**
 * The border colour a Pokémon printing has, as far as its series, rarity and subtypes tell
 * (docs/recognition.md "Border colour"): what a photo too small to read the collector number on
 * still shows. Checked against the 103 labelled train-split photos (every card whose rule gives a
 * colour and whose border was measured surely agreed); where the rule is not sure (gold secret
 * rares and hyper rares, rainbow cards, the older shiny vaults, Trainer Gallery V cards), null.
 */
export type BorderColour = 'yellow' | 'neutral';

/** Series printed with silver borders throughout (Scarlet & Violet from 2023, and its successor). */
const SILVER_SERIES = new Set(['Scarlet & Violet', 'Mega Evolution']);
/**
 * Gold (the secret rares, Scarlet & Violet's hyper rares) and rainbow borders: between yellow and
 * silver, whatever the card's series or subtypes.
 */
const UNSURE_RARITIES = new Set(['Rare Secret', 'Rare Rainbow', 'Hyper Rare', 'Mega Hyper Rare', 'Rare Shiny GX', 'Classic Collection']);
/** Subtypes whose cards carry a silver or dark border before Scarlet & Violet (photos: 14 V and V promos, 2 GX promos, 1 VMAX). */
const SILVER_SUBTYPES = new Set(['V', 'VMAX', 'VSTAR', 'V-UNION', 'GX', 'TAG TEAM']);
/** Full-art rarities before Scarlet & Violet: silver borders (3 photos). */
const SILVER_RARITIES = new Set(['Rare Ultra', 'Rare Holo V', 'Rare Holo VMAX', 'Rare Holo VSTAR', 'Rare Holo GX']);
/** The regular rarities, yellow-bordered from Base Set to Sword & Shield (84 photos). */
const YELLOW_RARITIES = new Set([
  'Common',
  'Uncommon',
  'Rare',
  'Rare Holo',
  'Promo',
  'Trainer Gallery Rare Holo',
  'Radiant Rare',
  'Rare Holo LV.X',
  'Rare Prime',
  'Rare Holo Star',
  'Rare Shining',
  'Amazing Rare',
  'Rare BREAK',
  'Rare Prism Star',
  'LEGEND',
  'Rare ACE',
]);

export function pokemonBorder(card: { rarity: string | null; number: string | null; subtypes: readonly string[] }, series: string | null): BorderColour | null {
  if (card.rarity !== null && UNSURE_RARITIES.has(card.rarity)) return null;
  if (series !== null && SILVER_SERIES.has(series)) return 'neutral';
  const gallery = card.number !== null && /^(TG|GG)/i.test(card.number);
  if (card.subtypes.some((s) => SILVER_SUBTYPES.has(s)) || (card.rarity !== null && SILVER_RARITIES.has(card.rarity))) return gallery ? null : 'neutral';
  return card.rarity !== null && YELLOW_RARITIES.has(card.rarity) ? 'yellow' : null;
}
