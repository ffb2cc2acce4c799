import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, readContext, scratchDir } from '../../../test/helpers/catalogs.ts';
import { CatalogFileError } from '../record-stream.ts';
import { ColumnMapError, parseColumnMap, readGenericCsv } from './generic-csv.ts';

const binder = fixture('csv/binder.csv');

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());

describe('--map', () => {
  it('reads target=column pairs, columns with spaces and dots as written', () => {
    expect([...parseColumnMap('name=Card Name, number=No.,set_code=Set')]).toEqual([
      ['name', 'Card Name'],
      ['number', 'No.'],
      ['set_code', 'Set'],
    ]);
  });

  it('refuses a pair without "=", an empty column and a target named twice', () => {
    expect(() => parseColumnMap('name')).toThrow(ColumnMapError);
    expect(() => parseColumnMap('name=')).toThrow(/not "name="/);
    expect(() => parseColumnMap('name=A,name=B')).toThrow(/names "name" twice/);
  });
});

describe('generic CSV catalogs', () => {
  it('maps columns, takes a column named like a target unmapped, and keeps the rest as fields', async () => {
    const read = await readGenericCsv(binder, parseColumnMap('name=Card Name,number=No.,set_code=Set'), readContext());
    expect(read).toMatchObject({ format: 'csv', rank: 2, records: 3 });
    expect([...read.cards.rows.keys()]).toEqual(['TST|232|Test Lotus', 'TST|263|Test Mox', 'TS2|232|Test Lotus, Reprint']);
    expect(read.cards.rows.get('TST|232|Test Lotus')!.row).toMatchObject({ name: 'Test Lotus', number: '232', setCode: 'TST', year: '1993', fields: { Condition: 'NM' } });
  });

  it('maps a column typed in the other Unicode form than the header writes it (h181: NFD header, NFC --map)', async () => {
    const file = await files.write('nfd.csv', 'Kartenname,Nu\u0308mmer\nGlurak,4\n');
    const read = await readGenericCsv(file, parseColumnMap('name=Kartenname,number=N\u00fcmmer'), readContext());
    expect(read.cards.rows.get('|4|Glurak')!.row).toMatchObject({ name: 'Glurak', number: '4' });
  });

  it('keeps a year column that holds no year as text under its own name, with a remark (any game\'s own file)', async () => {
    const file = await files.write('years.csv', 'name,Released\nA,Spring 1999\nB,1999\nC,   \nD,２０２３\n');
    const ctx = readContext();
    const read = await readGenericCsv(file, parseColumnMap('year=Released'), ctx);
    expect(read.cards.rows.get('||A')!.row).toMatchObject({ year: null, fields: { Released: 'Spring 1999' } });
    expect(read.cards.rows.get('||B')!.row.year).toBe('1999');
    // full-width digits, as a Japanese spreadsheet types them, are a year (they were "no year")
    expect(read.cards.rows.get('||D')!.row.year).toBe('2023');
    // an empty cell is no year, and nothing to keep
    expect(read.cards.rows.get('||C')!.row).toMatchObject({ year: null, fields: {} });
    expect(ctx.remarks.list()).toEqual(['1 record gives "Released" as no year: stored without a year, the text kept in its fields (first: line 2: "Spring 1999")']);
  });

  it('names the line of a broken quote, a missing mapped column and a missing name column', async () => {
    const quote = await files.write('quote.csv', 'name,number\nA,1\n"B,2\n');
    const err = await readGenericCsv(quote, new Map(), readContext()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogFileError);
    expect((err as Error).message).toMatch(/quote\.csv line 3: a quoted field is not closed/);
    const missing = await readGenericCsv(binder, parseColumnMap('name=Title'), readContext()).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/binder\.csv line 1: --map name=Title: the header has no column "Title"/);
    const noName = await readGenericCsv(binder, new Map(), readContext()).catch((e: unknown) => e);
    expect((noName as Error).message).toMatch(/no column holds the card name: map one with --map name=<column>/);
  });

  it('refuses two rows with the same key and other values, naming both lines', async () => {
    const twice = await files.write('twice.csv', 'name,number,set_code,price\nA,1,S,2\nA,1,S,3\n');
    const err = await readGenericCsv(twice, new Map(), readContext()).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/twice\.csv line 3: card "S\|1\|A" is already line 2 with other values/);
  });
});
