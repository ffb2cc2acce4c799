import { describe, expect, it } from 'vitest';
import { normalizeName, numberKey } from './card-keys.ts';

describe('numberKey', () => {
  it('drops leading zeros from the digits and keeps prefixes and suffixes', () => {
    expect(numberKey('097')).toBe('97');
    expect(numberKey('TG05')).toBe('TG5');
    expect(numberKey('swsh 066')).toBe('SWSH66');
    expect(numberKey('1★')).toBe('1★');
    expect(numberKey('LOB-EN001')).toBe('LOB-EN001');
    expect(numberKey('0')).toBe('0');
    expect(numberKey('SV107a')).toBe('SV107A');
  });
});

describe('normalizeName', () => {
  it('folds accents, case, punctuation and spaces alike for printed and catalog names', () => {
    expect(normalizeName('Émberon')).toBe('emberon');
    expect(normalizeName('Flabébé')).toBe(normalizeName('FLABEBE'));
    expect(normalizeName('Frost Test // Flame Test')).toBe('frosttestflametest');
    expect(normalizeName("Farfetch'd")).toBe('farfetchd');
  });

  it('keeps ♀ and ♂ apart, as the two Nidoran are different cards', () => {
    expect(normalizeName('Nidoran ♀')).toBe('nidoranf');
    expect(normalizeName('Nidoran♂')).toBe('nidoranm');
  });
});
