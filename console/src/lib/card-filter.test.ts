import { describe, expect, it } from 'vitest';
import type { Identification } from '../types.ts';
import { filterRows } from './card-filter.ts';

const rows: Identification[] = [
  { id: '1', event_id: 'a', name: 'Flabébé', set_name: 'Forbidden Light', note: 'Jérôme' },
  { id: '2', event_id: 'b', name: 'Nœunœuf', sold: true },
  { id: '3', event_id: 'c', name: 'Pikachu', corrected: true, confidence: 'low' },
  { id: '4', event_id: 'd', name: 'Gengar', confidence: 'low' },
  { id: '5', event_id: 'e', name: 'Mewtwo', note: 'not sold - holding for Dave; checked by Mike' },
  { id: '6', event_id: 'f', name: 'Boss’s Orders', set_name: 'Straße Łódź' },
];
const ids = (typed: string) => filterRows(rows, typed).map((r) => r.id);

describe('the session grid filter', () => {
  it('ignores case and accents, matches notes, sold, edited and check, and every word typed', () => {
    expect(ids('flabebe')).toEqual(['1']);
    expect(ids('jerome')).toEqual(['1']);
    expect(ids('noeunoeuf')).toEqual(['2']);
    expect(ids('sold')).toEqual(['2']);
    expect(ids('edited')).toEqual(['3']);
    expect(ids('check')).toEqual(['4']);
    expect(ids('forbidden flab')).toEqual(['1']);
    expect(ids('  ')).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it("finds a card's state by sold, edited and check, not a note's words (h157), and folds as session search does (h156)", () => {
    expect(ids('sold mewtwo')).toEqual([]);
    expect(ids('dave')).toEqual(['5']);
    expect(ids("boss's")).toEqual(['6']);
    expect(ids('strasse lodz')).toEqual(['6']);
  });
});
