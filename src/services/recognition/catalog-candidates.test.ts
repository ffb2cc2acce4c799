import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { fixture, openTestStore, type TestStore } from '../../../test/helpers/catalogs.ts';
import { backends } from '../../../test/helpers/harness.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importCatalog } from '../../catalog/catalog-import.ts';
import { parseColumnMap } from '../../catalog/formats/generic-csv.ts';
import { candidateOf, catalogSearch } from './catalog-candidates.ts';
import type { StoredCard, StoredSet } from '../../store/catalog-store.ts';
import { bestMatch, identify } from './identify.ts';
import { readCardText } from './card-text.ts';

describe.each(backends)('identification candidates from a stored catalog (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
    await importCatalog(t.catalogs, { kind: 'pokemon', catalog: 'pokemon', files: { cards: fixture('pokemon/cards.json'), sets: fixture('pokemon/sets.json') } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives a card its set printed total and release year, its HP, by folded number', async () => {
    const { source } = await catalogSearch(t.catalogs, (await t.catalogs.get('pokemon'))!);
    const [c] = await source.byNumber('3');
    expect(c).toMatchObject({ key: 'tst1-3', number: '003', setTotal: 3, year: '2001', hp: 50, regulationMark: null });
    expect(await source.byNumber('999')).toEqual([]);
  });

  it('gives a Pokémon card the border colour its rarity and subtypes tell, none where they do not', async () => {
    const { source } = await catalogSearch(t.catalogs, (await t.catalogs.get('pokemon'))!);
    const border = async (key: string) => (await source.byKeys([key]))[0]?.border;
    expect(await border('tst1-1')).toBe('yellow'); // Rare Holo
    expect(await border('tst2pt5-12')).toBe('neutral'); // a V card
    expect(await border('tst1-4')).toBeNull(); // a secret rare: gold
    expect(await border('tst1-3')).toBeNull(); // no rarity
  });

  it('finds cards by a name read with a typo, through the engine trigram search', async () => {
    const { source } = await catalogSearch(t.catalogs, (await t.catalogs.get('pokemon'))!);
    // any shared trigram brings a name; the closest name's cards come first
    const found = await source.byName('Sparkjt', 10);
    expect(found.slice(0, 2).map((c) => c.key).sort()).toEqual(['tst1-1', 'tst1-4']);
    // each name brings its own cards: Sparkit's two printings do not crowd out Sparkit V
    const one = await source.byName('Sparkit', 1);
    expect(one.map((c) => c.name)).toEqual(expect.arrayContaining(['Sparkit', 'Sparkit V']));
    expect(one.filter((c) => c.name === 'Sparkit')).toHaveLength(1);
  });

  it('identifies a card from the lines of its bands', async () => {
    const { source } = await catalogSearch(t.catalogs, (await t.catalogs.get('pokemon'))!);
    const clues = readCardText([
      { text: 'Sparkit', prob: 0.95, box: { x0: 0.2, y0: 0.04, x1: 0.5, y1: 0.09 } },
      { text: '4/3', prob: 0.9, box: { x0: 0.05, y0: 0.93, x1: 0.2, y1: 0.96 } },
    ]);
    const m = bestMatch(await identify(clues, source));
    expect(m?.card.key).toBe('tst1-4');
    expect(m?.evidence).toMatchObject({ number: 'same', total: 'same', name: 1 });
  });

  it("says which option a hint's set needs when every printing of it is left out without one (h270: a bare OK)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-oversized-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const [base] = JSON.parse(fs.readFileSync(fixture('mtg/scryfall-default-cards.json'), 'utf8')) as Record<string, unknown>[];
    const cards = [{ ...base, id: '00000000-0000-4000-8000-000000000021', name: 'Knight Commander', set: 'oc21', set_name: 'Commander 2021 Oversized', collector_number: '1' }, base];
    fs.writeFileSync(path.join(dir, 'cards.json'), JSON.stringify(cards));
    await importCatalog(t.catalogs, { kind: 'mtg', catalog: 'mtg-oversized', files: { cards: path.join(dir, 'cards.json') } });
    const catalog = (await t.catalogs.get('mtg-oversized'))!;
    expect((await catalogSearch(t.catalogs, catalog, { setCode: 'OC21' })).setNeeds).toBe('include_mtg_oversized');
    expect((await catalogSearch(t.catalogs, catalog, { setCode: 'oc21', includeOversized: true })).setNeeds).toBeUndefined();
    expect((await catalogSearch(t.catalogs, catalog, { setCode: 'SCT' })).setNeeds).toBeUndefined();
    expect((await catalogSearch(t.catalogs, catalog, {})).setNeeds).toBeUndefined();
  });

  it('keeps to the set a set_code hint names, by its code or the code printed on its cards', async () => {
    const catalog = (await t.catalogs.get('pokemon'))!;
    const inSet = await catalogSearch(t.catalogs, catalog, { setCode: 'tb' });
    expect(inSet.hasSet).toBe(true);
    expect((await inSet.source.byName('Sparkit', 10)).map((c) => c.setCode)).toEqual(['tst1', 'tst1']);
    expect(inSet.detail('tst1-1')?.set?.name).toBe('Test Base');
    const other = await catalogSearch(t.catalogs, catalog, { setCode: 'tst2pt5' });
    const there = await other.source.byName('Sparkit', 10);
    expect(there.map((c) => c.name)).not.toContain('Sparkit');
    expect(there.every((c) => c.setCode === 'tst2pt5')).toBe(true);
    expect((await catalogSearch(t.catalogs, catalog, { setCode: 'NOPE' })).hasSet).toBe(false);
    // typed in a full-width mode, or with a combining mark (h94): the same set
    for (const typed of ['ＴＢ', 'ｔｓｔ１', ' tst1 ']) {
      const s = await catalogSearch(t.catalogs, catalog, { setCode: typed });
      expect(s.hasSet, typed).toBe(true);
      expect((await s.source.byName('Sparkit', 10)).map((c) => c.setCode), typed).toEqual(['tst1', 'tst1']);
    }
  });

  it('takes a set name carried on cards as a hint in any Unicode form (a catalog without sets)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-sets-'));
    const csv = path.join(dir, 'shop.csv');
    fs.writeFileSync(csv, 'name,number,set_code,set_name\nPokémon Café,1,ÉV1,Série Été\n');
    try {
      await importCatalog(t.catalogs, { kind: 'csv', catalog: 'shop-forms', files: { csv }, map: parseColumnMap('name=name,number=number,set_code=set_code,set_name=set_name') });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const shop = (await t.catalogs.get('shop-forms'))!;
    // typed without its accents too, as names are (h224: a set name typed at a counter was an unknown set)
    for (const typed of ['ÉV1', 'E\u0301V1', 'éＶ１', 'Série Été', 'Se\u0301rie E\u0301te\u0301', 'EV1', 'serie ete']) expect((await catalogSearch(t.catalogs, shop, { setCode: typed })).hasSet, typed).toBe(true);
    expect((await catalogSearch(t.catalogs, shop, { setCode: 'EV2' })).hasSet).toBe(false);
  });
});

describe('a stored card as an identification candidate', () => {
  const stored = (key: string, setCode: string, supertype: string): StoredCard => ({
    key,
    name: 'Magnemite',
    nameNorm: 'magnemite',
    setCode,
    setName: null,
    number: '52',
    numberNorm: '52',
    rarity: 'Common',
    year: null,
    fields: { supertype },
    links: {},
    aliases: [],
    flags: [],
    source: 'pokemon',
    createdAt: '',
    updatedAt: '',
  });
  const set = (code: string, series: string): [string, StoredSet] => [code, { code, name: code, series, printedTotal: 162, total: 162, releaseDate: '2015-08-12', extra: {}, source: 'pokemon' }];
  const sets = new Map([set('xy8', 'XY'), set('swsh4', 'Sword & Shield'), set('cel25c', 'Sword & Shield')]);

  it('gives a Pokémon its era’s resistance by its set’s series, nothing to trainers, reprint sets or other games', () => {
    expect(candidateOf(stored('xy8-52', 'xy8', 'Pokémon'), sets, 'pokemon').resistance).toBe(20);
    expect(candidateOf(stored('swsh4-60', 'swsh4', 'Pokémon'), sets, 'pokemon').resistance).toBe(30);
    expect(candidateOf(stored('cel25c-15', 'cel25c', 'Pokémon'), sets, 'pokemon').resistance).toBeNull();
    expect(candidateOf(stored('xy8-150', 'xy8', 'Trainer'), sets, 'pokemon').resistance).toBeNull();
    expect(candidateOf(stored('xy8-52', 'xy8', 'Pokémon'), sets, 'mtg').resistance).toBeNull();
  });
});
