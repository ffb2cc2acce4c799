import { describe, expect, it } from 'vitest';
import { wantedItems } from './taxonomy.ts';

describe('wantedItems', () => {
  it('is undefined when the record names no category, so the largest item is taken', () => {
    expect(wantedItems('fashion', undefined, undefined)).toBeUndefined();
    expect(wantedItems('fashion', ' ', null)).toBeUndefined();
  });

  it('names the kinds a known category asks for, in the server\'s taxonomy or the lexicon', () => {
    expect(wantedItems('fashion', 'Footwear', 'Footwear/Shoes')).toContain('footwear');
    expect(wantedItems('fashion', undefined, 'Sneakers')).toContain('footwear');
    // German categories through the German lexicon (since 2026-11-30; the whole image before)
    expect(wantedItems('fashion', 'Herren', 'Herren/Hemden')).toEqual(['upper body']);
    // and Italian and Dutch ones through theirs
    expect(wantedItems('fashion', 'Uomo', 'Uomo/Camicie')).toEqual(['upper body']);
    expect(wantedItems('fashion', 'Heren', 'Heren/Overhemden')).toEqual(['upper body']);
    // and Polish, Turkish and Swedish ones through theirs
    expect(wantedItems('fashion', 'Herr', 'Herr/Skjortor')).toEqual(['upper body']);
    expect(wantedItems('fashion', 'Damskie', 'Damskie/Sukienki')).toEqual(['full body']);
    expect(wantedItems('fashion', 'Kadın', 'Kadın/Ayakkabı')).toEqual(expect.arrayContaining(['footwear']));
  });

  it('is empty for categories the server cannot map, so no item matches (spec rule 2: the whole image)', () => {
    expect(wantedItems('fashion', 'Jewellery', 'Jewellery/Rings')).toEqual([]);
    // (a language without a lexicon: Czech)
    expect(wantedItems('fashion', 'Pánské', 'Pánské/Košile')).toEqual([]);
    // nor does a known top beside such a category ask for every item under the top (h281: a statue stored as a teddy bear)
    expect(wantedItems('homedecor', 'Decor', 'Decor/Statue')).toEqual([]);
    expect(wantedItems('fashion', 'Clothing', 'Clothing/Hats')).toEqual([]);
    // a top alone still does
    expect(wantedItems('fashion', 'Clothing', undefined)!.length).toBeGreaterThan(1);
    expect(wantedItems('homedecor', undefined, 'Decor')!.length).toBeGreaterThan(1);
  });
});
