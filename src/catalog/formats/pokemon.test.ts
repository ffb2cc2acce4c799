import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogFileError, fixture, readContext, scratchDir } from '../../../test/helpers/catalogs.ts';
import { readPokemon } from './pokemon.ts';

const cards = fixture('pokemon/cards.json');
const sets = fixture('pokemon/sets.json');

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());


describe('Pokémon TCG data files', () => {
  it('names a folder without card files as a folder, not "line 0 (record 1)" of it', async () => {
    const empty = await fs.mkdtemp(`${files.dir}/empty-`);
    await fs.writeFile(`${empty}/notes.txt`, 'no cards here');
    const err = await catalogFileError(readPokemon({ cards: empty }, readContext()));
    expect(err.where).toBeNull();
    expect(err.message).toBe(`${empty}: is a folder that holds no .json files of cards (--cards takes a cards file, or the data project's folder of per-set files)`);
  });

  it('reads cards and sets; a card takes its set name and release year', async () => {
    const ctx = readContext();
    const read = await readPokemon({ cards, sets }, ctx);
    expect(read).toMatchObject({ format: 'pokemon', rank: 2, records: 8 });
    expect(read.sets.map((s) => [s.code, s.name, s.printedTotal, s.total, s.releaseDate])).toEqual([
      ['tst1', 'Test Base', 3, 4, '2001-02-03'],
      ['tst2pt5', 'Gallery Test', 30, 31, '2022-05-06'],
    ]);
    expect(read.sets[0]!.extra).toMatchObject({ ptcgoCode: 'TB', cardsInFile: 4 });
    // A null ptcgoCode is not kept as a value.
    expect(read.sets[1]!.extra).not.toHaveProperty('ptcgoCode');
    expect([...read.cards.rows.keys()]).toEqual(['tst1-1', 'tst1-2', 'tst1-3', 'tst1-4', 'tst2pt5-TG05', 'tst2pt5-12']);
    const tg = read.cards.rows.get('tst2pt5-TG05')!.row;
    expect(tg).toMatchObject({ name: 'Field Researcher', setCode: 'tst2pt5', setName: 'Gallery Test', number: 'TG05', rarity: 'Trainer Gallery Rare Holo', year: '2022' });
    expect(tg.fields).toMatchObject({ supertype: 'Trainer', subtypes: ['Supporter'], regulationMark: 'F', images: { small: expect.stringContaining('TG05.png') } });
    // Taken columns are not repeated in fields.
    expect(tg.fields).not.toHaveProperty('name');
    expect(tg.fields).not.toHaveProperty('number');
    // A card without a rarity (295 in the real file) keeps null.
    expect(read.cards.rows.get('tst1-3')!.row.rarity).toBeNull();
    expect(ctx.remarks.list()).toEqual([]);
  });

  it('without a sets file, says how many cards name an unknown set and leaves their set name and year empty', async () => {
    const ctx = readContext();
    const read = await readPokemon({ cards }, ctx);
    expect(read.cards.rows.get('tst1-1')!.row).toMatchObject({ setName: null, year: null });
    expect(ctx.remarks.list()).toEqual(['6 cards name a set that is in neither the sets file nor the catalog: no set name or year for them (first: "tst1" on line 2)']);
  });

  it('takes the sets a catalog already holds for cards imported without a sets file', async () => {
    const known = new Map([['tst1', { code: 'tst1', name: 'Known Base', series: null, printedTotal: 3, total: 4, releaseDate: '1999-01-09', extra: {} }]]);
    const ctx = readContext(known);
    const read = await readPokemon({ cards }, ctx);
    expect(read.cards.rows.get('tst1-2')!.row).toMatchObject({ setName: 'Known Base', year: '1999' });
    expect(ctx.remarks.list()).toEqual(['2 cards name a set that is in neither the sets file nor the catalog: no set name or year for them (first: "tst2pt5" on line 6)']);
  });

  it('names the line and field of a card without a number, or with a field of the wrong type', async () => {
    const lines = (await fs.readFile(cards, 'utf8')).split('\n');
    const noNumber = lines.map((l, i) => (i === 2 ? l.replace('"number":"2",', '') : l)).join('\n');
    const err = await catalogFileError(readPokemon({ cards: await files.write('no-number.json', noNumber) }, readContext()));
    expect(err.message).toBe(`${files.dir}/no-number.json line 3 (record 2): "number" is missing`);
    const badTypes = lines.map((l, i) => (i === 4 ? l.replace('"types":["Lightning"]', '"types":"Lightning"') : l)).join('\n');
    const typed = await catalogFileError(readPokemon({ cards: await files.write('bad-types.json', badTypes) }, readContext()));
    expect(typed.message).toMatch(/bad-types\.json line 5 \(record 4\): "types" must be a list of text values, not "Lightning"/);
  });

  it('refuses a set released on a day no calendar has (SQLite stored 2023-02-29, PostgreSQL refused the import, h198)', async () => {
    const text = (await fs.readFile(sets, 'utf8')).replace(/"releaseDate":\s*"[^"]+"/, '"releaseDate":"2023/02/29"');
    const err = await catalogFileError(readPokemon({ cards, sets: await files.write('feb.json', text) }, readContext()));
    expect(err.message).toMatch(/feb\.json line \d+ \(record 1\): "releaseDate" is not a day of the calendar: "2023\/02\/29"/);
  });

  it('refuses a cards file given as the sets file, naming its first card (each card became a "set", exit 0, h194)', async () => {
    const err = await catalogFileError(readPokemon({ cards, sets: cards }, readContext()));
    expect(err.message).toMatch(/cards\.json line 2 \(record 1\): this is a card \(it names its "set" and "number"\), not a set: --sets takes the sets file/);
  });

  it('keeps an identical repeated card once and counts it; a repeated key with other values names both lines', async () => {
    const lines = (await fs.readFile(cards, 'utf8')).split('\n');
    const repeated = [...lines.slice(0, 6), lines[1], ...lines.slice(6)].join('\n');
    const read = await readPokemon({ cards: await files.write('repeat.json', repeated) }, readContext());
    expect(read.cards.duplicates).toBe(1);
    expect(read.cards.rows.size).toBe(6);
    const changed = [...lines.slice(0, 6), lines[1]!.replace('"hp":"60"', '"hp":"70"'), ...lines.slice(6)].join('\n');
    const err = await catalogFileError(readPokemon({ cards: await files.write('clash.json', changed) }, readContext()));
    expect(err.message).toMatch(/clash\.json line 7 \(record 6\): card "tst1-1" is already line 2 \(record 1\) with other values/);
  });

  it('names the set repeated in a sets file and a sets file that is not an array', async () => {
    const text = await fs.readFile(sets, 'utf8');
    const twice = text.replace('"id": "tst2pt5"', '"id": "tst1"');
    expect((await catalogFileError(readPokemon({ cards, sets: await files.write('sets-twice.json', twice) }, readContext()))).message).toMatch(/line 14 \(record 2\): set "tst1" is already on line 2/);
    const object = await files.write('sets-object.json', '{"data":[{"id":"x","name":"X"}]}');
    expect((await catalogFileError(readPokemon({ cards, sets: object }, readContext()))).problem).toMatch(/a Pokémon sets file is a JSON array of sets/);
  });
});
