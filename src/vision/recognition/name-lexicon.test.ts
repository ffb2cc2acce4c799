import { describe, expect, it } from 'vitest';
import { installedSpeciesLexicon, speciesLexicon } from './name-lexicon.ts';
import type { Spotted } from '../models/ctc-spotting.ts';

describe('speciesLexicon', () => {
  const lexicon = speciesLexicon([
    ['Bulbasaur', 'Mew', 'Oricorio', 'Exeggcute', 'Plum'],
    ['Bulbizarre', 'Mew', 'Plumeline', 'Nœunœuf', 'Plum'],
  ]);

  it('holds each species’ spellings the recogniser can read, once, in its group, and no short name', () => {
    const of = (group: number) => lexicon.words.filter((_, k) => lexicon.groups[k] === group);
    expect(of(0)).toEqual(['Bulbasaur', 'Bulbizarre']);
    expect(of(1)).toEqual([]);
    expect(of(3)).toEqual(['Exeggcute', 'Noeunoeuf']);
  });

  it('wants a line that begins with no name as read, of four letters or more', () => {
    expect(lexicon.wants('Punelino')).toBe(true);
    expect(lexicon.wants('HrachiRadieux')).toBe(true);
    expect(lexicon.wants('Plumeline')).toBe(false);
    expect(lexicon.wants('Plumeline V')).toBe(false);
    expect(lexicon.wants('Noeunoeuf')).toBe(false);
    expect(lexicon.wants('Bulbizarre-GX')).toBe(false);
    // a long name read whole after something else; a short one there is chance
    expect(lexicon.wants('tEPlumelineV')).toBe(false);
    expect(lexicon.wants('tEPlumeVMAX')).toBe(true);
    expect(lexicon.wants('120')).toBe(false);
    expect(lexicon.wants('Abc')).toBe(false);
  });

  it('accepts a word cheap per letter and well ahead of any other species', () => {
    const found = (perLetter: number, margin: number, worst = 1.6): Spotted => ({ word: 'Plumeline', group: 2, placement: { cost: perLetter * 9, worst, from: 0, to: 20 }, score: perLetter * 9, perLetter, margin });
    expect(lexicon.accepts(found(0.47, 2.7))).toBe(true);
    expect(lexicon.accepts(found(3.8, 5))).toBe(false);
    expect(lexicon.accepts(found(0.5, 1))).toBe(false);
    // one letter read surely as another, on a long name cheap per letter: a name read exactly, not this one
    expect(lexicon.accepts(found(1.2, 4, 11))).toBe(false);
  });

  it('holds each form’s prints as a group of its own, and wants a line that begins with a species with forms and goes on', () => {
    const withForms = speciesLexicon(
      [
        ['Bulbasaur', 'Mew', 'Oricorio'],
        ['Bulbizarre', 'Mew', 'Plumeline'],
      ],
      [
        { species: [0], prints: [[], ['{} Radieux']] },
        { species: [0, 2], prints: [[], ["{} d'Alola"]] },
      ],
    );
    const groupOf = (word: string) => withForms.groups[withForms.words.indexOf(word)];
    expect(groupOf('Bulbizarre')).toBe(0);
    expect(groupOf('Bulbizarre Radieux')).toBe(3);
    expect(groupOf('BulbizarreRadieux')).toBe(3);
    expect(groupOf("Plumeline d'Alola")).toBe(8);
    expect(groupOf('PlumelinedAlola')).toBe(8);
    // each form's print says whose form it is (a word going on from its species is taken for it: ctc-spotting.ts)
    const formOf = (word: string) => withForms.formOf![withForms.words.indexOf(word)];
    expect(formOf('BulbizarreRadieux')).toBe(0);
    expect(formOf('PlumelinedAlola')).toBe(2);
    expect(formOf('Plumeline')).toBeUndefined();
    // English names have no prints here: no `Bulbasaur Radieux`
    expect(withForms.words.filter((w) => w.startsWith('Bulbasaur'))).toEqual(['Bulbasaur']);
    expect(withForms.wants('BulbizarreRdlauR')).toBe(true);
    expect(withForms.wants('PlumelinesAl')).toBe(true);
    // read whole, or a card suffix after the name, or too few letters after it: the lookups read those
    expect(withForms.wants('BulbizarreRadieux')).toBe(false);
    expect(withForms.wants('Bulbizarre-GX')).toBe(false);
    expect(withForms.wants('BulbizarreVMAX')).toBe(false);
    expect(withForms.wants('BulbizarreRa')).toBe(false);
    expect(withForms.wants('BulbasaurRdlauR')).toBe(false);
  });

  it('wants no line that begins with a name and a card suffix, nor one that goes on from a name whose forms are printed before it', () => {
    // Arcanin is Arcanine in French, Mauzi Meowth in German (`Alola-Mauzi`) and Mauzinger Perrserker
    const lexicon = speciesLexicon(
      [
        ['Arcanine', 'Meowth', 'Perrserker'],
        ['Arcanin', 'Miaouss', 'Berserkatt'],
        ['Arkani', 'Mauzi', 'Mauzinger'],
      ],
      [
        { species: [0], prints: [[], ['{} de Hisui'], ['Hisui-{}']] },
        { species: [1], prints: [[], ["{} d'Alola"], ['Alola-{}']] },
      ],
    );
    expect(lexicon.wants('ArcanindeHsul')).toBe(true);
    expect(lexicon.wants('MiaoussdAlol')).toBe(true);
    // the longer name the line begins with has the suffix after it: `Arcanin` and `egx` is no form misread
    expect(lexicon.wants('ArcanineGX')).toBe(false);
    expect(lexicon.wants('Arcanine ex')).toBe(false);
    expect(lexicon.wants('ArcanineBREAK')).toBe(false);
    // a German form word stands before the name: nothing after `Mauzi` is one
    expect(lexicon.wants('MauzingerV')).toBe(false);
    expect(lexicon.wants('MauziRdlauR')).toBe(false);
  });

  it('is built from the installed package’s lists', () => {
    const installed = installedSpeciesLexicon();
    expect(installed.words).toContain('Plumeline');
    expect(installed.words).toContain('Jirachi');
    expect(installed.words.length).toBeGreaterThan(2000);
  });
});
