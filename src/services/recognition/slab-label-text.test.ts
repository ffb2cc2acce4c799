import { describe, expect, it } from 'vitest';
import { readLabelText } from './slab-label-text.ts';

// As PP-OCRv4 read the labels of real slabs (../shared/datasets/graded_slabs, test fixture photo).
describe('grading label text', () => {
  it('reads a PSA label: year, number, name, grade words and number, certificate, brand, set, language', () => {
    expect(readLabelText(['20O0P.M.JAPANESENEO2', '#197', 'UMBREON', 'NM', 'PROMO', '7', 'PSA', '63055543'])).toMatchObject({
      company: 'PSA',
      companyProb: 1,
      year: '2000',
      card_no: '197',
      name: 'UMBREON',
      full_name: '2000 POKEMON JAPANESENEO2 #197 UMBREON',
      verbal_grade: 'NM',
      grade: 7,
      qualifier: null,
      certificate_number: '63055543',
      brand: 'POKEMON',
      set: 'JAPANESENEO2',
      lang: 'ja',
    });
    expect(readLabelText(['2005P.M.JPN.MASTER KIT', '#003', 'RAYQUAZA EX-HOLO', 'NM-MT', 'SIDEDECK-1STED.', '8', 'PSA', '70496962'])).toMatchObject({ name: 'RAYQUAZA EX-HOLO', searchName: 'RAYQUAZA EX', rarity: 'HOLO', verbal_grade: 'NM-MT', grade: 8 });
    // the set on the third line where the set line has only an era or a language (h279: `S & M`, `JAPANESE`)
    expect(readLabelText(['2019 POKEMON S & M', '#SV69', 'FA/UMBREON GX', 'MINT', 'HIDDEN FATES', '9', 'PSA', '72773169'])).toMatchObject({ card_no: 'SV69', searchName: 'UMBREON GX', rarity: 'FULL ART', lang: null, set: 'HIDDEN FATES', setLineRest: 'S & M', full_name: '2019 POKEMON HIDDEN FATES #SV69 FA/UMBREON GX' });
    expect(readLabelText(['2006POKEMON JAPANESE', '#024', 'GYARADOS-HOLO', 'MINT', 'HOLON PHANTOMS-1STED.', '9', 'PSA', '70496967'])).toMatchObject({ set: 'HOLON PHANTOMS', lang: 'ja', name: 'GYARADOS-HOLO' });
    expect(readLabelText(['202O POKEMON JPN.SWSH', '#198', 'FA/MARNIE', 'GEM MT', 'SHINY STARV', '10', 'PSA', '70496957'])).toMatchObject({ set: 'SHINY STARV', lang: 'ja' });
    // read in another order, the name before the set line: the third line is the one after the name
    expect(readLabelText(['#SV69', 'MINT', '2019POKEMONS&M', '9', 'FA/UMBREON GX', '72773169', 'HIDDEN FATES', 'PSA'])).toMatchObject({ set: 'HIDDEN FATES' });
    // a set line naming its set keeps it; a third line of variety words only names none
    expect(readLabelText(['2020 POKEMON SWSH BSP', '#066', 'CHARIZARD-HOLO', 'MINT', 'PRERELEASE', '9', 'PSA', '72773185'])).toMatchObject({ set: 'SWSH BSP' });
    expect(readLabelText(['2001 POKEMON JAPANESE', '#025', 'PIKACHU', 'MINT', 'PROMO', '9', 'PSA', '70496911'])).toMatchObject({ set: 'JAPANESE' });
    // an era written out is a base set too; a rarity, a grade read apart, an autograph or the company's site names no set
    expect(readLabelText(['2023 POKEMON SCARLET & VIOLET', '#245', 'MIRAIDON EX', 'GEM MT', 'SPECIAL ILLUSTRATION RARE', '10', 'PSA', '72773100'])).toMatchObject({ set: 'SCARLET & VIOLET' });
    expect(readLabelText(['2020 POKEMON SWSH', '#030', 'PIKACHU', 'MINT', 'FULL ART', '9', 'PSA', '72773100'])).toMatchObject({ set: 'SWSH' });
    for (const third of [['GEM', 'MT 10'], ['PSA/DNA', 'AUTO 10'], ['10', 'PSACARD.COM'], ['GEM MT', 'SECRET RARE', '10']]) {
      expect(readLabelText(['2023 POKEMON JAPANESE', '#245', 'MIRAIDON EX', ...third, '72773100']).set, third.join(' ')).toBe('JAPANESE');
    }
    // a set line of no set at all gives none from the third line either
    expect(readLabelText(['2021 TOPPS', '#1', 'SHOHEI OHTANI', 'GOLD', 'GEM MT', '10', 'PSA', '12345678']).set).toBeNull();
    // the set line read glued: its parts spaced in full_name
    expect(readLabelText(['2019POKEMONS&M', '#SV69', 'FA/UMBREON GX', 'MINT', '9', 'PSA', '72773169'])).toMatchObject({ full_name: '2019 POKEMON S&M #SV69 FA/UMBREON GX', set: 'S&M' });
  });

  it("reads a comic's label: its title before the issue, and the year of its cover date (h136: the publisher line was the name, the year null)", () => {
    expect(readLabelText(['CGC', 'UNIVERSAL GRADE', '9.8', 'Daredevil #323', 'Marvel Comics, 12/93', 'White pages', '4123456001'])).toMatchObject({ company: 'CGC', grade: 9.8, name: 'Daredevil', card_no: '323', year: '1993', certificate_number: '4123456001' });
    expect(readLabelText(['CGC', '9.6', 'Amazing Spider-Man #300', 'Marvel Comics, MAY 1988', '1234567001'])).toMatchObject({ name: 'Amazing Spider-Man', card_no: '300', year: '1988' });
    // the OCR glues a label's small words: still a comic's label, UNIVERSAL GRADE no name (h165: "UNIVERSALGRADE", no year)
    expect(readLabelText(['CGC', 'UNIVERSALGRADE', '9.8', 'UncannyX-Men#141', 'MarvelComics,1/81', 'OFF-WHITETOWHITEPAGES', '4123456001'])).toMatchObject({ company: 'CGC', grade: 9.8, name: 'UncannyX-Men', card_no: '141', year: '1981' });
    expect(readLabelText(['UNIVERSALGRADE', '9.8', 'UncannyX-Men#141', 'MarvelComics,1/81', '4123456001'])).toMatchObject({ name: 'UncannyX-Men', year: '1981' });
    // a card label whose set or name holds a publisher's word is no comic's (h170: IRON VALIANT EX was named by its set line)
    expect(readLabelText(['2023 POKEMON SV', 'IRON VALIANT EX', 'PARADOX RIFT #089', 'GEM MT', '10', 'PSA', '87654321'])).toMatchObject({ name: 'IRON VALIANT EX', card_no: '089' });
    expect(readLabelText(['1992 MARVEL MASTERPIECES', 'SPIDER-MAN', 'HOLOGRAM #H1', 'NM-MT', '8', 'PSA', '12345678'])).toMatchObject({ name: 'SPIDER-MAN', year: '1992' });
    // CBCS and PGX: company OTHER, their mark no name
    expect(readLabelText(['CBCS', '9.8', 'NM/M', 'UncannyX-Men#141', 'MarvelComics,1/81', 'WHITEPAGES', '23-1234567-001'])).toMatchObject({ company: 'OTHER', grade: 9.8, verbal_grade: 'NM/M', name: 'UncannyX-Men' });
    // a trading card's set line keeps its year; a number line with the set before it is no name
    expect(readLabelText(['2019 POKEMON S & M #SV69', 'FA/UMBREON GX', 'MINT', '9', 'PSA', '72773169'])).toMatchObject({ year: '2019', name: 'FA/UMBREON GX' });
    // on a card's label, words before a number are no name, and a number over a total no date (h147)
    expect(readLabelText(['2019 POKEMON S & M', 'FA/UMBREON GX', 'HIDDEN FATES #SV69', 'GEM MT', '10', 'PSA', '12345678'])).toMatchObject({ name: 'FA/UMBREON GX' });
    expect(readLabelText(['1986 FLEER', 'BASKETBALL #57', 'MICHAEL JORDAN', 'NM-MT', '8', 'PSA', '12345678'])).toMatchObject({ name: 'MICHAEL JORDAN' });
    expect(readLabelText(['CGC', 'Pokémon Fossil', 'Dragonite - Holo 4/62', 'GEM MINT', '10', '4123456001'])).toMatchObject({ year: null });
  });

  it("reads a CGC trading-card label: the game and year, then the set, then the card's name (h302: the set was the name)", () => {
    // CGC prints `Game (year)` / set / name - variety / number; Magic's Foil is a Prophecy card (the set was its name)
    expect(readLabelText(['Magic: The Gathering (1999)', 'Prophecy', 'Foil', 'English', 'GEM MINT', '10', 'CGC', '4123456001'])).toMatchObject({
      company: 'CGC',
      year: '1999',
      brand: 'MAGIC',
      set: 'Prophecy',
      name: 'Foil',
      searchName: 'Foil',
      full_name: '1999 MAGIC Prophecy Foil',
      grade: 10,
    });
    expect(readLabelText(['Pokémon (1999)', 'Base Set', 'Charizard - Holo', '4/102', 'NM/MINT', '8', 'CGC', '4123456002'])).toMatchObject({ brand: 'POKEMON', set: 'Base Set', name: 'Charizard - Holo', searchName: 'Charizard' });
    // read in another order, the grade between the lines
    expect(readLabelText(['CGC', 'Pokémon (2016)', 'GEM MINT', 'XY Evolutions', '10', 'Charizard - Holo', '11/108', '4123456003'])).toMatchObject({ set: 'XY Evolutions', name: 'Charizard - Holo' });
    // the set line not read: the one line after the game is the name
    expect(readLabelText(['Pokémon (1999)', 'Charizard - Holo', '4/102', 'MINT', '9', 'CGC', '4123456002'])).toMatchObject({ set: null, name: 'Charizard - Holo' });
    // a set named on the year's line (the drawn labels of test/helpers/slab-labels.ts): the next line is the name
    expect(readLabelText(['CGC', 'POKEMON EVOLUTIONS (2016)', 'PIKACHU', '#35', 'ENGLISH', '10', 'PRISTINE', '4123456001'])).toMatchObject({ set: 'EVOLUTIONS', name: 'PIKACHU' });
  });

  it("reads a CGC label of a game no list names the same way: `Disney Lorcana (2023)` is the game, the set on the next line (the set was the name)", () => {
    expect(readLabelText(['Disney Lorcana (2023)', 'The First Chapter', 'Elsa - Spirit of Winter', 'GEM MINT', '10', 'CGC', '4123456001'])).toMatchObject({
      company: 'CGC',
      year: '2023',
      brand: 'Disney Lorcana',
      set: 'The First Chapter',
      name: 'Elsa - Spirit of Winter',
      full_name: '2023 Disney Lorcana The First Chapter Elsa - Spirit of Winter',
    });
    expect(readLabelText(['CGC', 'Disney Lorcana (2023)', 'GEM MINT', 'The First Chapter', '10', 'Elsa - Spirit of Winter', '207/204', '4123456001'])).toMatchObject({ set: 'The First Chapter', name: 'Elsa - Spirit of Winter' });
    // one line after it: the name, the words before the year staying the set (the drawn labels' `FLEER (1986)`)
    expect(readLabelText(['Disney Lorcana (2023)', 'Elsa - Spirit of Winter', 'MINT', '9', 'CGC', '4123456001'])).toMatchObject({ brand: null, set: 'Disney Lorcana', name: 'Elsa - Spirit of Winter' });
    // a comic's title with its volume's year is no game
    expect(readLabelText(['CGC', 'UNIVERSAL GRADE', '9.8', 'Batman Adventures (1992)', 'Annual 1', 'DC Comics, 1994', 'White pages', '4123456001'])).toMatchObject({ brand: null, set: 'Batman Adventures' });
  });

  it('tells a PSA label by its layout when the logo was not read (company prob 0.9), and only then', () => {
    // img217: the number read first, no "PSA"
    expect(readLabelText(['#066', '2020 POKEMON SWSH BSP', 'MINT', 'CHARIZARD-HOLO', '9', 'PRERELEASE', '72773185'])).toMatchObject({ company: 'PSA', companyProb: 0.9, name: 'CHARIZARD-HOLO', grade: 9, certificate_number: '72773185' });
    // no #number line, or a 10-digit certificate: not PSA's layout
    expect(readLabelText(['2020 POKEMON SWSH BSP', 'CHARIZARD', 'MINT', '9', '7277318512'])).toMatchObject({ company: 'OTHER', grade: 9 });
    // another grader's mark glued to GRADING as the OCR reads it, listed or not: OTHER for certain, not PSA by layout (h250)
    for (const mark of ['GMAGRADING', 'GMA GRADING', 'ZGAGRADING']) {
      expect(readLabelText([mark, '2022TOPPS', '#1', 'SHOHEIOHTANI', 'GEMMT10', '5551234']), mark).toMatchObject({ company: 'OTHER', companyProb: 1, grade: 10, name: 'SHOHEIOHTANI' });
    }
    // the seven's own words keep their company
    expect(readLabelText(['TAGGRADING', 'PIKACHU', 'GEM MINT', '10', '1234567'])).toMatchObject({ company: 'TAG' });
  });

  it('reads a BGS label: the overall grade before the subgrades, the subgrades, the certificate with its zeros', () => {
    const f = readLabelText(['1993ALPHA', 'COUNTERSPELLUB', 'ECTTRAGNG', '7.5', 'B', 'GRA', 'D', 'ETT.', 'CENTERING', 'CORNERS8', 'GRNEARMINT+', 'EDGES', '8', 'SURFACE', '8', '0010538585', 'BECKETT']);
    expect(f).toMatchObject({ company: 'BGS', year: '1993', grade: 7.5, verbal_grade: 'NEAR MINT+', certificate_number: '0010538585', name: 'COUNTERSPELLUB', set: 'ALPHA', subgrades: { corners: 8, edges: 8, surface: 8 } });
    // the set line's parts spaced though no brand is known: `1993ALPHA COUNTERSPELLUB` (h270)
    expect(f.full_name).toBe('1993 ALPHA COUNTERSPELLUB');
  });

  it('undoes an O read for a zero inside a card number, and drops subgrade words glued to a name', () => {
    expect(readLabelText(['2002 YU-GI-OH! LOB', '#LOB-O01BLUE-EYESWHITEDRAGON', 'MINT', '9', '380328299'])).toMatchObject({ card_no: 'LOB-001', name: 'BLUE-EYESWHITEDRAGON', brand: 'YU-GI-OH!', set: 'LOB' });
    expect(readLabelText(['2020 POKEMON DARKNESS ABLAZE', '#O20CHARIZARDVMAX'])).toMatchObject({ card_no: '020', name: 'CHARIZARDVMAX' });
    expect(readLabelText(['2000 POKEMON ROCKET', '#3 DARKBLASTOISE-HOLOCORNERS', '9', 'EDGES 9'])).toMatchObject({ card_no: '3', name: 'DARKBLASTOISE-HOLO' });
    expect(readLabelText(['#OC12 FOO'])).toMatchObject({ card_no: 'OC12' });
  });

  it('leaves out what it did not read: no grade, no certificate (a partly read one is none), company OTHER', () => {
    expect(readLabelText(['PSA'])).toMatchObject({ company: 'PSA', name: null, full_name: null, year: null, card_no: null, verbal_grade: null, grade: null, certificate_number: null });
    expect(readLabelText(['2021 POKEMON', 'PIKACHU', 'GEM MT', '10', '704969'])).toMatchObject({ certificate_number: null, company: 'OTHER', companyProb: 0.5 });
    // OTHER for certain only where another grader's mark was read (h165: no mark read was prob 1)
    expect(readLabelText(['KSA', 'PIKACHU', 'GEM MT', '10'])).toMatchObject({ company: 'OTHER', companyProb: 1 });
    // a misread digit is not guessed: only an O for a 0 is undone, once
    const psa = (cert: string) => readLabelText(['2023 POKEMON SV 151', '#199', 'CHARIZARD EX', 'MINT', '9', 'PSA', cert]).certificate_number;
    expect(psa('8I234567')).toBeNull();
    expect(psa('81234l67')).toBeNull();
    expect(psa('8|234567')).toBeNull();
    expect(psa('7O496957')).toBe('70496957');
    expect(psa('7O4969O7')).toBeNull();
    expect(psa('70496957')).toBe('70496957');
    expect(readLabelText(['2021 POKEMON', 'PIKACHU'])).toMatchObject({ grade: null, verbal_grade: null, company: 'OTHER' });
  });
});

/** A label's lines around given grade lines: a set line, a name, the grade lines, a certificate. */
const label = (company: string | null, ...grade: string[]) => readLabelText([...(company ? [company] : []), '2022 POKEMON BRILLIANT STARS', '#154 CHARIZARD V', ...grade, '4012345678']);

describe('grade wording per company (../shared/catalogs/slabs)', () => {
  it('PSA: GEM MT 10 … PR 1, half grades with +, qualifiers, AUTHENTIC', () => {
    const psa = (...g: string[]) => readLabelText(['2021 POKEMON CELEBRATIONS', '#004', 'CHARIZARD - HOLO', ...g, 'PSA', '12345678']);
    expect(psa('GEM MT', '10')).toMatchObject({ company: 'PSA', verbal_grade: 'GEM MT', grade: 10 });
    expect(psa('GEM - MT 10')).toMatchObject({ grade: 10 });
    expect(psa('NM - MT', '8')).toMatchObject({ verbal_grade: 'NM-MT', grade: 8 });
    expect(psa('EX - MT', '6')).toMatchObject({ verbal_grade: 'EX-MT', grade: 6 });
    expect(psa('VG-EX', '4')).toMatchObject({ grade: 4 });
    expect(psa('FR', '1.5')).toMatchObject({ verbal_grade: 'FR', grade: 1.5 });
    expect(psa('PR', '1')).toMatchObject({ verbal_grade: 'PR', grade: 1 });
    expect(psa('NM-MT+', '8.5')).toMatchObject({ verbal_grade: 'NM-MT+', grade: 8.5 });
    expect(psa('MINTOC', '9')).toMatchObject({ verbal_grade: 'MINT', grade: 9, qualifier: 'OC' });
    expect(psa('NM - MT', '8 (ST)')).toMatchObject({ grade: 8, qualifier: 'ST' });
    expect(psa('AUTHENTIC')).toMatchObject({ verbal_grade: 'AUTHENTIC', grade: null });
    // the words alone, when the number was not read
    expect(psa('NM-MT')).toMatchObject({ grade: 8 });
    expect(psa('GEM MT')).toMatchObject({ grade: 10 });
  });

  it('BGS: PRISTINE 10, BLACK LABEL, GEM MINT 9.5, the halves', () => {
    expect(label('BECKETT', 'PRISTINE', '10')).toMatchObject({ company: 'BGS', verbal_grade: 'PRISTINE', grade: 10 });
    expect(label('BGS', 'BLACK LABEL', '10')).toMatchObject({ verbal_grade: 'BLACK LABEL', grade: 10 });
    expect(label('BGS', 'GEM MINT')).toMatchObject({ verbal_grade: 'GEM MINT', grade: 9.5 });
    expect(label('BGS', '9.5', 'GEM MINT')).toMatchObject({ grade: 9.5 });
    expect(label('BGS', 'NM-MT+', '8.5')).toMatchObject({ grade: 8.5 });
    expect(label('BGS', 'EXCELLENT+')).toMatchObject({ grade: 5.5 });
    // subgrades never pass for the overall grade
    expect(label('BGS', 'CENTERING 10', 'CORNERS 9.5', 'EDGES 9.5', 'SURFACE 9', 'GEM MINT', '9.5')).toMatchObject({ grade: 9.5, subgrades: { centering: 10, corners: 9.5, edges: 9.5, surface: 9 } });
  });

  it('CGC: PRISTINE 10 and GEM MINT 10, MINT+ 9.5, NM/MINT+; comics tenths', () => {
    expect(label('CGC', 'PRISTINE', '10')).toMatchObject({ company: 'CGC', verbal_grade: 'PRISTINE', grade: 10 });
    expect(label('CGC', 'GEM MINT')).toMatchObject({ grade: 10 });
    expect(label('CGC', 'MINT+', '9.5')).toMatchObject({ verbal_grade: 'MINT+', grade: 9.5 });
    expect(label('CGC', 'NM/MINT+', '8.5')).toMatchObject({ verbal_grade: 'NM/MINT+', grade: 8.5 });
    expect(label('CGC', 'EX/NM')).toMatchObject({ grade: 6 });
    expect(label('CGC', '9.8', 'NM/M')).toMatchObject({ verbal_grade: 'NM/M', grade: 9.8 });
    expect(label('CGC', '9.4 NM')).toMatchObject({ grade: 9.4 });
  });

  it('SGC: 10 PRISTINE, GEM MINT, MINT+ 9.5, NM/MT+ 8.5', () => {
    expect(label('SGC', '10', 'PRISTINE')).toMatchObject({ company: 'SGC', verbal_grade: 'PRISTINE', grade: 10 });
    expect(label('SGC', 'MINT+ 9.5')).toMatchObject({ grade: 9.5 });
    expect(label('SGC', 'NM/MT+', '8.5')).toMatchObject({ verbal_grade: 'NM/MT+', grade: 8.5 });
    expect(label('SGC', 'EX/NM')).toMatchObject({ grade: 6 });
  });

  it('TAG: the grade beside its words, the three-digit score apart; TAG TEAM is a card, not the company', () => {
    expect(label('TAG', 'GEM MINT 10', '965')).toMatchObject({ company: 'TAG', grade: 10, score: 965 });
    expect(readLabelText(['2019 POKEMON TEAM UP', '#170 PIKACHU & ZEKROM GX TAG TEAM', 'MINT', '9', 'PSA', '12345678'])).toMatchObject({ company: 'PSA', grade: 9 });
  });

  it('ACE and HGA: ACE 10 GEM MINT; HGA FLAWLESS 10.0, GEM MINT 9.5', () => {
    expect(label('ACE', 'GEM MINT', '10')).toMatchObject({ company: 'ACE', grade: 10 });
    expect(label('ACE', 'MINT')).toMatchObject({ grade: 9 });
    expect(label('HGA', '10.0', 'FLAWLESS')).toMatchObject({ company: 'HGA', verbal_grade: 'FLAWLESS', grade: 10 });
    expect(label('HGA', 'PRISTINE MINT', '10')).toMatchObject({ verbal_grade: 'PRISTINE MINT', grade: 10 });
    expect(label('HGA', 'GEM MINT')).toMatchObject({ grade: 9.5 });
  });

  it('OTHER: a grader outside the seven, or none named', () => {
    expect(label('KSA', 'GEM MINT', '10')).toMatchObject({ company: 'OTHER', grade: 10, certificate_number: '4012345678', name: 'CHARIZARD V', card_no: '154' });
    expect(label(null, 'GEM MINT', '10')).toMatchObject({ company: 'OTHER', grade: 10 });
  });
});
