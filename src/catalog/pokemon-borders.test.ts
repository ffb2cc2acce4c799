import { describe, expect, it } from 'vitest';
import { pokemonBorder } from './pokemon-borders.ts';

const card = (rarity: string | null, number = '12', subtypes: string[] = []) => ({ rarity, number, subtypes });

describe('Pokémon border colours', () => {
  it('are silver through Scarlet & Violet, whatever the rarity', () => {
    expect(pokemonBorder(card('Common'), 'Scarlet & Violet')).toBe('neutral');
    expect(pokemonBorder(card('Promo'), 'Scarlet & Violet')).toBe('neutral');
  });

  it('are yellow on regular cards before, silver on V, GX and full-art printings', () => {
    expect(pokemonBorder(card('Uncommon'), 'XY')).toBe('yellow');
    expect(pokemonBorder(card('Rare Holo'), 'Sword & Shield')).toBe('yellow');
    expect(pokemonBorder(card('Trainer Gallery Rare Holo', 'TG08', ['Stage 1']), 'Sword & Shield')).toBe('yellow');
    expect(pokemonBorder(card('Rare Holo V', '97', ['Basic', 'V']), 'Sword & Shield')).toBe('neutral');
    // a promo is yellow unless it is a V or GX card
    expect(pokemonBorder(card('Promo', 'SWSH187', ['Basic']), 'Sword & Shield')).toBe('yellow');
    expect(pokemonBorder(card('Promo', 'SWSH131', ['Basic', 'V']), 'Sword & Shield')).toBe('neutral');
    expect(pokemonBorder(card('Rare Ultra', '154', ['Basic', 'V']), 'Sword & Shield')).toBe('neutral');
  });

  it('are unknown where the rule is not sure', () => {
    expect(pokemonBorder(card('Rare Secret'), 'Sword & Shield')).toBeNull();
    // gold whatever the series or subtypes
    expect(pokemonBorder(card('Hyper Rare', '273', ['Stage 2', 'ex']), 'Scarlet & Violet')).toBeNull();
    expect(pokemonBorder(card('Rare Secret', '196', ['Basic', 'V']), 'Sword & Shield')).toBeNull();
    expect(pokemonBorder(card('Rare Rainbow', '193', ['Supporter']), 'Sword & Shield')).toBeNull();
    expect(pokemonBorder(card('Rare Ultra', 'TG25', ['Supporter']), 'Sword & Shield')).toBeNull();
    expect(pokemonBorder(card(null), 'Other')).toBeNull();
  });
});
