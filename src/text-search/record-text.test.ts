import { describe, expect, it } from 'vitest';
import { maxRecordTextChars, recordText } from './record-text.ts';

describe('recordText', () => {
  it('takes the words a client stored, not ids, URLs, numbers or server fields', () => {
    const t = recordText({ _id: 'abc', _url: 'https://example.com/a.jpg', title: 'Running Shoes', tags: ['Summer', 'sale'], price: '12.50', ref: '0f8fad5b-d9cb-469f-a165-70867728950e', sku: 'SKU1', _objects: [{ name: 'person' }] }, 'sku');
    expect(t.body.split(' ')).toEqual(expect.arrayContaining(['running', 'shoes', 'summer', 'sale']));
    for (const no of ['abc', 'example', '12', '0f8fad5b', 'sku1', 'person']) expect(t.body).not.toContain(no);
    expect(t.lang).toBe('en');
  });

  it('adds the concept codes the lexicon finds, in any of its languages', () => {
    const t = recordText({ title: 'Vestido rojo de verano' });
    expect(t.lang).toBe('es');
    expect(t.body.split(' ')).toEqual(expect.arrayContaining(['vestido', 'rojo', 'xkred', 'xifullbody', 'xpifullbodyred']));
  });

  it("reads nested maps' values to a depth of 3, their keys only as flags (h261: `en`, `qty` were words of the record)", () => {
    const t = recordText({ labels: { Color: ['Navy'], deep: { deeper: { deepest: 'hidden' } } }, features: { waterproof: true, heavy: false }, variants: [{ qty: 2, size: 'XL' }] });
    expect(t.body).toContain('navy');
    expect(t.body).toContain('waterproof');
    expect(t.body).not.toMatch(/\b(color|heavy|qty|size|hidden)\b/);
    // German `Handy` is a phone in German text, English "handy" a word (h269: a music stand was a phone)
    expect(recordText({ title: 'Music stand, foldable, also handy for a guitar player on the road' }).body).not.toContain('xocellphone');
    expect(recordText({ title: 'Handy mit Hülle und Ladekabel' }).body).toContain('xocellphone');
    // not a flag at the top: a shop's own fields, the same words on every record (h268)
    const top = recordText({ title: 'Botas de montaña', available: true, in_stock: true, heavy: false, _flagged: true });
    expect(top.body).not.toMatch(/available|stock|heavy|flagged/);
    // a label map's scores name their labels, as `_tags`' probabilities do (h263); one under 0.1 does not
    expect(recordText({ labels: { chair: 0.92, wood: 0.61, dust: 0.02 } }).body.split(' ')).toEqual(expect.arrayContaining(['chair', 'wood']));
    expect(recordText({ labels: { chair: 0.92, dust: 0.02 } }).body).not.toContain('dust');
    // a title in three languages is English where its English words are (the keys `de`, `es` made it Spanish)
    expect(recordText({ names: { en: 'Wireless headphones with a long battery life', de: 'Kabellose Kopfhörer', es: 'Auriculares' } }).lang).toBe('en');
  });

  it("tells the language by the shop's own words, not the English of extracted tags and categories (h281: Spanish became English)", () => {
    const own = { title: 'Vestido largo de verano', description: 'Tela ligera, corte recto' };
    expect(recordText(own).lang).toBe('es');
    const tagged = { ...own, 'Top Category': 'Clothing', Category: 'Clothing/Dresses', _tags: { 'Top Category': ['Clothing'], Category: ['Clothing/Dresses', 'Clothing/Tops'], Color: ['white', 'light grey'] }, _tags_simple: ['Clothing', 'Dresses', 'white', 'light grey'] };
    expect(recordText(tagged).lang).toBe('es');
    // the tags' words are still words of the record
    expect(recordText(tagged).body).toContain('dresses');
    // a record of tags alone takes their language
    expect(recordText({ _tags: { Category: ['Clothing/Dresses and long skirts for summer'] } }).lang).toBe('en');
  });

  it("reads _tags' values, not the format's names", () => {
    // a tag the server gave a low probability is not the record's word
    expect(recordText({ _tags: { Color: [{ name: 'Navy blue', prob: 0.8 }, { name: 'Rose', prob: 0.03 }] } }).body).not.toMatch(/rose|xkpink/);
    expect(recordText({ _tags: { Color: [{ name: 'Navy blue', prob: 0.8 }, { name: 'Rose', prob: 0.1 }] } }).body).toMatch(/rose/);
    const t = recordText({ _tags: { 'Top Category': [{ name: 'Clothing', prob: 1 }], Color: [{ name: 'Dark green', prob: 0.5 }], 'pre-filled': true } });
    expect(t.body.split(' ')).toEqual(expect.arrayContaining(['clothing', 'dark', 'green']));
    for (const no of ['top', 'category', 'color', 'pre', 'filled']) expect(t.body.split(' ')).not.toContain(no);
  });

  it("adds a shade's family, as the index does for a shade it saw", () => {
    const t = recordText({ title: 'Navy blue polo shirt' });
    expect(t.body.split(' ')).toEqual(expect.arrayContaining(['xcnavyblue', 'xkblue']));
  });

  it('caps the text', () => {
    const t = recordText({ a: 'word '.repeat(10_000) });
    expect(t.body.length).toBeLessThan(maxRecordTextChars + 200);
    expect(recordText({}).body).toBe('');
  });

  it("reads a record's language as a query's, a word typed with its own letters counting in full (h201: the record \"Röd lampa\" was simple, the query sv)", () => {
    expect(recordText({ title: 'Röd lampa' }).lang).toBe('sv');
    expect(recordText({ title: 'Sarı elbise' }).lang).toBe('tr');
  });
});
