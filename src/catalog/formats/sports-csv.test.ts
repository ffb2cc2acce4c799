import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogFileError, fixture, readContext, scratchDir } from '../../../test/helpers/catalogs.ts';
import { readSports } from './sports-csv.ts';

const checklist = fixture('sports/topps_checklist.csv');

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());


describe('sport checklists (Topps CSV)', () => {
  it('keys a card by set, subset and number, since insert numbers restart at 1 in each subset', async () => {
    const read = await readSports(checklist, readContext());
    expect(read).toMatchObject({ format: 'sports', rank: 2, records: 6 });
    expect([...read.cards.rows.keys()]).toEqual([
      '2022 Topps Test Series 1|base|1',
      '2022 Topps Test Series 1|base|48',
      '2022 Topps Test Series 1|1987 Topps|1',
      '2022 Topps Test Series 2|base|331',
      '2022 Topps Test Series 2|base|332',
      '2022 Topps Test Series 2|Home Run Challenge|HRC-1',
    ]);
    const insert = read.cards.rows.get('2022 Topps Test Series 1|1987 Topps|1')!.row;
    expect(insert).toMatchObject({ name: 'Test Slugger', setName: '2022 Topps Test Series 1', number: '1', year: '2022', setCode: null });
    expect(insert.fields).toMatchObject({ sub_set: '1987 Topps', card_type: 'insert', company: 'Topps', sport: 'baseball' });
  });

  it('splits combo cards into players and teams, and attributes on "; "', async () => {
    const read = await readSports(checklist, readContext());
    const leaders = read.cards.rows.get('2022 Topps Test Series 1|base|48')!.row;
    expect(leaders.name).toBe('Slugger / Pitcher / Catcher');
    expect(leaders.fields).toMatchObject({ players: ['Slugger', 'Pitcher', 'Catcher'], teams: ['AL HR Leaders'], attributes: ['League Leaders'] });
    expect(read.cards.rows.get('2022 Topps Test Series 2|base|331')!.row.fields.attributes).toEqual(['Rookie Card', 'Short Print']);
  });

  it('stores Series 2 base rows that say card_type insert as base, keeping what the file said', async () => {
    const ctx = readContext();
    const read = await readSports(checklist, ctx);
    const base = read.cards.rows.get('2022 Topps Test Series 2|base|331')!.row;
    expect(base.fields).toMatchObject({ card_type: 'base', card_type_given: 'insert' });
    // A real insert keeps its type and has nothing given.
    expect(read.cards.rows.get('2022 Topps Test Series 2|Home Run Challenge|HRC-1')!.row.fields).not.toHaveProperty('card_type_given');
    expect(ctx.remarks.list()).toEqual(['2 rows of subset "base" said card_type "insert": stored as base (card_type_given keeps it) (first: 2022 Topps Test Series 2 #331 on line 5)']);
  });

  it('names a missing column, a broken quote and an empty player by line', async () => {
    const text = await fs.readFile(checklist, 'utf8');
    const noPlayers = text.replace(',players,', ',player,');
    expect((await catalogFileError(readSports(await files.write('no-players.csv', noPlayers), readContext()))).message).toMatch(/no-players\.csv line 1: the header lacks "players"/);
    const quote = text.replace('Veteran Tester,', '"Veteran Tester,');
    expect((await catalogFileError(readSports(await files.write('quote.csv', quote), readContext()))).message).toMatch(/quote\.csv line 6: a quoted field is not closed/);
    const empty = text.replace('Rookie Tester', '');
    expect((await catalogFileError(readSports(await files.write('empty.csv', empty), readContext()))).message).toMatch(/empty\.csv line 5: "players" is missing/);
    // a year that is no year is refused, not stored empty
    const lines = text.split('\n');
    lines[2] = lines[2]!.replace(/^2022/, 'abcd');
    expect((await catalogFileError(readSports(await files.write('year.csv', lines.join('\n')), readContext()))).message).toMatch(/year\.csv line 3: "year" must be a year \(four digits\), not "abcd"/);
    // a season is its first year, and kept as the checklist gives it (h224: 2003-04 was stored as 2003, the text lost)
    lines[2] = lines[2]!.replace(/^abcd/, '2003-04');
    const season = (await readSports(await files.write('season.csv', lines.join('\n')), readContext())).cards.rows.get('2022 Topps Test Series 1|base|48')!.row;
    expect([season.year, season.fields.year]).toEqual(['2003', '2003-04']);
  });
});
