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

  it('reads a ligature written out, and the small ex misread as Cx after a name read exactly', () => {
    expect(names.english('Noeunoeuf')?.text).toBe('Exeggcute');
    expect(names.english('Nœunœuf')?.text).toBe('Exeggcute');
    expect(names.english('MiascaradeCx')?.text).toBe('Meowscarada ex');
    expect(names.english('Miascarade')?.text).toBe('Meowscarada');
    // a lone trailing e is a misread letter, not an ex
    expect(names.english('Rondoudoue')?.text).toBe('Jigglypuff');
  });

  it('puts regional forms, Radiant cards and the Calyrex riders into the catalogs’ English, in French, German, Spanish and Italian', () => {
    expect(names.english("Goupix d'Alola")?.text).toBe('Alolan Vulpix');
    expect(names.english('Typhlosion de Hisui V')?.text).toBe('Hisuian Typhlosion V');
    expect(names.english('Alola-Vulpix')?.text).toBe('Alolan Vulpix');
    // Spanish and Italian print the English species with their own form words
    expect(names.english('Vulpix de Alola')?.text).toBe('Alolan Vulpix');
    expect(names.english('Zapdos di Galar V')?.text).toBe('Galarian Zapdos V');
    expect(names.english('Ethernatos Radieux')?.text).toBe('Radiant Eternatus');
    expect(names.english('SylveroyCavalierduFroid')?.text).toBe('Ice Rider Calyrex');
    expect(names.english("Sylveroy Cavalier d'Effroi VMAX")?.text).toBe('Shadow Rider Calyrex VMAX');
    // a form word alone, or around no species, is nothing
    expect(names.english('de Galar')).toBeNull();
    expect(names.english('Dresseur de Galar')).toBeNull();
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
