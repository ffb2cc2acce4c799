/**
 * Whether a printing is made in foil only or without foil only, as its catalog row says: the `Foil/Holo` tag of a
 * recognised card (docs/api-decisions.md, `_tags`). No model here sees a foil in a photo, so where a printing is made
 * both ways (a Pokémon common and its reverse holo, a Magic card sold foil and not) nothing is said.
 */
export type Finish = 'Foil' | 'Non-Foil';

/** A rarity as compared: lower case, underscores as spaces (`MEGA_ATTACK_RARE`), runs of spaces as one. */
function rarityKey(rarity: string): string {
  return rarity.trim().replace(/_/g, ' ').replace(/\s+/g, ' ').toLowerCase();
}

// Pokémon rarities whose every copy is holo or otherwise foil (the catalog's own names: Pokémon TCG data project;
// each of the 38 rarities of the shared file decided in docs/recognition.md, "`Foil/Holo` from the catalog"). Not here:
// Common, Uncommon, Rare and Promo (made plain and foil), and the Black & White era's `Rare ACE` (its ACE SPECs are
// reported printed plain with reverse holos beside, as that era's rares; not confirmed foil-only, so not said)
const POKEMON_FOIL = new Set([
  'Rare Holo', 'Rare Holo EX', 'Rare Holo GX', 'Rare Holo V', 'Rare Holo VMAX', 'Rare Holo VSTAR', 'Rare Holo LV.X', 'Rare Holo Star',
  'Trainer Gallery Rare Holo', 'Rare Ultra', 'Ultra Rare', 'Rare Secret', 'Rare Rainbow', 'Illustration Rare', 'Special Illustration Rare',
  'Hyper Rare', 'Mega Hyper Rare', 'Double Rare', 'Rare Shiny', 'Shiny Rare', 'Rare Shiny GX', 'Shiny Ultra Rare', 'Rare Shining', 'Radiant Rare',
  'Amazing Rare', 'Rare Prism Star', 'Rare BREAK', 'Rare Prime', 'LEGEND', 'ACE SPEC Rare',
  // Celebrations' reprints (cel25c), all holo; Black Bolt / White Flare's top rarity; Ascended Heroes' Mega Attack Rares,
  // which the data spells MEGA_ATTACK_RARE (compared with its underscores as spaces)
  'Classic Collection', 'Black White Rare', 'Mega Attack Rare',
].map((r) => rarityKey(r)));

// Yu-Gi-Oh! rarities printed in foil (a Rare's name alone is foil-stamped: said neither way)
const YUGIOH_FOIL = /\b(super|ultra|secret|ultimate|ghost|starlight|collector's|gold|platinum|starfoil|shatterfoil|mosaic|parallel|prismatic|grand master)\b/i;
const YUGIOH_PLAIN = new Set(['common', 'short print', 'super short print']);

// Magic finishes (MTGJSON `finishes`, Scryfall `finishes`): etched is a foil; `signed` says who signed, not the finish
const MTG_FOIL = new Set(['foil', 'etched']);

export function printingFinish(kind: string, card: { rarity: string | null; fields: Record<string, unknown> }): Finish | null {
  if (kind === 'mtg') {
    const finishes = Array.isArray(card.fields.finishes) ? card.fields.finishes.filter((f): f is string => typeof f === 'string' && f !== 'signed') : [];
    if (!finishes.length) return null;
    if (finishes.every((f) => MTG_FOIL.has(f))) return 'Foil';
    if (finishes.every((f) => f === 'nonfoil')) return 'Non-Foil';
    return null;
  }
  const rarity = card.rarity?.trim().toLowerCase();
  if (!rarity) return null;
  if (kind === 'pokemon') return POKEMON_FOIL.has(rarityKey(rarity)) ? 'Foil' : null;
  if (kind === 'yugioh') return YUGIOH_PLAIN.has(rarity) ? 'Non-Foil' : YUGIOH_FOIL.test(rarity) ? 'Foil' : null;
  return null;
}

/**
 * The finish the printings a photo cannot tell apart all share (a Yu-Gi-Oh! code printed as Common and as Starfoil Rare
 * is one catalog row each, tied; a name read without its number ties its printings), else null: which of the tied rows
 * is the best match says nothing of the finish of the card photographed.
 */
export function sharedFinish(kind: string, cards: readonly { rarity: string | null; fields: Record<string, unknown> }[]): Finish | null {
  const finishes = new Set(cards.map((c) => printingFinish(kind, c)));
  return finishes.size === 1 ? [...finishes][0]! : null;
}
