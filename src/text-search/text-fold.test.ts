import { describe, expect, it } from 'vitest';
import { foldText, wordsOf } from './text-fold.ts';

describe('foldText', () => {
  it('lowercases and drops Latin accents, as FTS5 remove_diacritics 2 does', () => {
    expect(foldText('Avión ROJO Café Façade Ñandú')).toBe('avion rojo cafe facade nandu');
  });

  it('folds ё to е but keeps й and other Cyrillic letters', () => {
    expect(foldText('Самолёт Чёрный Синий')).toBe('самолет черный синий');
    // stress marks go, the breve of й stays
    expect(foldText('соба́ка Чёрный му̀ха йод')).toBe('собака черный муха йод');
  });

  it('applies NFKC: full-width and half-width forms become ordinary ones', () => {
    expect(foldText('ＲＥＤ ｶﾊﾞﾝ')).toBe('red カバン');
  });

  it('drops joiners, Arabic short vowels and tatweel, and the Devanagari nukta', () => {
    expect(foldText('র\u200d্যাকেট')).toBe(foldText('র্যাকেট'));
    expect(foldText('أَحْمَر')).toBe('احمر');
    expect(foldText('كـــلب')).toBe('كلب');
    expect(foldText('हवाई जहाज़')).toBe(foldText('हवाई जहाज'));
  });

  it('drops Hebrew points and cantillation: niqqud is a reading aid (h94)', () => {
    expect(foldText('שָׁלוֹם חֲבֵרִים')).toBe('שלום חברים');
    expect(foldText('בְּרֵאשִׁ֖ית')).toBe('בראשית');
    // the maqaf and geresh are punctuation, kept as they were
    expect(foldText('תל־אביב')).toBe('תל־אביב');
  });

  it('keeps Devanagari and Bengali vowel signs (they are letters of the word)', () => {
    expect(foldText('नीला')).toBe('नीला');
    expect(foldText('নীল')).toBe('নীল');
  });
});

describe('wordsOf', () => {
  it('splits on anything that is not a letter, mark or digit', () => {
    expect(wordsOf(foldText("T-shirt, bouche d'incendie; 2 chiens!"))).toEqual(['t', 'shirt', 'bouche', 'd', 'incendie', '2', 'chiens']);
    expect(wordsOf(foldText('नीला  कुर्ता'))).toEqual(['नीला', 'कुर्ता']);
  });

  it('folds letters no decomposition takes apart, as they are typed without their stroke (h83)', () => {
    expect(foldText('Żółty ŁÓDŹ')).toBe('zolty lodz');
    expect(foldText('SARI Sarı kadın')).toBe('sari sari kadin');
    expect(foldText('cœur Æble Øre Đak Straße STRAẞE')).toBe('coeur aeble ore dak strasse strasse');
  });

  it('drops emoji variation selectors, which made a phone\'s 🛋️ an unread word (h83)', () => {
    expect(wordsOf(foldText('🛋️'))).toEqual([]);
    expect(wordsOf(foldText('❤️ Sofa'))).toEqual(['sofa']);
  });
});
