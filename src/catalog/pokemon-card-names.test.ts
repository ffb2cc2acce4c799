import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CARD_NAMES_FILE, cardNames, installedCardNames, printedForms, type CardNameTable } from './pokemon-card-names.ts';

/** A table in the shipped one's languages: English, French, German, Spanish, Italian, Portuguese. */
const tableOf = (names: string[][]): CardNameTable => ({ source: 'test', languages: ['fr', 'de', 'es', 'it', 'pt'], names });
const table = tableOf([
  ['League Staff', 'Employés de la Ligue', 'Liga-Mitarbeiter', 'Personal de la Liga', 'Staff della Lega', 'Equipe da Liga'],
  ['Opal', 'Sally', 'Papella', 'Sally', 'Opale', 'Opala'],
  ['Potion', 'Potion', 'Trank', 'Poción', 'Pozione', 'Poção'],
  ['Switch', 'Échange', 'Wechsel', 'Cambio', 'Scambio', 'Troca'],
  ['Energy Switch', 'Échange d’Énergie', 'Energiewechsel', 'Cambio de Energía', 'Scambio di Energia', 'Troca de Energia'],
  // two cards one language names alike: the name says nothing
  ['Great Ball', 'Super Ball', '', '', '', ''],
  ['Ultra Ball', 'Super Ball', '', '', '', ''],
]);

describe('cardNames', () => {
  const names = cardNames(table);
  it('reads a trainer name in any language as the English card, however the recogniser spaced it', () => {
    expect(names.english('Employesdela Ligue')).toEqual({ text: 'League Staff', norm: 'leaguestaff' });
    expect(names.english('Liga-Mitarbeiter')?.text).toBe('League Staff');
    expect(names.english('Sally')?.text).toBe('Opal');
    expect(names.english("Échange d'Énergie")?.text).toBe('Energy Switch');
    expect(names.english('Echange')?.text).toBe('Switch');
  });

  it('reads an ß as the recogniser reads it, a B (h187)', () => {
    const names = installedCardNames();
    expect(names.english('GroBer Luftballon')?.text).toBe('Big Air Balloon');
    expect(names.english('SchweiBbrenner')?.text).toBe('Blowtorch');
    expect(names.english('Schweisbrenner')?.text).toBe('Blowtorch');
  });

  it('leaves English names, names shared by two cards and short misreadings alone', () => {
    expect(names.english('Potion')).toBeNull();
    expect(names.english('League Staff')).toBeNull();
    expect(names.english('Super Ball')).toBeNull();
    // one letter off counts from seven letters on
    expect(names.english('Liga-Mitarbeitr')?.text).toBe('League Staff');
    expect(names.english('Sallx')).toBeNull();
  });

  it('reads a special energy whose type the card prints as a symbol, or in its own language', () => {
    expect(printedForms('Énergie Metal Revêtement', 'fr')).toEqual(['Énergie Metal Revêtement', 'Énergie Revêtement', 'Énergie Métal Revêtement']);
    expect(printedForms('Wachsende Grass-Energie', 'de')).toEqual(['Wachsende Grass-Energie', 'Wachsende Energie', 'Wachsende Pflanzen-Energie']);
    expect(printedForms('Académie de Nuit', 'fr')).toEqual(['Académie de Nuit']);
    // only energies: a trainer named for a type keeps its name whole
    expect(printedForms('Élixir de Dragon', 'fr')).toEqual(['Élixir de Dragon']);
    expect(printedForms('Disco de Metal', 'pt')).toEqual(['Disco de Metal']);
    // a type word the language spells as English does is the card's own word
    expect(printedForms('Double Énergie Dragon', 'fr')).toEqual(['Double Énergie Dragon']);
    expect(printedForms('Energia Metal Revestida', 'pt')).toEqual(['Energia Metal Revestida']);
    const energies = cardNames(
      tableOf([
        ['Coating Metal Energy', 'Énergie Metal Revêtement', 'Schicht-Metal-Energie', '', '', ''],
        ['Basic Fighting Energy', 'Énergie Fighting de base', '', '', '', ''],
        ['Basic Lightning Energy', 'Énergie Lightning de base', '', '', '', ''],
      ]),
    );
    expect(energies.english('EnergieRevetement')?.text).toBe('Coating Metal Energy');
    expect(energies.english('Énergie Métal Revêtement')?.text).toBe('Coating Metal Energy');
    expect(energies.english('Schicht-Energie')?.text).toBe('Coating Metal Energy');
    // the type was all that told two basic energies apart: without it the name says nothing
    expect(energies.english('Énergie de base')).toBeNull();
    expect(energies.english('Énergie Combat de base')?.text).toBe('Basic Fighting Energy');
    // the shipped table: a French Double Colorless Energy read without its last word names no card
    expect(installedCardNames().english('Double Énergie')).toBeNull();
    expect(installedCardNames().english('Élixir de')).toBeNull();
    expect(installedCardNames().english('Énergie Revêtement')?.text).toBe('Coating Metal Energy');
  });

  it('ships a table of every language it names, each row an English name and one name per language', () => {
    const shipped = JSON.parse(fs.readFileSync(CARD_NAMES_FILE, 'utf8')) as CardNameTable;
    expect(shipped.languages).toEqual(['fr', 'de', 'es', 'it', 'pt']);
    expect(shipped.names.length).toBeGreaterThan(300);
    for (const row of shipped.names) expect(row).toHaveLength(6);
    expect(installedCardNames().english('Employés de la Ligue')?.text).toBe('League Staff');
  });
});
