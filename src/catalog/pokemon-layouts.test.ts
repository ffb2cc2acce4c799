import { describe, expect, it } from 'vitest';
import { pokemonLayout } from './pokemon-layouts.ts';

describe('Pokémon text-box layouts', () => {
  it('are framed on regular rarities and full on illustration rares and full arts', () => {
    expect(pokemonLayout({ rarity: 'Common', number: '153' })).toBe('framed');
    expect(pokemonLayout({ rarity: 'Rare Holo', number: '50' })).toBe('framed');
    expect(pokemonLayout({ rarity: 'Illustration Rare', number: '214' })).toBe('full');
    expect(pokemonLayout({ rarity: 'Special Illustration Rare', number: '236' })).toBe('full');
    expect(pokemonLayout({ rarity: 'Rare Ultra', number: '154' })).toBe('full');
  });

  it('say nothing where the rarity does not tell: ex and radiant cards, V designs, promos, gallery cards', () => {
    expect(pokemonLayout({ rarity: 'Double Rare', number: '130' })).toBeNull();
    expect(pokemonLayout({ rarity: 'Radiant Rare', number: '59' })).toBeNull();
    expect(pokemonLayout({ rarity: 'Rare Holo V', number: '97' })).toBeNull();
    expect(pokemonLayout({ rarity: 'Promo', number: 'SWSH187' })).toBeNull();
    expect(pokemonLayout({ rarity: 'Rare Ultra', number: 'TG25' })).toBeNull();
    expect(pokemonLayout({ rarity: null, number: '1' })).toBeNull();
  });
});
