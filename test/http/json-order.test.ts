import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64 } from '../helpers/photos.ts';
import type { Store } from '../../src/store/database.ts';

/**
 * What a client sends as JSON comes back with its keys in the order sent, on both backends
 * (migration 018: PostgreSQL's jsonb kept keys in an order of its own, shorter first).
 */
describe.each(backends)('JSON keys come back in the order sent (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 8, taskTimeoutMs: 30_000, warm: [], embedder: '' } });
  });
  afterAll(() => h?.close());

  // keys no backend would keep in this order by itself: long before short, unsorted, nested
  const attributes = { zebra_long_name: 1, b: { yy: true, a: [{ second: 2, first: 1 }] }, middle: 'x', a: null };

  it("a collection record's attributes, through get, find and search", async () => {
    const { id } = await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'order' });
    const call = async (op: string, body: unknown) => (await h.request('POST', `/similarity/photos/v2/${op}`, { body, headers: { 'collection-id': id } })).json();
    expect((await call('insert', { records: [{ _id: 'r1', _base64: photoBase64('caltech101/watch/image_0001.jpg'), ...attributes }] })).status.code).toBe(210);
    const pick = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k in attributes));
    const sent = JSON.stringify(attributes);
    expect(JSON.stringify(pick((await call('get', { records: [{ _id: 'r1' }] })).answer_records[0]))).toBe(sent);
    expect(JSON.stringify(pick((await call('find', { filter: { 'b.yy': true } })).answer_records[0]))).toBe(sent);
    expect(JSON.stringify(pick((await call('visualKNN', { query_record: { _id: 'r1' }, fields_to_return: ['*'], filter: { middle: 'x' } })).answer_records[0]))).toBe(sent);
    // an update writes the record again: still as sent
    expect((await call('update', { records: [{ _id: 'r1', middle: 'y' }] })).status.code).toBe(205);
    expect(JSON.stringify(pick((await call('get', { records: [{ _id: 'r1' }] })).answer_records[0]))).toBe(JSON.stringify({ ...attributes, middle: 'y' }));
  });

  it("a card's links, price statistics and alternatives as sent, its grading in sorted order, a session's meta data as sent", async () => {
    const meta = { zone_long: 'eu', a: 1 };
    const sid = await createSession(h, { name: 'order', meta_data: meta });
    const links = { tcgplayer_long: 'https://example.com/1', ebay: 'https://example.com/2' };
    const priceStats = [{ stats_type: 'ungraded', value: { median: 5, avg: 6 }, interval: '30d' }];
    const alternatives = [{ set_code_long: 'MEW', name: 'Mew' }];
    const grading = { zeta: 1, grades: { final: 8, corners: 9 }, endpoint: 'grade' };
    const up = await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: [{ event_id: 'e1', name: 'Pikachu', links, price_stats: priceStats, alternatives, grading }] } });
    expect(up.statusCode).toBe(200);
    const row = (await h.request('GET', cs(`identification/?session=${sid}&event_id=e1`))).json().results[0];
    expect(JSON.stringify(row.links)).toBe(JSON.stringify(links));
    expect(JSON.stringify(row.price_stats)).toBe(JSON.stringify(priceStats));
    expect(JSON.stringify(row.alternatives)).toBe(JSON.stringify(alternatives));
    expect(JSON.stringify(row.grading)).toBe(JSON.stringify({ endpoint: 'grade', grades: { corners: 9, final: 8 }, zeta: 1 }));
    // a row stored before migration 018 on PostgreSQL holds jsonb's order: read sorted too
    const services = h.app.loupe as unknown as { store: Store };
    await services.store.db.updateTable('card_identifications').set({ grading: '{"zeta":1,"grades":{"final":8,"corners":9},"endpoint":"grade"}' }).where('id', '=', row.id).execute();
    const old = (await h.request('GET', cs(`identification/?session=${sid}&event_id=e1`))).json().results[0];
    expect(JSON.stringify(old.grading)).toBe(JSON.stringify({ endpoint: 'grade', grades: { corners: 9, final: 8 }, zeta: 1 }));
    expect(JSON.stringify((await h.request('GET', cs(`session/${sid}/`))).json().meta_data)).toBe(JSON.stringify(meta));
  });

  it("a queued request's echo of its records", async () => {
    const record = { _base64: 'bm90IGFuIGltYWdl', zulu_long: 1, alpha: { yy: 2, x: 3 } };
    const res = await h.request('POST', '/account/v2/request/', { body: { type: 'upscaler', endpoint: 'upscale_2x', records: [record] } });
    expect(res.statusCode).toBe(201);
    const detail = (await h.request('GET', `/account/v2/request/${res.json().id}`)).json();
    const echoed = detail.request.records[0];
    expect(JSON.stringify({ zulu_long: echoed.zulu_long, alpha: echoed.alpha })).toBe(JSON.stringify({ zulu_long: 1, alpha: { yy: 2, x: 3 } }));
    expect(Object.keys(echoed).filter((k) => k !== '_base64' && k in record)).toEqual(['zulu_long', 'alpha']);
  });
});
