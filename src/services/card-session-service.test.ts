import { describe, expect, it } from 'vitest';
import { cardKey, gradeOf, normaliseTime } from './card-session-service.ts';

describe('normaliseTime', () => {
  it.each([
    ['2026-11-20T10:00:00Z', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20T10:00:00.123456+02:00', '2026-11-20T08:00:00.123Z'],
    ['2026-11-20T10:00:00-0500', '2026-11-20T15:00:00.000Z'],
    ['2026-11-20T10:00:00', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20 10:00:00', '2026-11-20T10:00:00.000Z'],
    ['2026-11-20', '2026-11-20T00:00:00.000Z'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseTime(input)).toBe(expected);
  });

  it.each(['', 'yesterday', '2026-13-45T99:99:99Z', 'NaN'])('rejects %j', (input) => {
    expect(normaliseTime(input)).toBeUndefined();
  });
});

describe('gradeOf', () => {
  it('reads grades.final as a number', () => {
    expect(gradeOf({ grades: { final: 9.5 } })).toBe(9.5);
    expect(gradeOf({ grades: { final: '8' } })).toBe(8);
    expect(gradeOf({ grades: { final: 0 } })).toBe(0);
  });
  it('is null when there is no numeric final grade', () => {
    for (const g of [null, undefined, {}, { grades: null }, { grades: 'A' }, { grades: { final: 'mint' } }, { grades: { final: '' } }, { grades: { final: null } }]) {
      expect(gradeOf(g as Record<string, unknown> | null)).toBeNull();
    }
  });
});

describe('cardKey', () => {
  it('ignores case and spacing, prefers set code over set name, name over full name', () => {
    const a = cardKey({ id_type: 'tcg', name: 'Pikachu', set_code: 'MEW', set_name: 'SV 151', card_number: '025' });
    expect(cardKey({ id_type: 'TCG', name: '  pikachu ', set_code: 'mew', set_name: 'other', card_number: '025' })).toBe(a);
    expect(cardKey({ id_type: 'tcg', name: 'Pikachu', set_code: 'MEW', card_number: '026' })).not.toBe(a);
    expect(cardKey({ id_type: 'tcg', name: 'Pikachu', set_name: 'SV 151', card_number: '025' })).not.toBe(a);
    expect(cardKey({ full_name: 'Pikachu 025/165' })).toBe('|pikachu 025/165||');
  });
  it('is null for unidentified rows', () => {
    expect(cardKey({ set_code: 'MEW', card_number: '1' })).toBeNull();
    expect(cardKey({ name: '   ', full_name: null })).toBeNull();
  });
});
