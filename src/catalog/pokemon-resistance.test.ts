import { describe, expect, it } from 'vitest';
import { pokemonResistance } from './pokemon-resistance.ts';

describe('the resistance a Pokémon printing shows', () => {
  it('is -30 before Diamond & Pearl and since Sword & Shield, -20 between', () => {
    const thirty = ['Base', 'Gym', 'Neo', 'E-Card', 'EX', 'NP', 'Sword & Shield', 'Scarlet & Violet', 'Mega Evolution'];
    const twenty = ['Diamond & Pearl', 'Platinum', 'HeartGold & SoulSilver', 'Black & White', 'XY', 'Sun & Moon'];
    expect(thirty.map((s) => pokemonResistance(s))).toEqual(thirty.map(() => 30));
    expect(twenty.map((s) => pokemonResistance(s))).toEqual(twenty.map(() => 20));
    // a series of mixed eras, none, or a set of reprints of several eras: nothing
    expect([pokemonResistance('POP'), pokemonResistance('Other'), pokemonResistance(null)]).toEqual([null, null, null]);
    expect([pokemonResistance('Sword & Shield', 'cel25c'), pokemonResistance('Sword & Shield', 'cel25')]).toEqual([null, 30]);
  });
});
