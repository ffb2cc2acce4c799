import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogFileError, fixture, readContext, scratchDir } from '../../../test/helpers/catalogs.ts';
import { foldedNumber } from '../catalog-rows.ts';
import { readYugioh } from './yugioh.ts';

const json = fixture('yugioh/cards.json');
const csv = fixture('yugioh/printings_en.csv');

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());


describe('Yu-Gi-Oh! cards.json (yaml-yugi)', () => {
  it('makes one row per English printing and rarity, keyed by code, rarity, set and card', async () => {
    const ctx = readContext();
    const read = await readYugioh(json, ctx);
    expect(read).toMatchObject({ format: 'yugioh', rank: 2, records: 4 });
    expect([...read.cards.rows.keys()]).toEqual([
      'TST-EN001|Ultra Rare|Legend of Test Dragon|10000001',
      'TST25-EN001|Ultra Rare|Test Anniversary Set|10000001',
      'TST25-EN001|Secret Rare|Test Anniversary Set|10000001',
      // No password nor Konami id: the card is named by its name.
      'BETT-EN0??||Beyond the Test|name-Audtest, Progenitor of the Test Expanse',
      'card|10000003',
      'TST-EN050|Common|Legend of Test Dragon|10000004',
      'TST-EN050|Short Print|Legend of Test Dragon|10000004',
      'BETT-EN0??||Beyond the Test|10000004',
    ]);
    const first = read.cards.rows.get('TST-EN001|Ultra Rare|Legend of Test Dragon|10000001')!.row;
    expect(first).toMatchObject({ name: 'Test Dragon of Light', setCode: 'TST', setName: 'Legend of Test Dragon', number: 'TST-EN001', rarity: 'Ultra Rare', year: null, flags: [] });
    expect(first.fields).toMatchObject({ password: 10000001, konami_id: 90001, name_ja: 'テストドラゴン', attribute: 'LIGHT', monster_type_line: 'Dragon / Normal' });
    expect(first.fields).not.toHaveProperty('sets_en');
    expect(first.fields).not.toHaveProperty('sets_ja');
  });

  it('keeps placeholder codes like BETT-EN0?? as printed but never as a number to match', async () => {
    const ctx = readContext();
    const read = await readYugioh(json, ctx);
    const placeholders = [...read.cards.rows.values()].map((r) => r.row).filter((r) => r.number === 'BETT-EN0??');
    expect(placeholders).toHaveLength(2);
    for (const row of placeholders) {
      expect(row.flags).toEqual(['placeholder_code']);
      expect(row.setCode).toBe('BETT');
      expect(foldedNumber(row)).toBeNull();
    }
    expect(foldedNumber(read.cards.rows.get('TST-EN050|Common|Legend of Test Dragon|10000004')!.row)).toBe('TST-EN050');
    expect(ctx.remarks.list()).toEqual(['2 printings have a placeholder print code (kept, never matched as a number) (first: BETT-EN0?? on line 3)']);
  });

  it('keeps a card with Japanese printings only as one row without a number', async () => {
    const read = await readYugioh(json, readContext());
    expect(read.cards.rows.get('card|10000003')!.row).toMatchObject({ name: 'Test Spell Circle', number: null, setCode: null, flags: ['no_english_printing'] });
  });

  it('names the record and the entry of a malformed printing list', async () => {
    const text = (await fs.readFile(json, 'utf8')).replace('["TST-EN050","Legend of Test Dragon",["Common","Short Print"]]', '["TST-EN050"]');
    const err = await catalogFileError(readYugioh(await files.write('bad-sets.json', text), readContext()));
    expect(err.message).toMatch(/bad-sets\.json line 5 \(record 4\): "sets_en" entry 1 must be \[print code, set name, \[rarities\] or null\], not \["TST-EN050"\]/);
  });
});

describe('another game\'s file under --kind yugioh', () => {
  it('refuses a record with none of yaml-yugi\'s fields at its line, naming the game it looks like, rather than a card without printings', async () => {
    const cases: [string, unknown[], RegExp][] = [
      // a Scryfall file was read as 2 Yu-Gi-Oh! cards named like the Magic ones, exit 0 (h339)
      ['scryfall.json', JSON.parse(await fs.readFile(fixture('mtg/scryfall-default-cards.json'), 'utf8')) as unknown[], /looks like a Magic card \(--kind mtg\)/],
      ['pokemon.json', [{ id: 'base1-4', name: 'Charizard', supertype: 'Pokémon', set: 'base1', number: '4' }], /looks like a Pokémon card \(--kind pokemon\)/],
      ['ygoprodeck.json', [{ id: 89631139, name: 'Blue-Eyes White Dragon', type: 'Normal Monster', card_sets: [{ set_code: 'LOB-001' }] }], /looks like a YGOPRODeck card/],
      ['other.json', [{ name: 'Something' }], /\(a file of another --kind\?\)$/],
    ];
    for (const [name, records, said] of cases) {
      const err = await catalogFileError(readYugioh(await files.write(name, JSON.stringify(records)), readContext()));
      expect(err.where).toBe('line 1 (record 1)');
      expect(err.problem).toMatch(/^is no yaml-yugi card: it has none of "sets_en", "sets_ja", "password", "konami_id", "card_type", "yugipedia_page_id"/);
      expect(err.problem).toMatch(said);
    }
    // a yaml-yugi card with Japanese printings only, or with nothing but its type, is still one
    const read = await readYugioh(await files.write('bare.json', JSON.stringify([{ name: 'Bare Card', card_type: 'Spell' }])), readContext());
    expect([...read.cards.rows.keys()]).toEqual(['card|name-Bare Card']);
  });
});

describe('Yu-Gi-Oh! printings_en.csv', () => {
  it('reads printings with their quirks: no code, placeholder codes, older codes, no rarity, no password, quoted names', async () => {
    const ctx = readContext();
    const read = await readYugioh(csv, ctx);
    expect(read).toMatchObject({ format: 'yugioh-csv', rank: 1, records: 6 });
    const rows = [...read.cards.rows.values()].map((r) => r.row);
    expect(rows[0]).toMatchObject({ key: '||Masterpiece Test: Platinum Dragon|10000001', number: null, setCode: null, flags: ['no_print_code'] });
    expect(rows.find((r) => r.number === 'TSK-001')).toMatchObject({ setCode: 'TSK', rarity: 'Common', fields: { password: 10000004, konami_id: 90004 } });
    expect(rows.find((r) => r.number === 'BETT-EN0??')).toMatchObject({ key: 'BETT-EN0??||Beyond the Test|name-Audtest, Progenitor of the Test Expanse', flags: ['placeholder_code'], fields: {} });
    // Password without a Konami id; a name with doubled quotes.
    expect(rows.find((r) => r.number === 'TST-EN050')).toMatchObject({ name: 'Test "Trap" Hole', fields: { password: 10000004 } });
    expect(ctx.remarks.list()).toEqual([
      '1 printings have no print code (first: "Masterpiece Test: Platinum Dragon" on line 2)',
      '1 printings have a placeholder print code (kept, never matched as a number) (first: BETT-EN0?? on line 5)',
    ]);
  });

  it('names a missing column, a broken quote and a short row by line', async () => {
    const text = await fs.readFile(csv, 'utf8');
    const noRarity = text.replace('set_number,set_name,rarity,', 'set_number,set_name,grade,');
    expect((await catalogFileError(readYugioh(await files.write('no-rarity.csv', noRarity), readContext()))).message).toMatch(/no-rarity\.csv line 1: the header lacks "rarity"/);
    const quote = text.replace('"Audtest, Progenitor of the Test Expanse"', '"Audtest, Progenitor" of the Test Expanse');
    const q = await catalogFileError(readYugioh(await files.write('quote.csv', quote), readContext()));
    expect(q.message).toMatch(/quote\.csv line 5: text after the closing quote of field 6/);
    const short = text.replace('TSK-001,Starter Deck: Test Kaiba,Common,10000004,90004,', 'TSK-001,Starter Deck: Test Kaiba,Common,10000004,');
    expect((await catalogFileError(readYugioh(await files.write('short.csv', short), readContext()))).message).toMatch(/short\.csv line 6: 5 fields where the header has 6 columns/);
    const badPassword = text.replace('TSK-001,Starter Deck: Test Kaiba,Common,10000004', 'TSK-001,Starter Deck: Test Kaiba,Common,1000000x');
    expect((await catalogFileError(readYugioh(await files.write('password.csv', badPassword), readContext()))).message).toMatch(/password\.csv line 6: "password" must be an integer, not "1000000x"/);
  });
});
