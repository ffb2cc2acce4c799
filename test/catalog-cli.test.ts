import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './helpers/catalogs.ts';
import { backends } from './helpers/harness.ts';
import { scratchPgDatabase } from './helpers/processes.ts';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../bin/loupe.js');

describe.each(backends)('loupe catalog (%s)', (backend) => {
  let dataDir: string;
  let db: { url: string; drop(): Promise<void> } | undefined;
  const env = () => ({ ...process.env, LOUPE_DATA_DIR: dataDir, DATABASE_URL: db?.url ?? '' });
  const loupe = async (...args: string[]) => {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: env() });
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines, `one JSON line from: loupe ${args.join(' ')}`).toHaveLength(1);
    return { result: JSON.parse(lines[0]!), stderr };
  };
  const fails = async (...args: string[]) => {
    try {
      await run(process.execPath, [bin, ...args], { env: env() });
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
    throw new Error(`loupe ${args.join(' ')} should have failed`);
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
    expect(first.stderr).toMatch(/^loupe: catalog pokemon: reading .*sets\.json: 100 % \(\d+ records\)$/m);
    expect(first.stderr).toMatch(/^loupe: catalog pokemon: writing: 8 of 8 rows$/m);
    const second = await loupe(...args);
    expect(second.result).toMatchObject({ created_catalog: false, version: 1, cards: { created: 0, unchanged: 6 } });

    await loupe('catalog', 'import', '--kind', 'sports', '--csv', fixture('sports/topps_checklist.csv'), '--catalog', 'topps-2022');
    const { result: listed } = await loupe('catalog', 'list');
    expect(listed.catalogs).toEqual([
      { catalog: 'pokemon', kind: 'pokemon', cards: 6, images: 0, prices: 0, sets: 2, version: 1, updated_at: expect.stringMatching(/Z$/) },
      { catalog: 'topps-2022', kind: 'sports', cards: 6, images: 0, prices: 0, sets: 0, version: 1, updated_at: expect.stringMatching(/Z$/) },
    ]);
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
});
