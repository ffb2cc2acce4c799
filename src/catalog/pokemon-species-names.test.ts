import { describe, expect, it } from 'vitest';
import { installedSpeciesNames, speciesNames } from './pokemon-species-names.ts';

describe('Pokémon species names', () => {
  const names = installedSpeciesNames();

  it('puts a French, German or Chinese species name into English, its card suffix kept', () => {
    expect(names.english('Khélocrok')?.text).toBe('Chewtle');
    expect(names.english('Moumouflon V')).toEqual({ text: 'Dubwool V', norm: 'dubwoolv' });
    expect(names.english('Dracaufeu-GX')?.text).toBe('Charizard GX');
    expect(names.english('Salameche')?.text).toBe('Charmander');
    expect(names.english('Glurak VMAX')?.text).toBe('Charizard VMAX');
    expect(names.english('喷火龙')?.text).toBe('Charizard');
  });

  it('reads a long name with one letter misread, never a short one, and leaves English names and other words alone', () => {
    expect(names.english('Khelocrak')?.text).toBe('Chewtle');
    expect(names.english('Abo')?.text).toBe('Ekans');
    expect(names.english('Abx')).toBeNull();
    expect(names.english('Pikachu')).toBeNull();
    expect(names.english('Charizard ex')).toBeNull();
    for (const word of ['Dresseur', 'Faiblesse', 'Résistance', 'Retraite', 'Supporter', 'Pokémon', 'Energie']) expect(names.english(word)).toBeNull();
  });

  it('says nothing of a name two species share, or of a misreading as near to two', () => {
    const s = speciesNames(['Alpha', 'Beta', 'Gamma'], [['Eins', 'Eins', 'Abcdefgh'], ['Uno', 'Dos', 'Abcdefgz']]);
    expect(s.english('Eins')).toBeNull();
    expect(s.english('Dos')?.text).toBe('Beta');
    expect(s.english('Abcdefgh')?.text).toBe('Gamma');
  });
});
