import { describe, expect, it } from 'vitest';
import { confidenceOf, eventIdOf, hashBytes, identificationFromObject, pickAlternative } from './recognition-row.ts';
import type { MatchObject } from '../types.ts';

const object = (best: Record<string, unknown> | null, alternatives: Record<string, unknown>[] = []): MatchObject => ({
  name: 'Card',
  id: 1,
  bound_box: [0, 0, 10, 10],
  _identification: { best_match: best, alternatives, distances: best ? [0.04, ...alternatives.map(() => 0.5)] : alternatives.map(() => 0.5) },
});

describe('identificationFromObject', () => {
  it('maps a trading-card best match to a session row', () => {
    const alts = Array.from({ length: 12 }, (_, i) => ({ name: `alt ${i}` }));
    const row = identificationFromObject(object({ name: 'Pikachu', full_name: 'Pikachu 25/165 151', set: '151', set_code: 'MEW', card_number: '25', year: 2023, links: { tcgplayer: 'https://example.test/p' }, price_stats: [{ stats_type: 'overall', interval: '30d', value: { median: 2 } }] }, alts), 'e1', '2026-11-24T20:00:00Z');
    expect(row).toMatchObject({ event_id: 'e1', id_type: 'tcg', name: 'Pikachu', set_name: '151', set_code: 'MEW', card_number: '25', year: '2023', distance: 0.04, confidence: 'high', links: { tcgplayer: 'https://example.test/p' } });
    expect((row!.alternatives as unknown[]).length).toBe(10);
    expect((row!.price_stats as unknown[]).length).toBe(1);
    expect(row).not.toHaveProperty('series');
  });

  it("maps a sport card's and a comic's best match under their own field names, with their id_type", () => {
    const sport = identificationFromObject(object({ name: 'Marcus Stroman', full_name: '2022 Topps Update Series #50 Marcus Stroman', set_name: '2022 Topps Update Series', card_number: '50', year: '2022', subcategory: 'Baseball' }), 'e', 's', 'sport');
    expect(sport).toMatchObject({ id_type: 'sport', set_name: '2022 Topps Update Series', card_number: '50', year: '2022', subcategory: 'Baseball' });
    const comic = identificationFromObject(object({ name: 'Amazing Spider-Man', title: 'Amazing Spider-Man (1963) #300', number: '300', publisher: 'Marvel', date: '1988' }), 'e', 's', 'comics');
    expect(comic).toMatchObject({ id_type: 'comics', name: 'Amazing Spider-Man', full_name: 'Amazing Spider-Man (1963) #300', set_name: 'Marvel', card_number: '300', year: '1988' });
  });

  it('cuts fields to the spec limits and skips unidentified cards', () => {
    const row = identificationFromObject(object({ name: 'x'.repeat(300), set_code: 'y'.repeat(60) }), 'e', 's');
    expect((row!.name as string).length).toBe(255);
    expect((row!.set_code as string).length).toBe(50);
    expect(identificationFromObject(object(null, [{ name: 'a' }]), 'e', 's')).toBeUndefined();
  });

  it('has stable keys and confidence bands', () => {
    expect(hashBytes(new Uint8Array([1, 2, 3]))).toBe(hashBytes(new Uint8Array([1, 2, 3])));
    expect(hashBytes(new Uint8Array([1, 2, 3]))).not.toBe(hashBytes(new Uint8Array([1, 2, 4])));
    expect(hashBytes(new Uint8Array([]))).toMatch(/^[0-9a-f]{16}$/);
    expect(eventIdOf('abc', { id: 2 })).toBe('console:abc:2');
    expect([confidenceOf(0.01), confidenceOf(0.1), confidenceOf(0.5), confidenceOf(undefined)]).toEqual(['high', 'medium', 'low', undefined]);
  });
});

describe('pickAlternative', () => {
  it('makes the alternative a person picked the best match of a card not identified, with its own distance; an identified card is left as it is', () => {
    const object: MatchObject = { name: 'Card', id: 1, bound_box: [0, 0, 10, 14], _identification: { best_match: null, alternatives: [{ name: 'Persian' }, { name: 'Meowth' }], distances: [0.31, 0.4] } };
    const picked = pickAlternative(object, 1);
    expect(picked._identification).toEqual({ best_match: { name: 'Meowth' }, alternatives: [{ name: 'Persian' }], distances: [0.4, 0.31] });
    const row = identificationFromObject(picked, 'e1', '2026-12-01T00:00:00Z')!;
    expect(row).toMatchObject({ name: 'Meowth', distance: 0.4, confidence: confidenceOf(0.4) });
    expect(pickAlternative(picked, 0)).toBe(picked);
  });
});
