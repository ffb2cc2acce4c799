import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixture, openTestStore, scratchDir, sharedCatalogs, sharedPresent, type TestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { ServiceError } from '../services/errors.ts';
import { CatalogService } from '../services/catalog-service.ts';
import { CatalogKindConflict, RemoveMissingRefused } from '../store/catalog-store.ts';
import { PriceStore } from '../store/price-store.ts';
import { CATALOG_KINDS, CatalogRequestError, importCatalog, inputsOf, type CatalogImportRequest, type CatalogImportResult } from './catalog-import.ts';
import { parseColumnMap } from './formats/generic-csv.ts';
import { normalizeName, normalizeNameBefore032, normalizeNameBefore035 } from './card-keys.ts';
import { kanaVoicedNames } from '../store/migrations/032-kana-voiced-names.ts';
import { catalogLatinStrokes } from '../store/migrations/035-catalog-latin-strokes.ts';
import { cardContentHash } from '../store/catalog-store.ts';
import { sql } from 'kysely';
import { CatalogFileError } from './record-stream.ts';

if (!sharedPresent) console.warn(`catalog import tests on the full catalogs skipped: ${sharedCatalogs} is absent (the shared folder beside the project)`);

/** Every fixture as one import request, by catalog kind. */
const requests: Record<string, CatalogImportRequest> = {
  pokemon: { kind: 'pokemon', catalog: 'pokemon', files: { cards: fixture('pokemon/cards.json'), sets: fixture('pokemon/sets.json') } },
  mtgjson: { kind: 'mtg', catalog: 'mtg', files: { cards: fixture('mtg/mtgjson-printings.json.gz'), sets: fixture('mtg/mtgjson-sets.json') } },
  pool: { kind: 'mtg', catalog: 'mtg', files: { cards: fixture('mtg/booster-pool-supplement.json') } },
  scryfall: { kind: 'mtg', catalog: 'mtg', files: { cards: fixture('mtg/scryfall-default-cards.json') } },
  yugioh: { kind: 'yugioh', catalog: 'yugioh', files: { cards: fixture('yugioh/cards.json') } },
  yugiohCsv: { kind: 'yugioh', catalog: 'yugioh-printings', files: { csv: fixture('yugioh/printings_en.csv') } },
  sports: { kind: 'sports', catalog: 'sports', files: { csv: fixture('sports/topps_checklist.csv') } },
  comics: { kind: 'comics', catalog: 'comics', files: { file: fixture('comics/marvel_comics.json') } },
  comicsRecent: { kind: 'comics', catalog: 'comics', files: { file: fixture('comics/marvel_recent_issues_with_year.json') } },
  csv: { kind: 'csv', catalog: 'binder', files: { csv: fixture('csv/binder.csv') }, map: parseColumnMap('name=Card Name,number=No.,set_code=Set') },
};

describe('which files an import takes', () => {
  it('takes the cards file per kind and refuses files the kind does not read', () => {
    expect(inputsOf('pokemon', { cards: 'c.json', sets: 's.json' })).toEqual({ main: 'c.json', sets: 's.json' });
    expect(inputsOf('yugioh', { csv: 'p.csv' })).toEqual({ main: 'p.csv' });
    expect(() => inputsOf('pokemon', { sets: 's.json' })).toThrow(new CatalogRequestError('--kind pokemon needs --cards'));
    expect(() => inputsOf('yugioh', { cards: 'c.json', csv: 'p.csv' })).toThrow(/takes one of --cards or --csv, not 2/);
    expect(() => inputsOf('sports', { csv: 'c.csv', sets: 's.json' })).toThrow(/does not take --sets/);
    // every kind takes --cards, as the README's synopsis writes it; a shop's own game took only --csv or --file (h339)
    for (const kind of CATALOG_KINDS) expect(inputsOf(kind, { cards: 'c' }), kind).toEqual({ main: 'c' });
    expect(() => inputsOf('csv', { cards: 'c.csv', csv: 'c.csv' })).toThrow(/takes one of --csv or --file or --cards, not 2/);
  });
});

describe.each(backends)('catalog import (%s)', (backend) => {
  let t: TestStore;
  let files: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    t = await openTestStore(backend);
    files = await scratchDir();
  });
  afterAll(async () => {
    await t.close();
    await files.remove();
  });
  const run = (request: CatalogImportRequest) => importCatalog(t.catalogs, request);

  it("keeps a kana's voiced mark in a name, and migration 032 folds names stored before again (h152: ガラガラ was カラカラ)", async () => {
    const csv = await files.write('kana.csv', 'Card Name,No.,Set\nカラカラ,104,SV2a\nガラガラ,105,SV2a\nピカチュウ,25,SV2a\n피카츄,26,SV2a\nPikachu,27,SV2a\n');
    await run({ kind: 'csv', catalog: 'kana', files: { csv }, map: parseColumnMap('name=Card Name,number=No.,set_code=Set') });
    const c = (await t.catalogs.get('kana'))!;
    const first = async (q: string) => (await t.catalogs.searchNames(c.id, q))[0]?.name;
    expect([await first('ガラガラ'), await first('カラカラ'), await first('ﾋﾟｶﾁｭｳ'), await first('피카츄')]).toEqual(['ガラガラ', 'カラカラ', 'ピカチュウ', '피카츄']);
    // as a release before 032 stored them: the marks dropped, Hangul in jamo, one name for two species
    const db = t.store.db;
    await db.deleteFrom('catalog_names').where('catalog_id', '=', c.id).execute();
    for (const card of await t.catalogs.cards(c.id, { limit: 10 })) await db.updateTable('catalog_cards').set({ name_norm: normalizeNameBefore032(card.name) }).where('catalog_id', '=', c.id).where('card_key', '=', card.key).execute();
    await sql`INSERT INTO catalog_names (catalog_id, name_norm, name, card_count) SELECT catalog_id, name_norm, min(name), count(*) FROM catalog_cards WHERE catalog_id = ${c.id} GROUP BY catalog_id, name_norm`.execute(db);
    expect((await db.selectFrom('catalog_names').select('name_norm').where('catalog_id', '=', c.id).execute()).length).toBe(4);
    await db.transaction().execute((trx) => kanaVoicedNames.run!(trx, t.store.dialect));
    const names = await db.selectFrom('catalog_names').select(['name', 'name_norm', 'card_count']).where('catalog_id', '=', c.id).orderBy('name').execute();
    expect(names.map((n) => [n.name, n.name_norm, Number(n.card_count)])).toEqual(['Pikachu', 'カラカラ', 'ガラガラ', 'ピカチュウ', '피카츄'].sort().map((n) => [n, normalizeName(n), 1]));
    expect([await first('ガラガラ'), await first('피카츄')]).toEqual(['ガラガラ', '피카츄']);
    // the file again: every card unchanged, the version kept (h160: the names 032 folded again counted as updated)
    const version = (await t.catalogs.get('kana'))!.version;
    // as the release before 032 hashed them: their names folded without the marks
    const stored = await db.selectFrom('catalog_cards').select(['card_key', 'source', 'fields', 'links', 'aliases', 'flags']).where('catalog_id', '=', c.id).execute();
    const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
    for (const card of await t.catalogs.cards(c.id, { limit: 10 })) {
      const r = stored.find((x) => x.card_key === card.key)!;
      await db.updateTable('catalog_cards').set({ content_hash: cardContentHash(r.source, card, normalizeNameBefore032(card.name), [json(r.fields), json(r.links), json(r.aliases), json(r.flags)]) }).where('catalog_id', '=', c.id).where('card_key', '=', card.key).execute();
    }
    const again = await run({ kind: 'csv', catalog: 'kana', files: { csv }, map: parseColumnMap('name=Card Name,number=No.,set_code=Set') });
    expect(again.cards).toMatchObject({ created: 0, updated: 0, unchanged: 5 });
    expect((await t.catalogs.get('kana'))!.version).toBe(version);
  });
  it('folds the Latin letters no decomposition takes apart (ß, ł, ı…), and migration 035 folds names stored before again (h181: ışık found Işık on SQLite only)', async () => {
    const csv = await files.write('strokes.csv', 'Card Name,No.,Set\nIşık Ejderhası,1,TR1\nStraßenkämpfer,2,DE1\nŁódź Guard,3,PL1\nSalamèche,4,FR1\n');
    const map = parseColumnMap('name=Card Name,number=No.,set_code=Set');
    await run({ kind: 'csv', catalog: 'strokes', files: { csv }, map });
    const c = (await t.catalogs.get('strokes'))!;
    const names = async (q: string) => (await t.catalogs.searchNames(c.id, q)).map((n) => n.name);
    expect(normalizeName('IŞIK Ejderhası')).toBe('isikejderhasi');
    expect((await names('ışık ejderhası'))[0]).toBe('Işık Ejderhası');
    expect((await names('strassenkampfer'))[0]).toBe('Straßenkämpfer');
    // as a release before 035 stored them: strokes kept in the folded names and hashes
    const db = t.store.db;
    await db.deleteFrom('catalog_names').where('catalog_id', '=', c.id).execute();
    const stored = await db.selectFrom('catalog_cards').select(['card_key', 'source', 'fields', 'links', 'aliases', 'flags']).where('catalog_id', '=', c.id).execute();
    const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
    for (const card of await t.catalogs.cards(c.id, { limit: 10 })) {
      const r = stored.find((x) => x.card_key === card.key)!;
      const before = normalizeNameBefore035(card.name);
      await db.updateTable('catalog_cards').set({ name_norm: before, content_hash: cardContentHash(r.source, card, before, [json(r.fields), json(r.links), json(r.aliases), json(r.flags)]) }).where('catalog_id', '=', c.id).where('card_key', '=', card.key).execute();
    }
    await sql`INSERT INTO catalog_names (catalog_id, name_norm, name, card_count) SELECT catalog_id, name_norm, min(name), count(*) FROM catalog_cards WHERE catalog_id = ${c.id} GROUP BY catalog_id, name_norm`.execute(db);
    expect((await db.selectFrom('catalog_names').select('name_norm').where('catalog_id', '=', c.id).where('name', '=', 'Straßenkämpfer').executeTakeFirst())?.name_norm).toBe('straßenkampfer');
    await db.transaction().execute((trx) => catalogLatinStrokes.run!(trx, t.store.dialect));
    const after = await db.selectFrom('catalog_names').select(['name', 'name_norm']).where('catalog_id', '=', c.id).orderBy('name').execute();
    expect(after.map((n) => [n.name, n.name_norm])).toEqual(['Işık Ejderhası', 'Salamèche', 'Straßenkämpfer', 'Łódź Guard'].sort().map((n) => [n, normalizeName(n)]));
    // the file again: every card unchanged, the version kept
    const version = (await t.catalogs.get('strokes'))!.version;
    expect((await run({ kind: 'csv', catalog: 'strokes', files: { csv }, map })).cards).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
    expect((await t.catalogs.get('strokes'))!.version).toBe(version);
  });

  const failure = async (request: CatalogImportRequest): Promise<CatalogFileError> => {
    const err = await run(request).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogFileError);
    return err as CatalogFileError;
  };
  /** Everything a catalog holds, to compare before and after a failed import. */
  const snapshot = async (name: string) => {
    const c = (await t.catalogs.get(name))!;
    return { catalog: c, cards: await t.catalogs.cards(c.id, { limit: 10_000 }), sets: await t.catalogs.sets(c.id) };
  };

  it.each(Object.keys(requests))('imports the %s fixture, and a second import creates nothing and keeps the version', async (name) => {
    const request = { ...requests[name]!, catalog: `again-${name}` };
    const first = await run(request);
    expect(first.created_catalog).toBe(true);
    expect(first.version).toBe(1);
    expect(first.cards.created).toBeGreaterThan(0);
    expect(first.cards.total).toBe(first.cards.created);
    const second = await run(request);
    expect(second).toMatchObject({ created_catalog: false, version: 1 });
    expect(second.cards).toMatchObject({ created: 0, updated: 0, unchanged: first.cards.created, kept: 0, total: first.cards.total });
    expect(second.sets).toMatchObject({ created: 0, updated: 0, unchanged: first.sets.created });
    expect(second.remarks).toEqual(first.remarks);
  });

  it('imports Pokémon cards with folded names and numbers for lookups', async () => {
    const result = await run(requests.pokemon!);
    expect(result).toMatchObject({ catalog: 'pokemon', kind: 'pokemon', format: 'pokemon', records: 8, sets: { created: 2, total: 2 }, cards: { created: 6, total: 6, duplicates: 0 }, remarks: [] });
    expect(result.seconds.read).toBeGreaterThanOrEqual(0);
    const c = (await t.catalogs.get('pokemon'))!;
    expect(await t.catalogs.card(c.id, 'tst1-2')).toMatchObject({ name: 'Émberon', nameNorm: 'emberon', setName: 'Test Base', year: '2001' });
    expect(await t.catalogs.card(c.id, 'tst1-3')).toMatchObject({ nameNorm: 'glimmothf', number: '003', numberNorm: '3' });
    expect((await t.catalogs.cardsByNumber(c.id, 'TG5')).map((x) => x.key)).toEqual(['tst2pt5-TG05']);
    expect((await t.catalogs.cardsByNumber(c.id, '3', { setCode: 'tst1' })).map((x) => x.key)).toEqual(['tst1-3']);
  });

  it("reads the data project's per-set files, whose cards name no set, and the API's set objects (h260: \"set\" is missing)", async () => {
    const cards = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as Record<string, unknown>[];
    const upstream = cards.filter((c) => c.set === 'tst1').map(({ set: _set, ...c }) => c);
    const api = cards.filter((c) => c.set === 'tst1').map((c) => ({ ...c, set: { id: c.set, name: 'Test Base' } }));
    for (const [name, rows] of [['base-upstream.json', upstream], ['base-api.json', api]] as const) {
      const result = await run({ kind: 'pokemon', catalog: `pokemon-${name}`, files: { cards: await files.write(name, JSON.stringify(rows)), sets: fixture('pokemon/sets.json') } });
      expect(result.cards, name).toMatchObject({ created: rows.length, total: rows.length });
      const c = (await t.catalogs.get(`pokemon-${name}`))!;
      expect(await t.catalogs.card(c.id, 'tst1-2'), name).toMatchObject({ name: 'Émberon', setName: 'Test Base', year: '2001' });
      expect((await t.catalogs.cardsByNumber(c.id, '3', { setCode: 'tst1' })).map((x) => x.key), name).toEqual(['tst1-3']);
    }
    // the project's folder of per-set files, as one file of them all (h260: EISDIR)
    const folder = path.join(files.dir, 'cards-en');
    await fs.mkdir(folder, { recursive: true });
    for (const set of ['tst1', 'tst2pt5']) await fs.writeFile(path.join(folder, `${set}.json`), JSON.stringify(cards.filter((c) => c.set === set).map(({ set: _set, ...c }) => c)));
    const whole = await run({ kind: 'pokemon', catalog: 'pokemon-folder', files: { cards: folder, sets: fixture('pokemon/sets.json') } });
    expect(whole).toMatchObject({ cards: { created: 6, total: 6 }, sets: { total: 2 }, remarks: [] });
    // an id that names no set either is still refused, naming the record
    await expect(run({ kind: 'pokemon', catalog: 'pokemon-noset', files: { cards: await files.write('noset.json', JSON.stringify([{ id: 'nohyphen', name: 'X', number: '1' }])) } })).rejects.toThrow(/"set" is missing, and the id names none/);
  });

  it('bumps the version only when a re-import changes something', async () => {
    const request = { ...requests.pokemon!, catalog: 'pokemon-bump' };
    await run(request);
    const text = (await fs.readFile(fixture('pokemon/cards.json'), 'utf8')).replace('"hp":"90"', '"hp":"100"');
    const changed = await run({ ...request, files: { ...request.files, cards: await files.write('changed.json', text) } });
    expect(changed.version).toBe(2);
    expect(changed.cards).toMatchObject({ created: 0, updated: 1, unchanged: 5 });
    expect(changed.sets).toMatchObject({ unchanged: 2 });
    const same = await run({ ...request, files: { ...request.files, cards: path.join(files.dir, 'changed.json') } });
    expect(same.version).toBe(2);
    expect(same.cards.updated).toBe(0);
    expect(same.cards.not_in_file).toBe(0);
    // a corrected file without a card: the card is kept, and the answer says so (h103: a removed card kept matching, unsaid)
    const cardsJson = JSON.parse(text) as unknown[];
    const fewer = await run({ ...request, files: { ...request.files, cards: await files.write('fewer.json', JSON.stringify(cardsJson.slice(1))) } });
    expect(fewer.cards).toMatchObject({ total: 6, not_in_file: 1 });
    expect(fewer.remarks).toContain('1 card of the catalog is not in this file and kept: an import adds and updates; `--remove-missing` removes the cards its file lacks, with their prices and reference images');
  });

  it('with --remove-missing, removes the cards the file lacks, with their prices and reference images, and only those of its own format', async () => {
    const request = { ...requests.pokemon!, catalog: 'pokemon-prune' };
    await run(request);
    const c = (await t.catalogs.get('pokemon-prune'))!;
    const cardsJson = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as { id: string; name: string }[];
    const gone = cardsJson.find((x) => x.name === 'Émberon')!;
    const kept = cardsJson.find((x) => x.name !== 'Émberon')!;
    const now = new Date().toISOString();
    const price = (key: string) => ({ catalog_id: c.id, row_key: `r-${key}`, card_key: key, source: 'test', date: '2026-11-01', price: 1.5, currency: 'USD', graded: (backend === 'sqlite' ? 0 : false) as never, grade: null, qualifier: null, volume: null, extra: '{}', content_hash: key, created_at: now, updated_at: now });
    const image = (key: string) => ({ catalog_id: c.id, card_key: key, source_file: `${key}.png`, width: 10, height: 14, artwork: '0'.repeat(64), artwork_version: 'v', content_hash: key, created_at: now, updated_at: now });
    await t.store.db.insertInto('catalog_prices').values([price(gone.id), price(kept.id)]).execute();
    await t.store.db.insertInto('catalog_images').values([image(gone.id), image(kept.id)]).execute();
    const fewer = await files.write('prune.json', JSON.stringify(cardsJson.filter((x) => x !== gone)));
    // without the flag: kept, and said
    expect((await run({ ...request, files: { ...request.files, cards: fewer } })).cards).toMatchObject({ not_in_file: 1, removed: 0, total: cardsJson.length });
    expect((await t.catalogs.searchNames(c.id, gone.name, { limit: 5 })).map((n) => n.name)).toContain(gone.name);
    const pruned = await run({ ...request, files: { ...request.files, cards: fewer }, removeMissing: true });
    expect(pruned.cards).toMatchObject({ created: 0, updated: 0, not_in_file: 0, removed: 1, total: cardsJson.length - 1 });
    expect(pruned.removed).toEqual({ prices: 1, images: 1 });
    expect(pruned.version).toBe(2);
    expect(pruned.remarks).toContain('1 card not in this file removed (--remove-missing), with 1 price and 1 reference image; session rows that named them keep what they stored');
    expect(await t.catalogs.card(c.id, gone.id)).toBeNull();
    expect(await t.catalogs.card(c.id, kept.id)).not.toBeNull();
    expect((await t.store.db.selectFrom('catalog_prices').select('card_key').where('catalog_id', '=', c.id).execute()).map((r) => r.card_key)).toEqual([kept.id]);
    expect((await t.store.db.selectFrom('catalog_images').select('card_key').where('catalog_id', '=', c.id).execute()).map((r) => r.card_key)).toEqual([kept.id]);
    expect((await t.catalogs.get('pokemon-prune'))!.cards).toBe(cardsJson.length - 1);
    // its name is no longer found where no other card bears it
    expect((await t.catalogs.searchNames(c.id, gone.name, { limit: 5 })).map((n) => n.name)).not.toContain(gone.name);
    // again: nothing to remove, nothing changed
    const again = await run({ ...request, files: { ...request.files, cards: fewer }, removeMissing: true });
    expect(again).toMatchObject({ version: 2, cards: { removed: 0, not_in_file: 0 }, removed: { prices: 0, images: 0 } });
    // a file that lacks more than a tenth of the format's cards (over 10: one of several files, one set) is refused,
    // nothing changed; with force, done
    const header = 'year,brand,set_name,subset,card_number,players,teams,attributes,card_type,sport';
    const rows = Array.from({ length: 30 }, (_, i) => `2022,Topps,2022 Topps Bulk,base,${i + 1},Player ${i + 1},Team,,base,baseball`);
    const sports = { kind: 'sports' as const, catalog: 'sports-prune', files: { csv: await files.write('bulk.csv', [header, ...rows].join('\n') + '\n') } };
    await run(sports);
    const half = { ...sports, files: { csv: await files.write('half.csv', [header, ...rows.slice(0, 15)].join('\n') + '\n') }, removeMissing: true };
    const before = await snapshot('sports-prune');
    const refused = await run(half).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RemoveMissingRefused);
    expect(refused).toMatchObject({ missing: 15, total: 30 });
    expect(await snapshot('sports-prune')).toEqual(before);
    expect((await run({ ...half, force: true })).cards).toMatchObject({ removed: 15, total: 15 });
    // an MTG catalog of two formats: the booster pool's import removes none of MTGJSON's cards
    await run({ ...requests.mtgjson!, catalog: 'mtg-prune' });
    const pool = await run({ ...requests.pool!, catalog: 'mtg-prune', removeMissing: true });
    expect(pool.cards).toMatchObject({ removed: 0, total: 8 });
  });

  it("says when cards not in the file have a new card's name and number: a checklist's set renamed made every card again (h122)", async () => {
    const request = { ...requests.sports!, catalog: 'sports-renamed' };
    const first = await run(request);
    const text = await fs.readFile(fixture('sports/topps_checklist.csv'), 'utf8');
    const renamed = await run({ ...request, files: { csv: await files.write('renamed.csv', text.replaceAll('2022 Topps Test Series 1', '2022 Topps Test Series One')) } });
    const moved = text.split('\n').filter((l) => l.includes('2022 Topps Test Series 1')).length;
    expect(renamed.cards).toMatchObject({ created: moved, not_in_file: moved, total: first.cards.total + moved });
    expect(renamed.remarks).toContain(`${moved} of the cards not in this file have the name and number of a card this file added under another key (a set renamed, or a card's id changed?): both are kept and recognition may tie between them; prices and session rows stay with the old key. To keep only this file's cards: import it again with \`--remove-missing\` (the old keys' prices go with them: import the prices again)`);
    // a Pokémon set dropped and another added whose cards share names and numbers: reprints, not renamed keys (h135)
    const pokemon = { ...requests.pokemon!, catalog: 'pokemon-reprints' };
    await run(pokemon);
    const cardsJson = JSON.parse(await fs.readFile(fixture('pokemon/cards.json'), 'utf8')) as { id: string }[];
    const moved2 = await run({ ...pokemon, files: { ...pokemon.files, cards: await files.write('reprints.json', JSON.stringify(cardsJson.map((c) => ({ ...c, id: `re-${c.id}` })))) } });
    expect(moved2.cards.not_in_file).toBe(cardsJson.length);
    expect(moved2.remarks.some((r) => r.includes('under another key'))).toBe(false);
    // a comic's volumes share series name and number, not their year: no false alarm (h136: Thor (1998) #32, Thor (2020) #32)
    const thor = (id: number | null, start: number, year: string) => ({ ...(id ? { marvel_comic_id: id } : {}), title: `Thor (${start}) #32`, series: 'Thor', series_start_year: start, issue_number: '32', publisher: 'Marvel', publication_year: year });
    await run({ kind: 'comics', catalog: 'comics-volumes', files: { file: await files.write('vol1.json', JSON.stringify([thor(501, 1998, '2000')])) } });
    const vol2 = await run({ kind: 'comics', catalog: 'comics-volumes', files: { file: await files.write('vol2.json', JSON.stringify([thor(null, 2020, '2023')])) } });
    expect(vol2.cards).toMatchObject({ created: 1, not_in_file: 1 });
    expect(vol2.remarks.some((r) => r.includes('under another key'))).toBe(false);
    // Marvel's own volumes mostly give no publication year (h143): the volume tells them apart
    const noYear = (id: number, start: number) => ({ marvel_comic_id: id, title: `Thor (${start}) #32`, series: 'Thor', series_start_year: start, issue_number: '32', publisher: 'Marvel' });
    await run({ kind: 'comics', catalog: 'comics-no-year', files: { file: await files.write('ny1.json', JSON.stringify([noYear(601, 1998)])) } });
    const ny = await run({ kind: 'comics', catalog: 'comics-no-year', files: { file: await files.write('ny2.json', JSON.stringify([noYear(602, 2020)])) } });
    expect(ny.cards).toMatchObject({ created: 1, not_in_file: 1 });
    expect(ny.remarks.some((r) => r.includes('under another key'))).toBe(false);
    const same = await run({ kind: 'comics', catalog: 'comics-volumes', files: { file: await files.write('vol1b.json', JSON.stringify([thor(null, 1998, '2000')])) } });
    expect(same.remarks.some((r) => r.includes('1 of the cards not in this file has the name and number of a card this file added under another key'))).toBe(true);
    // a card only removed says only that it is kept
    const fewer = await run({ ...request, catalog: 'sports-fewer', files: { csv: await files.write('all.csv', text) } });
    expect(fewer.remarks.some((r) => r.includes('under another key'))).toBe(false);
    const lines = text.trimEnd().split('\n');
    const less = await run({ ...request, catalog: 'sports-fewer', files: { csv: await files.write('less.csv', lines.slice(0, -1).join('\n') + '\n') } });
    expect(less.cards.not_in_file).toBe(1);
    expect(less.remarks.some((r) => r.includes('under another key'))).toBe(false);
  });

  it('a malformed JSON line fails naming the file and line, and leaves the catalog as it was', async () => {
    await run({ ...requests.pokemon!, catalog: 'pokemon-broken' });
    const before = await snapshot('pokemon-broken');
    const lines = (await fs.readFile(fixture('pokemon/cards.json'), 'utf8')).split('\n');
    // A changed first card (that must not be stored) and a broken fifth.
    lines[1] = lines[1]!.replace('"hp":"60"', '"hp":"61"');
    lines[5] = lines[5]!.replace('"number":"TG05",', '"number":"TG05",,');
    const broken = await files.write('broken.json', lines.join('\n'));
    const err = await failure({ ...requests.pokemon!, catalog: 'pokemon-broken', files: { cards: broken, sets: fixture('pokemon/sets.json') } });
    expect(err.message).toMatch(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} line 6 \\(record 5\\): is not valid JSON`));
    expect(await snapshot('pokemon-broken')).toEqual(before);
    // Into a new catalog: not even the catalog is made.
    await failure({ ...requests.pokemon!, catalog: 'pokemon-never', files: { cards: broken } });
    expect(await t.catalogs.get('pokemon-never')).toBeNull();
  });

  it('a broken CSV quote and a missing column fail naming file and line, and leave the catalog as it was', async () => {
    await run({ ...requests.sports!, catalog: 'sports-broken' });
    const before = await snapshot('sports-broken');
    const text = await fs.readFile(fixture('sports/topps_checklist.csv'), 'utf8');
    const quote = await files.write('quote.csv', text.replace('1,Test Slugger,Test City Testers,,base', '1,Test Slugger,Test City "Testers",,base'));
    expect((await failure({ ...requests.sports!, catalog: 'sports-broken', files: { csv: quote } })).message).toBe(`${quote} line 2: a quote inside an unquoted field (field 7)`);
    const column = await files.write('column.csv', text.replace('set_name,', 'set,'));
    expect((await failure({ ...requests.sports!, catalog: 'sports-broken', files: { csv: column } })).message).toMatch(/column\.csv line 1: the header lacks "set_name"/);
    const short = await files.write('short.csv', text.replace(',Veteran Tester,Test Bay Bashers,', ',Veteran Tester,'));
    expect((await failure({ ...requests.sports!, catalog: 'sports-broken', files: { csv: short } })).message).toMatch(/short\.csv line 6: 9 fields where the header has 10 columns/);
    expect(await snapshot('sports-broken')).toEqual(before);
  });

  it('merges MTG faces into one card with uuid aliases, and spells Conflux CON', async () => {
    const result = await run({ ...requests.mtgjson!, catalog: 'mtg-faces' });
    expect(result).toMatchObject({ format: 'mtgjson', records: 10, cards: { created: 6 }, sets: { created: 3 } });
    const c = (await t.catalogs.get('mtg-faces'))!;
    expect(await t.catalogs.card(c.id, 'aaaaaaaa-0000-4000-8000-000000000003')).toMatchObject({
      name: 'Frost Test // Flame Test',
      nameNorm: 'frosttestflametest',
      aliases: ['00000000-0000-5000-8000-00000000003a', '00000000-0000-5000-8000-00000000003b'],
      source: 'mtgjson',
    });
    expect((await t.catalogs.cardsByNumber(c.id, '17', { setCode: 'CON' })).map((x) => x.name)).toEqual(['Conflux Tester']);
    expect(await t.catalogs.cardsByNumber(c.id, '17', { setCode: 'CON_' })).toEqual([]);
    expect((await t.catalogs.sets(c.id)).map((s) => s.code)).toEqual(['CON', 'OTST', 'TST']);
  });

  it('never lets the booster pool replace an MTGJSON card, in either order', async () => {
    const angel = 'aaaaaaaa-0000-4000-8000-000000000001';
    await run({ ...requests.mtgjson!, catalog: 'mtg-rank' });
    const pool = await run({ ...requests.pool!, catalog: 'mtg-rank' });
    // the MTGJSON cards the supplement does not hold are not its to count (h115: 56,338 "not in this file")
    expect(pool).toMatchObject({ format: 'mtg-pool', version: 2, cards: { created: 2, kept: 1, total: 8, not_in_file: 0 }, sets: { created: 2, total: 5 } });
    const c = (await t.catalogs.get('mtg-rank'))!;
    expect(await t.catalogs.card(c.id, angel)).toMatchObject({ source: 'mtgjson', aliases: ['00000000-0000-5000-8000-000000000001'] });
    // Pool first: MTGJSON's fuller row replaces the pool's.
    await run({ ...requests.pool!, catalog: 'mtg-rank-2' });
    const c2 = (await t.catalogs.get('mtg-rank-2'))!;
    expect(await t.catalogs.card(c2.id, angel)).toMatchObject({ source: 'mtg-pool', aliases: [] });
    const full = await run({ ...requests.mtgjson!, catalog: 'mtg-rank-2' });
    expect(full.cards).toMatchObject({ created: 5, updated: 1, kept: 0 });
    expect(await t.catalogs.card(c2.id, angel)).toMatchObject({ source: 'mtgjson', fields: { uuid: '00000000-0000-5000-8000-000000000001' } });
    // And a pool re-import after that keeps it.
    expect((await run({ ...requests.pool!, catalog: 'mtg-rank-2' })).cards).toMatchObject({ kept: 1, updated: 0, unchanged: 2 });
  });

  it('a Scryfall file imported over MTGJSON keeps the uuid aliases and links only MTGJSON gave (prices name cards by them)', async () => {
    const angel = 'aaaaaaaa-0000-4000-8000-000000000001';
    await run({ ...requests.mtgjson!, catalog: 'mtg-sources' });
    const c = (await t.catalogs.get('mtg-sources'))!;
    const before = (await t.catalogs.card(c.id, angel))!;
    expect(before.aliases).toEqual(['00000000-0000-5000-8000-000000000001']);
    // the same printing as Scryfall's bulk file has it
    const [scry] = JSON.parse(await fs.readFile(fixture('mtg/scryfall-default-cards.json'), 'utf8')) as Record<string, unknown>[];
    const file = await files.write('scryfall-angel.json', JSON.stringify([{ ...scry, id: angel, name: before.name, set: before.setCode!.toLowerCase(), collector_number: before.number }]));
    const over = await run({ kind: 'mtg', catalog: 'mtg-sources', files: { cards: file } });
    expect(over.cards).toMatchObject({ updated: 1 });
    const after = (await t.catalogs.card(c.id, angel))!;
    expect(after.source).toBe('scryfall');
    expect(after.aliases).toEqual(expect.arrayContaining(['00000000-0000-5000-8000-000000000001']));
    for (const [name, url] of Object.entries(before.links)) expect(after.links[name] === url || name in after.links, name).toBe(true);
    // the same file again changes nothing
    expect((await run({ kind: 'mtg', catalog: 'mtg-sources', files: { cards: file } })).cards).toMatchObject({ updated: 0, unchanged: 1 });
  });

  it('keeps Yu-Gi-Oh! placeholder codes out of number lookups', async () => {
    await run({ ...requests.yugioh!, catalog: 'ygo' });
    const c = (await t.catalogs.get('ygo'))!;
    expect((await t.catalogs.cardsByNumber(c.id, 'TST-EN001')).map((x) => x.rarity)).toEqual(['Ultra Rare']);
    const rows = await t.catalogs.cards(c.id, { limit: 100 });
    const placeholders = rows.filter((r) => r.number === 'BETT-EN0??');
    expect(placeholders).toHaveLength(2);
    expect(placeholders.every((r) => r.numberNorm === null && r.flags.includes('placeholder_code'))).toBe(true);
  });

  it('refuses to import cards of another kind into a catalog before reading the file', async () => {
    await run({ ...requests.sports!, catalog: 'kind-clash' });
    const err = await run({ ...requests.pokemon!, catalog: 'kind-clash', files: { cards: path.join(files.dir, 'does-not-exist.json') } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogKindConflict);
  });

  it('a catalog another import changed while this one read its files is a 409 that says to run it again, with nothing written', async () => {
    await run({ ...requests.pokemon!, catalog: 'raced' });
    const readBefore = (await t.catalogs.get('raced'))!;
    const extra = { key: 'extra-1', name: 'Extra', nameNorm: 'extra', setCode: null, setName: null, number: null, numberNorm: null, rarity: null, year: null, fields: {}, links: {}, aliases: [], flags: [] };
    const other = await t.catalogs.applyImport({ catalog: 'raced', kind: 'pokemon', source: 'csv', rank: 1, sets: [], cards: [extra], cardCount: 1 });
    expect(other.catalog.version).toBe(readBefore.version + 1);
    // Only the importer's first read, before it reads the files, sees the catalog as it was.
    const get = vi.spyOn(t.catalogs, 'get').mockResolvedValueOnce(readBefore);
    const err = await new CatalogService(t.catalogs, new PriceStore(t.store)).import({ ...requests.pokemon!, catalog: 'raced', files: { cards: fixture('pokemon/cards.json') } }).catch((e: unknown) => e);
    get.mockRestore();
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 409, code: 'catalog_changed', message: expect.stringMatching(/changed by another import.*Run this import again/) });
    expect(await t.catalogs.get('raced')).toMatchObject({ version: other.catalog.version, cards: other.catalog.cards });
  });

  describe.skipIf(!sharedPresent)('the full catalogs in ../shared', () => {
    let pokemon: CatalogImportResult;
    let mtg: CatalogImportResult;
    beforeAll(async () => {
      pokemon = await run({ kind: 'pokemon', catalog: 'pokemon-full', files: { cards: path.join(sharedCatalogs, 'pokemon/cards.json'), sets: path.join(sharedCatalogs, 'pokemon/sets.json') } });
      mtg = await run({ kind: 'mtg', catalog: 'mtg-full', files: { cards: path.join(sharedCatalogs, 'mtg/mtgjson_printings.json.gz'), sets: path.join(sharedCatalogs, 'mtg/mtgjson_sets.json') } });
    }, 300_000);

    it('Pokémon: 20,202 cards in 172 sets, and a re-import changes nothing', async () => {
      expect(pokemon).toMatchObject({ cards: { created: 20_202, total: 20_202, duplicates: 0 }, sets: { created: 172, total: 172 }, remarks: [] });
      console.log(`full Pokémon catalog (${backend}): read ${pokemon.seconds.read} s, write ${pokemon.seconds.write} s`);
      const again = await run({ kind: 'pokemon', catalog: 'pokemon-full', files: { cards: path.join(sharedCatalogs, 'pokemon/cards.json'), sets: path.join(sharedCatalogs, 'pokemon/sets.json') } });
      expect(again).toMatchObject({ version: 1, cards: { created: 0, updated: 0, unchanged: 20_202 }, sets: { unchanged: 172 } });
    }, 300_000);

    it('MTG: 58,638 cards from 59,634 faces, and all 79 required printings found by their MTGJSON uuid', async () => {
      expect(mtg).toMatchObject({ cards: { created: 58_638, total: 58_638 }, sets: { created: 579 } });
      console.log(`full MTGJSON catalog (${backend}): read ${mtg.seconds.read} s, write ${mtg.seconds.write} s`);
      const { present } = JSON.parse(await fs.readFile(path.join(sharedCatalogs, 'mtg/required_printings_check.json'), 'utf8')) as {
        present: { name: string; setCode: string; number: string; mtgjson_uuid: string; scryfallId: string }[];
      };
      expect(present).toHaveLength(79);
      // Every uuid of the catalog, walked in pages as an index build would.
      const c = (await t.catalogs.get('mtg-full'))!;
      const byUuid = new Map<string, { key: string; name: string; setCode: string | null; number: string | null }>();
      for (let after: string | undefined; ; ) {
        const page = await t.catalogs.cards(c.id, { ...(after === undefined ? {} : { after }), limit: 5000 });
        for (const card of page) for (const uuid of card.aliases) byUuid.set(uuid, card);
        if (page.length < 5000) break;
        after = page.at(-1)!.key;
      }
      expect(byUuid.size).toBe(59_634);
      const missing = present.filter((p) => {
        const card = byUuid.get(p.mtgjson_uuid);
        return !card || card.key !== p.scryfallId || card.name !== p.name || card.number !== p.number;
      });
      expect(missing.map((p) => `${p.name} (${p.setCode})`)).toEqual([]);
    }, 300_000);

    it('finds names read with typos among all Pokémon and MTG names, each search in milliseconds', async () => {
      const pokemonId = (await t.catalogs.get('pokemon-full'))!.id;
      const mtgId = (await t.catalogs.get('mtg-full'))!.id;
      const cases: [string, string, string][] = [
        [pokemonId, 'Pikachv', 'Pikachu'],
        [pokemonId, 'Charizrd', 'Charizard'],
        [pokemonId, 'Flabebe', 'Flabébé'],
        [pokemonId, 'Tyranitar', 'Tyranitar'],
        [mtgId, 'Blak Lotus', 'Black Lotus'],
        [mtgId, 'Stoneforge Mystik', 'Stoneforge Mystic'],
        [mtgId, 'Lsland', 'Island'],
      ];
      const times: number[] = [];
      for (const [id, text, name] of cases) {
        const t0 = performance.now();
        const found = await t.catalogs.searchNames(id, text, { limit: 3 });
        times.push(performance.now() - t0);
        expect(found.map((m) => m.name), text).toContain(name);
      }
      const pikachu = (await t.catalogs.searchNames(pokemonId, 'Pikachu', { limit: 1 }))[0]!;
      expect(pikachu.cards).toBeGreaterThan(50);
      expect(await t.catalogs.cardsByName(pokemonId, pikachu.nameNorm)).toHaveLength(pikachu.cards);
      console.log(`name search on the full catalogs (${backend}): ${times.map((x) => x.toFixed(1)).join(', ')} ms`);
    });

    it('Conflux is found under CON (its printed code)', async () => {
      const c = (await t.catalogs.get('mtg-full'))!;
      expect((await t.catalogs.cardsByNumber(c.id, '1', { setCode: 'CON' })).map((x) => x.name)).toEqual(['Aerie Mystics']);
      expect((await t.catalogs.sets(c.id)).filter((s) => s.code.startsWith('CON')).map((s) => [s.code, s.name])).toEqual([['CON', 'Conflux']]);
    });
  });
});
