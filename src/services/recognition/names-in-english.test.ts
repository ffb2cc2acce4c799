import { describe, expect, it } from 'vitest';
import { readCardText, type CardTextLine } from './card-text.ts';
import { spottedSpecies, withNamesInEnglish } from './names-in-english.ts';
import { installedSpeciesNames } from '../../catalog/pokemon-species-names.ts';

const line = (text: string, y: number, spotted?: { text: string; word: string; outside: number }): CardTextLine => ({ text, prob: 0.9, box: { x0: 0.2, y0: y, x1: 0.6, y1: y + 0.045 }, ...(spotted ? { spotted } : {}) });

describe('spottedSpecies', () => {
  const species = installedSpeciesNames();

  it('names the species spotted in a misread line, with the form the line shows around it', () => {
    expect(spottedSpecies(species, { text: 'Plumeline', word: 'Plumeline', outside: 0 })?.text).toBe('Oricorio');
    expect(spottedSpecies(species, { text: 'JirachiRadieux', word: 'Jirachi', outside: 7 })?.text).toBe('Radiant Jirachi');
    // a form spotted with its species (name-lexicon.ts)
    expect(spottedSpecies(species, { text: 'EthernatosRadieux', word: 'EthernatosRadieux', outside: 0 })?.text).toBe('Radiant Eternatus');
    // a tail of a letter the lookup cannot read leaves the species alone
    expect(spottedSpecies(species, { text: 'Sarmuraic', word: 'Sarmuraï', outside: 1 })?.text).toBe('Golisopod');
    // an English name as it is
    expect(spottedSpecies(species, { text: 'Jirachi', word: 'Jirachi', outside: 0 })).toEqual({ text: 'Jirachi', norm: 'jirachi' });
    expect(spottedSpecies(species, { text: 'Nothing', word: 'Nothing', outside: 0 })).toBeNull();
    // another card's name around a species' (a Magic card, Steel Leaf Champion, holds Seel) is not the species
    expect(spottedSpecies(species, { text: 'SeelLeafChampion', word: 'Seel', outside: 13 })).toBeNull();
  });
});

describe('withNamesInEnglish', () => {
  it('takes a top-band line’s spotted name only where the line as read names nothing', () => {
    const clues = withNamesInEnglish(
      readCardText([
        line('Punelino', 0.05, { text: 'Plumeline', word: 'Plumeline', outside: 0 }),
        line('90', 0.04),
        // read as a name already: what was spotted beside it does not count
        line('Limagma', 0.09, { text: 'Plumeline', word: 'Plumeline', outside: 0 }),
        // low on the card: nothing spotted is kept
        line('Voltoutou', 0.6, { text: 'Plumeline', word: 'Plumeline', outside: 0 }),
      ]),
    );
    const byText = new Map(clues.names.map((n) => [n.text, n.english?.text]));
    expect(byText.get('Punelino')).toBe('Oricorio');
    expect(byText.get('Limagma')).toBe('Slugma');
    expect(clues.names.find((n) => n.text === 'Voltoutou')?.spotted).toBeUndefined();
  });
});
