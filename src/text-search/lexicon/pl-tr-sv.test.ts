import { describe, expect, it } from 'vitest';
import { codes, lang, parsed } from '../../../test/helpers/text-queries.ts';
import { inflectedWords } from '../query-compile.ts';
import { inflectedForms } from '../inflections.ts';
import { conceptCodesIn } from '../query.ts';
import { formKey, formsOf, lexiconWords, ownLanguageOnly } from './lexicon.ts';

// Polish, Turkish and Swedish (issue 20: the object and colour words of the most used languages): every
// one of their object and colour words was read only as a record's own word before.


describe('Polish, Turkish and Swedish queries', () => {
  it.each([
    ['czarny pies', 'pl', ['xkblack', 'xodog', 'xpodogblack']],
    ['czerwona torebka', 'pl', ['xkred', 'xohandbag', 'xpohandbagred']],
    ['kırmızı araba', 'tr', ['xkred', 'xocar', 'xpocarred']],
    ['siyah köpek', 'tr', ['xkblack', 'xodog', 'xpodogblack']],
    ['röd bil', 'sv', ['xkred', 'xocar', 'xpocarred']],
    ['svart hund', 'sv', ['xkblack', 'xodog', 'xpodogblack']],
  ] as const)('%s (%s) reads its colour, its object and the pair', (q, language, expected) => {
    expect(codes(q)).toEqual([...expected]);
    expect(parsed(q).language).toBe(language);
    expect(parsed(q).terms).toEqual([]);
  });

  it('reads every gender, number and case form of a Polish colour adjective', () => {
    for (const q of ['czerwony', 'czerwona', 'czerwone', 'czerwonego', 'czerwoną', 'czerwonej', 'czerwonym', 'czerwonych', 'czerwonymi', 'niebieską', 'niebieskie']) {
      expect(codes(q).filter((c) => c.startsWith('xk')), q).toHaveLength(1);
    }
    expect(codes('czerwoną torebkę')).toEqual(['xkred', 'xohandbag', 'xpohandbagred']);
    expect(codes('zdjęcie z psem')).toEqual(['xodog']);
    expect(codes('granatowa sukienka')).toEqual(['xcnavyblue', 'xifullbody', 'xkblue', 'xpifullbodyblue']);
  });

  it('reads Turkish plurals and the dotless ı however it is typed', () => {
    for (const q of ['köpek', 'köpekler', 'kopekler', 'KÖPEKLER']) expect(codes(q), q).toEqual(['xodog']);
    for (const q of ['kırmızı araba', 'kirmizi araba', 'KIRMIZI ARABA', 'Kırmızı Arabalar']) expect(codes(q), q).toEqual(['xkred', 'xocar', 'xpocarred']);
    expect(codes('el çantası')).toEqual(['xohandbag']);
    expect(codes('sırt çantası')).toEqual(['xobackpack']);
    expect(codes('lacivert elbise')).toEqual(['xcnavyblue', 'xifullbody', 'xkblue', 'xpifullbodyblue']);
  });

  it('reads the three forms of a Swedish colour adjective', () => {
    for (const q of ['rött bord', 'röda bilar', 'röd klänning']) expect(codes(q).filter((c) => c === 'xkred'), q).toEqual(['xkred']);
    for (const q of ['grön', 'grönt', 'gröna']) expect(codes(q), q).toEqual(['xkgreen']);
    expect(codes('mörkblå jacka')).toEqual(['xcnavyblue', 'xiupperbody', 'xkblue', 'xpiupperbodyblue']);
  });

  it('reads people counts and faces', () => {
    for (const [q, code] of [['dwie osoby', 'xntwo'], ['iki kişi', 'xntwo'], ['två personer', 'xntwo'], ['grupa ludzi', 'xngroup'], ['tłum', 'xngroup'], ['kalabalık', 'xngroup']] as const) {
      expect(codes(q), q).toEqual(expect.arrayContaining(['xoperson', code]));
    }
    // (not tr `yüz` alone, also a hundred and a side: "yüz lira", "ön yüz")
    for (const q of ['twarz', 'yüzler', 'insan yüzü', 'ansikte']) expect(codes(q), q).toEqual(['xface']);
  });
});

describe('Polish, Turkish and Swedish words that are another language\'s words', () => {
  it('read a form that folds to an English word as its concept only in its own language', () => {
    // sv röd folds to "rod", tåg to "tag", pl pies is English "pies", tr sarı the garment "sari"
    // (typed with its marks, `röd` is Swedish anywhere: listing-words.test.ts)
    for (const q of ['rod', 'fishing rod', 'curtain rod', 'Tag Team', 'tag', 'pies', 'apple pies', 'sari', 'silk sari', 'barn door', 'PSY-Framelord']) {
      expect(codes(q).filter((c) => ['xkred', 'xotrain', 'xodog', 'xkyellow', 'xoperson'].includes(c)), q).toEqual([]);
    }
    expect(codes('apple pies')).toEqual(['xoapple']);
    expect(codes('röd soffa')).toEqual(['xkred', 'xocouch', 'xpocouchred']);
    expect(codes('sarı elbise')).toEqual(['xifullbody', 'xkyellow', 'xpifullbodyyellow']);
    expect(codes('psy i koty')).toEqual(['xocat', 'xodog']);
    expect(codes('tåget')).toEqual(['xotrain']);
    expect(codes('svart tåg')).toEqual(['xkblack', 'xotrain', 'xpotrainblack']);
  });

  it('leave other languages\' words alone', () => {
    // German Käse, Blatt, Tag, Slips; French fil, bord de mer; Polish bez (without) and masa (mass); PSA grades cards
    for (const q of ['Käse', 'grünes Blatt', 'jeden Tag', 'Slips', 'souris sans fil', 'bord de mer', 'sukienka bez rękawów', 'Masa: 2 kg', 'PSA 10 Charizard', 'gra planszowa']) {
      const unexpected = codes(q).filter((c) => ['xobowl', 'xkblue', 'xotrain', 'xotie', 'xoelephant', 'xodiningtable', 'xkbeige', 'xodog', 'xkgrey'].includes(c));
      expect(unexpected, q).toEqual([]);
    }
    expect(codes('souris sans fil')).toEqual(['xomouse']);
    expect(codes('sukienka bez rękawów')).toEqual(['xifullbody']);
    expect(parsed('PSA 10 Charizard').terms).toEqual(['psa', '10', 'charizard']);
  });

  it('let the query\'s language decide a form two of them read differently', () => {
    // pl kot is a cat, tr kot denim; pl stół a table, sv stol a chair; en bat a baseball bat, sv båt a boat; tr top a ball
    expect(codes('czarny kot')).toEqual(['xkblack', 'xocat', 'xpocatblack']);
    expect(codes('kot ceket')).toEqual(['xcdenim', 'xiupperbody', 'xkblue', 'xpiupperbodyblue']);
    expect(codes('kot')).toEqual(['xocat']);
    expect(codes('drewniany stół')).toEqual(['xodiningtable']);
    expect(codes('svart stol')).toEqual(['xkblack', 'xochair', 'xpochairblack']);
    expect(codes('bat')).toEqual(['xobaseballbat']);
    expect(codes('vit båt')).toEqual(['xkwhite', 'xoboat', 'xpoboatwhite']);
    expect(codes('red top')).toEqual(['xiupperbody', 'xkred', 'xpiupperbodyred']);
    expect(codes('kırmızı top')).toEqual(['xkred', 'xosportsball', 'xposportsballred']);
  });

  it('leave what the other languages read as they were', () => {
    for (const [q, l] of [['a red car', 'en'], ['un coche rojo', 'es'], ['une voiture rouge', 'fr'], ['um carro vermelho', 'pt'], ['ein rotes Auto mit Hund', 'de'], ['mobil merah dan anjing', 'id'], ['qwzxv', 'simple'], ['une robe en coton', 'fr'], ['bolso en piel', 'es']] as const) {
      expect(lang(q), q).toBe(l);
    }
    expect(codes('mobil merah dan anjing')).toEqual([]);
  });

  it('index a record\'s own Polish, Turkish and Swedish words as concepts, and not another language\'s', () => {
    expect(conceptCodesIn('Czerwona sukienka letnia')).toEqual(expect.arrayContaining(['xkred', 'xifullbody', 'xpifullbodyred']));
    expect(conceptCodesIn('Kadın siyah deri çanta')).toEqual(expect.arrayContaining(['xkblack', 'xohandbag']));
    expect(conceptCodesIn('Svart skinnsoffa')).toEqual(['xkblack']);
    for (const t of ['Masa: 2 kg', 'Roda de bicicleta', 'Curtain rod, brass', 'Björn Borg tights']) {
      expect(conceptCodesIn(t).filter((c) => ['xodiningtable', 'xkred', 'xobear'].includes(c)), t).toEqual([]);
    }
  });

  it('search their other words also in their other forms on SQLite, as the other inflected languages\' are', () => {
    // "sukienki" (dresses) in a record is found from a query's "sukienkę"-like word the lexicon does not know
    expect(inflectedWords(parsed('wełniane sukienki czarne'))).toContain('welniane');
    expect(inflectedForms('welniane', ['pl'])).toEqual(expect.arrayContaining(['welniana', 'welnianych']));
    expect(inflectedWords(parsed('bilder av vinterjackor och svart hund'))).toContain('vinterjackor');
    expect(inflectedForms('vinterjackor', ['sv'])).toEqual(expect.arrayContaining(['vinterjacka', 'vinterjackorna']));
    // a Turkish plural finds its singular (the two letters a prefix dropped left `horozl`, h201)
    expect(inflectedForms('horozlar', ['tr'])).toContain('horoz');
  });

  it('list as their own only forms their language has', () => {
    for (const [l, forms] of Object.entries(ownLanguageOnly)) {
      const keys = new Set([...formsOf(lexiconWords[l as keyof typeof lexiconWords])].map((f) => formKey(f.form).key));
      for (const f of forms) expect(keys.has(formKey(f).key), `${l} ${f}`).toBe(true);
    }
  });
});
