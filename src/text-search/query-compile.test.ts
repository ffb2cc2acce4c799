import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fts5String, inflectedWords, toFts5Match, toFts5PhraseGroups, toPgTsqueries, tsqueryLexeme } from './query-compile.ts';
import { parseQuery, type ParsedQuery } from './query.ts';

function parsed(text: string): ParsedQuery {
  const r = parseQuery(text);
  if (!r.ok) throw new Error(`expected a query, got ${r.error.code}`);
  return r.query;
}

// Inputs that would be syntax if they reached either query language unquoted.
const hostile = [
  'red" OR "car',
  '"unbalanced',
  "it's a dog's 'toy'",
  'NEAR(car dog, 2)',
  'car AND NOT dog',
  'car OR dog',
  'ca* ^start col:term {seen body}:x',
  '- + ( ) : ^ * " \' \\ dog',
  'a & b | !c <-> d <2> e:* f:AB',
  "'); DROP TABLE collection_records; --",
  '"" \'\' \\\\ \\ cat',
  'xohandbag',
  'NEAR AND OR NOT',
  'avion"*',
];

describe('toFts5Match', () => {
  it('ORs quoted codes and terms', () => {
    expect(toFts5Match(parsed('red car eiffel'))).toBe('"xkred" OR "xocar" OR "xpocarred" OR "eiffel" OR "red" OR "car"');
  });

  it('names the longer words of languages FTS5 cannot stem, and adds the other forms the collection holds to their groups', () => {
    // the words read as concepts too (h269)
    const zapatos = parsed('zapatos rojos de charol');
    expect(inflectedWords(zapatos)).toEqual(['charol', 'zapatos', 'rojos']);
    expect(toFts5Match(zapatos)).toBe('"xifootwear" OR "xkred" OR "xpifootwearred" OR "charol" OR "zapatos" OR "rojos"');
    const found = new Map([['zapatos', ['zapato']], ['charol', ['charoles']]]);
    expect(toFts5PhraseGroups(zapatos, found)).toEqual([['"xifootwear"'], ['"xkred"'], ['"xpifootwearred"'], ['"charol"', '"charoles"'], ['"zapatos"', '"zapato"'], ['"rojos"']]);
    expect(inflectedWords(parsed('la torre eiffel de noche'))).toEqual(['torre', 'eiffel', 'noche']);
    // English words are porter's; shorter words are left as written
    expect(inflectedWords(parsed('the eiffel tower'))).toEqual([]);
    expect(inflectedWords(parsed('el gato'))).toEqual([]);
    // a lone word of no told language: as PostgreSQL stems it by every language of the records (h197)
    expect(parsed('piccioni').language).toBe('simple');
    expect(inflectedWords(parsed('piccioni'))).toEqual(['piccioni']);
    // no operator: a prefix is never searched (h292: `"jack" *` found "Jackpot" for "jackal")
    expect(toFts5Match(parsed('jackal'), new Map([['jackal', ['jackals']]]))).toBe('"jackal" OR "jackals"');
  });

  it("looks for a concept word in its own language's forms where its prefix begins another language's word (h281)", () => {
    // `jack` begins English `jacket`, which German `jacke` is not (its stem is `jack`, jacket's `jacket`)
    expect(toFts5Match(parsed('jacke'))).toBe('"xiupperbody" OR "jacke" OR "jacken"');
    expect(toFts5Match(parsed('Jacken'))).toBe('"xiupperbody" OR "jacken" OR "jacke"');
    expect(inflectedWords(parsed('jacke'))).toEqual([]);
    // a form two languages share is the query's language's: French `trains`, whose `trai` begins English `trainers`
    expect(toFts5Match(parsed('les trains'))).toBe('"xotrain" OR "trains" OR "train"');
    // no other language's word begins `kaffeetass`: its other forms, as PostgreSQL's stem joins Kaffeetasse (h269)
    expect(inflectedWords(parsed('Kaffeetassen'))).toEqual(['kaffeetassen']);
    expect(toFts5Match(parsed('Kaffeetassen'), new Map([['kaffeetassen', ['kaffeetasse']]]))).toBe('"xocup" OR "kaffeetassen" OR "kaffeetasse"');
  });

  it('doubles double quotes inside a term', () => {
    expect(fts5String('say "hi"')).toBe('"say ""hi"""');
  });

  it('is null when there is nothing to search', () => {
    const q = parsed('car');
    expect(toFts5Match({ ...q, codes: [], terms: [], literals: [] })).toBeNull();
  });

  describe('runs as FTS5 MATCH for hostile input', () => {
    let db: Database.Database;
    beforeAll(() => {
      db = new Database(':memory:');
      db.exec("CREATE VIRTUAL TABLE fts USING fts5(seen, body, ocr, tokenize='porter unicode61 remove_diacritics 2')");
      const insert = db.prepare('INSERT INTO fts (rowid, seen, body, ocr) VALUES (?, ?, ?, ?)');
      insert.run(1, 'xocar xkred xpocarred', 'a red car', '');
      insert.run(2, 'xodog', 'dog toy near the car', 'NEAR AND OR NOT');
      insert.run(3, 'xohandbag', 'drop table', "it's");
    });
    afterAll(() => db.close());

    it.each(hostile)('%j', (text) => {
      const match = toFts5Match(parsed(text));
      expect(match).not.toBeNull();
      const rows = db.prepare('SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank').all(match);
      expect(Array.isArray(rows)).toBe(true);
    });

    it('stays a literal even for terms the parser would never make', () => {
      const q = { ...parsed('car'), codes: [], terms: ['a"b', 'NEAR(', "x'y", '*', '"', 'AND', ')', '{seen}:'] };
      expect(() => db.prepare('SELECT rowid FROM fts WHERE fts MATCH ?').all(toFts5Match(q))).not.toThrow();
    });

    it('finds records by the words, not by operators', () => {
      const ids = (text: string) =>
        (db.prepare('SELECT rowid AS id FROM fts WHERE fts MATCH ? ORDER BY rank').all(toFts5Match(parsed(text))) as { id: number }[]).map((r) => r.id);
      expect(ids('red" OR "car')).toEqual(expect.arrayContaining([1]));
      expect(ids('NEAR AND OR NOT')).toEqual([2]);
      expect(ids('car AND NOT dog').sort()).toEqual([1, 2]);
      expect(ids('xohandbag')).toEqual([3]);
      expect(ids('red car')[0]).toBe(1);
    });
  });
});

describe('toPgTsqueries', () => {
  it('ORs quoted lexemes, codes apart from text terms', () => {
    // the words read as concepts are searched as written too, beside the other words
    expect(toPgTsqueries(parsed('red car eiffel'))).toEqual({ codes: "'xkred' | 'xocar' | 'xpocarred'", terms: "'eiffel' | 'red' | 'car'" });
    expect(toPgTsqueries(parsed('eiffel'))).toEqual({ codes: '', terms: "'eiffel'" });
  });

  it('doubles quotes and backslashes inside a lexeme', () => {
    expect(tsqueryLexeme("dog's")).toBe("'dog''s'");
    expect(tsqueryLexeme('a\\b')).toBe("'a\\\\b'");
  });

  it.each(hostile)('keeps %j to quoted lexemes and |', (text) => {
    const { codes, terms } = toPgTsqueries(parsed(text));
    for (const s of [codes, terms].filter(Boolean)) {
      // Every part is a quoted lexeme; nothing between them but " | ".
      expect(s).toMatch(/^'(?:[^'\\]|''|\\\\)*'(?: \| '(?:[^'\\]|''|\\\\)*')*$/);
    }
  });
});

describe.runIf(process.env.DATABASE_URL)('toPgTsqueries in PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  it.each([...hostile, 'red car', '红色连衣裙', 'красная машина', 'zapatos rojos'])('%j parses in to_tsquery', async (text) => {
    const { codes, terms } = toPgTsqueries(parsed(text));
    const { rows } = await client.query<{ c: string | null; t: string | null }>(
      "SELECT CASE WHEN $1 = '' THEN NULL ELSE to_tsquery('simple', $1)::text END AS c, CASE WHEN $2 = '' THEN NULL ELSE to_tsquery('english', $2)::text END AS t",
      [codes, terms],
    );
    expect(rows).toHaveLength(1);
    // A term that stays one lexeme stays one: the operators come only from us.
    if (codes) expect(rows[0]!.c!.split(' | ').length).toBe(codes.split(' | ').length);
  });
});
