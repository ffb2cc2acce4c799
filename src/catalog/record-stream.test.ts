import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../../test/helpers/catalogs.ts';
import { CatalogFileError, CsvSplitter, firstNonUtf8, JsonSplitter, looksLikeJson, readCsvRecords, readJsonRecords, type CsvRow, type JsonRecord } from './record-stream.ts';

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection(p: Promise<unknown>): Promise<CatalogFileError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CatalogFileError);
  return err as CatalogFileError;
}

/** Splits `text` fed in chunks of `size` characters: the state machines must not care where chunks end. */
function splitJson(text: string, size = text.length): JsonRecord[] {
  const s = new JsonSplitter('f.json');
  const out: JsonRecord[] = [];
  for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size), out);
  s.end();
  return out;
}

function splitCsv(text: string, size = text.length): CsvRow[] {
  const s = new CsvSplitter('f.csv');
  const out: CsvRow[] = [];
  for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size), out);
  s.end(out);
  return out;
}

const jsonError = (text: string): CatalogFileError => {
  try {
    splitJson(text);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogFileError);
    return err as CatalogFileError;
  }
  throw new Error('expected a CatalogFileError');
};

const csvError = (text: string): CatalogFileError => {
  try {
    splitCsv(text);
  } catch (err) {
    expect(err).toBeInstanceOf(CatalogFileError);
    return err as CatalogFileError;
  }
  throw new Error('expected a CatalogFileError');
};

describe('JSON records', () => {
  const perLine = '[\n{"id":"a-1","name":"x [y] {z}"},\n{"id":"a-2","name":"quote \\" and \\\\"},\n{"id":"a-3","list":[1,[2,{"k":"]"}]]}\n]\n';

  it('reads a one-record-per-line array with the line each record starts on', () => {
    const records = splitJson(perLine);
    expect(records.map((r) => [r.line, r.index, r.path])).toEqual([
      [2, 0, null],
      [3, 1, null],
      [4, 2, null],
    ]);
    expect(records.map((r) => r.value)).toEqual(JSON.parse(perLine));
  });

  it('gives the same records whatever the chunk size, one character at a time included', () => {
    const whole = splitJson(perLine);
    for (const size of [1, 2, 3, 7, 16]) expect(splitJson(perLine, size)).toEqual(whole);
  });

  it('reads a pretty-printed array: a record starts on the line of its brace', () => {
    const pretty = JSON.stringify([{ a: 1, b: [1, 2] }, { a: 2 }, 'text', 12, null], null, 2);
    const records = splitJson(pretty, 5);
    expect(records.map((r) => r.value)).toEqual([{ a: 1, b: [1, 2] }, { a: 2 }, 'text', 12, null]);
    expect(records.map((r) => r.line)).toEqual([2, 9, 12, 13, 14]);
  });

  it('reads the arrays of a one-line top-level object and names each record by member and place', () => {
    const text = '{"sets":[{"code":"S1"}],"meta":{"v":1},"cards":[{"n":1},{"n":2}]}';
    const records = splitJson(text, 4);
    expect(records.map((r) => [r.path, r.index, r.value])).toEqual([
      ['sets', 0, { code: 'S1' }],
      // A member that is not an array is reported, not parsed.
      ['meta', null, undefined],
      ['cards', 0, { n: 1 }],
      ['cards', 1, { n: 2 }],
    ]);
    expect(records.every((r) => r.line === 1)).toBe(true);
  });

  it('names the file, the line and the record of a malformed record in a one-line object', () => {
    const err = jsonError('{"sets":[],"cards":[{"n":1},{"n":2,,},{"n":3}]}');
    expect(err.file).toBe('f.json');
    expect(err.where).toBe('line 1 ("cards" record 2)');
    expect(err.message).toMatch(/^f\.json line 1 \("cards" record 2\): is not valid JSON/);
  });

  it('refuses a record nested thousands deep at its line, before anything reads it', () => {
    const err = jsonError(`[\n{"a":1},\n{"a":${'['.repeat(5000)}${']'.repeat(5000)}}]`);
    expect(err.where).toBe('line 3 (record 2)');
    expect(err.problem).toMatch(/nests deeper than 64 levels/);
  });

  it('names the line of a malformed record in a one-per-line file', () => {
    const err = jsonError('[\n{"a":1},\n{"a":2},\n{"a":3,"b":}\n,{"a":4}]');
    expect(err.where).toBe('line 4 (record 3)');
    expect(err.problem).toMatch(/is not valid JSON/);
  });

  it('refuses empty records, trailing commas, text after the end, truncation and non-JSON starts', () => {
    expect(jsonError('[{"a":1},,{"a":2}]').problem).toMatch(/an empty record after record 1/);
    expect(jsonError('[\n{"a":1},\n]').problem).toMatch(/a comma before "\]"/);
    expect(jsonError('[{"a":1}] [').problem).toMatch(/text after the end/);
    const truncated = jsonError('[\n{"a":1},\n{"a":2,\n"b":3');
    expect(truncated.problem).toMatch(/ends inside record 2, which starts on line 3 \(truncated\?\)/);
    expect(jsonError('[{"a":1}').problem).toMatch(/before its JSON is closed/);
    expect(jsonError('id,name\n').problem).toMatch(/does not start with a JSON array or object/);
    expect(jsonError('  \n ').problem).toMatch(/the file is empty/);
    expect(jsonError('[{"a":1} {"a":2}]').problem).toMatch(/expected "," or "\]" after record 1/);
  });

  it('reads gzipped files by their magic bytes, whatever the name, and reports a cut gzip', async () => {
    const text = '[\n{"a":1},\n{"a":2}\n]\n';
    const gz = await files.write('plain-name.json', text, true);
    expect((await collect(readJsonRecords(gz))).map((r) => r.value)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await looksLikeJson(gz)).toBe(true);
    const whole = (await import('node:zlib')).gzipSync(text.repeat(50));
    const cut = await files.write('cut.json.gz', whole.subarray(0, Math.floor(whole.length / 2)));
    const err = await rejection(collect(readJsonRecords(cut)));
    expect(err.problem).toMatch(/is not a complete gzip file/);
  });

  it('drops a byte-order mark, refuses text that is not UTF-8 naming its line, and a missing file', async () => {
    const bom = await files.write('bom.json', '\uFEFF[{"a":1}]');
    expect((await collect(readJsonRecords(bom))).map((r) => r.value)).toEqual([{ a: 1 }]);
    const latin1 = await files.write('latin1.json', Buffer.concat([Buffer.from('[\n{"a":"ok"},\n{"a":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n]')]));
    const err = await rejection(collect(readJsonRecords(latin1)));
    expect(err.problem).toBe('is not UTF-8 text');
    // the bad byte's own line, not the first line of the block read (line 1 before, in a file of 900 lines)
    expect(err.where).toBe('line 3');
    const long = await files.write('latin1.csv', Buffer.concat([Buffer.from('name,price\n' + 'Pikachu,1\n'.repeat(899)), Buffer.from('Caf'), Buffer.from([0xe9]), Buffer.from(',2\n')]));
    expect((await rejection(collect(readCsvRecords(long)))).where).toBe('line 901');
    // a file whose kind is told by its first character: not JSON, and the CSV reader names the line (an error of no words before)
    expect(await looksLikeJson(long)).toBe(false);
    const missing = await rejection(collect(readJsonRecords(`${files.dir}/nope.json`)));
    expect(missing.message).toMatch(/nope\.json: cannot be read \(ENOENT\)/);
  });
});

describe('a file that changes while it is read', () => {
  it('refuses a file that grows or shrinks under the reader, at its end, and reads a quiet one as before', async () => {
    const fsp = await import('node:fs/promises');
    for (const [name, change] of [
      // a copy still being written: whole rows added after the reader took the first ones (exit 0 with part of them, h339)
      ['grows.csv', (f: string) => fsp.appendFile(f, '5,6\n7,8\n')],
      ['shrinks.csv', (f: string) => fsp.truncate(f, 8)],
      ['grows.json', (f: string) => fsp.appendFile(f, ' ')],
    ] as const) {
      const file = await files.write(name, name.endsWith('.csv') ? 'a,b\n1,2\n3,4\n' : '[{"a":1},{"a":2}]');
      const reader = name.endsWith('.csv') ? readCsvRecords(file) : readJsonRecords(file);
      const err = await rejection(
        (async () => {
          let first = true;
          for await (const _ of reader) {
            void _;
            if (first) await change(file);
            first = false;
          }
        })(),
      );
      expect(err.where).toBeNull();
      expect(err.problem).toMatch(/^changed while it was read \(\d+ bytes when the import began, \d+ at its end\)/);
    }
    const quiet = await files.write('quiet.csv', 'a,b\n1,2\n3,4\n');
    expect((await collect(readCsvRecords(quiet))).map((r) => r.value)).toEqual([{ a: '1', b: '2' }, { a: '3', b: '4' }]);
  });

  it('says a UTF-16 file is UTF-16, with what to do, rather than "not UTF-8" at line 1', async () => {
    for (const bom of [[0xff, 0xfe], [0xfe, 0xff]]) {
      const text = Buffer.from('card,date,price,currency\n', 'utf16le');
      const file = await files.write(`utf16-${bom[0]}.csv`, Buffer.concat([Buffer.from(bom), text]));
      const err = await rejection(collect(readCsvRecords(file)));
      expect(err.where).toBeNull();
      expect(err.problem).toMatch(/^is UTF-16 text .*save it as UTF-8/);
    }
  });
});

describe('firstNonUtf8', () => {
  it('finds the first byte of no well-formed sequence, and leaves a sequence cut at the end to the next block', () => {
    expect(firstNonUtf8(Buffer.from('café 🃏'))).toBe(Buffer.from('café 🃏').length);
    expect(firstNonUtf8(Buffer.from([0x61, 0xe9, 0x62]))).toBe(1);
    expect(firstNonUtf8(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1);
    expect(firstNonUtf8(Buffer.from([0x61, 0xf0, 0x9f]))).toBe(3);
  });
});

describe('CSV records', () => {
  const text = 'id,name,note\r\n1,"Comma, inside","He said ""hi"""\r\n2,"Two\nlines",plain\r\n\r\n3,,"last"';

  it('reads quoted commas, doubled quotes, quoted line breaks, CRLF and blank lines', () => {
    const rows = splitCsv(text);
    expect(rows).toEqual([
      { values: ['id', 'name', 'note'], line: 1 },
      { values: ['1', 'Comma, inside', 'He said "hi"'], line: 2 },
      { values: ['2', 'Two\nlines', 'plain'], line: 3 },
      // The quoted line break moved the count on: the blank line is 5, this row 6.
      { values: ['3', '', 'last'], line: 6 },
    ]);
    for (const size of [1, 2, 5]) expect(splitCsv(text, size)).toEqual(rows);
  });

  it('takes a lone CR as a line end, as old Mac files have it', () => {
    expect(splitCsv('a,b\r1,2\r', 1)).toEqual([
      { values: ['a', 'b'], line: 1 },
      { values: ['1', '2'], line: 2 },
    ]);
  });

  it('names the line of a stray quote, text after a closing quote and an unclosed quote', () => {
    const stray = csvError('id,name\n1,ok\n2,bad "quote"\n');
    expect(stray.where).toBe('line 3');
    expect(stray.problem).toMatch(/a quote inside an unquoted field \(field 2\)/);
    const after = csvError('id,name\n1,"closed"x\n');
    expect(after.where).toBe('line 2');
    expect(after.problem).toMatch(/text after the closing quote of field 2/);
    const open = csvError('id,name\n1,ok\n2,"never closed\n3,more\n');
    expect(open.where).toBe('line 3');
    expect(open.problem).toMatch(/a quoted field is not closed/);
  });

  it('maps rows to the header, and names a row with the wrong number of fields and a doubled column', async () => {
    const good = await files.write('good.csv', '\uFEFFid,name\n1,Alpha\n2,Beta\n');
    expect((await collect(readCsvRecords(good))).map((r) => [r.line, r.index, r.value])).toEqual([
      [2, 0, { id: '1', name: 'Alpha' }],
      [3, 1, { id: '2', name: 'Beta' }],
    ]);
    expect(await looksLikeJson(good)).toBe(false);
    const short = await files.write('short.csv', 'id,name,set\n1,Alpha,S\n2,Beta\n');
    const err = await rejection(collect(readCsvRecords(short)));
    expect(err.message).toBe(`${short} line 3: 2 fields where the header has 3 columns`);
    // two faults in one read: the earlier line's is named (a stray quote further down was named first)
    const two = await files.write('two.csv', `id,name,set\n1,Alpha,S\n2,Beta,S,EXTRA\n${Array.from({ length: 40 }, (_, i) => `${i + 3},Card,S\n`).join('')}99,Sti"tch,S\n`);
    expect((await rejection(collect(readCsvRecords(two)))).message).toBe(`${two} line 3: 4 fields where the header has 3 columns`);
    const twice = await files.write('twice.csv', 'id,name,id\n1,a,1\n');
    expect((await rejection(collect(readCsvRecords(twice)))).problem).toMatch(/names column "id" twice/);
    const empty = await files.write('empty.csv', '');
    expect((await rejection(collect(readCsvRecords(empty)))).problem).toMatch(/is empty \(no header line\)/);
  });
});

describe('read progress', () => {
  it('reports the whole file read only after its records were taken, so a progress line counts them all', async () => {
    const file = await files.write('three.json', JSON.stringify([{ a: 1 }, { a: 2 }, { a: 3 }]));
    const taken: number[] = [];
    let records = 0;
    for await (const _ of readJsonRecords(file, (read, size) => {
      if (read === size) taken.push(records);
    })) {
      void _;
      records++;
    }
    expect(taken).toEqual([3]);
    // a CSV whose last row has no newline after it: that row comes out at the very end
    const csv = await files.write('three.csv', 'a,b\n1,2\n3,4\n5,6');
    const csvTaken: number[] = [];
    let rows = 0;
    for await (const _ of readCsvRecords(csv, (read, size) => {
      if (read === size) csvTaken.push(rows);
    })) {
      void _;
      rows++;
    }
    expect(csvTaken).toEqual([3]);
  });
});
