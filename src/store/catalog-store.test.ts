import { CompiledQuery } from 'kysely';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { normalizeName } from '../catalog/card-keys.ts';
import { openTestStore, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { CatalogChangedDuringImport, CatalogKindConflict, type CatalogCardInput, type CatalogImport, type CatalogSetInput } from './catalog-store.ts';

const card = (n: number, over: Partial<CatalogCardInput> = {}): CatalogCardInput => ({
  key: `c-${n}`,
  name: `Card ${n}`,
  nameNorm: `card${n}`,
  setCode: n % 2 ? 'S1' : 'S2',
  setName: n % 2 ? 'Set One' : 'Set Two',
  number: String(n).padStart(3, '0'),
  numberNorm: String(n),
  rarity: 'Common',
  year: '2020',
  fields: { hp: n, nested: { list: [1, 'two', null], ok: true } },
  links: { scryfall: `https://scryfall.com/card/s1/${n}` },
  aliases: [`alias-${n}`],
  flags: n === 3 ? ['promo'] : [],
  ...over,
});

const set = (code: string, over: Partial<CatalogSetInput> = {}): CatalogSetInput => ({ code, name: `Set ${code}`, series: 'Series', printedTotal: 100, total: 110, releaseDate: '2020-03-04', extra: { ptcgoCode: code }, ...over });

const importOf = (catalog: string, cards: CatalogCardInput[], over: Partial<CatalogImport> = {}): CatalogImport => ({
  catalog,
  kind: 'pokemon',
  source: 'pokemon',
  rank: 2,
  sets: [set('S1'), set('S2')],
  cards,
  cardCount: cards.length,
  ...over,
});

describe.each(backends)('catalog store (%s)', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(backend);
  });
  afterAll(() => t.close());

  it('imports into a new catalog, then a same import changes nothing and keeps the version', async () => {
    const cards = Array.from({ length: 1201 }, (_, i) => card(i + 1));
    const first = await t.catalogs.applyImport(importOf('same', cards));
    expect(first.createdCatalog).toBe(true);
    expect(first.sets).toEqual({ created: 2, updated: 0, unchanged: 0, kept: 0 });
    expect(first.cards).toEqual({ created: 1201, updated: 0, unchanged: 0, kept: 0 });
    expect(first.catalog).toMatchObject({ name: 'same', kind: 'pokemon', version: 1, cards: 1201, sets: 2 });

    const again = await t.catalogs.applyImport(importOf('same', cards));
    expect(again.createdCatalog).toBe(false);
    expect(again.sets).toEqual({ created: 0, updated: 0, unchanged: 2, kept: 0 });
    expect(again.cards).toEqual({ created: 0, updated: 0, unchanged: 1201, kept: 0 });
    expect(again.catalog.version).toBe(1);
    expect(again.catalog.updatedAt).toBe(first.catalog.updatedAt);
  });

  it('moves the version when one card changes and counts what was created and updated', async () => {
    const cards = [card(1), card(2), card(3)];
    const v1 = await t.catalogs.applyImport(importOf('bump', cards));
    const changed = [card(1), card(2, { rarity: 'Rare' }), card(3), card(4)];
    const v2 = await t.catalogs.applyImport(importOf('bump', changed));
    expect(v2.cards).toEqual({ created: 1, updated: 1, unchanged: 2, kept: 0 });
    expect(v2.catalog).toMatchObject({ version: v1.catalog.version + 1, cards: 4 });
    expect((await t.catalogs.card(v2.catalog.id, 'c-2'))!.rarity).toBe('Rare');
    // A change in a JSON field alone is a change.
    const v3 = await t.catalogs.applyImport(importOf('bump', [card(1, { fields: { hp: 999 } })]));
    expect(v3.cards).toMatchObject({ updated: 1 });
    expect(v3.catalog).toMatchObject({ version: 3, cards: 4 });
    // A set change alone moves it too.
    const v4 = await t.catalogs.applyImport(importOf('bump', [], { sets: [set('S1', { printedTotal: 101 })] }));
    expect(v4.sets).toEqual({ created: 0, updated: 1, unchanged: 0, kept: 0 });
    expect(v4.catalog.version).toBe(4);
    expect((await t.catalogs.sets(v4.catalog.id)).find((s) => s.code === 'S1')!.printedTotal).toBe(101);
  });

  it('never replaces a row from a fuller source with one of a lower rank, whichever comes first', async () => {
    const full = card(1, { fields: { uuid: 'u-1' }, aliases: ['u-1'] });
    const poor = card(1, { fields: { pool: 'commons' }, aliases: [] });
    const a = await t.catalogs.applyImport(importOf('rank-a', [full], { kind: 'mtg', source: 'mtgjson', rank: 2 }));
    const kept = await t.catalogs.applyImport(importOf('rank-a', [poor, card(2)], { kind: 'mtg', source: 'mtg-pool', rank: 1, sets: [set('S1', { name: 'Pool name' })] }));
    expect(kept.cards).toEqual({ created: 1, updated: 0, unchanged: 0, kept: 1 });
    expect(kept.sets).toEqual({ created: 0, updated: 0, unchanged: 0, kept: 1 });
    expect(kept.catalog.version).toBe(a.catalog.version + 1);
    expect(await t.catalogs.card(a.catalog.id, 'c-1')).toMatchObject({ source: 'mtgjson', aliases: ['u-1'], fields: { uuid: 'u-1' } });
    expect((await t.catalogs.sets(a.catalog.id)).find((s) => s.code === 'S1')!.name).toBe('Set S1');
    // Only kept rows: nothing changed, so the version stays.
    const only = await t.catalogs.applyImport(importOf('rank-a', [poor], { kind: 'mtg', source: 'mtg-pool', rank: 1, sets: [] }));
    expect(only.cards).toEqual({ created: 0, updated: 0, unchanged: 0, kept: 1 });
    expect(only.catalog.version).toBe(kept.catalog.version);

    // The other order: the fuller source replaces the pool's row.
    await t.catalogs.applyImport(importOf('rank-b', [poor], { kind: 'mtg', source: 'mtg-pool', rank: 1 }));
    const replaced = await t.catalogs.applyImport(importOf('rank-b', [full], { kind: 'mtg', source: 'mtgjson', rank: 2 }));
    expect(replaced.cards).toEqual({ created: 0, updated: 1, unchanged: 0, kept: 0 });
    expect(await t.catalogs.card(replaced.catalog.id, 'c-1')).toMatchObject({ source: 'mtgjson', aliases: ['u-1'] });
  });

  it('rolls back everything when the import fails after rows were written, a new catalog included', async () => {
    const base = await t.catalogs.applyImport(importOf('rollback', [card(1), card(2)]));
    const failing = function* () {
      yield card(1, { rarity: 'Changed' });
      // Past one batch of 500, so rows were really written before the failure.
      for (let i = 3; i < 800; i++) yield card(i);
      throw new Error('disk on fire');
    };
    await expect(t.catalogs.applyImport(importOf('rollback', [], { cards: failing(), cardCount: 800 }))).rejects.toThrow('disk on fire');
    const after = (await t.catalogs.get('rollback'))!;
    expect(after).toMatchObject({ version: base.catalog.version, cards: 2 });
    expect((await t.catalogs.card(after.id, 'c-1'))!.rarity).toBe('Common');
    expect(await t.catalogs.card(after.id, 'c-500')).toBeNull();
    expect(await t.catalogs.cards(after.id, { limit: 10 })).toHaveLength(2);

    await expect(t.catalogs.applyImport(importOf('never-made', [], { cards: failing(), cardCount: 800 }))).rejects.toThrow('disk on fire');
    expect(await t.catalogs.get('never-made')).toBeNull();

    // A failure inside the transaction, after the staged cards were moved into the catalog.
    const late = (written: number, total: number) => {
      if (written === total) throw new Error('late failure');
    };
    const changed = [card(1, { rarity: 'Changed' }), card(2), ...Array.from({ length: 700 }, (_, i) => card(i + 3))];
    await expect(t.catalogs.applyImport(importOf('rollback', changed, { onProgress: late }))).rejects.toThrow('late failure');
    expect(await t.catalogs.get('rollback')).toMatchObject({ version: base.catalog.version, cards: 2 });
    expect((await t.catalogs.card(after.id, 'c-1'))!.rarity).toBe('Common');
    expect(await t.catalogs.card(after.id, 'c-500')).toBeNull();
    expect(await stagedRows()).toBe(0);
  });

  const stagedRows = async () => Number((await t.store.db.selectFrom('catalog_import_rows').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('leaves no staged rows behind, and removes those of an import that died a day ago', async () => {
    const dead = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const recent = new Date().toISOString();
    const staged = (importId: string, createdAt: string) => ({ import_id: importId, card_key: 'k', name: 'n', name_norm: 'n', fields: '{}', links: '{}', aliases: '[]', flags: '[]', content_hash: 'h', created_at: createdAt, set_code: null, set_name: null, number: null, number_norm: null, rarity: null, year: null });
    await t.store.db.insertInto('catalog_import_rows').values([staged('00000000-0000-4000-8000-000000000001', dead), staged('00000000-0000-4000-8000-000000000002', recent)]).execute();
    await t.catalogs.applyImport(importOf('staging', [card(1), card(2)]));
    // The recent one may belong to an import still reading its file.
    expect(await stagedRows()).toBe(1);
    await t.store.db.deleteFrom('catalog_import_rows').execute();
  });

  it('writes nothing when another import changed the catalog after this one read it', async () => {
    const v1 = await t.catalogs.applyImport(importOf('raced', [card(1), card(2)]));
    const readBefore = (await t.catalogs.get('raced'))!;
    const v2 = await t.catalogs.applyImport(importOf('raced', [card(1), card(2, { rarity: 'Rare' })]));
    expect(v2.catalog.version).toBe(v1.catalog.version + 1);
    // This import read the catalog as it was before the second one.
    const get = vi.spyOn(t.catalogs, 'get').mockResolvedValueOnce(readBefore);
    const err = await t.catalogs.applyImport(importOf('raced', [card(1, { rarity: 'Uncommon' }), card(2), card(3)])).catch((e: unknown) => e);
    get.mockRestore();
    expect(err).toBeInstanceOf(CatalogChangedDuringImport);
    expect(await t.catalogs.get('raced')).toMatchObject({ version: v2.catalog.version, cards: 2 });
    expect((await t.catalogs.card(v2.catalog.id, 'c-1'))!.rarity).toBe('Common');
    expect((await t.catalogs.card(v2.catalog.id, 'c-2'))!.rarity).toBe('Rare');
    expect(await stagedRows()).toBe(0);
  });

  it.runIf(backend === 'sqlite')('lets other connections write while it stages its rows (SQLite has one writer at a time)', async () => {
    // Another process's connection, without waiting: a write while the import holds the lock fails at once.
    const other = new SQLite(t.store.file!);
    other.pragma('busy_timeout = 0');
    other.exec('CREATE TABLE IF NOT EXISTS other_writes (id INTEGER PRIMARY KEY)');
    const outcomes: Array<{ written: number; ok: boolean }> = [];
    const probe = (written: number) => {
      try {
        other.prepare('INSERT INTO other_writes DEFAULT VALUES').run();
        outcomes.push({ written, ok: true });
      } catch {
        outcomes.push({ written, ok: false });
      }
    };
    const cards = Array.from({ length: 1600 }, (_, i) => card(i + 1));
    await t.catalogs.applyImport(importOf('shared-lock', cards, { onProgress: probe }));
    other.close();
    const staging = outcomes.filter((o) => o.written < 1600);
    expect(staging.length).toBeGreaterThanOrEqual(3);
    expect(staging.every((o) => o.ok)).toBe(true);
    // The last progress comes from inside the import's transaction, which holds the lock: the probe can fail there.
    expect(outcomes.at(-1)).toEqual({ written: 1602, ok: false });
  });

  it('refuses cards of another kind into a catalog', async () => {
    await t.catalogs.create('kinded', 'pokemon');
    const err = await t.catalogs.applyImport(importOf('kinded', [card(1)], { kind: 'mtg' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogKindConflict);
    expect(err).toMatchObject({ catalog: 'kinded', kind: 'pokemon' });
    // create() of an existing catalog hands it back.
    expect((await t.catalogs.create('kinded', 'pokemon')).cards).toBe(0);
  });

  describe('name search', () => {
    const names = ['Pikachu', 'Pikachu V', 'Raichu', 'Pichu', 'Charizard', 'Charmander', 'Flabébé', 'Mr. Mime', 'Mew', 'Mewtwo', 'Ho-Oh', 'Eevee', 'Frost Test // Flame Test', 'Stoneforge Mystic', 'Stoneforge Masterwork'];
    const printed = (name: string, n: number): CatalogCardInput => card(n, { name, nameNorm: normalizeName(name), number: String(n), numberNorm: String(n) });
    let catalogId: string;
    beforeAll(async () => {
      const cards = names.map((name, i) => printed(name, i + 1));
      // One name on many cards: Island's printings are one search row.
      for (let i = 0; i < 5; i++) cards.push(printed('Island', 100 + i));
      catalogCards = cards;
      catalogId = (await t.catalogs.applyImport(importOf('search', cards))).catalog.id;
      // The same names in another catalog must not come back.
      await t.catalogs.applyImport(importOf('search-other', [printed('Pikachu', 1), printed('Pikachu Libre', 2)]));
    });
    let catalogCards: CatalogCardInput[] = [];
    const top = async (text: string, limit = 3) => (await t.catalogs.searchNames(catalogId, text, { limit })).map((m) => m.name);

    it('finds a name from a typo, a swap, accents left out and another case in the top 3', async () => {
      expect(await top('Pikachv')).toContain('Pikachu');
      expect(await top('Pikcahu')).toContain('Pikachu');
      expect(await top('Charizerd')).toContain('Charizard');
      expect(await top('Flabebe')).toContain('Flabébé');
      expect(await top('FLABÉBÉ')).toContain('Flabébé');
      expect(await top('Eevae')).toContain('Eevee');
      // Two letters wrong in a longer name.
      expect(await top('Stonefqrge Mystix')).toContain('Stoneforge Mystic');
      // The back face of a split card.
      expect(await top('Flame Test')).toContain('Frost Test // Flame Test');
    });

    it('ranks the exact name first, with its folded form and how many cards bear it', async () => {
      const [best, ...rest] = await t.catalogs.searchNames(catalogId, 'Pikachu', { limit: 5 });
      expect(best).toMatchObject({ name: 'Pikachu', nameNorm: 'pikachu', cards: 1 });
      expect(rest.every((m) => m.score < best!.score)).toBe(true);
      expect(rest.map((m) => m.name)).toContain('Pikachu V');
      expect(rest.map((m) => m.name)).not.toContain('Pikachu Libre');
      const [island] = await t.catalogs.searchNames(catalogId, 'lsland');
      expect(island).toMatchObject({ name: 'Island', cards: 5 });
      expect((await t.catalogs.cardsByName(catalogId, island!.nameNorm)).map((c) => c.number)).toEqual(['100', '101', '102', '103', '104']);
      expect((await t.catalogs.cardsByName(catalogId, island!.nameNorm, { setCode: 'S1' })).map((c) => c.number)).toEqual(['101', '103']);
      expect(await top('Stoneforge Mystic', 1)).toEqual(['Stoneforge Mystic']);
    });

    it('answers queries under 3 characters by the names they start, the exact name first, without trigrams', async () => {
      expect(await top('Mr', 5)).toEqual(['Mr. Mime']);
      expect(await top('ho', 5)).toEqual(['Ho-Oh']);
      const m = await t.catalogs.searchNames(catalogId, 'M', { limit: 3 });
      expect(m.map((x) => x.name)).toEqual(['Mew', 'Mewtwo', 'Mr. Mime']);
      expect(m[0]!.score).toBeCloseTo(1 / 3);
      expect(await t.catalogs.searchNames(catalogId, 'Pi!', { limit: 10 })).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Pichu' })]));
      expect(await t.catalogs.searchNames(catalogId, 'zz')).toEqual([]);
      expect(await t.catalogs.searchNames(catalogId, '— !! —')).toEqual([]);
      expect(await t.catalogs.searchNames(catalogId, '')).toEqual([]);
    });

    it('takes any text without error: search syntax, quotes, very long lines', async () => {
      expect(await top('"Pikachu" OR NEAR(x) *')).toContain('Pikachu');
      expect(await top('Pikachu'.repeat(40))).toContain('Pikachu');
      expect(await top('日本語のカード')).toEqual([]);
      expect((await t.catalogs.searchNames(catalogId, 'chu', { limit: 2 })).length).toBe(2);
    });

    it('follows a re-import: a renamed card leaves its old name when no card bears it, counts move', async () => {
      const renamed = catalogCards.map((c) => (c.name === 'Raichu' ? printed('Raichu ex', Number(c.number)) : c.name === 'Island' && c.number === '104' ? printed('Snow-Covered Island', 104) : c));
      const outcome = await t.catalogs.applyImport(importOf('search', renamed));
      expect(outcome.cards).toMatchObject({ updated: 2 });
      expect(await top('Raichu', 10)).toContain('Raichu ex');
      expect(await top('Raichu', 10)).not.toContain('Raichu');
      const [island] = await t.catalogs.searchNames(catalogId, 'Island', { limit: 1 });
      expect(island).toMatchObject({ name: 'Island', cards: 4 });
      expect(await top('Snow Covered Island')).toContain('Snow-Covered Island');
    });
  });

  it('looks cards up by number and by name through an index in key order, not a scan of the catalog', async () => {
    const db = t.store.db;
    const plan = async (column: 'number_norm' | 'name_norm') => {
      const q = db.selectFrom('catalog_cards').selectAll().where('catalog_id', '=', 'c').where(column, '=', 'x').orderBy('card_key').compile();
      const explain = backend === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
      const { rows } = await db.executeQuery(CompiledQuery.raw(explain + q.sql, [...q.parameters]));
      return JSON.stringify(rows);
    };
    if (backend === 'sqlite') {
      expect(await plan('number_norm')).toMatch(/USING INDEX catalog_cards_number \(catalog_id=\? AND number_norm=\?\)/);
      expect(await plan('name_norm')).toMatch(/USING INDEX catalog_cards_name \(catalog_id=\? AND name_norm=\?\)/);
      expect(await plan('number_norm')).not.toMatch(/TEMP B-TREE/);
    } else {
      // an empty table may be scanned; the index must exist with the key last
      const { rows } = await db.executeQuery<{ indexdef: string }>(CompiledQuery.raw("SELECT indexdef FROM pg_indexes WHERE indexname IN ('catalog_cards_number', 'catalog_cards_name') ORDER BY indexname"));
      expect(rows.map((r) => r.indexdef.replace(/^.*\(/, '('))).toEqual(['(catalog_id, name_norm, card_key)', '(catalog_id, number_norm, card_key)']);
    }
  });

  it('reads cards back alike on both backends: JSON fields, dates as text, lookups by number and pages by key', async () => {
    const { catalog } = await t.catalogs.applyImport(importOf('read', [card(1), card(2), card(3), card(11, { setCode: 'S1', numberNorm: '1', number: '1' })]));
    const c3 = (await t.catalogs.card(catalog.id, 'c-3'))!;
    expect(c3).toMatchObject({
      key: 'c-3',
      nameNorm: 'card3',
      number: '003',
      numberNorm: '3',
      fields: { hp: 3, nested: { list: [1, 'two', null], ok: true } },
      links: { scryfall: 'https://scryfall.com/card/s1/3' },
      aliases: ['alias-3'],
      flags: ['promo'],
      source: 'pokemon',
    });
    expect(c3.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await t.catalogs.sets(catalog.id)).map((s) => [s.code, s.releaseDate, s.extra])).toEqual([
      ['S1', '2020-03-04', { ptcgoCode: 'S1' }],
      ['S2', '2020-03-04', { ptcgoCode: 'S2' }],
    ]);
    expect((await t.catalogs.cardsByNumber(catalog.id, '1')).map((c) => c.key)).toEqual(['c-1', 'c-11']);
    expect((await t.catalogs.cardsByNumber(catalog.id, '2', { setCode: 'S1' })).map((c) => c.key)).toEqual([]);
    expect((await t.catalogs.cardsByNumber(catalog.id, '2', { setCode: 'S2' })).map((c) => c.key)).toEqual(['c-2']);
    const page1 = await t.catalogs.cards(catalog.id, { limit: 2 });
    const page2 = await t.catalogs.cards(catalog.id, { after: page1.at(-1)!.key, limit: 2 });
    expect([...page1, ...page2].map((c) => c.key)).toEqual(['c-1', 'c-11', 'c-2', 'c-3']);
    expect(await t.catalogs.card(catalog.id, 'nope')).toBeNull();
    expect((await t.catalogs.list()).map((c) => c.name)).toEqual(expect.arrayContaining(['read', 'same', 'bump']));
  });
});
