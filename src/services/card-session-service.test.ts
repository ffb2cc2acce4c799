import { describe, expect, it } from 'vitest';
import { cardKey, clientTime, derivePrice, gradeOf, intervalDays, normaliseTime, round2, sortedKeys } from './card-session-service.ts';

describe('normaliseTime', () => {
  it.each([
    ['2026-11-20T10:00:00Z', '2026-11-20T10:00:00.000000Z'],
    ['2026-11-20T10:00:00.123456+02:00', '2026-11-20T08:00:00.123456Z'],
    ['2026-11-20T10:00:00.123456789Z', '2026-11-20T10:00:00.123456Z'],
    ['2026-11-20T10:00:00-0500', '2026-11-20T15:00:00.000000Z'],
    ['2026-11-20T10:00-05', '2026-11-20T15:00:00.000000Z'],
    ['2026-11-20T10:00:00', '2026-11-20T10:00:00.000000Z'],
    ['2026-11-20 10:00:00', '2026-11-20T10:00:00.000000Z'],
    ['2026-11-20', '2026-11-20T00:00:00.000000Z'],
    ['2026-11-20T24:00:00Z', '2026-11-21T00:00:00.000000Z'],
    ['0050-03-01T00:00:00Z', '0050-03-01T00:00:00.000000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000000Z'],
    // what ISO 8601 and real clients write besides (h264: each was a 400 rejecting the whole batch)
    ['2026-11-20T10:00:00,5Z', '2026-11-20T10:00:00.500000Z'],
    ['20261120T100000Z', '2026-11-20T10:00:00.000000Z'],
    ['20261120T1000+0100', '2026-11-20T09:00:00.000000Z'],
    ['20261120', '2026-11-20T00:00:00.000000Z'],
    ['2026-11-20T10Z', '2026-11-20T10:00:00.000000Z'],
    ['2026-11-20T10:00:00.123456Z[UTC]', '2026-11-20T10:00:00.123456Z'],
    ['2026-11-20T10:00:00+01:00[Europe/Paris]', '2026-11-20T09:00:00.000000Z'],
    ['2026-11-20T10:00:00Z[UTC][u-ca=iso8601]', '2026-11-20T10:00:00.000000Z'],
    ['2026-11-20 10:00Z[UTC]', '2026-11-20T10:00:00.000000Z'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseTime(input)).toBe(expected);
  });

  it.each(['', 'yesterday', '2026-13-45T99:99:99Z', 'NaN', '2026-02-30', '1900-02-29', '2026-11-20T24:00:01Z', '2026-11-20T10:60:00Z', '2026-11-20T10:00:00+24:00', '0000-06-01T00:00:00Z', '0001-01-01T00:00:00+00:01', '9999-12-31T23:59:59-00:01', '2026-11-20T10:00:00[Europe/Paris]', '2026-11-20[Europe/Paris]', '20261120T10:00Z', '2026-1120', '20261320'])('rejects %j', (input) => {
    expect(normaliseTime(input)).toBeUndefined();
  });
});

describe('clientTime', () => {
  it('reads both stored forms as microseconds', () => {
    expect(clientTime('2026-11-20T10:00:00.123Z')).toBe('2026-11-20T10:00:00.123000Z');
    expect(clientTime('2026-11-20T10:00:00.123456Z')).toBe('2026-11-20T10:00:00.123456Z');
    expect(clientTime('2026-11-20T10:00:00Z')).toBe('2026-11-20T10:00:00.000000Z');
    expect(clientTime(null)).toBeNull();
  });
});

describe('gradeOf', () => {
  it('reads grades.final as a number from 0 to 10', () => {
    expect(gradeOf({ grades: { final: 9.5 } })).toBe(9.5);
    expect(gradeOf({ grades: { final: '8' } })).toBe(8);
    expect(gradeOf({ grades: { final: 0 } })).toBe(0);
    expect(gradeOf({ grades: { final: '10.0' } })).toBe(10);
  });
  it('is null when there is no final grade from 0 to 10', () => {
    for (const g of [null, undefined, {}, { grades: null }, { grades: 'A' }, { grades: { final: 'mint' } }, { grades: { final: '' } }, { grades: { final: null } }, { grades: { final: '0x1A' } }, { grades: { final: 1e308 } }, { grades: { final: '1e1' } }, { grades: { final: -0.5 } }]) {
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

describe('intervalDays', () => {
  it.each([
    ['7d', 7],
    ['30 days', 30],
    ['last_90_days', 90],
    ['2w', 14],
    ['3 months', 90],
    ['1y', 365],
    ['P30D', 30],
    ['14', 14],
    ['all', Infinity],
    [null, Infinity],
    // hours, minutes, ISO 8601's time part and words (h198: "24h" ranked last, "PT30M" was 30 months)
    ['24h', 1],
    ['24 hours', 1],
    ['PT24H', 1],
    ['PT30M', 30 / 1440],
    ['30min', 30 * (1 / 1440)],
    ['P1Y2M', 425],
    ['P1W', 7],
    ['daily', 1],
    ['weekly', 7],
    ['P', Infinity],
  ])('%j → %d', (interval, days) => {
    expect(intervalDays(interval)).toBe(days);
  });
});

describe('derivePrice', () => {
  const entry = (stats_type: string, interval: string, value: Record<string, unknown>) => ({ stats_type, interval, value });
  it('prefers ungraded, the shortest interval, the median', () => {
    const stats = [entry('overall', '7d', { median: 1 }), entry('ungraded', '90d', { median: 2 }), entry('ungraded', '30d', { median: 3.456, mean: 9 })];
    expect(derivePrice(stats, 'tcg')).toEqual({ price: 3.46, basis: { stats_type: 'ungraded', interval: '30d', statistic: 'median' } });
    expect(derivePrice([...stats, entry('graded', '1y', { latest: 70 })], 'slab')).toEqual({ price: 70, basis: { stats_type: 'graded', interval: '1y', statistic: 'latest' } });
  });
  it('the first of equal entries wins; nothing usable is no price', () => {
    expect(derivePrice([entry('ungraded', '7d', { median: 1 }), entry('Ungraded', '7d', { median: 2 })], null)?.price).toBe(1);
    expect(derivePrice([entry('ungraded', '7d', { median: '0x10' }), entry('sealed', '7d', { median: 5 }), { stats_type: 'ungraded', value: 5 }], null)).toBeNull();
    expect(derivePrice(null, null)).toBeNull();
  });
});

describe('sortedKeys', () => {
  it('sorts keys at every level, through arrays, and returns a value already sorted as it is', () => {
    const messy = { zeta: 1, grades: { final: 8, corners: 9 }, list: [{ b: 1, a: 2 }, 3], endpoint: 'grade' };
    expect(JSON.stringify(sortedKeys(messy))).toBe('{"endpoint":"grade","grades":{"corners":9,"final":8},"list":[{"a":2,"b":1},3],"zeta":1}');
    const sorted = { a: [{ x: 1, y: 2 }], b: { c: null } };
    expect(sortedKeys(sorted)).toBe(sorted);
    expect(sortedKeys(null)).toBeNull();
  });
});

describe('round2', () => {
  it('rounds cents half away from zero as the decimal reads, whatever binary floating point makes of n × 100', () => {
    expect([1.005, 0.285, 2.675, 1.115, -1.005, 0.004, 0.005, 123456789.125].map(round2)).toEqual([1.01, 0.29, 2.68, 1.12, -1.01, 0, 0.01, 123456789.13]);
    expect([1e-7, 1.23e21, 0].map(round2)).toEqual([0, 1.23e21, 0]);
  });
});
