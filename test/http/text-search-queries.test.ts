import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/**
 * A shop's queries through the API on both backends, from a developer's probe of text search (h338): codes with a
 * letter in them, a short Russian word, a query of emoji alone. No image is looked at (record text only), so the file
 * is quick.
 */
describe.each(backends)('text search queries (%s)', (backend) => {
  let h: Harness;
  let id = '';
  type Body = { status: { code: number; text: string }; detail?: string; query_records?: Record<string, unknown>[]; answer_records: { _id: string }[]; answer_distances: number[] };
  const search = async (q: string, extra: Record<string, unknown> = {}) => {
    const res = await h.request('POST', '/similarity/text/products/v2/text', { body: { query_record: { _text_data: q }, k: 10, ...extra }, headers: { 'collection-id': id } });
    return { http: res.statusCode, body: res.json() as Body };
  };
  const ids = (b: Body) => b.answer_records.map((r) => r._id);

  beforeAll(async () => {
    h = await startHarness(backend, { seen: [], vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 30_000, warm: [], embedder: '' } });
    ({ id } = await h.app.loupe.collections.create({ accountId: h.account.account, type: 'product', name: 'codes' }));
    const png = async (i: number) => (await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 40 * i, g: 90, b: 200 - 30 * i } } }).png().toBuffer()).toString('base64');
    const titles: Record<string, string> = {
      a: 'Ring spanner A-1234',
      b: 'Ring spanner B-1234',
      ray: 'Manta ray plush toy',
      xray: 'X-ray film viewer',
      bag: 'Сумка из натуральной кожи',
      dog: 'Cute 🐶 dog toy',
      router: 'Wi-Fi router, two antennas',
      part: 'Spare fuse Z9876, 3.5 A',
      mail: 'Printed e-mail templates',
    };
    const records = await Promise.all(Object.entries(titles).map(async ([_id, title], i) => ({ _id, _base64: await png(i), product_id: _id, title })));
    const res = await h.request('POST', '/similarity/products-new/v2/insert', { body: { records }, headers: { 'collection-id': id } });
    expect(res.json().status.code).toBe(210);
  });
  afterAll(() => h?.close());

  it('ranks the record with the code asked for first, its letter and all (h338: "B-1234" answered A-1234 first, tied)', async () => {
    for (const [q, first, other] of [['B-1234', 'b', 'a'], ['A-1234', 'a', 'b'], ['a-1234', 'a', 'b'], ['x-ray', 'xray', 'ray']] as const) {
      const r = await search(q);
      expect(r.http, q).toBe(200);
      expect(ids(r.body), q).toEqual([first, other]);
      expect(r.body.answer_distances[0]!, q).toBeLessThan(r.body.answer_distances[1]!);
      // the phrase searched beside the words is no word of the client's: nothing is unread
      expect(r.body.query_records![0], q).not.toHaveProperty('_unread_terms');
    }
    // a code with no such record still answers by its number, and says nothing is unread
    const c = await search('C-1234');
    expect(c.http).toBe(200);
    expect(ids(c.body).sort()).toEqual(['a', 'b']);
    expect(c.body.query_records![0]).not.toHaveProperty('_unread_terms');
    // what an apostrophe leaves is still no word ("dog's" is dog)
    expect(ids((await search("dog's")).body)).toEqual(['dog']);
  });

  it('finds a word written joined by the record writing it apart, and the other way (s74: "wifi" did not find "Wi-Fi", nor "Z-9876" "Z9876")', async () => {
    for (const [q, want] of [['wifi', 'router'], ['WiFi', 'router'], ['Wi-Fi', 'router'], ['Z-9876', 'part'], ['z9876', 'part'], ['email', 'mail'], ['E-Mail', 'mail']] as const) {
      const r = await search(q);
      expect([r.http, ids(r.body)[0]], q).toEqual([200, want]);
      // the joined word is no word of the client's, and the run's words are read where it is found
      expect(r.body.query_records![0], q).not.toHaveProperty('_unread_terms');
    }
    // numbers glued by a dot are numbers, not one word: "3.5" does not find 35
    expect((await search('35')).http).toBe(422);
  });

  it('finds a four-letter Russian word in its other forms on both backends (h338: "кожа" was 422 on SQLite, found on PostgreSQL)', async () => {
    const r = await search('кожа');
    expect(r.http, JSON.stringify(r.body)).toBe(200);
    expect(ids(r.body)).toEqual(['bag']);
  });

  it('tells a query of emoji or punctuation alone that it holds no word, not that it is empty (h338)', async () => {
    for (const q of ['🐶', '!!!', '-']) {
      const r = await search(q);
      expect(r.http, q).toBe(400);
      expect(r.body.detail, q).toMatch(/^query_record\._text_data has no word to search for, only symbols or punctuation \(".+"\): give the words to search for \(or _dominant_colors\)\.$/);
    }
    for (const q of ['', '   ']) {
      const r = await search(q);
      expect(r.http, JSON.stringify(q)).toBe(400);
      expect(r.body.detail, JSON.stringify(q)).toBe('query_record._text_data is empty: give the words to search for (or _dominant_colors).');
    }
  });
});
