import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import sharp from 'sharp';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64 } from '../helpers/photos.ts';
import type { Store } from '../../src/store/database.ts';
import { CollectionStore } from '../../src/store/collection-store.ts';
import { VisualSearchService } from '../../src/services/visual-search/visual-search-service.ts';
import { ServiceError } from '../../src/services/errors.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

const group = photoBase64('faces/bbt1.jpg');
const watch = photoBase64('caltech101/watch/image_0001.jpg');

type Obj = { id: string; name: string; prob: number; bound_box: number[]; area: number; 'Top Category'?: string; Category?: string; category_source?: string; category_filter?: boolean; 'pre-filled'?: boolean };
type Body = { status: { code: number; text: string }; query_records?: { _objects?: Obj[] }[]; answer_records: Record<string, unknown>[]; skipped_records?: { _id: unknown; _reason: { status: { code: number; text: string } } }[]; answer_count: number; detail?: string };

describe.each(backends)('fashion collections (%s)', (backend) => {
  let h: Harness;
  type Owned = { id: string; account: string; token: string };
  const call = async (url: string, body: unknown, c: Owned) => {
    const res = await h.request('POST', url, { body, headers: { 'collection-id': c.id }, token: c.token });
    return { http: res.statusCode, body: res.json() as Body };
  };
  const base = '/similarity/fashion-new/v2';
  let shop: Owned;
  beforeAll(async () => {
    h = await startHarness(backend, { urlAllowList: ['127.0.0.1'] });
    // the same photos are stored and searched again in many tests and for the second backend (test/helpers/vision-memo.ts)
    rememberVision(h);
    const { account, token } = await h.newAccount(1000);
    shop = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'shop' })).id, account, token };
    const res = await call(`${base}/insert`, {
      records: [
        { _id: 'look', _base64: group, product_id: 'p1', extract_colors: true, extract_tags: true },
        { _id: 'shoes', _base64: group, product_id: 'p2', Category: 'Sneakers' },
        { _id: 'watch', _base64: watch, product_id: 'p3', 'Top Category': 'Accessories', Category: 'Watches', extract_tags: true, _tags_simple: ['gold', 'classic'] },
        { _id: 'no-product', _base64: watch },
      ],
      fields_to_return: ['*'],
    }, shop);
    expect(res.body.status.code).toBe(211);
    // The call (1) and the extras of the stored records: look colours and tags (2), watch tags (1).
    expect((await h.app.loupe.accounts.getAccount(account)).credits).toBe(1000 - 4);
    expect(res.body.skipped_records).toEqual([expect.objectContaining({ _id: 'no-product', _reason: expect.objectContaining({ status: expect.objectContaining({ code: 400, text: 'product_id is required in this collection' }) }) })]);
  }, 180_000);
  afterAll(() => h?.close());

  const get = async (id: string) => (await call(`${base}/get`, { records: [{ _id: id }] }, shop)).body.answer_records[0]!;

  it('refuses records whose typed fields have another type, or whose product id is empty, before any image is read', async () => {
    const res = await call(`${base}/insert`, {
      records: [
        { _id: 'flag', _base64: watch, product_id: 'q1', extract_colors: 'yes' },
        { _id: 'tags', _base64: watch, product_id: 'q2', tags: 'red' },
        { _id: 'empty-id', _base64: watch, product_id: '  ' },
        { _id: 'object-id', _base64: watch, product_id: { a: 1 } },
        { _id: 'big', _base64: watch, product_id: 'q3', title: 'x'.repeat(70_000) },
        // colour search ranks by these: held to the spec's shape
        { _id: 'colours', _base64: watch, product_id: 'q4', _dominant_colors: { luv_colors: [[150, 1, 2]], percentages: [500] } },
        // categories choose the item and filter every search from the record: never replaced by a prediction, never empty
        { _id: 'top-number', _base64: watch, product_id: 'q5', 'Top Category': 5 },
        { _id: 'category-list', _base64: watch, product_id: 'q6', Category: ['Clothing/Upper body'] },
        { _id: 'category-empty', _base64: watch, product_id: 'q7', 'Top Category': '', Category: '' },
      ],
    }, shop);
    expect(res.http).toBe(400);
    const reasons = Object.fromEntries((res.body.skipped_records as { _id: string; _reason: { status: { code: number; text: string } } }[]).map((r) => [r._id, { code: r._reason.status.code, text: r._reason.status.text }]));
    expect(reasons).toEqual({
      flag: { code: 400, text: 'extract_colors must be true or false' },
      tags: { code: 400, text: 'tags must be an array of strings' },
      colours: { code: 400, text: '_dominant_colors.luv_colors[0]: L must be 0 to 100' },
      'empty-id': { code: 400, text: 'product_id must be a non-empty string or a number' },
      'object-id': { code: 400, text: 'product_id must be a non-empty string or a number' },
      big: { code: 400, text: "the record's fields take 69 KiB of JSON; at most 64 KiB (the image not counted)" },
      'top-number': { code: 400, text: 'Top Category must be a non-empty string' },
      'category-list': { code: 400, text: 'Category must be a non-empty string' },
      'category-empty': { code: 400, text: 'Top Category must be a non-empty string' },
    });
    // Skipped records come back with the fields they were sent with (spec 2 §2), not the image.
    const flag = (res.body.skipped_records as Record<string, unknown>[]).find((r) => r._id === 'flag')!;
    expect(flag).toMatchObject({ product_id: 'q1', extract_colors: 'yes' });
    expect(flag).not.toHaveProperty('_base64');
    // An update is held to the same rule.
    const up = await call(`${base}/update`, { records: [{ _id: 'shoes', product_id: '' }] }, shop);
    expect(JSON.stringify(up.body)).toContain('product_id must be a non-empty string or a number');
    expect((await get('shoes')).product_id).toBe('p2');
    const shoes = await get('shoes');
    const typed = await call(`${base}/update`, { records: [{ _id: 'shoes', 'Top Category': 7, Category: { a: 1 } }] }, shop);
    expect(JSON.stringify(typed.body)).toContain('Top Category must be a non-empty string');
    const junk = await call(`${base}/update`, { records: [{ _id: 'shoes', _objects: 'junk' }] }, shop);
    expect(JSON.stringify(junk.body)).toContain('_objects must be a list of objects');
    expect((await get('shoes'))._objects).toEqual(shoes._objects);
    expect([(await get('shoes'))['Top Category'], (await get('shoes')).Category]).toEqual([shoes['Top Category'], shoes.Category]);
  });

  it('finds a record by the garment the server found in it, in words of any lexicon language', async () => {
    const look = await get('look');
    const kind = (look._objects as Obj[])[0]!.name;
    const words: Record<string, [string, string]> = { 'upper body': ['shirt', 'chemise'], 'lower body': ['jeans', 'pantalón'], 'full body': ['dress', 'vestido'], footwear: ['shoes', 'chaussures'] };
    // the group photo's largest item is a garment the pose gives (not a COCO accessory)
    expect(Object.keys(words)).toContain(kind);
    for (const word of words[kind]!) {
      const res = await call('/similarity/text/fashion/v2/text', { query_record: { _text_data: word }, k: 10 }, shop);
      expect(res.http, word).toBe(200);
      expect((res.body.answer_records as { _id: string }[]).map((r) => r._id), word).toContain('look');
    }
  });

  it('says in its echo that the whole image was searched, with the categories that filtered (h105: no object carried them)', async () => {
    const res = await call(`${base}/visualKNN`, { query_record: { _base64: watch, 'Top Category': 'Clothing', Category: 'Clothing/Full body' }, k: 5 }, shop);
    expect(res.http).toBe(200);
    const [first] = res.body.query_records![0]!._objects!;
    expect(first).toMatchObject({ name: 'item', category_filter: true, category_source: 'record', 'Top Category': 'Clothing', Category: 'Clothing/Full body' });
    expect(first!.bound_box.slice(0, 2)).toEqual([0, 0]);
  });

  it("counts a colour as the seller's word only from the record's own words, not from the colours extracted from its photo (h105)", async () => {
    const { account, token } = await h.newAccount(1000);
    const c = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'colours' })).id, account, token };
    // a product photo (no person: one item, the whole image) four fifths red, one fifth blue
    const raw = Buffer.alloc(100 * 100 * 3);
    for (let y = 0; y < 100; y++) for (let x = 0; x < 100; x++) raw.set(y < 80 ? [200, 20, 30] : [20, 40, 200], (y * 100 + x) * 3);
    const redBlue = (await sharp(raw, { raw: { width: 100, height: 100, channels: 3 } }).png().toBuffer()).toString('base64');
    const grey = (await sharp({ create: { width: 100, height: 100, channels: 3, background: '#bbbbbb' } }).png().toBuffer()).toString('base64');
    const inserted = await call(`${base}/insert`, { records: [{ _id: 'red', _base64: redBlue, product_id: 'r', title: 'Red summer dress', extract_colors: true }, { _id: 'named', _base64: grey, product_id: 'n', title: 'Blue dress' }, { _id: 'tagged', _base64: redBlue, product_id: 't', title: 'Summer dress', extract_colors: true, extract_tags: true }] }, c);
    expect(inserted.body.status.code).toBe(210);
    const res = await call('/similarity/text/fashion/v2/text', { query_record: { _text_data: 'blue' }, k: 10, product_field: '' }, c);
    const distance = (id: string) => (res.body as unknown as { answer_distances: number[] }).answer_distances[(res.body.answer_records as { _id: string }[]).findIndex((r) => r._id === id)];
    // the seller's "Blue dress" counts as half blue; the red dress is as blue as its photo (a fifth), not half
    expect(distance('named')).toBe(50);
    expect(distance('red')).toBeGreaterThan(70);
    // nor from the colour names extract_tags wrote (h242: its `_tags` and `_tags_simple` counted as the seller's words)
    const tagged = (await call(`${base}/get`, { records: [{ _id: 'tagged' }] }, c)).body.answer_records[0]!;
    expect(tagged._tags_simple).toContain('blue');
    expect(distance('tagged')).toBeGreaterThan(70);
  });

  it('stores the largest item of a photo, with categories the detector gives when the record has none', async () => {
    const look = await get('look');
    const [item] = look._objects as Obj[];
    expect(item).toMatchObject({ id: '0', category_source: 'detector' });
    expect(['upper body', 'lower body', 'full body', 'footwear', 'tie']).toContain(item!.name);
    expect(item!.area).toBe((item!.bound_box[2]! - item!.bound_box[0]!) * (item!.bound_box[3]! - item!.bound_box[1]!));
    expect(look.Category).toBe(item!.Category);
    expect(String(look.Category)).toMatch(/^(Clothing|Footwear|Accessories)\//);
    // extract_colors and extract_tags: the item's colours and tags.
    const colors = look._dominant_colors as { luv_colors: number[][]; percentages: number[]; names: string[] };
    expect(colors.luv_colors.length).toBeGreaterThan(0);
    expect(colors.luv_colors.length).toBe(colors.percentages.length);
    expect((look._tags_simple as string[])[0]).toBe(item!.name);
    expect(look._tags).toMatchObject({ Item: [{ name: item!.name }] });
  });

  it("chooses the item a record's own categories name, and keeps them as sent", async () => {
    const shoes = await get('shoes');
    expect(shoes.Category).toBe('Sneakers');
    expect((shoes._objects as Obj[])[0]).toMatchObject({ name: 'footwear', Category: 'Sneakers', category_source: 'record', 'pre-filled': true });
    // Categories no item matches: the whole image, categories as sent, own _tags_simple kept.
    const w = await get('watch');
    expect((w._objects as Obj[])[0]).toMatchObject({ name: 'item', bound_box: [0, 0, 300, 242], Category: 'Watches' });
    expect(w._tags_simple).toEqual(['gold', 'classic']);
    expect(w['Top Category']).toBe('Accessories');
    // _tags: every value a list; the record's own categories marked on their entries, the measured ones not.
    const tags = w._tags as Record<string, { name: string; 'pre-filled'?: boolean }[]>;
    for (const list of Object.values(tags)) expect(Array.isArray(list)).toBe(true);
    expect(tags.Category).toEqual([expect.objectContaining({ name: 'Watches', 'pre-filled': true })]);
    expect(tags.Item![0]).not.toHaveProperty('pre-filled');
  });

  it("lets the detector's records vote too: one record the shop categorised does not take every photo of its kind (h265)", async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'mixed' })).id, account, token };
    // three photos categorised by the detector, then one the shop categorised, of the same kind of item
    const detected = [['a', 'faces/bbt1.jpg'], ['b', 'faces/linzaer_9.jpg'], ['c', 'faces/happy.jpg']];
    expect((await call(`${base}/insert`, { records: detected.map(([id, f]) => ({ _id: id, _base64: photoBase64(f!), product_id: id })) }, c)).body.status.code).toBe(210);
    const kind = ((await call(`${base}/get`, { records: [{ _id: 'a' }] }, c)).body.answer_records[0]!._objects as Obj[])[0]!;
    expect(kind.category_source).toBe('detector');
    expect((await call(`${base}/insert`, { records: [{ _id: 'e', _base64: photoBase64('faces/sad.jpg'), product_id: 'e', 'Top Category': 'Clothing', Category: 'Clothing/Tops' }] }, c)).body.status.code).toBe(210);
    expect(((await call(`${base}/get`, { records: [{ _id: 'e' }] }, c)).body.answer_records[0]!._objects as Obj[])[0]!.name).toBe(kind.name);
    // a photo of the kind, nearest to a detector-categorised record: its records are not filtered out for the one
    // the shop categorised (it answered e alone, and every later record of the kind took e's category)
    const found = await call(`${base}/visualKNN`, { query_record: { _base64: photoBase64('faces/bbt2.jpg') }, k: 5 }, c);
    const ids = found.body.answer_records.map((r) => r._id);
    expect(ids).toContain('a');
    expect(found.body.query_records![0]!._objects![0]!.category_source).toBe('detector');
    expect((await call(`${base}/insert`, { records: [{ _id: 'f', _base64: photoBase64('faces/bbt2.jpg'), product_id: 'f' }] }, c)).body.status.code).toBe(210);
    const f = (await call(`${base}/get`, { records: [{ _id: 'f' }] }, c)).body.answer_records[0]!;
    expect(f.Category).toBe(kind.Category);
  }, 120_000);

  it("gives a record without categories its neighbours' categories when they agree (the shop's own words)", async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'votes' })).id, account, token };
    expect((await call(`${base}/insert`, { records: [{ _id: 'hoodie', _base64: group, product_id: 'h', 'Top Category': 'Menswear', Category: 'Hoodies' }] }, c)).body.status.code).toBe(210);
    const hoodie = (await call(`${base}/get`, { records: [{ _id: 'hoodie' }] }, c)).body.answer_records[0]!;
    expect((hoodie._objects as Obj[])[0]!.name).toBe('upper body');
    expect((await call(`${base}/insert`, { records: [{ _id: 'look-2', _base64: group, product_id: 'l' }] }, c)).body.status.code).toBe(210);
    const look = (await call(`${base}/get`, { records: [{ _id: 'look-2' }] }, c)).body.answer_records[0]!;
    expect(look).toMatchObject({ 'Top Category': 'Menswear', Category: 'Hoodies' });
    expect((look._objects as Obj[])[0]).toMatchObject({ name: 'upper body', Category: 'Hoodies', category_source: 'neighbours' });
    expect((look._objects as Obj[])[0]!['pre-filled']).toBeUndefined();
    // rule 5: the item searched shows the categories that filtered, the shop's words by vote (it showed
    // the detector's while the vote's filtered); rule 7: copied and sent back, it searches that item,
    // filtered as the first search was
    const first = await call(`${base}/visualKNN`, { query_record: { _base64: group }, k: 5 }, c);
    const upper = first.body.query_records![0]!._objects![0]!;
    expect(upper).toMatchObject({ name: 'upper body', 'Top Category': 'Menswear', Category: 'Hoodies', category_source: 'neighbours', category_filter: true });
    expect(first.body.query_records![0]!._objects!.slice(1).every((o) => o.category_source === 'detector' && o.category_filter === undefined)).toBe(true);
    const again = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [upper] }, k: 5 }, c);
    expect(again.http).toBe(200);
    // the item sent back is listed once, first, with its id; every other item as the first search gave it
    const echoed = again.body.query_records![0]!._objects!;
    expect(echoed[0]).toMatchObject({ id: upper.id, bound_box: upper.bound_box, 'pre-filled': true });
    expect(echoed.filter((o) => o.id === upper.id)).toHaveLength(1);
    expect(echoed.map((o) => o.id).sort()).toEqual(first.body.query_records![0]!._objects!.map((o) => o.id).sort());
    expect(again.body.answer_records.map((r) => r._id)).toContain('hoodie');
    // categories the client writes on the query record still filter as sent
    const named = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [upper], Category: 'Dresses' }, k: 5 }, c);
    expect(named.body.answer_records).toEqual([]);
  });

  it('stores the item of an object copied from a response into an insert (it stored the largest instead)', async () => {
    const found = (await call(`${base}/visualKNN`, { query_record: { _base64: group }, k: 1 }, shop)).body.query_records![0]!._objects!;
    const other = found[found.length - 1]!;
    expect(found.length).toBeGreaterThan(1);
    expect(other.bound_box).not.toEqual(found[0]!.bound_box);
    expect(other.Category).toEqual(expect.any(String));
    expect((await call(`${base}/insert`, { records: [{ _id: 'copied', _base64: group, product_id: 'cp', _objects: [other] }] }, shop)).body.status.code).toBe(210);
    const copied = await get('copied');
    const stored = copied._objects as Obj[];
    expect(stored[0]!.bound_box).toEqual(other.bound_box);
    // with the item's name and categories as the object carried them (they were dropped: a nameless `item`)
    expect(stored[0]).toMatchObject({ name: other.name, Category: other.Category, category_source: other.category_source, 'pre-filled': true });
    expect(copied).toMatchObject({ 'Top Category': other['Top Category'], Category: other.Category });
    // held as the record's own categories are: a bad one is the record's 400, not stored
    for (const bad of [{ Category: { $ne: 1 } }, { 'Top Category': 42 }, { Category: '  ' }, { name: 'x'.repeat(60_000) }, { name: '' }]) {
      const res = await call(`${base}/insert`, { records: [{ _id: 'bad-object', _base64: group, product_id: 'bo', _objects: [{ bound_box: [10, 20, 200, 300], ...bad }] }] }, shop);
      expect(res.body.skipped_records?.[0]?._reason, JSON.stringify(bad)).toMatchObject({ status: { code: 400, text: expect.stringMatching(/^_objects\[0\]\.(Top Category|Category|name) must be a non-empty string/) } });
    }
    // an update with a new image and the object it read back is no drawing: the detector chooses again
    expect((await call(`${base}/update`, { records: [{ _id: 'copied', _base64: group, _objects: stored }] }, shop)).http).toBe(200);
    expect(((await get('copied'))._objects as Obj[])[0]!.bound_box).toEqual(found[0]!.bound_box);
  });

  it("keeps the colour of a box drawn inside a garment; a detector's box copied back is read as before (h281)", async () => {
    // a navy shirt on white with a white logo on its chest; the box drawn on the chest, around the logo
    const shirt = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#ffffff' } })
      .composite([
        { input: await sharp({ create: { width: 200, height: 230, channels: 3, background: '#1c2748' } }).png().toBuffer(), left: 50, top: 50 },
        { input: await sharp({ create: { width: 40, height: 30, channels: 3, background: '#ffffff' } }).png().toBuffer(), left: 130, top: 120 },
      ])
      .png()
      .toBuffer();
    const inside = [100, 90, 200, 190];
    const insert = (id: string, object: Record<string, unknown>) => call(`${base}/insert`, { records: [{ _id: id, _base64: shirt.toString('base64'), product_id: id, extract_colors: true, _objects: [object] }] }, shop);
    expect((await insert('drawn-inside', { bound_box: inside })).body.status.code).toBe(210);
    expect(((await get('drawn-inside'))._dominant_colors as { names: string[] }).names[0]).toBe('navy blue');
    // the detector's boxes are tight on their item: the band around is background, as before
    expect((await insert('copied-inside', { bound_box: inside, category_source: 'detector', name: 'upper body', Category: 'Clothing/Upper body', 'Top Category': 'Clothing' })).body.status.code).toBe(210);
    expect(((await get('copied-inside'))._dominant_colors as { names: string[] }).names[0]).toBe('white');
  });

  it('visualKNN with a photo lists every item found and searches the largest; the query item\'s categories filter', async () => {
    const res = await call(`${base}/visualKNN`, { query_record: { _base64: group }, k: 5 }, shop);
    expect(res.http).toBe(200);
    const objects = res.body.query_records![0]!._objects!;
    expect(objects.length).toBeGreaterThan(2);
    expect(objects.map((o) => o.id)).toEqual(objects.map((_, i) => String(i)));
    const areas = objects.map((o) => o.area);
    expect([...areas].sort((a, b) => b - a)).toEqual(areas);
    expect(res.body.answer_count).toBeGreaterThan(0);
    // The query names Sneakers: only records in that category answer.
    const sneakers = await call(`${base}/visualKNN`, { query_record: { _base64: group, Category: 'Sneakers' }, k: 5 }, shop);
    expect(sneakers.body.answer_records.map((r) => r._id)).toEqual(['shoes']);
    // the item the categories chose is echoed first, as the item searched (it is not the largest)
    expect(sneakers.body.query_records![0]!._objects![0]!.name).toBe('footwear');
    expect(sneakers.body.query_records![0]!._objects!.map((o) => o.id).sort()).toEqual(objects.map((o) => o.id).sort());
    // A drawn box searches that region; a malformed one is refused.
    const drawn = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [{ bound_box: [900, 250, 1230, 500] }], extract_tags: true }, k: 3 }, shop);
    expect(drawn.http).toBe(200);
    // The drawn box stays in the echo, first, with the colours measured in it; the detected items follow, with their tags.
    const echoed = drawn.body.query_records![0]!._objects as (Obj & { _tags?: Record<string, unknown[]>; _tags_simple?: string[] })[];
    expect(echoed[0]).toMatchObject({ bound_box: [900, 250, 1230, 500], 'pre-filled': true, name: 'item', prob: 1, area: 330 * 250, id: String(echoed.length - 1) });
    expect(echoed[0]!._tags!.Color!.length).toBeGreaterThan(0);
    expect(echoed.slice(1).every((o) => o._tags?.Item && o._tags_simple?.[0] === o.name)).toBe(true);
    const two = await call(`${base}/visualKNNMulti`, { query_records: [{ _id: 'look' }, { _id: 'shoes' }] }, shop);
    expect(two.http).toBe(400);
    expect(two.body).toMatchObject({ code: 'too_many_records' });
    const eleven = await call(`${base}/visualKNNMulti`, { query_records: Array.from({ length: 11 }, (_, i) => ({ _id: `r${i}` })) }, shop);
    expect(eleven.http).toBe(400);
    expect(eleven.body).toMatchObject({ code: 'too_many_records' });
    // Old clients' one-record list, with two records: the same code.
    const oldTwo = await call(`${base}/visualKNN`, { records: [{ _id: 'look' }, { _id: 'shoes' }] }, shop);
    expect(oldTwo.http).toBe(400);
    expect(oldTwo.body).toMatchObject({ code: 'too_many_records' });
    // eleven, past what the schema had allowed, the same code (h273: invalid_request where the doc said too_many_records)
    const oldEleven = await call(`${base}/visualKNN`, { records: Array.from({ length: 11 }, (_, i) => ({ _id: `r${i}` })) }, shop);
    expect(oldEleven.http).toBe(400);
    expect(oldEleven.body).toMatchObject({ code: 'too_many_records' });
    // Both forms at once would leave one unread.
    const both = await call(`${base}/visualKNN`, { query_record: { _id: 'look' }, records: [{ _id: 'shoes' }] }, shop);
    expect(both.http).toBe(400);
    expect(both.body).toMatchObject({ code: 'invalid_request', detail: expect.stringMatching(/not in both/) });
    // _objects must be a list: an object is refused, not ignored.
    const notList = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: { bound_box: [900, 250, 1230, 500] } } }, shop);
    expect(notList.http).toBe(400);
    expect(notList.body.detail ?? JSON.stringify(notList.body)).toMatch(/_objects must be a list of objects/);
    // a box running past the image is searched, and echoed, as far as the image goes
    const past = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [{ bound_box: [900, 250, 1e9, 1e9] }] }, k: 1 }, shop);
    const q = past.body.query_records![0]! as { _width: number; _height: number; _objects: Obj[] };
    expect(q._objects[0]).toMatchObject({ bound_box: [900, 250, q._width, q._height], area: (q._width - 900) * (q._height - 250) });
    // a client sending back a whole list, the one it wants first: the first is searched
    const twoBoxes = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [{ bound_box: [900, 250, 1230, 500] }, { bound_box: [10, 10, 100, 100] }] } }, shop);
    expect([twoBoxes.http, twoBoxes.body.query_records![0]!._objects![0]!.bound_box]).toEqual([200, [900, 250, 1230, 500]]);
    // categories are text: another type is refused, not read as no category (which would lift the filter)
    const typed = await call(`${base}/visualKNN`, { query_record: { _base64: group, Category: 'Dresses', _objects: [{ bound_box: [900, 250, 1230, 500], Category: 5 }] } }, shop);
    expect([typed.http, typed.body.detail]).toEqual([400, 'query_record._objects[0].Category must be a non-empty string.']);
    // so are a query's typed fields, as an insert's are: not ignored when malformed
    for (const [method, extra, detail] of [
      ['visualTagsKNN', { _dominant_colors: 'red' }, 'query_record._dominant_colors must be an object with luv_colors and percentages.'],
      ['visualKNN', { extract_tags: 'yes' }, 'query_record.extract_tags must be true or false.'],
      ['visualKNN', { extract_colors: 1 }, 'query_record.extract_colors must be true or false.'],
    ] as const) {
      const res = await call(`${base}/${method}`, { query_record: { _base64: group, ...extra } }, shop);
      expect([res.http, res.body.detail], method).toEqual([400, detail]);
    }
    // an _id query echoes what was sent with it, as an image query does
    const byId = await call(`${base}/visualKNN`, { query_record: { _id: 'look', note: 'from the app' }, k: 1 }, shop);
    expect(byId.body.query_records![0]).toMatchObject({ _id: 'look', note: 'from the app' });
    // categories written on an _id query filter, as on an image query: Sneakers finds only the shoes
    const byIdNamed = await call(`${base}/visualKNN`, { query_record: { _id: 'look', Category: 'Sneakers' }, k: 5 }, shop);
    expect(byIdNamed.body.answer_records.map((r) => r._id)).toEqual(['shoes']);
    expect((await call(`${base}/visualKNN`, { query_record: { _id: 'look', Category: 5 } }, shop)).http).toBe(400);
    for (const bad of [[10, 10, 12, 400], [1, 2, 3], 'box', [5000, 5000, 6000, 6000]]) {
      const r = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [{ bound_box: bad }] } }, shop);
      expect(r.http, JSON.stringify(bad)).toBe(400);
    }
    // a box left of or above the image is said to lie outside it, as one right of or below it is (h328: it was told
    // its corners were in the wrong order)
    for (const [bad, detail] of [
      [[-500, -500, -10, -10], 'query_record._objects[0].bound_box lies outside the image (left of it or above it).'],
      [[100, -300, 400, 5], 'query_record._objects[0].bound_box lies outside the image (left of it or above it).'],
      [[400, 100, 100, 300], 'query_record._objects[0].bound_box must have xmin < xmax and ymin < ymax, at least 8 px apart.'],
      [[5000, 5000, 6000, 6000], 'query_record._objects[0].bound_box lies outside the 1366x768 image.'],
    ] as const) {
      const r = await call(`${base}/visualKNN`, { query_record: { _base64: group, _objects: [{ bound_box: bad }] } }, shop);
      expect([r.http, r.body.detail], JSON.stringify(bad)).toEqual([400, detail]);
    }
  });

  it("visualTagsKNN counts the colours too: a record holding the query's colours ranks as if a quarter closer", async () => {
    const look = await get('look');
    const query = { _base64: watch, _dominant_colors: look._dominant_colors };
    const plain = await call(`${base}/visualKNN`, { query_record: query, k: 5 }, shop);
    // tags sent empty: the colours alone (without them the query's item would be given its generated tags, below)
    const tagged = await call(`${base}/visualTagsKNN`, { query_record: { ...query, _tags_simple: [] }, k: 5 }, shop);
    const distance = (b: Body & { answer_distances?: number[] }, id: string) => b.answer_distances![b.answer_records.findIndex((r) => r._id === id)]!;
    expect(distance(tagged.body, 'look') / distance(plain.body, 'look')).toBeCloseTo(0.75, 2);
    // A record without extracted colours is compared by the colours text search kept of its image.
    expect(distance(tagged.body, 'shoes')).toBeLessThanOrEqual(distance(plain.body, 'shoes'));
  });

  it('visualTagsKNN gives a query that sends no _tags_simple its item\'s generated tags (spec: "generated automatically by fashion tagging")', async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'tags' })).id, account, token };
    expect((await call(`${base}/insert`, { records: [{ _id: 'w', _base64: watch, product_id: 'w', extract_tags: true }, { _id: 'g', _base64: group, product_id: 'g' }] }, c)).body.status.code).toBe(210);
    const stored = (await call(`${base}/get`, { records: [{ _id: 'w' }], fields_to_return: ['*'] }, c)).body.answer_records[0]!;
    expect((stored._tags_simple as string[]).length).toBeGreaterThan(0);
    // the same watch, a little smaller: visually near, not identical; its generated tags are the stored record's
    const near = (await sharp(Buffer.from(watch, 'base64')).resize({ width: 240 }).jpeg({ quality: 85 }).toBuffer()).toString('base64');
    const distance = (b: Body & { answer_distances?: number[] }) => b.answer_distances![b.answer_records.findIndex((r) => r._id === 'w')]!;
    const generated = await call(`${base}/visualTagsKNN`, { query_record: { _base64: near }, k: 2 }, c);
    const none = await call(`${base}/visualTagsKNN`, { query_record: { _base64: near, _tags_simple: [] }, k: 2 }, c);
    expect(distance(none.body)).toBeGreaterThan(0);
    expect(distance(generated.body) / distance(none.body)).toBeLessThan(0.9);
  });

  it('update with a new image keeps the categories the client gave, and bills the extras it asks for', async () => {
    const credits = async () => (await h.app.loupe.accounts.getAccount(shop.account)).credits;
    const before = await credits();
    const res = await call(`${base}/update`, { records: [{ _id: 'shoes', _base64: group, extract_colors: true }] }, shop);
    expect(res.http).toBe(200);
    const shoes = await get('shoes');
    expect(shoes.Category).toBe('Sneakers');
    expect((shoes._objects as Obj[])[0]).toMatchObject({ name: 'footwear', category_source: 'record' });
    expect(shoes._dominant_colors).toBeDefined();
    // The call and the one extra.
    expect(await credits()).toBe(before - 2);
    // without an image the item and the extracted colours stay the server's: null changes neither (h242: null removed
    // the item and the colours the flag still asked for), and the stored item sent back as read is no change
    for (const sent of [{ _objects: null, _dominant_colors: null }, { _objects: shoes._objects }]) {
      expect((await call(`${base}/update`, { records: [{ _id: 'shoes', ...sent }] }, shop)).http).toBe(200);
      const now = await get('shoes');
      expect([now._objects, now._dominant_colors], JSON.stringify(sent)).toEqual([shoes._objects, shoes._dominant_colors]);
    }
    // a box of the client's own chooses an item in the image: without the image it is the record's 400, not a 205 that
    // kept the old item without a word (h328; h242 had a made-up item searched by its name)
    for (const box of [[0, 0, 10, 10], [10.4, 20, 300, 400]]) {
      const drawn = await call(`${base}/update`, { records: [{ _id: 'shoes', _objects: [{ name: 'tie', bound_box: box, Category: 'Accessories/Ties', category_source: 'record' }] }] }, shop);
      expect([drawn.http, drawn.body.skipped_records?.[0]?._reason.status], JSON.stringify(box)).toEqual([400, expect.objectContaining({ code: 400, text: expect.stringMatching(/^_objects\[0\]\.bound_box chooses the item in the image: send the image with it/) })]);
      expect((await get('shoes'))._objects).toEqual(shoes._objects);
    }
    // nor the tags extract_tags made: null does not take them away while the flag is on (h246)
    const look = await get('look');
    expect(look.extract_tags).toBe(true);
    expect((await call(`${base}/update`, { records: [{ _id: 'look', _tags: null }] }, shop)).http).toBe(200);
    expect([(await get('look'))._tags, (await get('look'))._tags_simple]).toEqual([look._tags, look._tags_simple]);
    // but `_tags` of the client's own are stored as sent (h331: h246 kept the server's in their place), the
    // server's `_tags_simple` beside them
    const tiara = { Item: [{ name: 'tiara', prob: 1 }], Color: [{ name: 'gold', prob: 1 }] };
    expect((await call(`${base}/update`, { records: [{ _id: 'look', _tags: tiara }] }, shop)).http).toBe(200);
    expect([(await get('look'))._tags, (await get('look'))._tags_simple]).toEqual([tiara, look._tags_simple]);
    // a `_tags_simple` of the client's own is kept as sent, as on insert (rule 3, h247)
    expect((await call(`${base}/update`, { records: [{ _id: 'look', _tags_simple: ['mine'] }] }, shop)).http).toBe(200);
    expect((await get('look'))._tags_simple).toEqual(['mine']);
    // and its own `_tags`, sent as it turns the flag off (h247: they were dropped)
    expect((await call(`${base}/update`, { records: [{ _id: 'look', extract_tags: false, _tags: { Item: [{ name: 'tiara', prob: 1 }] } }] }, shop)).http).toBe(200);
    expect((await get('look'))._tags).toEqual({ Item: [{ name: 'tiara', prob: 1 }] });
  });

  // h331: a client's own `_dominant_colors` and `_tags` were replaced by the server's when the flag was on
  describe("a client's own _dominant_colors and _tags, with the flag on", () => {
    let c: Owned;
    const credits = async () => (await h.app.loupe.accounts.getAccount(c.account)).credits;
    const price = (key: string) => h.config.prices[key]!;
    const read = async (id: string) => (await call(`${base}/get`, { records: [{ _id: id }] }, c)).body.answer_records[0]!;
    const blue = { luv_colors: [[39.9, -16.9, -93.8]], percentages: [100] };
    const mine = { Mine: ['x'] };
    let t1: Record<string, unknown>;
    beforeAll(async () => {
      const { account, token } = await h.newAccount(100);
      c = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'own' })).id, account, token };
    });

    it('insert stores _dominant_colors as sent, and finds them by text search', async () => {
      // a grey product photo, which the client says is blue: its colours are the client's to say
      const grey = (await sharp({ create: { width: 120, height: 120, channels: 3, background: '#9a9a9a' } }).png().toBuffer()).toString('base64');
      const res = await call(`${base}/insert`, { records: [{ _id: 'c1', _base64: grey, product_id: 'p2', title: 'Summer dress', extract_colors: true, _dominant_colors: blue }] }, c);
      expect(res.body.status.code).toBe(210);
      expect((await read('c1'))._dominant_colors).toEqual(blue);
      // the call alone: the flag had nothing to make
      expect(100 - (await credits())).toBe(price('visual_search.insert'));
      // text search reads them: "blue" finds the grey photo its client calls blue, and colours rank by them
      const words = await call('/similarity/text/fashion/v2/text', { query_record: { _text_data: 'blue' }, k: 10 }, c);
      expect(words.body.answer_records.map((r) => r._id)).toEqual(['c1']);
      const colours = await call('/similarity/text/fashion/v2/text', { query_record: { _dominant_colors: blue }, k: 10 }, c);
      expect((colours.body as unknown as { answer_distances: number[] }).answer_distances[0]).toBe(50);
      // a query record's categories are echoed, not a filter (spec 2 lists `filter` for that): `filter` narrows
      const named = await call('/similarity/text/fashion/v2/text', { query_record: { _text_data: 'blue', 'Top Category': 'Bags', Category: 'Bags/Handbag' }, k: 10 }, c);
      expect([named.body.answer_records.map((r) => r._id), named.body.query_records![0]]).toEqual([['c1'], expect.objectContaining({ 'Top Category': 'Bags', Category: 'Bags/Handbag' })]);
      const filtered = await call('/similarity/text/fashion/v2/text', { query_record: { _text_data: 'blue' }, filter: { Category: 'Bags/Handbag' }, k: 10 }, c);
      expect(filtered.body.answer_records).toEqual([]);
    });

    it('insert stores _tags as sent; the server makes the _tags_simple it was not sent, and bills the flag for it', async () => {
      const before = await credits();
      const res = await call(`${base}/insert`, {
        records: [
          { _id: 't1', _base64: watch, product_id: 'p3', extract_tags: true, _tags: mine },
          { _id: 'all', _base64: watch, product_id: 'p4', extract_colors: true, extract_tags: true, _dominant_colors: blue, _tags: mine, _tags_simple: ['mine'] },
        ],
      }, c);
      expect(res.body.status.code).toBe(210);
      t1 = await read('t1');
      expect(t1._tags).toEqual(mine);
      expect((t1._tags_simple as string[])[0]).toBe((t1._objects as Obj[])[0]!.name);
      expect(await read('all')).toMatchObject({ _dominant_colors: blue, _tags: mine, _tags_simple: ['mine'] });
      // the call and t1's tags; no flag of the record that sent every output
      expect(before - (await credits())).toBe(price('visual_search.insert') + price('visual_search.extract_tags'));
    });

    it('an update stores what it sends, and keeps it through a new image and the flag turned off', async () => {
      // without an image (h242 and h246 kept the server's in its place)
      const red = { luv_colors: [[44.7, 137.3, 27.9]], percentages: [80] };
      const yours = { Yours: ['y'] };
      let before = await credits();
      const sent = await call(`${base}/update`, { records: [{ _id: 'c1', _dominant_colors: red }, { _id: 't1', _tags: yours }] }, c);
      expect([sent.http, sent.body.status.code]).toEqual([200, 205]);
      expect((await read('c1'))._dominant_colors).toEqual(red);
      expect((await read('t1'))._tags).toEqual(yours);
      expect(before - (await credits())).toBe(price('visual_search.update'));
      // a new image keeps them, as a _tags_simple the client wrote; the server's own (t1's _tags_simple) are made again
      before = await credits();
      expect((await call(`${base}/update`, { records: [{ _id: 'c1', _base64: group }, { _id: 't1', _base64: group }] }, c)).http).toBe(200);
      expect((await read('c1'))._dominant_colors).toEqual(red);
      const again = await read('t1');
      expect(again._tags).toEqual(yours);
      expect((again._tags_simple as string[])[0]).toBe((again._objects as Obj[])[0]!.name);
      expect(again._tags_simple).not.toEqual(t1._tags_simple);
      // the call, and t1's tags made again; c1's colours, the client's, cost nothing
      expect(before - (await credits())).toBe(price('visual_search.update') + price('visual_search.extract_tags'));
      // a flag turned off takes away what it made, not what the client wrote
      expect((await call(`${base}/update`, { records: [{ _id: 'c1', extract_colors: false }, { _id: 't1', extract_tags: false }] }, c)).http).toBe(200);
      expect((await read('c1'))._dominant_colors).toEqual(red);
      expect(await read('t1')).toMatchObject({ _tags: yours });
      expect(await read('t1')).not.toHaveProperty('_tags_simple');
      // turned on again beside colours of the client's own, on a record keeping no link: nothing to read, no refusal
      expect((await call(`${base}/update`, { records: [{ _id: 'c1', extract_colors: true }] }, c)).http).toBe(200);
      // and null takes away the client's own, as it removes any field
      expect((await call(`${base}/update`, { records: [{ _id: 'c1', _dominant_colors: null }] }, c)).http).toBe(200);
      expect(await read('c1')).not.toHaveProperty('_dominant_colors');
    });
  });

  it('nearDupsInsert bills the extras of the records it stores, as insert does (they were stored free, h92)', async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'near' })).id, account, token };
    const credits = async () => (await h.app.loupe.accounts.getAccount(account)).credits;
    const res = await call(`${base}/nearDupsInsert`, { records: [{ _id: 'n1', _base64: group, product_id: 'N1', extract_colors: true, extract_tags: true }, { _id: 'n2', _base64: group, product_id: 'N2', extract_colors: true }] }, c);
    expect(res.body.status.code).toBe(211);
    // the call (1) and n1's two extras; n2, a near duplicate of n1, is not stored and its extra is given back
    expect(await credits()).toBe(100 - 3);
    expect((await call(`${base}/get`, { records: [{ _id: 'n1' }] }, c)).body.answer_records[0]!._dominant_colors).toBeDefined();
  });

  it('an insert charges its price with the extras of the records it takes, in one debit: parallel inserts store as many as the account pays for, a retried batch pays for its new records only (h92, h101)', async () => {
    const { account, token } = await h.newAccount(10);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'parallel' })).id, account, token };
    const credits = async () => (await h.app.loupe.accounts.getAccount(account)).credits;
    // each costs 2: the call and its colours
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call(`${base}/insert`, { records: [{ _id: `p${i}`, _base64: watch, product_id: `P${i}`, extract_colors: true }] }, c)));
    expect(answers.filter((a) => a.http === 210)).toHaveLength(5);
    expect(answers.filter((a) => a.http === 402)).toHaveLength(3);
    expect(await credits()).toBe(0);
    // the refusal names what the call costs
    expect(JSON.stringify(answers.find((a) => a.http === 402)!.body)).toMatch(/visual_search\.insert with its extract_colors\/extract_tags costs 2 credits/);
    // the whole batch sent again with one new record: only the call and the new record's extras are charged
    await h.app.loupe.accounts.addCredits(account, 3);
    const stored = answers.map((a, i) => [a.http, i] as const).filter(([s]) => s === 210).map(([, i]) => `p${i}`);
    const again = await call(`${base}/insert`, { records: [...stored.map((id) => ({ _id: id, _base64: watch, product_id: 'X', extract_colors: true, extract_tags: true })), { _id: 'new', _base64: watch, product_id: 'N', extract_colors: true }] }, c);
    expect(again.http).toBe(211);
    expect(await credits()).toBe(1);
    // every record stored already, at a balance of 0: the batch's 411, not a 402 (h102)
    await h.app.loupe.accounts.charge(account, 'test', 1);
    expect(await credits()).toBe(0);
    expect((await call(`${base}/insert`, { records: [{ _id: 'new', _base64: watch, product_id: 'N', extract_colors: true }] }, c)).http).toBe(411);
    // an update of a new image the account cannot pay the extras of: the call's 402, as an insert's (h175: a 500)
    await h.app.loupe.accounts.addCredits(account, 1);
    const poor = await call(`${base}/update`, { records: [{ _id: 'new', _base64: watch, note: 'changed' }] }, c);
    expect([poor.http, (poor.body as unknown as { code?: string }).code], JSON.stringify(poor.body)).toEqual([402, 'insufficient_credits']);
    expect(JSON.stringify(poor.body)).toMatch(/Not enough credits: visual_search\.extract_colors\/extract_tags costs 1 credit/);
    expect(await credits()).toBe(1);
    expect((await call(`${base}/get`, { records: [{ _id: 'new' }] }, c)).body.answer_records[0]).not.toHaveProperty('note');
  }, 120_000);

  it('a call that fails after charging inside it gives back those charges too, not only its own price (h92)', async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'failing' })).id, account, token };
    const credits = async () => (await h.app.loupe.accounts.getAccount(account)).credits;
    // the answer fails once the record is stored and its extras charged (the service's own refunds are past)
    const spy = vi.spyOn(VisualSearchService.prototype as unknown as { inserted: () => unknown }, 'inserted').mockImplementation(() => {
      throw new ServiceError(503, 'database_unavailable', 'gone');
    });
    try {
      const res = await call(`${base}/insert`, { records: [{ _id: 'f1', _base64: watch, product_id: 'f', extract_colors: true, extract_tags: true }] }, c);
      expect(res.http).toBe(503);
    } finally {
      spy.mockRestore();
    }
    expect(await credits()).toBe(100);
  });

  it('an update whose collection is deleted while it runs is the collection\'s 404, with the call and its extras refunded', async () => {
    const { account, token } = await h.newAccount(100);
    const c: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'going' })).id, account, token };
    expect((await call(`${base}/insert`, { records: [{ _id: 'g1', _base64: watch, product_id: 'g' }] }, c)).body.status.code).toBe(210);
    const credits = async () => (await h.app.loupe.accounts.getAccount(account)).credits;
    const before = await credits();
    // the collection goes between the image's reading (extras charged) and the record's write
    const update = CollectionStore.prototype.update;
    const spy = vi.spyOn(CollectionStore.prototype, 'update').mockImplementation(async function (this: CollectionStore, ...args: Parameters<CollectionStore['update']>) {
      await this.delete(c.id);
      return update.apply(this, args);
    });
    try {
      const res = await call(`${base}/update`, { records: [{ _id: 'g1', _base64: group, extract_colors: true, extract_tags: true }] }, c);
      expect(res.http).toBe(404);
      expect((res.body as unknown as { code: string }).code).toBe('collection_not_found');
    } finally {
      spy.mockRestore();
    }
    expect(await credits()).toBe(before);
  });

  it('an update with a new image makes the extracted colours and tags again from it; a flag turned off takes away what it made', async () => {
    expect((await call(`${base}/insert`, { records: [{ _id: 'swap', _base64: watch, product_id: 's', extract_colors: true, extract_tags: true }] }, shop)).body.status.code).toBe(210);
    const before = await get('swap');
    expect((before._objects as Obj[])[0]!.name).toBe('item');
    // the flags stay on the record: a new image alone makes its colours and tags again
    expect((await call(`${base}/update`, { records: [{ _id: 'swap', _base64: group }] }, shop)).http).toBe(200);
    const after = await get('swap');
    const item = (after._objects as Obj[])[0]!;
    expect(item.name).not.toBe('item');
    expect(after._tags).toMatchObject({ Item: [{ name: item.name }] });
    expect((after._tags_simple as string[])[0]).toBe(item.name);
    expect(after._dominant_colors).not.toEqual(before._dominant_colors);
    // turned off without an image: what the flag made goes, the other flag's stays
    expect((await call(`${base}/update`, { records: [{ _id: 'swap', extract_colors: false }] }, shop)).http).toBe(200);
    const off = await get('swap');
    expect(off).not.toHaveProperty('_dominant_colors');
    expect(off._tags).toEqual(after._tags);
    // turned on without an image, on a record that keeps no link to it: refused, saying what to send
    const on = await call(`${base}/update`, { records: [{ _id: 'swap', extract_colors: true }] }, shop);
    expect(on.http).toBe(400);
    expect(on.body.skipped_records![0]!._reason.status.text).toBe('extract_colors reads the image, and this record keeps no link to it: send the image again (_url or _base64) in the same update');
    expect(await get('swap')).not.toHaveProperty('_dominant_colors');
  });

  it('a flag turned on without an image reads the record\'s own link again, and keeps the link', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.end(Buffer.from(group, 'base64'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/look.jpg`;
      expect((await call(`${base}/insert`, { records: [{ _id: 'linked', _url: url, product_id: 'ln' }] }, shop)).body.status.code).toBe(210);
      expect((await get('linked'))._dominant_colors).toBeUndefined();
      expect((await call(`${base}/update`, { records: [{ _id: 'linked', extract_colors: true }] }, shop)).http).toBe(200);
      const after = await get('linked');
      expect(after._url).toBe(url);
      expect(after._dominant_colors).toBeDefined();
      // and again for the other flag: the link is still there to read; the update pays for the flag it turns on, not
      // again for the colours the update before paid for (h236: the colours were charged again)
      const credits = async () => (await h.app.loupe.accounts.getAccount(shop.account))!.credits;
      const before = await credits();
      expect((await call(`${base}/update`, { records: [{ _id: 'linked', extract_tags: true }] }, shop)).http).toBe(200);
      expect((await get('linked'))._tags).toBeDefined();
      expect(before - (await credits())).toBe(h.config.prices['visual_search.update']! + h.config.prices['visual_search.extract_tags']!);
      // `_url: null` removes the link, as null removes any field (spec 2, update; h251: it stayed); the vector and the
      // item stay, and `""` is still "not given"
      const item = (await get('linked'))._objects;
      expect((await call(`${base}/update`, { records: [{ _id: 'linked', _url: '' }] }, shop)).http).toBe(200);
      expect((await get('linked'))._url).toBe(url);
      // a typed client's every image field sent null is noise: the link stays (h262)
      expect((await call(`${base}/update`, { records: [{ _id: 'linked', _url: null, _base64: null, _file: null, note: 'x' }] }, shop)).http).toBe(200);
      expect((await get('linked'))._url).toBe(url);
      const removed = await call(`${base}/update`, { records: [{ _id: 'linked', _url: null }] }, shop);
      expect([removed.http, removed.body.answer_count]).toEqual([200, 1]);
      const unlinked = await get('linked');
      expect(unlinked).not.toHaveProperty('_url');
      expect(unlinked._objects).toEqual(item);
      expect((await call(`${base}/visualKNN`, { query_record: { _id: 'linked' }, k: 1 }, shop)).body.answer_records[0]?._id).toBe('linked');
    } finally {
      server.close();
    }
  });

  it('categories no item kind matches store the whole image (spec rule 2); taken away by an update, they are predicted again', async () => {
    const res = await call(`${base}/insert`, { records: [{ _id: 'ring', _base64: group, product_id: 'r', 'Top Category': 'Jewellery', Category: 'Jewellery/Rings' }, { _id: 'boots', _base64: group, product_id: 'b', Category: 'Sneakers' }] }, shop);
    expect(res.body.status.code).toBe(210);
    const ring = await get('ring');
    expect((ring._objects as Obj[])[0]).toMatchObject({ name: 'item', Category: 'Jewellery/Rings', category_source: 'record' });
    // changed without an image: written on the stored item too
    expect((await call(`${base}/update`, { records: [{ _id: 'boots', Category: 'Running shoes' }] }, shop)).http).toBe(200);
    expect(((await get('boots'))._objects as Obj[])[0]).toMatchObject({ name: 'footwear', Category: 'Running shoes', category_source: 'record', 'pre-filled': true });
    // taken away: predicted again (the detector's kind, or the neighbours' vote), never left claiming the client's
    expect((await call(`${base}/update`, { records: [{ _id: 'boots', Category: null }] }, shop)).http).toBe(200);
    const boots = await get('boots');
    const item = (boots._objects as Obj[])[0]!;
    expect(['detector', 'neighbours']).toContain(item.category_source);
    expect(item['pre-filled']).toBeUndefined();
    expect(item.Category).toBeDefined();
    expect(item.Category).not.toBe('Running shoes');
    expect(boots.Category).toBe(item.Category);
  });

  it('stores the item a record\'s own _objects[0] draws (rule 7, as for a query), within the image, marked pre-filled', async () => {
    const res = await call(`${base}/insert`, {
      records: [
        { _id: 'drawn', _base64: group, product_id: 'd', _objects: [{ bound_box: [10, 20, 200, 5000], name: 'mine' }] },
        { _id: 'bad-box', _base64: group, product_id: 'd2', _objects: [{ bound_box: [10, 20, 12] }] },
        { _id: 'far-box', _base64: watch, product_id: 'd3', _objects: [{ bound_box: [5000, 5000, 6000, 6000] }] },
      ],
    }, shop);
    expect(res.body.status.code).toBe(211);
    const reasons = Object.fromEntries(res.body.skipped_records!.map((r) => [r._id, r._reason.status.text]));
    expect(reasons).toEqual({ 'bad-box': '_objects[0].bound_box must be [xmin, ymin, xmax, ymax], four numbers in pixels', 'far-box': '_objects[0].bound_box lies outside the 300x242 image' });
    const drawn = await get('drawn');
    const item = (drawn._objects as Obj[])[0]!;
    expect(item).toMatchObject({ name: 'item', 'pre-filled': true });
    expect(item.bound_box.slice(0, 3)).toEqual([10, 20, 200]);
    expect(item.bound_box[3]).toBeLessThan(5000);
  });

  it('refuses to search a collection holding records without the product field (409), naming them', async () => {
    const { account, token } = await h.newAccount(100);
    const legacy: Owned = { id: (await h.app.loupe.collections.create({ accountId: account, type: 'fashion', name: 'old', productField: 'sku' })).id, account, token };
    const db = (h.app.loupe as unknown as { store: Store }).store.db;
    // As before the rule: the collection had no product field when these were stored.
    await sql`UPDATE collections SET product_field = NULL WHERE id = ${legacy.id}`.execute(db);
    expect((await call(`${base}/insert`, { records: [{ _id: 'old-1', _base64: watch }] }, legacy)).body.status.code).toBe(210);
    await sql`UPDATE collections SET product_field = 'sku' WHERE id = ${legacy.id}`.execute(db);
    const res = await call(`${base}/visualKNN`, { query_record: { _id: 'old-1' } }, legacy);
    expect(res.http).toBe(409);
    expect(res.body.detail).toMatch(/1 record\(s\) .* no sku \(for example old-1\)/);
    // every search answers the error (spec rule 4: "otherwise search responses return an error"), by image or by text
    for (const [url, body] of [
      ['/visualTagsKNN', { query_record: { _id: 'old-1' } }],
      ['/visualKNNMulti', { query_records: [{ _id: 'old-1' }] }],
      ['/range', { query_record: { _id: 'old-1' } }],
      ['/nearDuplicates', { query_record: { _id: 'old-1' } }],
      ['/detectKNN', { query_record: { _base64: watch }, detection_task_id: 'person' }],
      ['/allNearDupPairs', { radius: 1 }],
    ] as const) {
      expect((await call(`${base}${url}`, body, legacy)).http, url).toBe(409);
    }
    const text = await h.request('POST', '/similarity/text/fashion/v2/text', { body: { query_record: { _text_data: 'watch' } }, headers: { 'collection-id': legacy.id }, token: legacy.token });
    expect([text.statusCode, (text.json() as { code: string }).code]).toEqual([409, 'missing_product_field']);
    // Fixing the record lifts it.
    expect((await call(`${base}/update`, { records: [{ _id: 'old-1', sku: 'A1' }] }, legacy)).http).toBe(200);
    expect((await call(`${base}/visualKNN`, { query_record: { _id: 'old-1' } }, legacy)).http).toBe(200);
  });

  it('answers on the deprecated base too, saying so and naming its successor', async () => {
    const res = await h.request('POST', '/similarity/fashion/v2/get', { body: { records: [{ _id: 'shoes' }] }, headers: { 'collection-id': shop.id }, token: shop.token });
    expect(res.statusCode).toBe(200);
    expect(res.json().answer_records[0]._id).toBe('shoes');
    expect(res.headers.deprecation).toBe('@1795478400');
    expect(res.headers.link).toBe('</similarity/fashion-new/v2/get>; rel="successor-version"');
    const current = await h.request('POST', `${base}/get`, { body: { records: [{ _id: 'shoes' }] }, headers: { 'collection-id': shop.id }, token: shop.token });
    expect(current.headers.deprecation).toBeUndefined();
    const doc = (await h.request('GET', '/docs/json')).json() as { paths: Record<string, { post?: { deprecated?: boolean } }> };
    expect(doc.paths['/similarity/fashion/v2/visualKNN']!.post!.deprecated).toBe(true);
    expect(doc.paths['/similarity/fashion-new/v2/visualKNN']!.post!.deprecated).toBeUndefined();
  });
});
