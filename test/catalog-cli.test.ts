import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { fixture, sharedCatalogs, sharedPresent } from './helpers/catalogs.ts';
import { backends } from './helpers/harness.ts';
import { scratchPgDatabase } from './helpers/processes.ts';
import { loupeInProcess } from './helpers/cli.ts';
import { main, progressLines } from '../src/cli.ts';


describe('import progress lines', () => {
  it('say no record count before the parser has given one (h252: "9 % (0 records)" read as stuck)', () => {
    const lines: string[] = [];
    const say = progressLines('catalog mtg', { err: (t) => lines.push(t) });
    say({ phase: 'read', file: 'AllPrintings.json.gz', bytes: 9, size: 100, records: 0 });
    expect(lines).toEqual(['loupe: catalog mtg: reading AllPrintings.json.gz: 9 %\n']);
    say({ phase: 'read', file: 'AllPrintings.json.gz', bytes: 100, size: 100, records: 1200 });
    expect(lines.at(-1)).toBe('loupe: catalog mtg: reading AllPrintings.json.gz: 100 % (1,200 records)\n');
    // a shop's one-row file (h316: "100 % (1 records)")
    progressLines('prices topps', { err: (t) => lines.push(t) })({ phase: 'read', file: 'sale.csv', bytes: 5, size: 5, records: 1 });
    expect(lines.at(-1)).toBe('loupe: prices topps: reading sale.csv: 100 % (1 record)\n');
    progressLines('prices topps', { err: (t) => lines.push(t) })({ phase: 'write', written: 1, total: 1 });
    expect(lines.at(-1)).toBe('loupe: prices topps: writing: 1 of 1 row\n');
  });
});

describe('catalog cards usage', () => {
  it('shows --name and --number as one or the other, as the command takes them (h317: its usage listed both, and both given are refused)', async () => {
    const env = { ...process.env, LOUPE_DATA_DIR: path.join(os.tmpdir(), 'loupe-never-made') };
    const help = await loupeInProcess(env, ['catalog', 'cards', '--help']);
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([0, '  loupe catalog cards --catalog NAME [--name TEXT | --number N] [--set CODE] [--limit N]']);
  });

  it('says a usage slip, exit 2, before it finds no database to open (h322: exit 1, "no database", with no usage)', async () => {
    const missing = path.join(os.tmpdir(), `loupe-never-made-${process.pid}`);
    // no data folder (SQLite), and a PostgreSQL that refuses connections
    for (const env of [{ ...process.env, LOUPE_DATA_DIR: missing, DATABASE_URL: '' }, { ...process.env, LOUPE_DATA_DIR: missing, DATABASE_URL: 'postgres://loupe@127.0.0.1:1/none' }]) {
      const both = await loupeInProcess(env, ['catalog', 'cards', '--catalog', 'keys', '--name', 'emberon', '--number', '3']);
      expect([both.code, both.stdout]).toEqual([2, '']);
      expect(both.stderr).toMatch(/^loupe: give --name or --number, not both\n\n {2}loupe catalog cards --catalog NAME/);
      for (const args of [
        ['catalog', 'cards', '--name', 'emberon'],
        ['catalog', 'cards', '--catalog', 'keys', '--limit', '0'],
        ['catalog', 'images', '--catalog', 'keys', '--dir', missing, '--match', 'colour'],
        ['prices', 'delete', '--catalog', 'keys', '--card', 'tst1-4', '--price', 'cheap'],
        ['catalog', 'import', '--kind', 'pokemon', '--csv', 'cards.csv'],
      ]) {
        const slip = await loupeInProcess(env, args);
        expect([slip.code, slip.stdout], args.join(' ')).toEqual([2, '']);
        expect(slip.stderr, args.join(' ')).toMatch(new RegExp(`^loupe: [^\\n]+\\n\\n {2}loupe ${args[0]} ${args[1]} `));
      }
      // what is typed right still meets the missing database, exit 1, nothing on stdout
      const right = await loupeInProcess(env, ['catalog', 'cards', '--catalog', 'keys', '--number', '3']);
      expect([right.code, right.stdout]).toEqual([1, '']);
      expect(right.stderr).toMatch(env.DATABASE_URL ? /ECONNREFUSED/ : /^loupe: no database in /);
    }
    // and no folder was made for it
    await expect(fs.stat(missing)).rejects.toThrow(/ENOENT/);
  });

  it('a dry run of an import makes no database where there is none (the import itself would)', async () => {
    const missing = path.join(os.tmpdir(), `loupe-never-made-dry-${process.pid}`);
    const dry = await loupeInProcess({ ...process.env, LOUPE_DATA_DIR: missing, DATABASE_URL: '' }, ['catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--dry-run']);
    expect([dry.code, dry.stdout]).toEqual([1, '']);
    expect(dry.stderr).toMatch(/^loupe: no database in .*: a dry run makes none/);
    await expect(fs.stat(missing)).rejects.toThrow(/ENOENT/);
  });
});

describe.each(backends)('loupe catalog (%s)', (backend) => {
  let dataDir: string;
  let db: { url: string; drop(): Promise<void> } | undefined;
  const env = () => ({ ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '' });
  const loupe = async (...args: string[]) => {
    const { code, stdout, stderr } = await loupeInProcess(env(), args);
    expect(code, `loupe ${args.join(' ')}: ${stderr}`).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines, `one JSON line from: loupe ${args.join(' ')}`).toHaveLength(1);
    return { result: JSON.parse(lines[0]!), stderr };
  };
  const fails = async (...args: string[]) => {
    const r = await loupeInProcess(env(), args);
    if (r.code === 0) throw new Error(`loupe ${args.join(' ')} should have failed`);
    return r;
  };

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-catalog-cli-'));
    if (backend === 'postgres') db = await scratchPgDatabase('loupe_catalog_cli');
  });
  afterAll(async () => {
    await db?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('imports with progress on stderr and one JSON line on stdout; a re-import creates nothing; list counts', async () => {
    const args = ['catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--sets', fixture('pokemon/sets.json')];
    const first = await loupe(...args);
    expect(first.result).toMatchObject({ catalog: 'pokemon', kind: 'pokemon', format: 'pokemon', created_catalog: true, version: 1, cards: { created: 6, total: 6 }, sets: { created: 2 } });
    // each file's own records (the cards file's said the sets file's 2 and more)
    expect(first.stderr).toMatch(/^loupe: catalog pokemon: reading .*sets\.json: 100 % \(2 records\)$/m);
    expect(first.stderr).toMatch(/^loupe: catalog pokemon: reading .*cards\.json: 100 % \(6 records\)$/m);
    expect(first.stderr).toMatch(/^loupe: catalog pokemon: writing: 8 of 8 rows$/m);
    // said once (the last batch's line and the end's were printed both)
    expect(first.stderr.match(/writing: 8 of 8 rows/g)).toHaveLength(1);
    const second = await loupe(...args);
    expect(second.result).toMatchObject({ created_catalog: false, version: 1, cards: { created: 0, unchanged: 6 } });

    const sports = await loupe('catalog', 'import', '--kind', 'sports', '--csv', fixture('sports/topps_checklist.csv'), '--catalog', 'topps-2022');
    // the last batch's line and the end's are one line, said once (a CSV import printed it twice)
    expect(sports.stderr.match(/writing: \d+ of \d+ rows/g)).toHaveLength(1);
    const { result: listed } = await loupe('catalog', 'list');
    expect(listed.catalogs).toEqual([
      { catalog: 'pokemon', kind: 'pokemon', cards: 6, images: 0, prices: 0, sets: 2, version: 1, updated_at: expect.stringMatching(/Z$/) },
      { catalog: 'topps-2022', kind: 'sports', cards: 6, images: 0, prices: 0, sets: 0, version: 1, updated_at: expect.stringMatching(/Z$/) },
    ]);
  }, 90_000);

  it('lists cards with their keys by a name as typed, a number, a set, or in key order', async () => {
    await loupe('catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--sets', fixture('pokemon/sets.json'), '--catalog', 'keys');
    const keys = (r: { cards: { card: string }[] }) => r.cards.map((c) => c.card);
    // a typo and no accent: the closest names' cards first
    const named = (await loupe('catalog', 'cards', '--catalog', 'keys', '--name', 'sparkt')).result;
    expect(named.catalog).toBe('keys');
    expect(keys(named).slice(0, 2).sort()).toEqual(['tst1-1', 'tst1-4']);
    // set_code as /tcg_id answers it, the code the card prints; set_id the catalog's key of the set (h272: set_code was the id)
    expect(named.cards[0]).toMatchObject({ name: 'Sparkit', set_code: 'TB', set_id: 'tst1' });
    expect(keys((await loupe('catalog', 'cards', '--catalog', 'keys', '--name', 'emberon')).result)[0]).toBe('tst1-2');
    expect(keys((await loupe('catalog', 'cards', '--catalog', 'keys', '--number', '3')).result)).toEqual(['tst1-3']);
    // one or the other, as its usage says (h317)
    const both = await loupeInProcess(env(), ['catalog', 'cards', '--catalog', 'keys', '--name', 'emberon', '--number', '3']);
    expect([both.code, both.stdout]).toEqual([2, '']);
    expect(both.stderr).toMatch(/^loupe: give --name or --number, not both\n\n {2}loupe catalog cards --catalog NAME \[--name TEXT \| --number N\]/);
    expect(keys((await loupe('catalog', 'cards', '--catalog', 'keys', '--set', 'tst2pt5')).result)).toEqual(['tst2pt5-12', 'tst2pt5-TG05']);
    // the code its cards print, as answers' set_code gives it (h153: only the set id was taken)
    expect(keys((await loupe('catalog', 'cards', '--catalog', 'keys', '--set', 'tb', '--limit', '2')).result)).toEqual(['tst1-1', 'tst1-2']);
    // a set id in capitals; a printed code a set and its gallery share, both (h158: BRS is swsh9 and swsh9tg)
    expect(keys((await loupe('catalog', 'cards', '--catalog', 'keys', '--set', 'TST2PT5')).result)).toEqual(['tst2pt5-12', 'tst2pt5-TG05']);
    const shared = path.join(dataDir, 'sets-shared.json');
    const sets = JSON.parse(await fs.readFile(fixture('pokemon/sets.json'), 'utf8')) as { ptcgoCode: string | null }[];
    await fs.writeFile(shared, JSON.stringify(sets.map((x) => ({ ...x, ptcgoCode: 'TB' }))));
    await loupe('catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--sets', shared, '--catalog', 'keys-shared');
    expect(new Set(keys((await loupe('catalog', 'cards', '--catalog', 'keys-shared', '--set', 'TB')).result).map((k) => k.split('-')[0]))).toEqual(new Set(['tst1', 'tst2pt5']));
    // a set imported without cards is said so, not an empty list (h162)
    const partial = path.join(dataDir, 'cards-partial.json');
    const all = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as { id: string }[];
    await fs.writeFile(partial, JSON.stringify(all.filter((c) => !c.id.startsWith('tst2pt5'))));
    await loupe('catalog', 'import', '--kind', 'pokemon', '--cards', partial, '--sets', fixture('pokemon/sets.json'), '--catalog', 'keys-partial');
    expect((await fails('catalog', 'cards', '--catalog', 'keys-partial', '--set', 'TST2PT5')).stderr).toMatch(/No card of keys-partial is in a set with the code "TST2PT5"/);
    expect(keys((await loupe('catalog', 'cards', '--catalog', 'keys', '--limit', '2')).result)).toEqual(['tst1-1', 'tst1-2']);
    expect((await fails('catalog', 'cards', '--catalog', 'keys', '--limit', '0')).code).toBe(2);
    // a set code the catalog does not hold is said so, not an empty list
    expect((await fails('catalog', 'cards', '--catalog', 'keys', '--set', 'MEW')).stderr).toMatch(/No card of keys is in a set with the code "MEW"/);
    // a sport checklist's cards carry a set's name and no code: the name, any case, as recognition's set_code hint takes it
    await loupe('catalog', 'import', '--kind', 'sports', '--csv', fixture('sports/topps_checklist.csv'), '--catalog', 'sets-by-name');
    const bySet = (await loupe('catalog', 'cards', '--catalog', 'sets-by-name', '--set', '2022 topps test series 1')).result as { cards: { set_name: string }[] };
    expect(bySet.cards.length).toBeGreaterThan(0);
    expect(new Set(bySet.cards.map((c) => c.set_name))).toEqual(new Set(['2022 Topps Test Series 1']));
    expect((await fails('catalog', 'cards', '--catalog', 'keys', '--name', 'a', '--number', '1')).code).toBe(2);
    const unknown = await fails('catalog', 'cards', '--catalog', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No catalog is named "nope"/);
  }, 60_000);

  it('deletes a catalog with all imported into it; a catalog it does not know is exit 1', async () => {
    const args = ['catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--sets', fixture('pokemon/sets.json'), '--catalog', 'stray'];
    await loupe(...args);
    // a dry run names what would go, and it stays (h355)
    expect((await loupe('catalog', 'delete', 'stray', '--dry-run')).result).toEqual({ dry_run: true, deleted: 'stray', kind: 'pokemon', cards: 6, sets: 2, prices: 0, images: 0 });
    expect((await loupe('catalog', 'cards', '--catalog', 'stray')).result.cards).toHaveLength(6);
    expect((await loupe('catalog', 'delete', '--catalog', 'stray')).result).toEqual({ deleted: 'stray', kind: 'pokemon', cards: 6, sets: 2, prices: 0, images: 0 });
    expect((await loupe('catalog', 'list')).result.catalogs.map((c: { catalog: string }) => c.catalog)).not.toContain('stray');
    // nothing of it is left behind: imported again, it is a new catalog whose every card is new
    expect((await loupe(...args)).result).toMatchObject({ created_catalog: true, version: 1, cards: { created: 6, total: 6 } });
    await loupe('catalog', 'delete', '--catalog', 'stray');
    const unknown = await fails('catalog', 'delete', '--catalog', 'stray');
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringMatching(/Catalog stray not found/)]);
    // a file of no cards made an empty catalog that every recognition searched: refused, nothing made
    for (const text of ['[]', '{}']) {
      const empty = path.join(dataDir, 'empty.json');
      await fs.writeFile(empty, text);
      const none = await fails('catalog', 'import', '--kind', 'pokemon', '--cards', empty, '--catalog', 'empty');
      expect([none.code, none.stderr]).toEqual([1, expect.stringMatching(/empty\.json: holds no card records for --kind pokemon/)]);
    }
    expect((await loupe('catalog', 'list')).result.catalogs.map((c: { catalog: string }) => c.catalog)).not.toContain('empty');
    // a card's text far past any real card's is refused at its line (a 20 MB name imported, into the name index)
    const huge = path.join(dataDir, 'huge.json');
    const cards = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as Record<string, unknown>[];
    cards[1]!.name = 'x'.repeat(2000);
    await fs.writeFile(huge, `[\n${cards.map((c) => JSON.stringify(c)).join(',\n')}\n]`);
    const tooLong = await fails('catalog', 'import', '--kind', 'pokemon', '--cards', huge, '--catalog', 'huge');
    expect([tooLong.code, tooLong.stderr]).toEqual([1, expect.stringMatching(/huge\.json line 3 \(record 2\): the card's name has 2000 characters; at most 1000/)]);
  }, 90_000);

  it('a malformed file exits 1 naming the file and line, with nothing on stdout and the catalog unchanged', async () => {
    const bad = path.join(dataDir, 'bad.json');
    const lines = (await fs.readFile(fixture('pokemon/cards.json'), 'utf8')).split('\n');
    lines[3] = lines[3]!.replace('"hp":"50",', '"hp":,');
    await fs.writeFile(bad, lines.join('\n'));
    const failed = await fails('catalog', 'import', '--kind', 'pokemon', '--cards', bad);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(new RegExp(`loupe: ${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} line 4 \\(record 3\\): is not valid JSON .*Nothing was imported; the catalog is as it was\\.`));
    const { result } = await loupe('catalog', 'list');
    expect(result.catalogs.find((c: { catalog: string }) => c.catalog === 'pokemon')).toMatchObject({ cards: 6, version: 1 });
    // a price file saved as Latin-1 (as spreadsheets do): the file and the bad byte's line, not "loupe: " alone
    const latin1 = path.join(dataDir, 'prices-latin1.csv');
    await fs.writeFile(latin1, Buffer.concat([Buffer.from('card,date,price\nbase1-4,2025-06-01,30\n'), Buffer.from('base1-4,2025-06-02,3'), Buffer.from([0xa3]), Buffer.from('1\n')]));
    const priced = await fails('prices', 'import', '--file', latin1, '--catalog', 'pokemon');
    expect(priced.stderr).toMatch(/prices-latin1\.csv line 3: is not UTF-8 text/);
  }, 60_000);

  it('Ctrl-C while an import writes stops it after the batch, exit 130, nothing imported; while it reads, the process may end at once', async () => {
    const args = ['catalog', 'import', '--kind', 'pokemon', '--cards', fixture('pokemon/cards.json'), '--sets', fixture('pokemon/sets.json'), '--catalog', 'stopped'];
    const answers: string[] = [];
    const run = async (when: RegExp) => {
      let stop: ((signal: string) => 'quit' | 'wait') | undefined;
      let released = false;
      let stderr = '';
      let stdout = '';
      const code = await main(args, {
        env: env(),
        out: (t) => (stdout += t),
        err: (t) => {
          stderr += t;
          const asked = stop;
          if (asked && when.test(t)) {
            stop = undefined;
            answers.push(asked('SIGINT'));
          }
        },
        onInterrupt: (s) => {
          stop = s;
          return () => (released = true);
        },
      });
      return { code, stdout, stderr, released };
    };
    const writing = await run(/writing:/);
    expect(answers).toEqual(['wait']);
    expect(writing.code).toBe(130);
    expect(writing.stdout).toBe('');
    expect(writing.stderr).toMatch(/^loupe: SIGINT: stopping after this batch; nothing of this import will be kept/m);
    expect(writing.stderr).toMatch(/^loupe: stopped by SIGINT: nothing was imported \(the data is as it was\)$/m);
    expect(writing.released).toBe(true);
    expect((await loupe('catalog', 'list')).result.catalogs.map((c: { catalog: string }) => c.catalog)).not.toContain('stopped');
    // reading has written nothing yet: the signal may end the process at once ('quit'; this test's io does not)
    const reading = await run(/reading/);
    expect(reading.stderr).toMatch(/^loupe: SIGINT: stopped while reading; nothing was imported$/m);
    expect(answers).toEqual(['wait', 'quit']);
    // and the import runs whole afterwards, as new
    expect((await loupe(...args)).result).toMatchObject({ catalog: 'stopped', created_catalog: true, cards: { created: 6 } });
  }, 60_000);

  it('imports prices with one JSON line, counts them in the list, and refuses what it cannot read', async () => {
    const { result, stderr } = await loupe('prices', 'import', '--file', fixture('prices/psa_auction_prices_realized.csv'), '--catalog', 'pokemon');
    expect(result).toMatchObject({ catalog: 'pokemon', layout: 'psa', rows: 5, prices: { created: 3, total: 3 }, skipped: { other_game: 1, unknown_card: 1 } });
    expect(stderr).toMatch(/^loupe: prices pokemon: writing: 3 of 3 rows$/m);
    const { result: listed } = await loupe('catalog', 'list');
    expect(listed.catalogs.find((c: { catalog: string }) => c.catalog === 'pokemon')).toMatchObject({ prices: 3 });
    const json = await fails('prices', 'import', '--file', fixture('prices/pokemon_tcgplayer_3day_products.json'), '--catalog', 'pokemon');
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(/is JSON; price files are CSV .*Nothing was imported; the prices are as they were\./);
    const noCatalog = await fails('prices', 'import', '--file', fixture('prices/psa_auction_prices_realized.csv'));
    expect(noCatalog.code).toBe(2);
    expect(noCatalog.stderr).toMatch(/missing --catalog/);
    const absent = await fails('prices', 'import', '--file', fixture('prices/psa_auction_prices_realized.csv'), '--catalog', 'nowhere');
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(/There is no catalog nowhere: import its cards first/);
  }, 60_000);

  it('deletes a wrong sale, or all of a card\'s prices, which a re-import of a file without them left in place', async () => {
    const csv = path.join(dataDir, 'sales.csv');
    await fs.writeFile(csv, 'card,date,price,currency,source\ntst1-3,2024-03-01,1200,USD,ebay\ntst1-3,2024-03-02,1,USD,eBay\ntst1-3,2024-03-02,1,EUR,eBay\ntst1-3,2024-03-02,1150,USD,ebay\ntst1-4,2024-03-02,3,USD,ebay\n');
    expect((await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon')).result.prices).toMatchObject({ created: 5 });
    // a dry run answers what the delete would (it is the delete, rolled back): nothing goes, and a sale it names by its
    // price is not remembered (the re-import below brings the $1200 sale back: deleted_before stays 2) (h355)
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3', '--date', '2024-03-01', '--price', '1200', '--dry-run')).result).toEqual({ dry_run: true, catalog: 'pokemon', card: 'tst1-3', deleted: 1, left: 3 });
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3', '--dry-run')).result).toEqual({ dry_run: true, catalog: 'pokemon', card: 'tst1-3', deleted: 4, left: 0 });
    // the currency tells the dollar sale from the euro one; the source in any case
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3', '--date', '2024-03-02', '--price', '1.00', '--currency', 'eur', '--source', 'EBAY')).result).toMatchObject({ deleted: 1, left: 3 });
    // the $1 sale: the day and the price name it, the card's other sales stay
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3', '--date', '2024-03-02', '--price', '1', '--graded', 'no')).result).toEqual({ catalog: 'pokemon', card: 'tst1-3', deleted: 1, left: 2 });
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3', '--source', 'tcgplayer')).result).toMatchObject({ deleted: 0, left: 2 });
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3')).result).toMatchObject({ deleted: 2, left: 0 });
    // another card's price stays; a card without prices, a bad price or day say so
    expect((await loupe('catalog', 'list')).result.catalogs.find((c: { catalog: string }) => c.catalog === 'pokemon').prices).toBeGreaterThanOrEqual(1);
    const none = await fails('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/holds no price of card "tst1-3"/);
    expect((await fails('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-4', '--price', 'cheap')).code).toBe(2);
    // an option's form is the usage's, exit 2, as --price's is (they were 1, h194)
    expect(await fails('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-4', '--date', '2/3/2024')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--date must be a day written YYYY-MM-DD/) });
    expect(await fails('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-4', '--currency', 'dollars')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--currency must be a three-letter code/) });
    // a day no calendar has: deleted nothing on SQLite, PostgreSQL's own error on PostgreSQL (h121); a usage slip, exit 2,
    // told before the database is opened (h349: the service's exit 1)
    for (const day of ['2026-02-30', '2026-13-01', '0000-00-10']) {
      const impossible = await fails('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-4', '--date', day);
      expect(impossible.stderr, day).toContain(`--date is not a day of the calendar: "${day}"`);
      expect(impossible.code, day).toBe(2);
    }
    expect((await fails('prices', 'delete', '--catalog', 'pokemon')).code).toBe(2);
    expect((await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-4')).result).toMatchObject({ deleted: 1, left: 0 });
    // the file imported again: the two sales deleted by their price stay out, said so; the days and cards deleted whole
    // come back, as the not_in_file remark's advice wants (h145: a $1 sale came back without a word)
    const again = (await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon')).result;
    expect(again.prices).toMatchObject({ created: 3, deleted_before: 2 });
    expect(again.remarks).toContain('2 sales of this file were deleted with `loupe prices delete --price` and are not imported again (`--restore-deleted` takes them back)');
    // a file correcting the deleted $1 sale in its place imports the correction (h155: skipped, and said to be deleted)
    const corrected = path.join(dataDir, 'sales-corrected.csv');
    await fs.writeFile(corrected, 'card,date,price,currency,source\ntst1-3,2024-03-02,110,USD,eBay\n');
    const fixed = (await loupe('prices', 'import', '--file', corrected, '--catalog', 'pokemon')).result;
    expect(fixed.prices).toMatchObject({ created: 1, deleted_before: 0 });
    expect(fixed.remarks ?? []).not.toContainEqual(expect.stringMatching(/deleted with/));
    // the first file again: its $1 sale is still the deleted one, skipped; the correction stays
    expect((await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon')).result.prices).toMatchObject({ created: 0, deleted_before: 2, unchanged: 3 });
    // the correction deleted too: both deleted prices are remembered at that place (h156: the first came back)
    await loupe('prices', 'delete', '--catalog', 'pokemon', '--card', 'tst1-3', '--date', '2024-03-02', '--price', '110');
    expect((await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon')).result.prices).toMatchObject({ created: 0, deleted_before: 2, unchanged: 3 });
    expect((await loupe('prices', 'import', '--file', corrected, '--catalog', 'pokemon')).result.prices).toMatchObject({ created: 0, deleted_before: 1 });
    const restored = (await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon', '--restore-deleted')).result;
    expect(restored.prices).toMatchObject({ created: 2, deleted_before: 0 });
    expect((await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon')).result.prices).toMatchObject({ created: 0, deleted_before: 0, unchanged: 5 });
  }, 60_000);

  it('--remove-missing removes the cards a corrected file lacks, with their prices; without it they stay', async () => {
    const cards = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as { id: string }[];
    const all = ['catalog', 'import', '--kind', 'pokemon', '--catalog', 'pokemon-cut', '--cards', fixture('pokemon/cards.json')];
    await loupe(...all);
    const csv = path.join(dataDir, 'cut-sales.csv');
    await fs.writeFile(csv, 'card,date,price,currency,source\ntst1-2,2024-03-01,12,USD,ebay\ntst1-3,2024-03-01,3,USD,ebay\n');
    await loupe('prices', 'import', '--file', csv, '--catalog', 'pokemon-cut');
    const fewer = path.join(dataDir, 'cut.json');
    await fs.writeFile(fewer, JSON.stringify(cards.filter((c) => c.id !== 'tst1-2')));
    const kept = await loupe('catalog', 'import', '--kind', 'pokemon', '--catalog', 'pokemon-cut', '--cards', fewer);
    expect(kept.result.cards).toMatchObject({ not_in_file: 1, removed: 0 });
    const cut = await loupe('catalog', 'import', '--kind', 'pokemon', '--catalog', 'pokemon-cut', '--cards', fewer, '--remove-missing');
    expect(cut.result.cards).toMatchObject({ not_in_file: 0, removed: 1, total: cards.length - 1 });
    expect(cut.result.removed).toEqual({ prices: 1, images: 0 });
    const listed = (await loupe('catalog', 'list')).result.catalogs.find((c: { catalog: string }) => c.catalog === 'pokemon-cut');
    expect(listed).toMatchObject({ cards: cards.length - 1, prices: 1 });
    expect((await loupe('catalog', 'cards', '--catalog', 'pokemon-cut')).result.cards.map((c: { key: string }) => c.key)).not.toContain('tst1-2');
    // a file lacking more than a tenth of the format's cards (over 10) is refused, exit 1, nothing imported; --force does it
    const header = 'year,brand,set_name,subset,card_number,players,teams,attributes,card_type,sport';
    const rows = Array.from({ length: 30 }, (_, i) => `2022,Topps,2022 Topps Bulk,base,${i + 1},Player ${i + 1},Team,,base,baseball`);
    const whole = path.join(dataDir, 'bulk.csv');
    const part = path.join(dataDir, 'bulk-part.csv');
    await fs.writeFile(whole, [header, ...rows].join('\n') + '\n');
    await fs.writeFile(part, [header, ...rows.slice(0, 15)].join('\n') + '\n');
    await loupe('catalog', 'import', '--kind', 'sports', '--catalog', 'bulk', '--csv', whole);
    const refused = await fails('catalog', 'import', '--kind', 'sports', '--catalog', 'bulk', '--csv', part, '--remove-missing');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--remove-missing would remove 15 of the 30 cards of format sports in catalog bulk');
    expect(refused.stderr).toContain('run the import again with --force');
    expect((await loupe('catalog', 'list')).result.catalogs.find((c: { catalog: string }) => c.catalog === 'bulk')).toMatchObject({ cards: 30 });
    expect((await loupe('catalog', 'import', '--kind', 'sports', '--catalog', 'bulk', '--csv', part, '--remove-missing', '--force')).result.cards).toMatchObject({ removed: 15, total: 15 });
    expect((await fails('catalog', 'import', '--kind', 'sports', '--catalog', 'bulk', '--csv', part, '--force')).code).toBe(2);
  });

  it('--dry-run reads and stages the file as the import does and answers what it would add, update and remove, changing nothing', async () => {
    const cards = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as Record<string, unknown>[];
    const importing = (file: string, ...more: string[]) => ['catalog', 'import', '--kind', 'pokemon', '--catalog', 'dry', '--cards', file, '--sets', fixture('pokemon/sets.json'), ...more];
    const entry = async () => (await loupe('catalog', 'list')).result.catalogs.find((c: { catalog: string }) => c.catalog === 'dry');
    // a database to plan against (a dry run makes none), then a catalog not there yet: it would make it, and does not
    await loupe('catalog', 'import', '--kind', 'sports', '--csv', fixture('sports/topps_checklist.csv'), '--catalog', 'dry-beside');
    const fresh = await loupe(...importing(fixture('pokemon/cards.json'), '--dry-run'));
    expect(fresh.result).toMatchObject({ dry_run: true, catalog: 'dry', created_catalog: true, version: 1, sets: { created: 2, total: 2 }, cards: { created: 6, updated: 0, unchanged: 0, total: 6, removed: 0 } });
    expect(fresh.result.removed).toBeUndefined();
    expect(fresh.stderr).toMatch(/^loupe: catalog dry: staging: 8 of 8 rows$/m);
    expect(fresh.stderr).not.toMatch(/writing:/);
    expect(await entry()).toBeUndefined();
    await loupe(...importing(fixture('pokemon/cards.json')));
    // a price and a reference image on the card the next file lacks, a price on one it keeps
    const sales = path.join(dataDir, 'dry-sales.csv');
    await fs.writeFile(sales, 'card,date,price,currency,source\ntst1-2,2024-03-01,12,USD,ebay\ntst1-3,2024-03-01,3,USD,ebay\n');
    await loupe('prices', 'import', '--file', sales, '--catalog', 'dry');
    const refs = path.join(dataDir, 'dry-refs');
    await fs.mkdir(refs, { recursive: true });
    await fs.writeFile(path.join(refs, 'tst1-2.jpg'), await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="223" height="311"><rect width="223" height="311" fill="#111"/><rect x="10" y="10" width="203" height="291" fill="hsl(30,45%,70%)"/><rect x="18" y="34" width="187" height="130" fill="hsl(150,50%,45%)"/><circle cx="110" cy="100" r="40" fill="hsl(230,60%,55%)"/><rect x="18" y="176" width="187" height="110" fill="#eee8d8"/></svg>')).jpeg().toBuffer());
    expect((await loupe('catalog', 'images', '--catalog', 'dry', '--dir', refs)).result).toMatchObject({ attached: 1 });
    const held = async () => ({ entry: await entry(), cards: (await loupe('catalog', 'cards', '--catalog', 'dry', '--limit', '100')).result.cards });
    const before = await held();
    expect(before.entry).toMatchObject({ cards: 6, prices: 2, images: 1, version: 2 });
    // the next file: tst1-2 gone, tst1-3 changed, a new card
    const edited = path.join(dataDir, 'dry-edited.json');
    await fs.writeFile(edited, JSON.stringify([...cards.filter((c) => c.id !== 'tst1-2').map((c) => (c.id === 'tst1-3' ? { ...c, hp: '70' } : c)), { ...cards[0], id: 'tst1-9', number: '9', name: 'Newmon' }]));
    const planned = (await loupe(...importing(edited, '--remove-missing', '--dry-run'))).result;
    expect(planned).toMatchObject({ dry_run: true, created_catalog: false, version: 3, cards: { created: 1, updated: 1, unchanged: 4, kept: 0, total: 6, not_in_file: 0, removed: 1 } });
    expect(planned.removed).toEqual({ prices: 1, images: 1, examples: [{ card: 'tst1-2', name: 'Émberon', number: '2', set_code: expect.any(String) }] });
    expect(planned.remarks).toContain('1 card not in this file would be removed (--remove-missing), with 1 price and 1 reference image; session rows that named them keep what they stored');
    expect(await held()).toEqual(before);
    // without --remove-missing the card stays, said as the import says it
    const keeping = (await loupe(...importing(edited, '--dry-run'))).result;
    expect(keeping).toMatchObject({ dry_run: true, version: 3, cards: { created: 1, updated: 1, unchanged: 4, total: 7, not_in_file: 1, removed: 0 } });
    expect(keeping.removed).toBeUndefined();
    expect(await held()).toEqual(before);
    // a malformed file is the import's own error, naming its line, exit 1, nothing on stdout
    const bad = path.join(dataDir, 'dry-bad.json');
    const lines = (await fs.readFile(fixture('pokemon/cards.json'), 'utf8')).split('\n');
    lines[3] = lines[3]!.replace('"hp":"50",', '"hp":,');
    await fs.writeFile(bad, lines.join('\n'));
    const failed = await fails(...importing(bad, '--remove-missing', '--dry-run'));
    expect([failed.code, failed.stdout]).toEqual([1, '']);
    expect(failed.stderr).toMatch(/dry-bad\.json line 4 \(record 3\): is not valid JSON .*Nothing was imported; the catalog is as it was\./);
    // what the import would refuse, the dry run refuses (more than a tenth without --force)
    const few = path.join(dataDir, 'dry-few.json');
    await fs.writeFile(few, JSON.stringify(cards.slice(0, 1)));
    // 5 of 6 missing, but at most 10 go without --force: planned, not refused
    expect((await loupe(...importing(few, '--remove-missing', '--dry-run'))).result.cards).toMatchObject({ removed: 5, total: 1 });
    expect((await loupe(...importing(few, '--remove-missing', '--dry-run'))).result.removed.examples.map((c: { card: string }) => c.card)).toEqual(['tst1-2', 'tst1-3', 'tst1-4', 'tst2pt5-12', 'tst2pt5-TG05']);
    expect(await held()).toEqual(before);
    // and the import writes what its dry run said: the same answer but for the dry run's own words and times
    const real = (await loupe(...importing(edited, '--remove-missing'))).result;
    const same = (r: Record<string, unknown>) => ({ ...r, dry_run: undefined, seconds: undefined, remarks: undefined, removed: { ...(r.removed as object), examples: undefined } });
    expect(same(real)).toEqual(same(planned));
    expect(await entry()).toMatchObject({ cards: 6, prices: 1, images: 0, version: 3 });
    // --dry-run and --yes are one or the other; --yes only with --remove-missing
    expect((await fails(...importing(edited, '--remove-missing', '--dry-run', '--yes'))).code).toBe(2);
    const yes = await fails(...importing(edited, '--yes'));
    expect([yes.code, yes.stderr]).toEqual([2, expect.stringMatching(/^loupe: --yes is for --remove-missing/)]);
  }, 90_000);

  it('--remove-missing asks at a terminal before it removes cards (not when it removes none, nor with --yes); no leaves all as it was', async () => {
    const cards = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as { id: string }[];
    const importing = (file: string, ...more: string[]) => ['catalog', 'import', '--kind', 'pokemon', '--catalog', 'asked', '--cards', file, ...more];
    await loupe(...importing(fixture('pokemon/cards.json')));
    const fewer = path.join(dataDir, 'asked-fewer.json');
    await fs.writeFile(fewer, JSON.stringify(cards.filter((c) => c.id !== 'tst1-4')));
    const entry = async () => (await loupe('catalog', 'list')).result.catalogs.find((c: { catalog: string }) => c.catalog === 'asked');
    const before = await entry();
    const declined = await loupeInProcess(env(), importing(fewer, '--remove-missing'), { answer: false });
    expect([declined.code, declined.stdout, declined.asked]).toEqual([1, '', ['loupe: go on? [y/N] ']]);
    expect(declined.stderr).toMatch(/^loupe: catalog import removes \{"catalog":"asked","cards":\{[^\n]*"removed":1\},"removed":\{"prices":0,"images":0,"examples":\[\{"card":"tst1-4","name":"Sparkit",[^\n]*\]\}\}$/m);
    expect(declined.stderr).toMatch(/^loupe: not confirmed: nothing was removed$/m);
    expect(await entry()).toEqual(before);
    // no question where nothing is removed, or with --yes
    const none = await loupeInProcess(env(), importing(fixture('pokemon/cards.json'), '--remove-missing'), { answer: false });
    expect([none.code, none.asked]).toEqual([0, []]);
    const told = await loupeInProcess(env(), importing(fewer, '--remove-missing', '--yes'), { answer: false });
    expect([told.code, told.asked, JSON.parse(told.stdout).cards.removed]).toEqual([0, [], 1]);
    await loupe(...importing(fixture('pokemon/cards.json')));
    const agreed = await loupeInProcess(env(), importing(fewer, '--remove-missing'), { answer: true });
    expect([agreed.code, agreed.asked, JSON.parse(agreed.stdout).cards]).toEqual([0, ['loupe: go on? [y/N] '], expect.objectContaining({ removed: 1, total: 5 })]);
  }, 60_000);

  it('usage errors exit 2; a catalog of another kind exits 1 and says which', async () => {
    expect((await fails('catalog', 'import', '--kind', 'baseball', '--csv', 'x.csv')).stderr).toMatch(/--kind must be one of pokemon, mtg, yugioh, sports, comics, csv, not "baseball"/);
    const noFile = await fails('catalog', 'import', '--kind', 'mtg', '--sets', 'sets.json');
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/--kind mtg needs --cards/);
    expect((await fails('catalog', 'import', '--kind', 'sports', '--csv', 'x.csv', '--map', 'name=A')).stderr).toMatch(/--map is for --kind csv/);
    const clash = await fails('catalog', 'import', '--kind', 'mtg', '--cards', fixture('mtg/scryfall-default-cards.json'), '--catalog', 'pokemon');
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/Catalog pokemon holds pokemon cards; import mtg cards into another catalog \(--catalog NAME\)/);
  }, 60_000);

  it('attaches reference images by the ids a manifest gives (an MTG multiverse id), with progress and one JSON line; a bad --match is a usage error', async () => {
    await loupe('catalog', 'import', '--kind', 'mtg', '--cards', fixture('mtg/mtgjson-printings.json.gz'), '--sets', fixture('mtg/mtgjson-sets.json'), '--catalog', 'mtg');
    const refs = path.join(dataDir, 'mtg-refs');
    await fs.mkdir(path.join(refs, 'cards'), { recursive: true });
    // a drawn card (border, art box, text box): a plain colour is no card to the reference check
    const scan = (hue: number) => sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="223" height="311"><rect width="223" height="311" fill="#111"/><rect x="10" y="10" width="203" height="291" fill="hsl(${hue},45%,70%)"/><rect x="18" y="34" width="187" height="130" fill="hsl(${(hue + 120) % 360},50%,45%)"/><circle cx="110" cy="100" r="40" fill="hsl(${(hue + 200) % 360},60%,55%)"/><rect x="18" y="176" width="187" height="110" fill="#eee8d8"/><text x="20" y="27" font-size="14" font-family="sans-serif">Angel ${hue}</text></svg>`)).jpeg().toBuffer();
    await fs.writeFile(path.join(refs, 'cards', '900001_angel.jpg'), await scan(40));
    // a link to a scan is the scan (it was skipped, counted nowhere)
    await fs.writeFile(path.join(refs, 'ghost-scan.jpg'), await scan(200));
    await fs.symlink(path.join(refs, 'ghost-scan.jpg'), path.join(refs, 'cards', '999999_ghost.jpg'));
    // the dataset shape of ../shared/datasets: a manifest beside the folder, file paths relative to it
    const manifest = { files: [{ file: 'cards/900001_angel.jpg', labels: { multiverse_id: '900001' } }, { file: 'cards/999999_ghost.jpg', labels: { multiverse_id: '999999' } }] };
    await fs.writeFile(path.join(refs, 'manifest.json'), JSON.stringify(manifest));
    const { result, stderr } = await loupe('catalog', 'images', '--catalog', 'mtg', '--dir', path.join(refs, 'cards'));
    expect(result).toEqual({ catalog: 'mtg', files: 2, attached: 1, created: 1, updated: 0, unchanged: 0, images: 1, unmatched: [{ file: '999999_ghost.jpg', reason: 'no card of mtg has any of the ids "999999", "999999_ghost"' }] });
    expect(stderr).toMatch(/^loupe: catalog mtg: images 2 of 2$/m);
    const { result: listed } = await loupe('catalog', 'list');
    expect(listed.catalogs.find((c: { catalog: string }) => c.catalog === 'mtg')).toMatchObject({ images: 1 });
    const bad = await fails('catalog', 'images', '--catalog', 'mtg', '--dir', refs, '--match', 'colour');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--match must be one of id, number, name, not "colour"/);
    // a dataset's own folder, its scans one level down: the error names the subfolder to give
    const top = path.join(dataDir, 'mtg-dataset');
    await fs.mkdir(path.join(top, 'images'), { recursive: true });
    await fs.writeFile(path.join(top, 'images', '900001_angel.jpg'), await scan(40));
    const above = await fails('catalog', 'images', '--catalog', 'mtg', '--dir', top);
    expect(above.code).toBe(1);
    expect(above.stderr).toContain(`The folder ${top} holds no image files (only its subfolders do, which are not looked into: ${path.join(top, 'images')} holds 1; give one of them as --dir)`);
  }, 90_000);

  it.skipIf(!sharedPresent || backend === 'postgres')('attaches every SV151 reference scan, and 20 of the 22 MTG scans naming the two the catalog lacks (shared data)', async () => {
    const datasets = path.resolve(sharedCatalogs, '../datasets');
    await loupe('catalog', 'import', '--kind', 'pokemon', '--cards', path.join(sharedCatalogs, 'pokemon/cards.json'), '--sets', path.join(sharedCatalogs, 'pokemon/sets.json'), '--catalog', 'pokemon-full');
    expect((await loupe('catalog', 'images', '--catalog', 'pokemon-full', '--dir', path.join(datasets, 'pokemon_sv151_reference/images'))).result).toMatchObject({ files: 207, attached: 207, unmatched: [] });
    await loupe('catalog', 'import', '--kind', 'mtg', '--cards', path.join(sharedCatalogs, 'mtg/mtgjson_printings.json.gz'), '--sets', path.join(sharedCatalogs, 'mtg/mtgjson_sets.json'), '--catalog', 'mtg-full');
    const { result } = await loupe('catalog', 'images', '--catalog', 'mtg-full', '--dir', path.join(datasets, 'mtg_gatherer_reference/cards'));
    expect(result).toMatchObject({ files: 22, attached: 20 });
    expect(result.unmatched.map((u: { file: string }) => u.file)).toEqual(['571553_elf.jpg', '574205_elf.jpg']);
  }, 240_000);
});
