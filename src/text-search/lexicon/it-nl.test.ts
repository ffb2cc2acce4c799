import { describe, expect, it } from 'vitest';
import { codes, lang, parsed } from '../../../test/helpers/text-queries.ts';
import { conceptCodesIn } from '../query.ts';


describe('Italian and Dutch lexicons (issue 20)', () => {
  it.each([
    ['cane nero', ['xkblack', 'xodog', 'xpodogblack']],
    ['borsa rossa', ['xkred', 'xohandbag', 'xpohandbagred']],
    ['rode auto', ['xkred', 'xocar', 'xpocarred']],
    ['zwarte hond', ['xkblack', 'xodog', 'xpodogblack']],
    ['gatti bianchi', ['xkwhite', 'xocat', 'xpocatwhite']],
    ['scarpe rosse', ['xifootwear', 'xkred', 'xpifootwearred']],
    ['vestito giallo', ['xifullbody', 'xkyellow', 'xpifullbodyyellow']],
    ['witte jurk', ['xifullbody', 'xkwhite', 'xpifullbodywhite']],
    ['blauwe fiets', ['xkblue', 'xobicycle', 'xpobicycleblue']],
    ['rode appel', ['xkred', 'xoapple', 'xpoapplered']],
  ])('%s', (q, expected) => {
    expect(codes(q)).toEqual(expected);
  });

  it('reads every gender and number form of an Italian colour, and the bare and inflected Dutch one', () => {
    for (const q of ['rosso', 'rossa', 'rossi', 'rosse', 'rood']) expect(codes(q), q).toEqual(['xkred']);
    for (const q of ['bianco', 'bianca', 'bianchi', 'bianche', 'witte']) expect(codes(q), q).toEqual(['xkwhite']);
    for (const q of ['grigio', 'grigia', 'grigi', 'grigie', 'grijs', 'grijze']) expect(codes(q), q).toEqual(['xkgrey']);
    for (const q of ['verde', 'verdi', 'groen', 'groene']) expect(codes(q), q).toEqual(['xkgreen']);
    // a shade with its qualifier agreeing, compounds written as one word or two
    for (const q of ['grigio scuro', 'grigia scura', 'grigi scuri', 'grigie scure', 'donkergrijs', 'donkergrijze', 'donker grijze']) expect(codes(q), q).toContain('xcdarkgrey');
    for (const q of ['blu scuro', 'blu navy', 'donkerblauwe', 'marineblauw']) expect(codes(q), q).toContain('xcnavyblue');
  });

  it('reads plurals and the diminutives shops use', () => {
    for (const q of ['cani', 'cagnolino', 'cuccioli', 'honden', 'hondje']) expect(codes(q), q).toEqual(['xodog']);
    for (const q of ['borse', 'borsetta', 'handtassen', 'tasje', 'tas']) expect(codes(q), q).toEqual(['xohandbag']);
    for (const q of ['gonne', 'pantaloni', 'broek', 'rokje', 'spijkerbroek']) expect(codes(q), q).toEqual(['xilowerbody']);
  });

  it('puts the colour after the noun in Italian and before it in Dutch', () => {
    expect(codes('maglietta bianca e pantaloni neri')).toEqual(['xilowerbody', 'xiupperbody', 'xkblack', 'xkwhite', 'xpilowerbodyblack', 'xpiupperbodywhite']);
    expect(codes('wit overhemd en zwarte broek')).toEqual(['xilowerbody', 'xiupperbody', 'xkblack', 'xkwhite', 'xpilowerbodyblack', 'xpiupperbodywhite']);
  });

  it('tells Italian and Dutch queries apart from the other Latin-script languages', () => {
    for (const [q, expected] of [['un cane nero con il collare', 'it'], ['borsa rossa', 'it'], ['een zwarte hond met een bal', 'nl'], ['rode auto', 'nl']] as const) {
      expect(lang(q), q).toBe(expected);
    }
    // the other languages' queries read as before: a tie goes to the earlier language
    for (const [q, expected] of [['a red car', 'en'], ['un coche rojo', 'es'], ['une voiture rouge', 'fr'], ['um carro vermelho', 'pt'], ['ein rotes Auto mit Hund', 'de'], ['auto', 'en'], ['vaso', 'es'], ['tassen', 'de']] as const) {
      expect(lang(q), q).toBe(expected);
    }
  });

  it('reads Italian and Dutch words that are English (or French) words only in Italian or Dutch text', () => {
    // (alone, `gonna` and `wit` are their concept: ownLanguageAlone, listing-words.test.ts)
    for (const q of ['cane', 'candy cane', 'Panini Prizm', 'viola', 'gonna be', 'rode', 'what wit', 'beer', 'appel vidéo']) expect(parsed(q).codes, q).toEqual([]);
    expect(codes('beer glass')).toEqual(['xowineglass']);
    expect(codes('sci-fi book')).toEqual(['xobook']);
    expect(conceptCodesIn('The rider rode a horse')).toEqual(['xohorse']);
    // French function words and words stay French: "mes", "robe de bal"
    expect(parsed('mes photos').codes).toEqual([]);
    expect(codes('robe de bal')).toEqual(['xifullbody']);
    // German "rund" (round) is no Dutch cow
    expect(conceptCodesIn('Holztisch rund')).not.toContain('xocow');
    // and in Italian or Dutch text they are the thing
    expect(codes('gonna nera')).toEqual(['xilowerbody', 'xkblack', 'xpilowerbodyblack']);
    expect(codes('borsa viola')).toContain('xkpurple');
    expect(codes('bruine beer')).toEqual(['xkbrown', 'xobear', 'xpobearbrown']);
    expect(codes('wit t-shirt')).toContain('xkwhite');
  });

  it('keeps English words out of the Italian and Dutch function words', () => {
    for (const q of ['price per card', 'die cast car', 'camper van interior', 'I', 'targets not met']) expect(['en', 'simple'], q).toContain(lang(q));
    expect(parsed('die cast car').terms).toContain('die');
  });

  it('reads people counts and crowds', () => {
    for (const [q, code] of [['due persone', 'xntwo'], ['tre ragazze', 'xnfew'], ['tre donne al mare', 'xnfew'], ['twee mensen', 'xntwo'], ['drie kinderen', 'xnfew'], ['gruppo di persone', 'xngroup'], ['een groep mensen', 'xngroup'], ['folla', 'xngroup'], ['menigte', 'xngroup']] as const) {
      expect(codes(q), q).toEqual(expect.arrayContaining(['xoperson', code]));
    }
    // (alone, `donne` is also French: "tre donne" is read as words)
    expect(codes('tre donne')).toEqual([]);
    // the Dutch article is no count
    expect(codes('een groep mensen')).not.toContain('xnone');
  });

  it('reads faces', () => {
    for (const q of ['viso', 'volti', 'gezicht', 'gezichten']) expect(codes(q), q).toEqual(['xface']);
  });
});
