import { describe, expect, it } from 'vitest';
import type { Identification } from '../types.ts';
import { filterRows } from './card-filter.ts';

const rows: Identification[] = [
  { id: '1', event_id: 'a', name: 'Flabébé', set_name: 'Forbidden Light', note: 'Jérôme' },
  { id: '2', event_id: 'b', name: 'Nœunœuf', sold: true },
  { id: '3', event_id: 'c', name: 'Pikachu', corrected: true, confidence: 'low' },
  { id: '4', event_id: 'd', name: 'Gengar', confidence: 'low' },
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
    expect(ids('  ')).toEqual(['1', '2', '3', '4']);
  });
});
