import { describe, expect, it } from 'vitest';
import { codes, parsed } from '../../../test/helpers/text-queries.ts';
import { conceptCodesIn } from '../query.ts';

// h197: Italian, Dutch, Polish, Turkish and Swedish words a seller writes that are no object ("kom gerust kijken",
// "24 saat içinde kargo", "pięć osób"), forms real queries use that the lexicons lacked, and a lone word that is its
// language's only ("gonna", "röd") answering 422 where no record held it.

const objects = (text: string) => codes(text).filter((c) => /^x[oif]/.test(c));

describe('listing phrases read no object from their everyday words', () => {
  it.each([
    ['kom gerust kijken', []],
    ['kom maar langs', []],
    ['libro letto una volta', ['xobook']],
    ['ho già letto', []],
    ['24 saat içinde kargo', []],
    ['yüz lira', []],
    ['ön yüz', []],
    ['som man ser på bilden', []],
    ['i topp skick', []],
    ['byxor i linne', ['xilowerbody']],
    ['crema mani', []],
    ['suszarka do naczyń', []],
  ] as const)('%s', (q, expected) => {
    expect(objects(q)).toEqual([...expected]);
    expect(conceptCodesIn(q).filter((c) => /^x[oif]/.test(c)).sort()).toEqual([...expected]);
  });

  it('keeps the word inside its phrases and forms', () => {
    for (const [q, code] of [['soepkom', 'xobowl'], ['kommetjes', 'xobowl'], ['letto matrimoniale', 'xobed'], ['letto singolo', 'xobed'], ['letti', 'xobed'],
      ['duvar saati', 'xoclock'], ['kol saati', 'xoclock'], ['saatler', 'xoclock'], ['çalar saat', 'xoclock'], ['insan yüzü', 'xface'], ['yüzler', 'xface'],
      ['toppar', 'xiupperbody'], ['suszarka do włosów', 'xohairdrier'], ['color crema', 'xccream']] as const) {
      expect(codes(q), q).toContain(code);
    }
  });

  it('reads a number word that folds to a lexicon form as the number', () => {
    // pl pięć (five) folds to piec (a stove); en four is French four (an oven)
    expect(codes('pięć osób')).toEqual(['xnfew', 'xoperson']);
    expect(codes('piec osob')).toEqual(['xnfew', 'xoperson']);
    expect(objects('pięć sztuk')).toEqual([]);
    expect(codes('piec kaflowy')).toEqual(['xooven']);
    expect(codes('four people')).toEqual(['xnfew', 'xoperson']);
    expect(codes('four cats')).toEqual(['xocat']);
    expect(codes('trzech mężczyzn')).toEqual(['xnfew', 'xoperson']);
  });

  it('reads sv man as "one" in Swedish text, and män as men', () => {
    expect(codes('som man ser på bilden')).toEqual([]);
    expect(codes('två män')).toEqual(['xntwo', 'xoperson']);
    expect(codes('a man with a dog')).toEqual(['xodog', 'xoperson']);
    expect(codes('man en vrouw')).toEqual(['xoperson']);
  });
});

describe('forms real queries use', () => {
  it('reads Turkish nouns with the plural, the possessive and both', () => {
    for (const [q, code] of [['uçakları', 'xoairplane'], ['topları', 'xosportsball'], ['saatleri', 'xoclock'], ['kedileri', 'xocat'], ['köpeği', 'xodog'],
      ['kitabı', 'xobook'], ['havucu', 'xocarrot'], ['arabası', 'xocar'], ['elbiseleri', 'xifullbody'], ['montu', 'xiupperbody']] as const) {
      expect(codes(q), q).toEqual([code]);
    }
    expect(codes('insan grubu')).toEqual(['xngroup', 'xoperson']);
  });

  it('reads Polish genitives, instrumentals and locatives', () => {
    for (const [q, code] of [['samolotów', 'xoairplane'], ['mężczyzn', 'xoperson'], ['zdjęcie psa', 'xodog'], ['kot na kanapie', 'xocat'], ['w sukience', 'xifullbody'],
      ['na rowerze', 'xobicycle'], ['kot na stole', 'xodiningtable'], ['telefon komórkowy', 'xocellphone']] as const) {
      expect(codes(q), q).toContain(code);
    }
    expect(objects('telefon komórkowy')).toEqual(['xocellphone']);
  });

  it('keeps PSA a grader: a grade after it, or no Polish beside it', () => {
    expect(parsed('PSA 10 Charizard').terms).toEqual(['psa', '10', 'charizard']);
    expect(codes('PSA 10 Charizard')).toEqual([]);
    expect(codes('Charizard PSA 10 z Polski')).toEqual([]);
    expect(codes('Charizard PSA 9.5 karta w kolorze')).not.toContain('xodog');
    expect(conceptCodesIn('Pikachu PSA 10 w idealnym stanie, wysyłka z Polski')).toEqual([]);
    expect(codes('stole')).toEqual([]);
  });

  it('reads Polish compound colours written apart and their first element', () => {
    expect(codes('czarno-biały pies')).toEqual(expect.arrayContaining(['xkblack', 'xkwhite', 'xodog']));
    expect(codes('ciemno-zielona kurtka')).toEqual(expect.arrayContaining(['xcdarkgreen', 'xiupperbody']));
    expect(codes('ciemnozielona kurtka')).toEqual(codes('ciemno zielona kurtka'));
  });
});

describe('a lone word that is its language\'s only', () => {
  it('is its concept where the other reading is no thing a shopper searches for', () => {
    for (const [q, code, language] of [['gonna', 'xilowerbody', 'it'], ['sci', 'xoskis', 'it'], ['donne', 'xoperson', 'it'], ['wit', 'xkwhite', 'nl'], ['appel', 'xoapple', 'nl'],
      ['mis', 'xoteddybear', 'pl'], ['masa', 'xodiningtable', 'tr'], ['fil', 'xoelephant', 'tr'], ['mont', 'xiupperbody', 'tr'], ['bord', 'xodiningtable', 'sv'],
      ['bok', 'xobook', 'sv'], ['häst', 'xohorse', 'sv'], ['hast', 'xohorse', 'sv'], ['säng', 'xobed', 'sv'], ['ko', 'xocow', 'sv']] as const) {
      expect(codes(q), q).toEqual([code]);
      expect(parsed(q).language, q).toBe(language);
      // still searched as written too
      expect(parsed(q).literals, q).toEqual([parsed(q).text]);
    }
  });

  it('stays a word where the other reading is such a thing, or beside other words', () => {
    for (const q of ['cane', 'panini', 'viola', 'beer', 'rode', 'bal', 'pies', 'psy', 'psa', 'pilot', 'noz', 'sari', 'adam', 'kase', 'surat', 'rod', 'roda', 'blatt', 'vita', 'gula', 'gra', 'cerise', 'tag', 'barn', 'slips', 'sax', 'drake', 'cafe', 'mes']) {
      expect(codes(q), q).toEqual([]);
    }
    for (const q of ['gonna be', 'wit and wisdom', 'Masa harina 1 kg', 'Mont Saint-Michel', 'Panini Prizm']) expect(objects(q).concat(codes(q).filter((c) => c.startsWith('xk'))), q).toEqual([]);
    // not in a record's own text
    expect(conceptCodesIn('gonna')).toEqual([]);
  });

  it('is its language\'s when typed with its letters, alone or not', () => {
    for (const [q, code] of [['röd', 'xkred'], ['tåg', 'xotrain'], ['sarı', 'xkyellow'], ['nóż', 'xoknife'], ['grå', 'xkgrey'], ['kâse', 'xobowl'], ['miś', 'xoteddybear']] as const) {
      expect(codes(q), q).toContain(code);
    }
    expect(codes('RÖD')).toEqual(['xkred']);
    // German Käse is no Turkish kâse; Polish gra, English tag and rod stay words
    for (const q of ['Käse', 'gra planszowa', 'price tag', 'curtain rod']) expect(codes(q).filter((c) => ['xobowl', 'xkgrey', 'xotrain', 'xkred'].includes(c)), q).toEqual([]);
  });
});
