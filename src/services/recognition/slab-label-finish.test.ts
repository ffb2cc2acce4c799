import { describe, expect, it } from 'vitest';
import { labelFinish } from './slab-label-finish.ts';
import { readLabelText } from './slab-label-text.ts';

describe('labelFinish', () => {
  it('reads the finish after the name and on a variety line, in the words graders print', () => {
    expect(labelFinish('GYARADOS - HOLO', [])).toBe('Foil');
    expect(labelFinish('DARKBLASTOISE-HOLO', [])).toBe('Foil');
    expect(labelFinish('CHARIZARD HOLO', [])).toBe('Foil');
    expect(labelFinish('ENTEI', ['PROMO - REVERSE FOIL'])).toBe('Foil');
    for (const variety of ['REV.FOIL', 'REV. FOIL', 'REVFOIL', 'REVERSE HOLO', 'REVERSEHOLO', '1ST EDITION HOLO', 'SHADOWLESS HOLO', 'ETCHED FOIL', 'CRACKED ICE HOLO', 'COSMOS HOLO', 'HOLOFOIL', 'FOIL', 'HOLO RARE', 'STAFF - HOLO']) {
      expect(labelFinish('PIKACHU', [variety]), variety).toBe('Foil');
    }
    for (const variety of ['NON-HOLO', 'NON HOLO', 'NONHOLO', 'NON-FOIL', '1ST EDITION NON-HOLO']) expect(labelFinish('PIKACHU', [variety]), variety).toBe('Non-Foil');
    expect(labelFinish('PIKACHU - NON-HOLO', [])).toBe('Non-Foil');
  });

  it('says nothing for a name or a set holding such a word, nor for edition words alone', () => {
    // Pokémon's Holon cards and set, its stadium Reverse Valley; Magic's Foil and Etched cards
    for (const name of ["HOLON'S CASTFORM", 'HOLON LASS', 'REVERSE VALLEY', 'FOIL', 'ETCHED ORACLE', 'ETCHED CHAMPION', 'HOLO BOLT']) expect(labelFinish(name, []), name).toBeNull();
    for (const line of ['HOLON PHANTOMS - 1ST ED.', 'HOLON RSRCH.TWR - 1ST ED.', 'SIDE DECK - 1ST ED.', '1ST EDITION', 'PROMO', 'SHADOWLESS', 'HOLOGRAM #H1', 'MYSTERY BOOSTER RETAIL EDITION FOILS', '2006 POKEMON HOLON PHANTOMS']) {
      expect(labelFinish('PIKACHU', [line]), line).toBeNull();
    }
    expect(labelFinish(null, [])).toBeNull();
  });

  it('says nothing where two lines disagree', () => {
    expect(labelFinish('PIKACHU - HOLO', ['NON-HOLO'])).toBeNull();
    expect(labelFinish('PIKACHU - HOLO', ['REVERSE FOIL'])).toBe('Foil');
  });
});

// PSA labels as PP-OCRv4 reads them (../shared/datasets/graded_slabs) and as the graders print the finish
describe('readLabelText: finish', () => {
  it('reads the finish of real PSA labels, and none from HOLON in a set line or a name', () => {
    expect(readLabelText(['2006POKEMON JAPANESE', '#024', 'GYARADOS-HOLO', 'MINT', 'HOLON PHANTOMS-1STED.', '9', 'PSA', '70496967'])).toMatchObject({ finish: 'Foil', rarity: 'HOLO' });
    expect(readLabelText(['2000 P.M. JAPANESE NEO 2', '#239', 'ENTEI', 'MINT', 'PROMO - REVERSE FOIL', '9', 'PSA', '70496911'])).toMatchObject({ finish: 'Foil', rarity: 'REVERSE FOIL', name: 'ENTEI' });
    expect(readLabelText(['2019 POKEMON S & M', '#SV69', 'FA/UMBREON GX', 'MINT', 'HIDDEN FATES', '9', 'PSA', '72773169'])).toMatchObject({ finish: null });
    // a Holon card in the Holon Phantoms set, graded plain: no finish, no HOLO rarity (the set line was one before)
    expect(readLabelText(['2006 POKEMON HOLON PHANTOMS', '#90', "HOLON'S CASTFORM", 'NM-MT', '8', 'PSA', '70496968'])).toMatchObject({ finish: null, rarity: null, name: "HOLON'S CASTFORM", searchName: "HOLON'S CASTFORM" });
    expect(readLabelText(['2005 POKEMON JAPANESE', '#055', 'VAPOREON', 'NM-MT', 'HOLON RSRCH.TWR - 1ST ED.', '8', 'PSA', '70496969'])).toMatchObject({ finish: null, rarity: null });
    // Magic's Foil, graded as a foil copy: the name says nothing, the variety line does
    expect(readLabelText(['1999 MAGIC PROPHECY', 'FOIL', 'MINT', '9', 'PSA', '70496970'])).toMatchObject({ name: 'FOIL', finish: null });
    expect(readLabelText(['1999 MAGIC PROPHECY', 'FOIL', 'FOIL', 'MINT', '9', 'PSA', '70496970'])).toMatchObject({ name: 'FOIL', finish: 'Foil' });
  });

  it("says nothing from the name of Magic's Foil on a CGC label, whose set line comes before the name (h302)", () => {
    // the set was taken for the name, and the card's name then read as a variety line: Foil
    expect(readLabelText(['Magic: The Gathering (1999)', 'Prophecy', 'Foil', 'English', 'GEM MINT', '10', 'CGC', '4123456001'])).toMatchObject({ name: 'Foil', finish: null, rarity: null });
    expect(readLabelText(['Pokémon (1999)', 'Base Set', 'Charizard - Holo', '4/102', 'NM/MINT', '8', 'CGC', '4123456002'])).toMatchObject({ finish: 'Foil', rarity: 'HOLO' });
  });

  it("reads Magic's Foil printed with its finish, `Foil - Foil`: the name Foil, the finish Foil (it said none)", () => {
    // the descriptor run took both words, leaving no name before it, so the name line said nothing
    expect(labelFinish('Foil - Foil', [])).toBe('Foil');
    expect(labelFinish('FOIL-FOIL', [])).toBe('Foil');
    expect(readLabelText(['Magic: The Gathering (1999)', 'Prophecy', 'Foil - Foil', 'English', 'GEM MINT', '10', 'CGC', '4123456001'])).toMatchObject({ name: 'Foil - Foil', searchName: 'Foil', set: 'Prophecy', finish: 'Foil', rarity: null });
    expect(readLabelText(['1999 MAGIC PROPHECY', 'FOIL - FOIL', 'MINT', '9', 'PSA', '70496970'])).toMatchObject({ searchName: 'FOIL', finish: 'Foil' });
    // kept: the card's name alone says nothing, a finish word after another word says its finish, and a name line of
    // descriptor words alone (a variety read in the name's place) none
    expect(labelFinish('Foil', [])).toBeNull();
    expect(labelFinish('Prophecy Foil', [])).toBe('Foil');
    expect(readLabelText(['Magic: The Gathering (1999)', 'Prophecy Foil', 'English', 'GEM MINT', '10', 'CGC', '4123456001'])).toMatchObject({ name: 'Prophecy Foil', searchName: 'Prophecy Foil', finish: 'Foil' });
    for (const name of ['NON-HOLO', 'NON - FOIL', 'REVERSE HOLO', 'REV. FOIL', '1ST EDITION HOLO']) expect(labelFinish(name, []), name).toBeNull();
    // a name ending in a dash and FOIL is searched without it, as one ending in HOLO is
    expect(readLabelText(['2003 MAGIC 8TH EDITION', '#99', 'SHIVAN DRAGON - FOIL', 'MINT', '9', 'PSA', '70496971'])).toMatchObject({ searchName: 'SHIVAN DRAGON', finish: 'Foil' });
  });

  it('reads HOLO glued to the end of the name as the finish, the name before it (h302), and no HOLON, HOLOGRAM or NON-HOLO as one', () => {
    // no word of a Pokémon, Magic or Yu-Gi-Oh! card's name ends in "holo" (../shared/catalogs): the OCR's glue
    expect(readLabelText(['1999 POKEMON GAME', '#4', 'CHARIZARDHOLO', 'NM-MT', '8', 'PSA', '70496971'])).toMatchObject({ name: 'CHARIZARD', searchName: 'CHARIZARD', full_name: '1999 POKEMON GAME #4 CHARIZARD', rarity: 'HOLO', finish: 'Foil' });
    expect(readLabelText(['1999 POKEMON GAME', '#4 CHARIZARDHOLO', 'NM-MT', '8', 'PSA', '70496971'])).toMatchObject({ name: 'CHARIZARD', rarity: 'HOLO', finish: 'Foil' });
    expect(readLabelText(['2000 POKEMON ROCKET', '#4', 'DARK CHARIZARDHOLO', 'MINT', '9', 'PSA', '70496971'])).toMatchObject({ name: 'DARK CHARIZARD', rarity: 'HOLO', finish: 'Foil' });
    expect(readLabelText(['Pokémon (1999)', 'Base Set', 'CharizardHolo', '4/102', 'MINT', '9', 'CGC', '4123456002'])).toMatchObject({ name: 'Charizard', rarity: 'HOLO', finish: 'Foil' });
    // HOLON and HOLOGRAM go on past HOLO; a name that is HOLO alone is no glue
    expect(readLabelText(['2006 POKEMON HOLONPHANTOMS', '#90', "HOLON'SCASTFORM", 'NM-MT', '8', 'PSA', '70496968'])).toMatchObject({ name: "HOLON'SCASTFORM", rarity: null, finish: null });
    expect(readLabelText(['2006 POKEMON JAPANESE', '#90', 'CASTFORM', 'NM-MT', 'HOLONPHANTOMS', '8', 'PSA', '70496968'])).toMatchObject({ name: 'CASTFORM', rarity: null, finish: null });
    expect(readLabelText(['1992 MARVEL MASTERPIECES', '#H1 SPIDER-MANHOLOGRAM', 'NM-MT', '8', 'PSA', '12345678'])).toMatchObject({ name: 'SPIDER-MANHOLOGRAM', rarity: null, finish: null });
    expect(readLabelText(['2006 POKEMON DRAGON FRONTIERS', '#1', 'HOLON', 'NM-MT', '8', 'PSA', '12345678'])).toMatchObject({ name: 'HOLON', rarity: null, finish: null });
    // NON-HOLO glued to the name is not split as HOLO: no HOLO rarity, the name as read
    // and says no finish: a plain Snorlax glued so reads as Toucannon's foil would (`TOUCANNONHOLO`); it read Foil
    expect(readLabelText(['1999 POKEMON JUNGLE', '#27', 'SNORLAXNONHOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ name: 'SNORLAXNONHOLO', rarity: null, finish: null });
    expect(readLabelText(['1999 POKEMON JUNGLE', '#27', 'SNORLAX NONHOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ finish: 'Non-Foil' });
  });

  it('reads the name glued to HOLO at the end of a one-line label text, after the set, as the two-line form does (it gave no name)', () => {
    expect(readLabelText(['1999 POKEMON GAME CHARIZARDHOLO', 'NM-MT', '8', 'PSA', '70496971'])).toMatchObject({ year: '1999', brand: 'POKEMON', set: 'GAME', name: 'CHARIZARD', searchName: 'CHARIZARD', full_name: '1999 POKEMON GAME CHARIZARD', rarity: 'HOLO', finish: 'Foil' });
    expect(readLabelText(['1999 POKEMON GAME CHARIZARDHOLO'])).toMatchObject({ set: 'GAME', name: 'CHARIZARD', rarity: 'HOLO', finish: 'Foil' });
    expect(readLabelText(['1999 POKEMON CHARIZARDHOLO', 'NM-MT', '8', 'PSA', '70496971'])).toMatchObject({ set: null, name: 'CHARIZARD', finish: 'Foil' });
    // NON-HOLO glued: the name as read, no finish (TOUCANNONHOLO), as on its own line
    expect(readLabelText(['1999 POKEMON JUNGLE SNORLAXNONHOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ set: 'JUNGLE', name: 'SNORLAXNONHOLO', rarity: null, finish: null });
    // no name from a set line ending in HOLON, HOLOGRAM, a variety glued to HOLO, or HOLO alone; nor where the set and
    // the name are glued together (which words are whose cannot be told)
    for (const line of ['2006 POKEMON HOLONPHANTOMS', '2006 POKEMON HOLON', '1992 MARVEL MASTERPIECES HOLOGRAM', '1999 POKEMON BASE SET SHADOWLESSHOLO', '1999 POKEMON BASE SET NONHOLO', '1999 POKEMON BASE SET HOLO', '1999POKEMONGAMECHARIZARDHOLO']) {
      expect(readLabelText([line, 'NM-MT', '8', 'PSA', '70496971']).name, line).toBeNull();
    }
    // a name on its own line keeps the set line whole
    expect(readLabelText(['1999 POKEMON GAME CHARIZARDHOLO', '#4', 'BLASTOISE', 'NM-MT', '8', 'PSA', '70496971'])).toMatchObject({ name: 'BLASTOISE', set: 'GAME CHARIZARDHOLO' });
  });

  it('reads NON-HOLO as plain, no HOLO rarity, and keeps it out of the name searched', () => {
    const r = readLabelText(['1999 POKEMON JUNGLE', '#27', 'SNORLAX', 'NON-HOLO', 'GEM MT', '10', 'PSA', '70496971']);
    expect(r).toMatchObject({ name: 'SNORLAX', finish: 'Non-Foil' });
    expect(r.rarity).not.toBe('HOLO');
    expect(readLabelText(['1999 POKEMON JUNGLE', '#27', 'SNORLAX - NON-HOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ finish: 'Non-Foil', searchName: 'SNORLAX' });
  });

  it('reads the finish of a Beckett name glued to its subgrade word, and none from a label that prints none', () => {
    expect(readLabelText(['2000 POKEMON ROCKET', '#3 DARKBLASTOISE-HOLOCORNERS', '9', 'EDGES 9'])).toMatchObject({ name: 'DARKBLASTOISE-HOLO', finish: 'Foil' });
    expect(readLabelText(['1993 ALPHA', 'COUNTERSPELL U B', 'CENTERING 8', 'CORNERS 7', '7.5', 'NEAR MINT+', '0010538585'])).toMatchObject({ finish: null });
  });

  it('reads the OCR\'s glue and misreads as the words printed (h301)', () => {
    // NON's O read as a zero: plain, not foil (it was Foil, and the rarity HOLO)
    expect(labelFinish('PIKACHU', ['N0N-HOLO'])).toBe('Non-Foil');
    expect(readLabelText(['1999 POKEMON JUNGLE', '#27', 'SNORLAX', 'N0N-HOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ finish: 'Non-Foil', rarity: null });
    expect(readLabelText(['1999 POKEMON JUNGLE', '#27', 'SNORLAX - NON - HOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ finish: 'Non-Foil', rarity: null, searchName: 'SNORLAX' });
    // a descriptor glued to the finish word, as PP-OCRv4 glues a label's words (`2002POKEMONNEODESTINY`): it was no
    // finish, and no HOLO rarity where /HOLO/ had read one
    for (const v of ['1STEDITIONHOLO', 'SHADOWLESSHOLO', 'UNLIMITEDHOLO', 'COSMOSHOLO']) expect(labelFinish('PIKACHU', [v]), v).toBe('Foil');
    expect(readLabelText(['1999 POKEMON GAME', '#4', 'CHARIZARD', '1STEDITIONHOLO', 'GEM MT', '10', 'PSA', '70496971'])).toMatchObject({ finish: 'Foil', rarity: 'HOLO' });
    // CGC's name line with its number after the finish (slab-label-text.test.ts's Dragonite)
    expect(readLabelText(['CGC', 'Pokémon Fossil', 'Dragonite - Holo 4/62', 'GEM MINT', '10', '4123456001'])).toMatchObject({ finish: 'Foil' });
    expect(labelFinish('DRAGONITE - HOLO 4/62', [])).toBe('Foil');
    expect(labelFinish('FOIL 29/143', [])).toBeNull();
    // a PSA Japanese label's finish line is no set
    expect(readLabelText(['2000 POKEMON JAPANESE', '#6', 'CHARIZARD', 'HOLO-FOIL', 'MINT', '9', 'PSA', '70496971'])).toMatchObject({ set: 'JAPANESE', finish: 'Foil' });
    expect(readLabelText(['2003 MAGIC JAPANESE', '#99', 'SHIVAN DRAGON', 'FOIL', 'MINT', '9', 'PSA', '70496971'])).toMatchObject({ set: 'JAPANESE', finish: 'Foil' });
  });
});
