import { describe, expect, it } from 'vitest';
import { pokemonResistance } from './pokemon-resistance.ts';

describe('the resistance a Pokémon printing shows', () => {
  it('is -30 before Diamond & Pearl and since Sword & Shield, -20 between, for Pokémon only', () => {
    expect(['Base', 'EX', 'Diamond & Pearl', 'HeartGold & SoulSilver', 'XY', 'Sun & Moon', 'Sword & Shield', 'Scarlet & Violet'].map((s) => pokemonResistance(s, 'Pokémon'))).toEqual([30, 30, 20, 20, 20, 20, 30, 30]);
    // a series of mixed eras, none, or a trainer: nothing
    expect([pokemonResistance('POP', 'Pokémon'), pokemonResistance('Other', 'Pokémon'), pokemonResistance(null, 'Pokémon'), pokemonResistance('XY', 'Trainer')]).toEqual([null, null, null, null]);
  });
});
