import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { loupeInProcess } from '../helpers/cli.ts';

const shrey = path.resolve(import.meta.dirname, '../../../shared/datasets/real_card_photos/shrey_pokemon_card_outliner');
// two Japanese cards of the labelled train split (test/fixtures/recognition/real-identities.json)
const froslass = path.join(shrey, '440743660_972549730970289_101669425909981459_n_jpg.rf.a80fcef8248dc06d56d85b5fdfcd1f6d.jpg');
const zacian = path.join(shrey, '440578813_972549197637009_8945200623684759389_n_jpg.rf.42270d4987e445976d8228aee8195f25.jpg');

/**
 * A Japanese shop's own catalog (`--kind csv`), its numbers written with the set's total as cards
 * print them: a card read as Pokémon never searched it (a CSV catalog is of no game), and its
 * "117/184" matched no read number "117" with total 184. 0 of 14 train photos were named; now 14.
 */
describe.runIf(fs.existsSync(zacian) && fs.existsSync(froslass))("a shop's CSV catalog of Japanese printings", () => {
  let h: Harness;
  let csvText = '';
  beforeAll(async () => {
    h = await startHarness('sqlite', { vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-jp-'));
    const csv = path.join(dir, 'jp.csv');
    // decoys: the same name in another set, the same number with another total
    fs.writeFileSync(csv, 'カード名,番号,セット\nザシアンV,117/184,s8b\nザシアンV,067/172,s12a\nザマゼンタV,117/190,s4a\nユキメノコex,001/062,sv3a\nピカチュウ,001/165,sv2a\n');
    const imported = await loupeInProcess({ ...process.env, LOUPE_DATA_DIR: h.dataDir, DATABASE_URL: '' }, ['catalog', 'import', '--kind', 'csv', '--csv', csv, '--catalog', 'jp-shop', '--map', 'name=カード名,number=番号,set_code=セット']);
    csvText = fs.readFileSync(csv, 'utf8');
    fs.rmSync(dir, { recursive: true, force: true });
    expect(imported.code, imported.stderr).toBe(0);
  }, 120_000);
  afterAll(() => h?.close());

  it('names the printing by its number and total, and says the card is Japanese', async () => {
    for (const [file, name, number] of [[zacian, 'ザシアンV', '117/184'], [froslass, 'ユキメノコex', '001/062']] as const) {
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: fs.readFileSync(file).toString('base64') }] } });
      const o = res.json().records[0]._objects[0];
      expect(o._identification.best_match, file).toMatchObject({ name, card_number: number, catalog: 'jp-shop' });
      expect(o._tags.Language[0].name).toBe('ja');
    }
    // with ignore_non_ascii the match keeps its id and shape, its Japanese text null (h237: id, name and full name went)
    const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: fs.readFileSync(zacian).toString('base64') }], ignore_non_ascii: true } });
    expect(res.json().records[0]._objects[0]._identification.best_match).toMatchObject({ id: 's8b|117/184|ザシアンV', name: null, full_name: null, card_number: '117/184', catalog: 'jp-shop' });
  }, 120_000);

  it('answers a catalog imported twice under two names from the first, and says so (h252: every card tied with its copy, no best match)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-jp-'));
    const csv = path.join(dir, 'jp.csv');
    fs.writeFileSync(csv, csvText);
    const again = await loupeInProcess({ ...process.env, LOUPE_DATA_DIR: h.dataDir, DATABASE_URL: '' }, ['catalog', 'import', '--kind', 'csv', '--csv', csv, '--catalog', 'jp-shop-copy', '--map', 'name=カード名,number=番号,set_code=セット']);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(again.code, again.stderr).toBe(0);
    try {
      const res = await h.request('POST', '/collectibles/v2/tcg_id', { body: { records: [{ _base64: fs.readFileSync(zacian).toString('base64') }] } });
      const record = res.json().records[0];
      const id = record._objects[0]._identification;
      expect(id.best_match).toMatchObject({ name: 'ザシアンV', card_number: '117/184' });
      // the copy is no alternative of its own
      expect(id.alternatives.filter((a: { card_number: string }) => a.card_number === '117/184')).toEqual([]);
      expect(record._status.text).toMatch(/is in 2 imported catalogs \((jp-shop, jp-shop-copy|jp-shop-copy, jp-shop)\), answered from jp-shop.*: one import of it is enough/);
    } finally {
      expect((await loupeInProcess({ ...process.env, LOUPE_DATA_DIR: h.dataDir, DATABASE_URL: '' }, ['catalog', 'delete', '--catalog', 'jp-shop-copy'])).code).toBe(0);
    }
  }, 120_000);
});
