import { describe, expect, it } from 'vitest';
import { pokemonResistance } from './pokemon-resistance.ts';

describe('the resistance a Pokémon printing shows', () => {
  it('is -30 before Diamond & Pearl and since Sword & Shield, -20 between, for Pokémon only', () => {
    const thirty = ['Base', 'Gym', 'Neo', 'E-Card', 'EX', 'NP', 'Sword & Shield', 'Scarlet & Violet', 'Mega Evolution'];
    const twenty = ['Diamond & Pearl', 'Platinum', 'HeartGold & SoulSilver', 'Black & White', 'XY', 'Sun & Moon'];
    expect(thirty.map((s) => pokemonResistance(s, 'Pokémon'))).toEqual(thirty.map(() => 30));
    expect(twenty.map((s) => pokemonResistance(s, 'Pokémon'))).toEqual(twenty.map(() => 20));
    // a series of mixed eras, none, a trainer, or a set of reprints of several eras: nothing
    expect([pokemonResistance('POP', 'Pokémon'), pokemonResistance('Other', 'Pokémon'), pokemonResistance(null, 'Pokémon'), pokemonResistance('XY', 'Trainer')]).toEqual([null, null, null, null]);
    expect([pokemonResistance('Sword & Shield', 'Pokémon', 'cel25c'), pokemonResistance('Sword & Shield', 'Pokémon', 'cel25')]).toEqual([null, 30]);
  });
});
