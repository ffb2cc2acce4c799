import { describe, expect, it } from 'vitest';
import { linkExpired, linksExpireAt, priceInput, sessionTotal } from './format.ts';

describe('linkExpired', () => {
  it('reads the expiry of a signed media link', () => {
    const now = 1_800_000_000_000;
    expect(linkExpired(`/media/k?expires=${now / 1000 - 5}&sig=ab`, now)).toBe(true);
    expect(linkExpired(`/media/k?expires=${now / 1000 + 30}&sig=ab`, now)).toBe(true);
    expect(linkExpired(`/media/k?expires=${now / 1000 + 3600}&sig=ab`, now)).toBe(false);
    expect(linkExpired('https://shop.example/photo.jpg', now)).toBe(false);
  });
});

describe('linksExpireAt', () => {
  it('gives when the first signed link runs out, and nothing where none is signed', () => {
    expect(linksExpireAt(['/media/a?expires=1800003600&sig=ab', null, '/media/b?expires=1800000060&sig=cd', 'https://shop.example/x.jpg'])).toBe(1_800_000_060_000);
    expect(linksExpireAt([null, undefined, 'https://shop.example/x.jpg'])).toBeUndefined();
  });
});

describe('priceInput', () => {
  it('reads a price typed on Arabic, Urdu, Hindi or full-width keyboards, and a decimal comma (h146)', () => {
    expect(['١٢٫٥٠', '۱۲٫۵۰', '१२.५०', '１２.５０', '12,50', '12.50', ' 12.5 '].map(priceInput)).toEqual(['12.50', '12.50', '12.50', '12.50', '12.50', '12.50', '12.5']);
    expect(['1,234.50', '١٬٢٣٤', '1,5'].map(priceInput)).toEqual(['1234.50', '1234', '1.5']);
    // what is no price stays as typed, for the form to refuse
    expect(['abc', '12,345,6', '-3', '12 50', '1 2'].map(priceInput)).toEqual(['abc', '12,345,6', '-3', '12 50', '1 2']);
    // full-width point and comma too (h147)
    expect(['１２．５０', '１２，５０'].map(priceInput)).toEqual(['12.50', '12.50']);
  });
});

describe('sessionTotal', () => {
  it('gives an empty session no total and a total of 0 over cards "not priced", not $0.00 (h342)', () => {
    expect(sessionTotal(0, 0).text).toBe('—');
    expect(sessionTotal(40, 0)).toEqual({ text: 'not priced', title: 'No card in this session has a price above $0.00' });
    expect(sessionTotal(12, 832.09).text).toBe('$832.09');
  });
});
