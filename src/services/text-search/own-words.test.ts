import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../text-search/query.ts';
import { recordText } from '../../text-search/record-text.ts';
import { TOKENS_VERSION } from '../../text-search/seen-tokens.ts';
import { ownWordCodes, ownWordsName } from './own-words.ts';

// the codes a colour word alone asks records' own words for, as the text search service picks them
const namedCodes = (text: string) => {
  const q = parseQuery(text);
  if (!q.ok) throw new Error(text);
  return q.query.codes.filter((x) => x.weight === 1 && /^x[ck]/.test(x.code)).map((x) => x.code);
};

const extracted = (names: string[], percentages: number[]) => ({ _dominant_colors: { names, percentages, luv_colors: names.map(() => [50, 0, 0]) } });

const records: { data: Record<string, unknown>; productField?: string }[] = [
  { data: { title: 'Burgundy scrub top' } },
  { data: { title: 'vestido rojo de verano' } },
  { data: { title: 'navy blue jacket', size: 'M' } },
  { data: { title: 'Jacke', farbe: 'Blau' } },
  { data: { title: 'plain cotton shirt' } },
  { data: { title: 'plain cotton shirt', ...extracted(['navy', 'white'], [70, 20]) } },
  { data: { title: 'navy jacket', ...extracted(['navy', 'white'], [70, 20]) } },
  { data: { title: 'blue jeans', ...extracted(['blue'], [90]) } },
  { data: { title: 'rose dress', ...extracted(['rose', 'denim'], [80, 11]) } },
  { data: { title: 'Chaqueta', _tags: { Color: [{ name: 'red', prob: 0.9 }] } } },
  { data: { title: 'Chaqueta', extract_tags: true, _tags: { Item: [{ name: 'jacket' }], Color: [{ name: 'red', prob: 0.9 }] }, _tags_simple: ['jacket', 'red'] } },
  { data: { title: 'red coat', extract_tags: true, _tags: { Item: [{ name: 'coat' }], Color: [{ name: 'red', prob: 0.9 }] } } },
  { data: { sku: 'blue-123', title: 'mug' }, productField: 'sku' },
  { data: { title: 'xkblue' } },
  { data: { _objects: [{ name: 'upper_body' }], ...extracted(['red'], [60]) } },
  { data: {} },
  { data: { 'Top Category': 'Clothing', Category: 'Tops', title: 'white tee' } },
];

describe('ownWordsName', () => {
  it('answers from the stored body what reading the record again answers', () => {
    let decided = 0;
    for (const word of ['blue', 'red', 'navy', 'burgundy', 'white', 'rojo', 'rose']) {
      const codes = namedCodes(word);
      expect(codes.length).toBeGreaterThan(0);
      for (const { data, productField } of records) {
        const read = ownWordCodes(data, productField).some((w) => codes.includes(w));
        const stored = { body: recordText(data, productField).body, version: TOKENS_VERSION };
        expect(ownWordsName(data, productField, codes, stored), `${word}: ${JSON.stringify(data)}`).toBe(read);
        if (read) decided++;
      }
    }
    // the cases are not all "no": records that name the colour themselves are among them
    expect(decided).toBeGreaterThan(8);
  });

  it('reads the record again where its row is of an older release or missing', () => {
    const data = { title: 'navy blue jacket' };
    const codes = namedCodes('blue');
    // a body written before the lexicon knew the word would say no
    expect(ownWordsName(data, undefined, codes, { body: 'navy blue jacket', version: TOKENS_VERSION - 1 })).toBe(true);
    expect(ownWordsName(data, undefined, codes, undefined)).toBe(true);
    expect(ownWordsName(data, undefined, codes, { body: 'navy blue jacket', version: TOKENS_VERSION })).toBe(false);
  });
});
