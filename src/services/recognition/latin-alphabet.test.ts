import { describe, expect, it } from 'vitest';
import { latinAlphabet } from './recognition-families.ts';

describe('the Alphabet tag', () => {
  it('is latin for a card printed in Latin letters, a smudge read as a Han character included', () => {
    expect(latinAlphabet('Pikachu HP 60 Basic Pokémon Weakness Resistance 025/165', null)).toBe(true);
    expect(latinAlphabet('Dracaufeu PV 180 Faiblesse 中 Retraite', 'fr')).toBe(true);
  });

  it('is not latin for a Japanese card, whose HP, Lv. and set code are Latin (a slab of one said latin)', () => {
    expect(latinAlphabet('ブラッキー HP 70 悪 月の光 相手 自分 Lv.30 neo2', null)).toBe(false);
    expect(latinAlphabet('HP 70 Lv.30 neo2 Umbreon', 'ja')).toBe(false);
    expect(latinAlphabet('Пикачу ОЗ 60', null)).toBe(false);
    expect(latinAlphabet('', null)).toBe(false);
  });
});
