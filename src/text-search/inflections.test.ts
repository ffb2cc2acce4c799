import { describe, expect, it } from 'vitest';
import { inflectedForms, stemLanguages, untoldRecordLanguages } from './inflections.ts';
import { foldText } from './text-fold.ts';

describe('inflectedForms', () => {
  it("exchanges a word's inflection ending for its language's others", () => {
    expect(inflectedForms('zapatos', ['es'])).toEqual(expect.arrayContaining(['zapato', 'zapata', 'zapatas']));
    expect(inflectedForms('chitarre', ['it'])).toContain('chitarra');
    expect(inflectedForms(foldText('Ferngläser'), ['de'])).toContain('fernglas');
    expect(inflectedForms('kaffeetassen', ['de'])).toContain('kaffeetasse');
    expect(inflectedForms('сумки', ['ru'])).toContain('сумка');
    expect(inflectedForms('horozlar', ['tr'])).toContain('horoz');
    expect(inflectedForms('chevaux', ['fr'])).toContain('cheval');
    expect(inflectedForms('zapatos', ['es'])).not.toContain('zapatos');
  });

  it('makes no longer word that only begins as the word does (h292: "jackal" found "Jackpot", "carpet" "Carpenter")', () => {
    const all = [...untoldRecordLanguages, 'pl', 'tr', 'ru', 'id'];
    for (const [word, other] of [['jackal', 'jackpot'], ['jackal', 'jacket'], ['carpet', 'carpenter'], ['zapatos', 'zapatero'], ['cuaderno', 'cuadernillo'], ['nikon', 'nikola']]) {
      expect(inflectedForms(word!, all), word).not.toContain(other);
    }
    // French -al/-aux is a list of its own: a word in -al is not its bare stem
    expect(inflectedForms('national', ['fr'])).not.toContain('nation');
  });

  it('keeps a stem of four letters or more, three in Russian', () => {
    expect(inflectedForms('casas', ['es'])).toContain('casa');
    expect(inflectedForms('casas', ['es'])).not.toContain('caso');
    // search-quality's "часов" for "Настенные часы с маятником": a 422 on SQLite, found on PostgreSQL
    expect(inflectedForms('часов', ['ru'])).toContain('часы');
  });

  it('exchanges endings within one language only', () => {
    // Turkish `lar` and Swedish `arna` never meet
    expect(inflectedForms('horozlar', ['tr', 'sv'])).not.toContain('horozarna');
  });
});

describe('stemLanguages', () => {
  it("is the query's language and the records' where they have endings, a record of no told language's European ones", () => {
    expect(stemLanguages('simple', ['en'])).toEqual([]);
    expect(stemLanguages('simple', ['simple'])).toEqual([...untoldRecordLanguages]);
    expect(stemLanguages('es', ['en', 'ru', 'zh'])).toEqual(['es', 'ru']);
    expect(stemLanguages('en', ['en'])).toEqual([]);
  });
});
