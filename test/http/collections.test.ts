import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

const caltech = path.resolve(import.meta.dirname, '../../../shared/datasets/caltech101_subset');
const present = fs.existsSync(caltech);
if (!present) console.warn(`collection API tests skipped: ${caltech} is absent (the shared datasets folder beside the project)`);
const img = (cls: string, n: number) => fs.readFileSync(path.join(caltech, cls, `image_${String(n).padStart(4, '0')}.jpg`)).toString('base64');

type Body = { status: { code: number; text: string }; query_records?: Record<string, unknown>[]; answer_records: Record<string, unknown>[]; skipped_records?: Record<string, unknown>[]; answer_distances?: number[]; answer_count: number; next?: string | null; count?: number };

describe.skipIf(!present).each(backends)('collections API (%s)', (backend) => {
  let h: Harness;
  let product: string;
  let photo: string;
  const base = '/similarity/products-new/v2';
  const call = async (url: string, body: unknown, collection = product, token?: string) => {
    const res = await h.request('POST', url, { body, headers: { 'collection-id': collection }, ...(token ? { token } : {}) });
    return { http: res.statusCode, body: res.json() as Body, headers: res.headers };
  };

  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 2, maxQueue: 64, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    product = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'product', name: 'shop' })).id;
    photo = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'photos', capacity: 2 })).id;
  }, 60_000);
  afterAll(() => h?.close());

  it('ping: needs the collection-id of this account and the base of its type', async () => {
    const ok = await h.request('GET', `${base}/ping`, { headers: { 'collection-id': product } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().info).toMatch(/product collection "shop"/);
    expect((await h.request('GET', `${base}/ping`)).json()).toMatchObject({ code: 'missing_collection_id' });
    const wrongBase = await h.request('GET', '/similarity/photos/v2/ping', { headers: { 'collection-id': product } });
    expect(wrongBase.statusCode).toBe(400);
    expect(wrongBase.json().detail).toMatch(/products-new/);
    const other = await h.newAccount(10);
    expect((await h.request('GET', `${base}/ping`, { headers: { 'collection-id': product }, token: other.token })).statusCode).toBe(404);
    expect((await h.request('GET', '/photo/search/v2/ping', { headers: { 'collection-id': photo } })).statusCode).toBe(200);
  });

  it('insert: 210, then 211 with duplicates and bad images skipped, 411 when all exist', async () => {
    const first = await call(`${base}/insert`, {
      records: [
        { _id: 'leo-1', _base64: img('Leopards', 1), price: 12.5, color: 'yellow', tags: ['cat', 'wild'], product_id: 'leo', meta: { zoo: true } },
        { _id: 'leo-2', _base64: img('Leopards', 2), price: 30, color: 'yellow', tags: ['cat'], product_id: 'leo' },
        { _id: 'plane-1', _base64: img('airplanes', 1), price: 99, color: 'grey', tags: ['sky'], product_id: 'plane' },
        { _id: 'watch-1', _base64: img('watch', 1), price: 5, tags: [], product_id: 'watch' },
      ],
      fields_to_return: ['_id', 'price'],
    });
    expect(first.http).toBe(200);
    expect(first.body.status.code).toBe(210);
    expect(first.body.answer_records).toEqual([{ _id: 'leo-1', price: 12.5 }, { _id: 'leo-2', price: 30 }, { _id: 'plane-1', price: 99 }, { _id: 'watch-1', price: 5 }]);
    const second = await call(`${base}/insert`, { records: [{ _id: 'leo-1', _base64: img('Leopards', 3) }, { _id: 'broken', _base64: 'bm90IGFuIGltYWdl' }, { _id: 'plane-2', _base64: img('airplanes', 2), price: 80, product_id: 'plane' }] });
    expect(second.body.status.code).toBe(211);
    expect(second.body.answer_records).toEqual([{ _id: 'plane-2' }]);
    const reasons = Object.fromEntries(second.body.skipped_records!.map((s) => [s._id, (s._reason as { status: { code: number } }).status.code]));
    expect(reasons).toEqual({ 'leo-1': 411, broken: 400 });
    expect((await call(`${base}/insert`, { records: [{ _id: 'leo-2', _base64: img('Leopards', 2) }] })).body.status.code).toBe(411);
  }, 120_000);

  it('insert beyond capacity is 412', async () => {
    const res = await call('/similarity/photos/v2/insert', { records: [{ _id: 'a', _base64: img('pyramid', 1) }, { _id: 'b', _base64: img('pyramid', 2) }, { _id: 'c', _base64: img('pyramid', 3) }] }, photo);
    expect(res.body.status.code).toBe(211);
    expect(res.body.skipped_records!.map((s) => (s._reason as { status: { code: number } }).status.code)).toEqual([412]);
    expect((await call('/similarity/photos/v2/insert', { records: [{ _id: 'd', _base64: img('pyramid', 4) }] }, photo)).body.status.code).toBe(412);
  }, 60_000);

  it('get and update: 205, 206, 404; null removes a field; custom values kept as sent', async () => {
    const got = await call(`${base}/get`, { records: [{ _id: 'leo-1' }, { _id: 'nope' }] });
    expect(got.body.status.code).toBe(206);
    expect(got.body.answer_records[0]).toEqual({ _id: 'leo-1', price: 12.5, color: 'yellow', tags: ['cat', 'wild'], product_id: 'leo', meta: { zoo: true } });
    expect((await call(`${base}/get`, { records: [{ _id: 'nope' }] })).body.status.code).toBe(404);
    expect((await call(`${base}/get`, { records: [{ _id: 'leo-1' }, { _id: 'leo-2' }] })).body.status.code).toBe(205);
    const upd = await call(`${base}/update`, { records: [{ _id: 'leo-1', color: null, price: 11, extra: [1, { a: 'b' }] }] });
    expect(upd.body.status.code).toBe(205);
    expect(upd.body.answer_records[0]).toEqual({ _id: 'leo-1', price: 11, tags: ['cat', 'wild'], product_id: 'leo', meta: { zoo: true }, extra: [1, { a: 'b' }] });
  });

  it('find, getRecordCount and random with MongoDB filters; a bad operator is a 400 naming it', async () => {
    const found = await call(`${base}/find`, { filter: { price: { $gte: 12 }, tags: 'cat' }, fields_to_return: ['_id'] });
    expect(found.body.answer_records.map((r) => r._id).sort()).toEqual(['leo-2']);
    expect((await call(`${base}/getRecordCount`, {})).body.count).toBe(5);
    expect((await call(`${base}/getRecordCount`, { filter: { product_id: { $in: ['leo', 'plane'] } } })).body.count).toBe(4);
    const random = await call(`${base}/random`, { count: 3 });
    expect(random.body.answer_count).toBe(3);
    const bad = await call(`${base}/find`, { filter: { price: { $foo: 1 } } });
    expect(bad.http).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/\$foo/);
  });

  it('visualKNN by _id, by image and as the old client sends it (records); filters and one result per product', async () => {
    const byId = await call(`${base}/visualKNN`, { query_record: { _id: 'leo-2' }, k: 3, product_field: '' });
    expect(byId.body.answer_records[0]!._id).toBe('leo-2');
    expect(byId.body.answer_distances![0]).toBeCloseTo(0, 3);
    expect(byId.body.answer_records[1]!._id).toBe('leo-1');
    const perProduct = await call(`${base}/visualKNN`, { query_record: { _id: 'leo-2' }, k: 3 });
    expect(perProduct.body.answer_records.map((r) => r._id)).toEqual(['leo-2', expect.any(String), expect.any(String)]);
    expect(perProduct.body.answer_records.map((r) => r._id)).not.toContain('leo-1');
    const filtered = await call(`${base}/visualKNN`, { query_record: { _id: 'leo-2' }, k: 10, filter: { color: 'grey' }, fields_to_return: ['*'] });
    expect(filtered.body.answer_records).toHaveLength(1);
    expect(filtered.body.answer_records[0]).toMatchObject({ _id: 'plane-1', color: 'grey' });
    const oldClient = await call(`${base}/visualKNN`, { records: [{ _base64: img('airplanes', 5) }], k: 2, product_field: '' });
    expect(oldClient.body.answer_records.map((r) => r._id).sort()).toEqual(['plane-1', 'plane-2']);
    expect(oldClient.body.answer_distances![0]).toBeLessThanOrEqual(oldClient.body.answer_distances![1]!);
    const from = await call(`${base}/visualKNN`, { query_record: { _id: 'leo-2' }, k: 2, from: 1, product_field: '' });
    expect(from.body.answer_records.map((r) => r._id)).toEqual(byId.body.answer_records.slice(1, 3).map((r) => r._id));
    expect((await call(`${base}/visualKNN`, { query_record: { _id: 'missing' } })).http).toBe(404);
  }, 60_000);

  it('allRecords pages with ?size=&page= and a next link', async () => {
    const p1 = await call(`${base}/allRecords?size=2&page=1`, {});
    expect(p1.body.answer_records).toHaveLength(2);
    expect(p1.body.next).toMatch(/\/similarity\/products-new\/v2\/allRecords\?size=2&page=2$/);
    const p3 = await call(`${base}/allRecords?size=2&page=3`, {});
    expect(p3.body.answer_records).toHaveLength(1);
    expect(p3.body.next).toBeNull();
  });

  it('delete (220, 206, 404) and deleteByFilter', async () => {
    expect((await call(`${base}/delete`, { records: [{ _id: 'watch-1' }, { _id: 'nope' }] })).body.status.code).toBe(206);
    expect((await call(`${base}/delete`, { records: [{ _id: 'nope' }] })).body.status.code).toBe(404);
    const byFilter = await call(`${base}/deleteByFilter`, { filter: { product_id: 'plane' } });
    expect(byFilter.body).toMatchObject({ deleted_count: 2 });
    expect((await call(`${base}/getRecordCount`, {})).body.count).toBe(2);
    const knn = await call(`${base}/visualKNN`, { query_record: { _id: 'leo-1' }, k: 10, product_field: '' });
    expect(knn.body.answer_records.map((r) => r._id).sort()).toEqual(['leo-1', 'leo-2']);
    expect((await call(`${base}/delete`, { records: [{ _id: 'leo-1' }, { _id: 'leo-2' }] })).body.status.code).toBe(220);
  });
  it('range, nearDuplicates, nearDupsInsert, visualTagsKNN, visualKNNMulti and allNearDupPairs', async () => {
    const ins = await call(`${base}/insert`, {
      records: [
        { _id: 'l1', _base64: img('Leopards', 1), _tags_simple: ['spots', 'cat'] },
        { _id: 'l1-copy', _base64: img('Leopards', 1), _tags_simple: ['spots'] },
        { _id: 'l5', _base64: img('Leopards', 5), _tags_simple: ['cat', 'night'] },
        { _id: 'p1', _base64: img('airplanes', 1), _tags_simple: ['sky'] },
      ],
    });
    expect(ins.body.status.code).toBe(210);
    const all = await call(`${base}/range`, { query_record: { _id: 'l1' }, radius: 200, limit: 10 });
    expect(all.body.answer_count).toBe(4);
    const tight = await call(`${base}/range`, { query_record: { _id: 'l1' }, radius: 0.5 });
    expect(tight.body.answer_records.map((r) => r._id).sort()).toEqual(['l1', 'l1-copy']);
    const dups = await call(`${base}/nearDuplicates`, { query_record: { _base64: img('Leopards', 1) } });
    expect(dups.body.answer_records.map((r) => r._id).sort()).toEqual(['l1', 'l1-copy']);
    expect(dups.body.answer_distances![0]).toBeLessThan(0.5);

    const ndi = await call(`${base}/nearDupsInsert`, { records: [{ _id: 'l1-again', _base64: img('Leopards', 1) }, { _id: 'c1', _base64: img('cannon', 1) }] });
    expect(ndi.body.status.code).toBe(211);
    expect(ndi.body.answer_records).toEqual([{ _id: 'c1' }]);
    const reason = ndi.body.skipped_records![0]!._reason as { answer_records: { _id: string }[]; answer_distances: number[] };
    expect(reason.answer_records.map((r) => r._id).sort()).toEqual(['l1', 'l1-copy']);
    expect(reason.answer_distances).toHaveLength(2);

    const plain = await call(`${base}/visualKNN`, { query_record: { _id: 'l5' }, k: 4, product_field: '' });
    const tagged = await call(`${base}/visualTagsKNN`, { query_record: { _id: 'l5', _tags_simple: ['night', 'cat'] }, k: 4 });
    expect(tagged.body.answer_records[0]!._id).toBe('l5');
    // l1 shares "cat" with the query, l1-copy shares nothing: tags pull l1 ahead of its copy.
    const rank = (b: Body, id: string) => b.answer_records.findIndex((r) => r._id === id);
    expect(rank(tagged.body, 'l1')).toBeLessThan(rank(tagged.body, 'l1-copy'));
    expect(tagged.body.answer_distances![rank(tagged.body, 'l1')]!).toBeLessThan(plain.body.answer_distances![rank(plain.body, 'l1')]!);

    const multi = await call(`${base}/visualKNNMulti`, { query_records: [{ _id: 'l5' }, { _id: 'p1' }], k: 2 });
    expect(multi.body.query_records).toHaveLength(2);
    expect(multi.body.answer_records.map((r) => r._id).sort()).toEqual(['l5', 'p1']);

    const detected = await call(`${base}/detectKNN`, { query_record: { _base64: fs.readFileSync(path.resolve(caltech, '../faces_persons/group/bbt1.jpg')).toString('base64') }, detection_task_id: 'person', k: 2 });
    const objects = (detected.body as unknown as { answer_objects: { name: string; bound_box: number[]; answer_records: unknown[]; answer_distances: number[] }[] }).answer_objects;
    expect(objects.length).toBeGreaterThanOrEqual(3);
    for (const o of objects) {
      expect(o.name).toBe('person');
      expect(o.answer_records).toHaveLength(2);
      expect(o.answer_distances[0]).toBeLessThanOrEqual(o.answer_distances[1]!);
    }
    const none = await call(`${base}/detectKNN`, { query_record: { _base64: img('Leopards', 1) }, detection_task_id: 'face', k: 1 });
    // l1 and l1-copy hold the same image: either may come first.
    expect(['l1', 'l1-copy']).toContain(none.body.answer_records[0]!._id);
    expect((await call(`${base}/detectKNN`, { query_record: { _base64: img('Leopards', 1) }, detection_task_id: 'cars' })).http).toBe(400);

    const pairs = await h.request('POST', `${base}/allNearDupPairs`, { body: { radius: 0.5 }, headers: { 'collection-id': product } });
    expect(pairs.json()).toMatchObject({ answer_pairs: [{ _id_a: 'l1', _id_b: 'l1-copy' }], answer_count: 1 });
  }, 120_000);
});

describe.skipIf(!present)('collections across restarts (embedded index)', () => {
  it('answers the same after a clean restart and after the index file is lost or corrupt', async () => {
    const { buildApp } = await import('../../src/app.ts');
    const h = await startHarness('sqlite', { vision: { threads: 1, maxQueue: 64, taskTimeoutMs: 60_000, warm: [], embedder: '' } });
    const id = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'custom', name: 'c' })).id;
    const headers = { 'collection-id': id, authorization: `Token ${h.account.token}`, 'content-type': 'application/json' };
    const knn = async (app: typeof h.app) => {
      const res = await app.inject({ method: 'POST', url: '/similarity/custom/v2/visualKNN', headers, payload: JSON.stringify({ query_record: { _id: 'l1' }, k: 5 }) });
      return (res.json() as Body).answer_records.map((r) => r._id);
    };
    await h.request('POST', '/similarity/custom/v2/insert', {
      headers: { 'collection-id': id },
      body: { records: [{ _id: 'l1', _base64: img('Leopards', 1) }, { _id: 'l2', _base64: img('Leopards', 2) }, { _id: 'p1', _base64: img('airplanes', 1) }] },
    });
    const before = await knn(h.app);
    expect(before).toHaveLength(3);
    await h.app.close();
    const file = path.join(h.dataDir, 'indexes', `${id}.usearch`);
    let app = await buildApp(h.config);
    expect(await knn(app)).toEqual(before);
    await app.close();
    expect(fs.existsSync(file)).toBe(true);
    fs.writeFileSync(file, 'garbage');
    app = await buildApp(h.config);
    expect(await knn(app)).toEqual(before);
    await app.close();
    fs.rmSync(file);
    app = await buildApp(h.config);
    expect(await knn(app)).toEqual(before);
    await app.close();
    fs.rmSync(h.dataDir, { recursive: true, force: true });
  }, 120_000);
});
