import { gunzipSync } from 'node:zlib';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogFileError, fixture, readContext, scratchDir } from '../../../test/helpers/catalogs.ts';
import { colorsOf, mtgSetCode } from './mtg-common.ts';
import { printingFinish } from '../printing-finish.ts';
import { readMtg } from './mtg.ts';

const printings = fixture('mtg/mtgjson-printings.json.gz');
const sets = fixture('mtg/mtgjson-sets.json');
const pool = fixture('mtg/booster-pool-supplement.json');
const scryfall = fixture('mtg/scryfall-default-cards.json');

const SPLIT = 'aaaaaaaa-0000-4000-8000-000000000003';

let files: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  files = await scratchDir();
});
afterAll(() => files.remove());


describe('MTG helpers', () => {
  it('spells Conflux CON, as the card does, not MTGJSON\'s CON_', () => {
    expect(mtgSetCode('CON_')).toBe('CON');
    expect(mtgSetCode('con_')).toBe('CON');
    expect(mtgSetCode('lea')).toBe('LEA');
  });

  it('reads colors from mana costs in WUBRG order, hybrid giving both', () => {
    expect(colorsOf('{2}{G}{W}')).toEqual(['W', 'G']);
    expect(colorsOf('{1}{U/B}', '{R/P}')).toEqual(['U', 'B', 'R']);
    expect(colorsOf('{5}', null, undefined)).toEqual([]);
  });
});

describe('MTGJSON printings (gzipped, one record per face)', () => {
  it('merges the faces of a card by Scryfall id, wherever they are in the file, keeping every face uuid as an alias', async () => {
    const read = await readMtg({ cards: printings, sets }, readContext());
    expect(read).toMatchObject({ format: 'mtgjson', rank: 2 });
    // 7 face records + 3 sets; 6 cards.
    expect(read.records).toBe(10);
    expect(read.cards.rows.size).toBe(6);
    const split = read.cards.rows.get(SPLIT)!.row;
    expect(split).toMatchObject({ name: 'Frost Test // Flame Test', setCode: 'TST', number: '210', rarity: 'rare', year: '2007' });
    // Side a first, though side b came first in the file.
    expect(split.aliases).toEqual(['00000000-0000-5000-8000-00000000003a', '00000000-0000-5000-8000-00000000003b']);
    expect(split.fields).toMatchObject({
      uuid: '00000000-0000-5000-8000-00000000003a',
      type: 'Instant // Sorcery',
      manaCost: '{1}{U/B} // {3}{R}{R}',
      colors: ['U', 'B', 'R'],
      faces: [
        { side: 'a', name: 'Frost Test', type: 'Instant', manaCost: '{1}{U/B}', uuid: '00000000-0000-5000-8000-00000000003a' },
        { side: 'b', name: 'Flame Test', type: 'Sorcery', manaCost: '{3}{R}{R}', uuid: '00000000-0000-5000-8000-00000000003b' },
      ],
    });
    // The record's own face fields are not left behind at the top level.
    expect(split.fields).not.toHaveProperty('faceName');
    expect(split.fields).not.toHaveProperty('side');
    const single = read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000001')!.row;
    expect(single.aliases).toEqual(['00000000-0000-5000-8000-000000000001']);
    expect(single.fields).not.toHaveProperty('faces');
    // its finishes stay, for the Foil/Holo tag (printing-finish.ts)
    expect(single.fields.finishes).toEqual(['nonfoil']);
    expect(printingFinish('mtg', single)).toBe('Non-Foil');
    expect(single.links).toEqual({
      cardKingdom: 'https://mtgjson.com/links/0000000000000001',
      tcgplayer: 'https://www.tcgplayer.com/product/700001',
      scryfall: 'https://scryfall.com/card/tst/1',
      gatherer: 'https://gatherer.wizards.com/Pages/Card/Details.aspx?multiverseid=900001',
    });
    expect(read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000002')!.row).toMatchObject({ number: '1★', links: { scryfall: 'https://scryfall.com/card/tst/1%E2%98%85' } });
  });

  it('stores Conflux as CON for cards and sets, keeping MTGJSON\'s spelling as a field', async () => {
    const read = await readMtg({ cards: printings, sets }, readContext());
    const con = read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000004')!.row;
    expect(con).toMatchObject({ setCode: 'CON', setName: 'Conflux', number: '17', fields: { mtgjsonSetCode: 'CON_' } });
    const set = read.sets.find((s) => s.name === 'Conflux')!;
    expect(set).toMatchObject({ code: 'CON', series: 'Shards of Alara', printedTotal: 145, total: 145, releaseDate: '2009-02-06', extra: { mtgjsonCode: 'CON_' } });
  });

  it('flags oversized planes, online-only and promo printings', async () => {
    const read = await readMtg({ cards: printings }, readContext());
    expect(read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000005')!.row.flags).toEqual(['oversized']);
    expect(read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000006')!.row.flags).toEqual(['digital', 'promo']);
    expect(read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000001')!.row.flags).toEqual([]);
    // the Vintage Championship trophy card: MTGJSON 5.2 flags no oversized card, its set says so (h183)
    const text = gunzipSync(await fs.readFile(printings)).toString('utf8');
    const trophy = await readMtg({ cards: await files.write('trophy.json', text.replaceAll('"setCode":"TST"', '"setCode":"OVNT"')) }, readContext());
    expect(trophy.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000001')!.row.flags).toEqual(['oversized']);
  });

  it('refuses a second face that says another set or number, and a repeated face, naming both records', async () => {
    const text = gunzipSync(await fs.readFile(printings)).toString('utf8');
    const moved = text.replace('"faceName":"Frost Test","side":"a","setCode":"TST","setName":"Test Edition","number":"210"', '"faceName":"Frost Test","side":"a","setCode":"TST","setName":"Test Edition","number":"211"');
    expect(moved).not.toBe(text);
    const err = await catalogFileError(readMtg({ cards: await files.write('moved.json.gz', moved, true) }, readContext()));
    expect(err.message).toMatch(/moved\.json\.gz line 6 \(record 5\): a face of Scryfall id aaaaaaaa-0000-4000-8000-000000000003 with set TST #211, where line 4 \(record 3\) says TST #210/);
    const again = text.replace('"faceName":"Frost Test","side":"a"', '"faceName":"Frost Test","side":"b"');
    const twice = await catalogFileError(readMtg({ cards: await files.write('twice.json', again) }, readContext()));
    expect(twice.problem).toMatch(/Scryfall id aaaaaaaa-0000-4000-8000-000000000003 is already line 4 \(record 3\), and not as another face \(side b\)/);
  });

  it('names a printing without identifiers, and an AllPrintings-shaped object', async () => {
    const text = gunzipSync(await fs.readFile(printings)).toString('utf8');
    const lines = text.split('\n');
    lines[2] = lines[2]!.replace(/"identifiers":\{[^}]*\},/, '');
    const err = await catalogFileError(readMtg({ cards: await files.write('no-ids.json', lines.join('\n')) }, readContext()));
    expect(err.message).toMatch(/no-ids\.json line 3 \(record 2\): "identifiers" is missing/);
    const all = await files.write('all-printings.json', '{"meta":{"version":"5.2.0"},"data":{"LEA":{"cards":[]}}}');
    expect((await catalogFileError(readMtg({ cards: all }, readContext()))).problem).toMatch(/must be flattened to an array of printings/);
  });
});

describe('the booster-pool supplement (one-line object)', () => {
  it('is recognised by its shape and read with its own sets, ranked below MTGJSON', async () => {
    const read = await readMtg({ cards: pool }, readContext());
    expect(read).toMatchObject({ format: 'mtg-pool', rank: 1, records: 5 });
    expect(read.sets.map((s) => [s.code, s.name, s.releaseDate, s.extra])).toEqual([
      ['PTS', 'Pool Test Set', '2024-01-05', { setType: 'draft_innovation', cardsInPool: 2 }],
      ['PLST', 'The Test List', '2020-09-26', { setType: 'masters', cardsInPool: 1 }],
    ]);
    const dragon = read.cards.rows.get('cccccccc-0000-4000-8000-000000000002')!.row;
    expect(dragon).toMatchObject({ name: 'Pool Dragon', setCode: 'PTS', number: '202', rarity: 'mythic', year: '2024', aliases: [], links: { scryfall: 'https://scryfall.com/card/pts/202' } });
    expect(dragon.fields).toMatchObject({ type: 'Creature — Dragon', manaCost: '{4}{R}{R}', colors: ['R'], pool: 'rares', imageUri: expect.stringContaining('cccccccc') });
  });

  it('flags the printings of sets sold only online or only oversized, which the supplement does not flag (h183)', async () => {
    const text = await fs.readFile(pool, 'utf8');
    const moved = text.replace('"setCode":"PTS","setName":"Pool Test Set","number":"101"', '"setCode":"J21","setName":"Jumpstart: Historic Horizons","number":"101"').replace('"setCode":"PTS","setName":"Pool Test Set","number":"202"', '"setCode":"OC21","setName":"Commander 2021 Display Commanders","number":"202"');
    const read = await readMtg({ cards: await files.write('pool-flags.json', moved) }, readContext());
    expect(read.cards.rows.get('cccccccc-0000-4000-8000-000000000001')!.row.flags).toEqual(['digital']);
    expect(read.cards.rows.get('cccccccc-0000-4000-8000-000000000002')!.row.flags).toEqual(['oversized']);
    expect(read.cards.rows.get('aaaaaaaa-0000-4000-8000-000000000001')!.row.flags).toEqual([]);
  });

  it('names the record of a broken card by its place in "cards"', async () => {
    const text = await fs.readFile(pool, 'utf8');
    const broken = text.replace('"scryfallId":"cccccccc-0000-4000-8000-000000000002",', '');
    const err = await catalogFileError(readMtg({ cards: await files.write('pool.json', broken) }, readContext()));
    expect(err.message).toMatch(/pool\.json line 1 \("cards" record 2\): "scryfallId" is missing/);
    const extra = await files.write('pool-extra.json', text.replace('],"cards":', '],"tokens":[{"a":1}],"cards":'));
    expect((await catalogFileError(readMtg({ cards: extra }, readContext()))).problem).toMatch(/holds "sets" and "cards" only, not "tokens"/);
  });
});

describe('Scryfall bulk cards', () => {
  it('reads printings keyed by Scryfall id, with faces, colors from the faces, links and flags', async () => {
    const read = await readMtg({ cards: scryfall }, readContext());
    expect(read).toMatchObject({ format: 'scryfall', rank: 2, records: 2 });
    const one = read.cards.rows.get('dddddddd-0000-4000-8000-000000000001')!.row;
    expect(one).toMatchObject({ name: 'Scry Tester', setCode: 'SCT', setName: 'Scry Test', number: '7', rarity: 'common', year: '2021', flags: [] });
    expect(one.links).toMatchObject({
      scryfall: 'https://scryfall.com/card/sct/7/scry-tester',
      gatherer: 'https://gatherer.wizards.com/Pages/Card/Details.aspx?multiverseid=910001',
      tcgplayer: 'https://www.tcgplayer.com/product/710001',
      cardmarket: expect.stringContaining('cardmarket.com'),
    });
    // Rules text and legalities are not kept.
    expect(one.fields).not.toHaveProperty('oracle_text');
    expect(one.fields).not.toHaveProperty('legalities');
    expect(one.fields).toMatchObject({ colors: ['U'], prices: { usd: '0.10', tix: '0.03' } });
    const dfc = read.cards.rows.get('dddddddd-0000-4000-8000-000000000002')!.row;
    expect(dfc.flags).toEqual(['promo']);
    expect(dfc.fields).toMatchObject({ colors: ['G'], faces: [{ name: 'Dawn Tester', manaCost: '{2}{G}' }, { name: 'Dusk Tester' }] });
  });

  it('refuses a file that is neither shape', async () => {
    const other = await files.write('other.json', '[{"name":"x","set":"y"}]');
    expect((await catalogFileError(readMtg({ cards: other }, readContext()))).message).toMatch(/other\.json line 1 \(record 1\): is neither an MTGJSON printing/);
    const empty = await files.write('empty.json', '[]');
    expect((await catalogFileError(readMtg({ cards: empty }, readContext()))).problem).toBe('holds no cards');
  });
});
