import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import sharp from 'sharp';
import type { Store } from '../../../src/store/database.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from '../../helpers/harness.ts';

const card = (event_id: string, extra: Record<string, unknown> = {}) => ({
  event_id,
  seen: '2026-11-20T10:00:00Z',
  calls: 1,
  duration: 1.5,
  id_type: 'tcg',
  name: 'Pikachu',
  full_name: 'Pikachu 025/165 Scarlet & Violet 151',
  set_name: 'Scarlet & Violet 151',
  set_code: 'MEW',
  card_number: '025',
  series: 'Scarlet & Violet',
  year: '2023',
  subcategory: 'Pokemon',
  distance: 0.12,
  confidence: 'high',
  links: { tcgplayer: 'https://www.tcgplayer.com/product/1', ebay: 'https://www.ebay.com/sch/i.html?_nkw=pikachu' },
  alternatives: [{ name: 'Pikachu', set_code: 'PAF', distance: 0.3 }],
  price_stats: [{ source: 'tcgplayer', market: 1.25, currency: 'USD' }],
  price: 1.25,
  sold: false,
  note: '',
  ...extra,
});

describe.each(backends)('identifications (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  const upload = (sid: string, identifications: unknown[], token?: string) => h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications }, ...(token ? { token } : {}) });
  const list = async (sid: string, query = '') => (await h.request('GET', cs(`identification/?session=${sid}${query}`))).json();

  it('a session and its summary say one total, to the cent, whatever the order of its changes (h264: a cent apart, and between backends)', async () => {
    const totals = async (sid: string) => [(await h.request('GET', cs(`session/${sid}/`))).json().total_price, (await h.request('GET', cs(`session/${sid}/summary/`))).json().total_price];
    // 92 prices converted from euros, summing to 9447.565 exactly: a half cent, rounded away from zero
    const prices = [86.473, 71.207, 107.477, 92.849, 40.38, 194.751, 102.381, 39.373, 74.779, 137.899, 190.182, 115.411, 44.42, 96.41, 93.996, 121.912, 97.578, 123.912, 124.148, 85.543, 52.39, 42.272, 193.046, 57.935, 39.687, 142.63, 107.72, 176.498, 132.708, 144.25, 135.136, 154.724, 174.189, 115.383, 165.241, 137.486, 51.418, 117.205, 184.147, 84.978, 161.067, 178.615, 114.787, 148.087, 18.15, 167.255, 189.213, 23.676, 54.96, 46.521, 6.288, 13.561, 51.82, 58.521, 94.419, 31.941, 163.51, 46.572, 68.147, 70.482, 123.352, 111.809, 101.244, 143.042, 29.555, 58.469, 18.669, 95.446, 92.531, 89.3, 199.475, 106.826, 153.114, 115.04, 199.602, 38.187, 144.189, 116.917, 156.949, 166.166, 74.569, 14.887, 128.385, 99.804, 138.675, 42.451, 4.524, 157.283, 189.193, 92.292, 81.935, 5.969];
    const a = await createSession(h);
    expect((await upload(a, prices.map((price, i) => ({ event_id: `r${i}`, name: `c${i}`, price })))).statusCode).toBe(200);
    expect(await totals(a)).toEqual([9447.57, 9447.57]);
    // a correction: 97.372 + 71.643 + 75.58 = 244.595
    const b = await createSession(h);
    expect((await upload(b, [97.372, 71.643, 9999.99].map((price, i) => ({ event_id: `b${i}`, name: 'x', price })))).statusCode).toBe(200);
    const third = (await list(b)).results.find((r: { event_id: string }) => r.event_id === 'b2');
    expect((await h.request('PATCH', cs(`identification/${third.id}/`), { body: { price: 75.58 } })).statusCode).toBe(200);
    expect(await totals(b)).toEqual([244.6, 244.6]);
    // a delete: what is left is 0.005, which is a cent
    const c = await createSession(h);
    expect((await upload(c, [1e9, 0.005].map((price, i) => ({ event_id: `c${i}`, name: 'x', price })))).statusCode).toBe(200);
    const big = (await list(c)).results.find((r: { event_id: string }) => r.event_id === 'c0');
    expect((await h.request('DELETE', cs(`identification/${big.id}/`))).statusCode).toBe(204);
    expect(await totals(c)).toEqual([0.01, 0.01]);
    // prices of seven decimals, whose millionths are halves: taken alike by the total and the summary, on both (h268)
    const d = await createSession(h);
    expect((await upload(d, [0.0049985, 0.0000005, 2.0000015].map((price, i) => ({ event_id: `d${i}`, name: 'x', price })))).statusCode).toBe(200);
    const [session, summary] = await totals(d);
    expect(session).toBe(summary);
    // a total an earlier release let drift is made again from the cards
    const store = (h.app.loupe as unknown as { store: Store }).store;
    await sql`UPDATE card_sessions SET total_price = 9447.564999 WHERE id = ${a}`.execute(store.db);
    expect(await totals(a)).toEqual([9447.56, 9447.57]);
    await sql`DELETE FROM loupe_migrations WHERE name = '041-session-totals-exact'`.execute(store.db);
    expect(await migrate(store)).toEqual(['041-session-totals-exact']);
    expect(await totals(a)).toEqual([9447.57, 9447.57]);
  });

  it('a summary of more cards at the highest price than whole millionths of a dollar count in 64 bits answers, as the session does (h334: SQLite overflowed, a 500)', async () => {
    // 9,224 cards at 10^9 are past 2^63 millionths; SQLite's sum() of integers stops there, and a client retries a 500 for ever
    const sid = await createSession(h);
    for (let b = 0; b < 10; b++) expect((await upload(sid, Array.from({ length: 1000 }, (_, i) => ({ event_id: `m${b}-${i}`, price: 1e9 })))).statusCode).toBe(200);
    const summary = await h.request('GET', cs(`session/${sid}/summary/`));
    expect([summary.statusCode, summary.json().total_price, summary.json().identifications]).toEqual([200, 1e13, 10_000]);
    expect((await h.request('GET', cs(`session/${sid}/`))).json().total_price).toBe(1e13);
  });

  it("a grade, sold mark or note the user set by PATCH stays when a phone's later upload sends others (h93)", async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [card('mew')])).statusCode).toBe(200);
    const id = (await list(sid)).results[0].id as string;
    const row = async () => (await list(sid)).results[0];
    // the phone's grading lands, the host sets their own grade and marks the card sold
    expect((await upload(sid, [{ event_id: 'mew', grading: { endpoint: 'grade', grades: { final: 6 } } }])).json()).toMatchObject({ updated: 1 });
    const host = await h.request('PATCH', cs(`identification/${id}/`), { body: { grading: { endpoint: 'host', grades: { final: 10 } }, sold: true, note: 'sold to @ash $25' } });
    expect(host.statusCode).toBe(200);
    expect(host.json()).toMatchObject({ grade: 10, sold: true, note: 'sold to @ash $25', corrected: false });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().average_grade).toBe(10);
    // the phone sends its stale copy and a new grading: the host's grade, sold mark and note stay
    expect((await upload(sid, [{ event_id: 'mew', grading: { endpoint: 'grade', grades: { final: 7 } }, sold: false, note: '' }])).statusCode).toBe(200);
    expect(await row()).toMatchObject({ grade: 10, sold: true, note: 'sold to @ash $25', grading: { endpoint: 'host', grades: { final: 10 } } });
    // a field the user did not set still takes the upload's (calls grow)
    expect((await upload(sid, [{ event_id: 'mew', calls: 3 }])).json()).toMatchObject({ updated: 1 });
    expect((await row()).calls).toBe(3);
    // a PATCH sending a value as it is changes nothing, and locks nothing (h99)
    expect((await upload(sid, [card('mew2', { note: 'phone', sold: false })])).statusCode).toBe(200);
    const other = (await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'mew2')!;
    expect((await h.request('PATCH', cs(`identification/${other.id}/`), { body: { note: 'phone', sold: false } })).json().etag).toBe(other.etag);
    expect((await upload(sid, [{ event_id: 'mew2', note: 'later', sold: true }])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'mew2')).toMatchObject({ note: 'later', sold: true });
    // refused as uploads refuse them; null clears
    expect((await h.request('PATCH', cs(`identification/${id}/`), { body: { grading: { grades: { final: 11 } } } })).statusCode).toBe(400);
    expect((await h.request('PATCH', cs(`identification/${id}/`), { body: { grading: null } })).json()).toMatchObject({ grading: null, grade: null });
  });

  it('a correction sent with If-Match changes the row only while it is the version read: a stale form is 412, not an overwrite (h93)', async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [card('tag1')])).statusCode).toBe(200);
    const read = (await list(sid)).results[0] as { id: string; etag: string };
    expect(read.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    // reading again changes nothing, so neither does the version
    expect((await list(sid)).results[0].etag).toBe(read.etag);
    const patch = (body: unknown, ifMatch?: string) => h.request('PATCH', cs(`identification/${read.id}/`), { body, ...(ifMatch ? { headers: { 'if-match': ifMatch } } : {}) });
    // the laptop prices it, with the version it read
    const laptop = await patch({ price: 250 }, read.etag);
    expect(laptop.statusCode).toBe(200);
    expect(laptop.headers.etag).toBe(laptop.json().etag);
    expect(laptop.json().etag).not.toBe(read.etag);
    // the phone saves its older form: refused, the laptop's price kept
    const phone = await patch({ name: 'Charizard ex', price: 100 }, read.etag);
    expect([phone.statusCode, phone.json().code]).toEqual([412, 'precondition_failed']);
    expect(phone.json().detail).toContain(laptop.json().etag);
    expect((await list(sid)).results[0]).toMatchObject({ price: 250, etag: laptop.json().etag });
    // a list of versions, or any (*), and none at all, as before
    expect((await patch({ note: 'a' }, `"old", ${laptop.json().etag}`)).statusCode).toBe(200);
    expect((await patch({ note: 'b' }, '*')).statusCode).toBe(200);
    expect((await patch({ note: 'c' }, `W/${(await list(sid)).results[0].etag}`)).statusCode).toBe(412);
    expect((await patch({ note: 'd' })).statusCode).toBe(200);
    // a correction that changes nothing leaves the version as it is (h98)
    const same = await patch({ note: 'd' });
    expect(same.json().etag).toBe((await list(sid)).results[0].etag);
    expect((await patch({ note: 'd' }, same.json().etag)).json().etag).toBe(same.json().etag);
    // the laptop's retry after its answer was lost, with the version it read before: applied already, so 200 (h206)
    const retry = await patch({ price: 250 }, read.etag);
    expect([retry.statusCode, retry.json().price, retry.headers.etag]).toEqual([200, 250, (await list(sid)).results[0].etag]);
    // an image's answer carries the row's version as stored: sent back as If-Match, it holds (a 412 before, h98)
    const jpeg = await sharp({ create: { width: 300, height: 420, channels: 3, background: '#4a7' } }).jpeg().toBuffer();
    const attached = await h.request('POST', cs(`session/${sid}/images/`), { body: { event_id: 'tag1', image: jpeg.toString('base64') } });
    expect(attached.statusCode).toBe(200);
    expect(attached.json().etag).toBe((await list(sid)).results[0].etag);
    expect((await patch({ price: 12 }, attached.json().etag)).statusCode).toBe(200);
    // a phone's re-sent row that changes nothing (a duplicate) leaves the version too (it made it stale, h99)
    const now = (await list(sid)).results[0].etag;
    expect((await upload(sid, [card('tag1', { note: 'phone', calls: 1 })])).json()).toMatchObject({ duplicates: 1 });
    expect((await list(sid)).results[0].etag).toBe(now);
    expect((await patch({ price: 13 }, now)).statusCode).toBe(200);
  });

  it("never answers a count below the rows of its page, nor ends the pages before a row written meanwhile (h93)", async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [card('c1'), card('c2'), card('c3')])).statusCode).toBe(200);
    // the session's counter read before rows another writer committed meanwhile, as on PostgreSQL under load
    const db = (h.app.loupe as unknown as { store: Store }).store.db;
    await sql`UPDATE card_sessions SET identification_count = 1 WHERE id = ${sid}`.execute(db);
    const first = await list(sid, '&page_size=2');
    expect(first.results).toHaveLength(2);
    expect(first.count).toBeGreaterThanOrEqual(3);
    expect(first.next).not.toBeNull();
    const all = await list(sid, '&page_size=500');
    expect([all.count, all.results.length]).toEqual([3, 3]);
    // a page past the end says the count as it is (its offset was taken for one: 980 for a 1-card session, h98)
    await sql`UPDATE card_sessions SET identification_count = 3 WHERE id = ${sid}`.execute(db);
    expect(await list(sid, '&page=50&page_size=20')).toMatchObject({ count: 3, results: [], next: null });
  });

  it('deletes one card with its image files, If-Match checked, the summary counting what is left; not another workspace\'s (h182)', async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [card('keep', { price: 10 }), card('gone', { price: 100 })])).statusCode).toBe(200);
    const jpeg = await sharp({ create: { width: 300, height: 420, channels: 3, background: '#4a7' } }).jpeg().toBuffer();
    const attached = await h.request('POST', cs(`session/${sid}/images/`), { body: { event_id: 'gone', image: jpeg.toString('base64') } });
    expect(attached.statusCode).toBe(200);
    const { id, etag, image } = attached.json() as { id: string; etag: string; image: string };
    const media = new URL(image);
    expect((await h.app.inject({ method: 'GET', url: media.pathname + media.search })).statusCode).toBe(200);
    const other = await h.newAccount();
    expect((await h.request('DELETE', cs(`identification/${id}/`), { token: other.token })).statusCode).toBe(404);
    const stale = await h.request('DELETE', cs(`identification/${id}/`), { headers: { 'if-match': '"0000"' } });
    expect([stale.statusCode, stale.json().code]).toEqual([412, 'precondition_failed']);
    expect((await h.request('DELETE', cs(`identification/${id}/`), { headers: { 'if-match': etag } })).statusCode).toBe(204);
    expect((await list(sid)).results.map((r: { event_id: string }) => r.event_id)).toEqual(['keep']);
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().identifications).toBe(1);
    // the session's own counters too, which its detail and the cards' pages give (h187: they kept the card)
    const summary = (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect((await h.request('GET', cs(`session/${sid}/`))).json()).toMatchObject({ identification_count: 1, total_price: summary.total_price });
    expect((await list(sid, '&page_size=1')).count).toBe(1);
    // its image link answers 404 at once: the file is gone
    expect((await h.app.inject({ method: 'GET', url: media.pathname + media.search })).statusCode).toBe(404);
    expect((await h.request('DELETE', cs(`identification/${id}/`))).statusCode).toBe(404);
    expect((await h.request('DELETE', cs('identification/not-an-id/'))).statusCode).toBe(404);
  });

  it('answers link names holding a line break as stored, on reads and corrections (h181: they were saved and dropped from every answer)', async () => {
    const sid = await createSession(h);
    const links = { 'TCG\nplayer': 'https://a/', 'Card\u2028market': 'https://b/', ok: 'https://c/' };
    expect((await upload(sid, [{ ...card('lk'), links }])).statusCode).toBe(200);
    const row = (await list(sid)).results[0];
    expect(row.links).toEqual(links);
    const fixed = await h.request('PATCH', cs(`identification/${row.id}/`), { body: { links: { 'eBay\n': 'https://e/1' } } });
    expect(fixed.json().links).toEqual({ 'eBay\n': 'https://e/1' });
  });

  it('creates rows with every field kept as sent; read-only fields are the service\'s', async () => {
    const sid = await createSession(h);
    const readOnly = { id: 'mine', grade: 10, image: 'http://evil/x.jpg', thumbnail: 'x', extra_field: 'ignored' };
    const res = await upload(sid, [card('e1', readOnly)]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: 1, created: 1, updated: 0, duplicates: 0 });
    const row = (await list(sid)).results[0];
    const sent = card('e1');
    expect(row).toMatchObject({ ...sent, seen: '2026-11-20T10:00:00.000000Z', session: sid, grade: null, image: null, thumbnail: null, corrected: false, original: null, price_derived: false, price_basis: null });
    expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(row).not.toHaveProperty('extra_field');
  });

  it('re-sent event ids never change card fields; grading, calls and duration are later data', async () => {
    const sid = await createSession(h);
    await upload(sid, [card('a', { calls: 3, duration: 4 }), card('b')]);
    const res = await upload(sid, [
      card('a', { name: 'Raichu', card_number: '026', price: 99, calls: 2, duration: 1 }), // nothing mutable grows: duplicate
      card('b', { grading: { endpoint: 'grade/v2', grades: { final: 8.5, condition: 'NM', corners: 9 } } }), // grading added: updated
      card('c'),
    ]);
    expect(res.json()).toEqual({ received: 3, created: 1, updated: 1, duplicates: 1 });
    const rows = (await list(sid)).results;
    expect(rows.map((r: { event_id: string }) => r.event_id)).toEqual(['a', 'b', 'c']);
    expect(rows[0]).toMatchObject({ name: 'Pikachu', card_number: '025', price: 1.25, calls: 3, duration: 4 });
    expect(rows[1]).toMatchObject({ grade: 8.5, grading: { endpoint: 'grade/v2', grades: { final: 8.5, condition: 'NM', corners: 9 } } });

    const grow = await upload(sid, [{ event_id: 'a', calls: 5, duration: 6.5 }]);
    expect(grow.json()).toEqual({ received: 1, created: 0, updated: 1, duplicates: 0 });
    expect((await list(sid, '&event_id=a')).results[0]).toMatchObject({ calls: 5, duration: 6.5, name: 'Pikachu' });
    // an empty event_id is no filter, as an empty search or game is for sessions
    expect((await list(sid, '&event_id=')).count).toBe(3);
    const same = await upload(sid, [{ event_id: 'a', calls: 5 }]);
    expect(same.json()).toEqual({ received: 1, created: 0, updated: 0, duplicates: 1 });
  });

  it('a row first sent without any card takes the card a later send names (an offline queue replayed out of order, h81)', async () => {
    const sid = await createSession(h);
    const grading = { endpoint: 'grade/v2', grades: { final: 9 } };
    // the grading arrives first, then the create: in one batch and in two
    expect((await upload(sid, [{ event_id: 'late', grading, calls: 2, seen: '2026-11-20T09:00:00Z' }])).json()).toMatchObject({ created: 1 });
    const stats = [{ stats_type: 'ungraded', interval: '30d', value: { median: 3.5, currency: 'USD' } }];
    expect((await upload(sid, [{ event_id: 'same', grading }, card('same', { price: undefined, price_stats: stats })])).json()).toMatchObject({ created: 1, updated: 1 });
    const res = await upload(sid, [card('late', { seen: null, price: undefined, price_stats: stats })]);
    expect(res.json()).toEqual({ received: 1, created: 0, updated: 1, duplicates: 0 });
    const rows = (await list(sid)).results as Record<string, unknown>[];
    for (const row of rows) {
      expect(row, String(row.event_id)).toMatchObject({ name: 'Pikachu', set_code: 'MEW', card_number: '025', grade: 9, price_stats: stats });
      // the price its price_stats give, as on create
      expect(row.price, String(row.event_id)).toBe(3.5);
    }
    // what the card send left out is kept as the row had it
    expect(rows[0]).toMatchObject({ event_id: 'late', seen: '2026-11-20T09:00:00.000000Z', calls: 2 });
    const summary = (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect(summary).toMatchObject({ distinct_cards: 1, total_price: 7 });
    // once it has a card, rule 1 holds: another card does not replace it
    expect((await upload(sid, [card('late', { name: 'Raichu', card_number: '026', price: undefined, price_stats: stats })])).json()).toMatchObject({ updated: 0, duplicates: 1 });
    expect((await list(sid, '&event_id=late')).results[0]).toMatchObject({ name: 'Pikachu', card_number: '025' });
  });

  it("a card overtaken by its own update keeps the update's grading, note and sale (h259: the late create put them back)", async () => {
    const sid = await createSession(h);
    const update = { event_id: 'x1', grading: { endpoint: 'grade/v2', grades: { final: 9 } }, note: 'regraded', sold: true };
    const create = card('x1', { price: 5, grading: { endpoint: 'grade/v2', grades: { final: 6 } }, note: 'first', sold: false, calls: 3 });
    expect((await upload(sid, [update])).json()).toMatchObject({ created: 1 });
    expect((await upload(sid, [create])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid)).results[0]).toMatchObject({ name: 'Pikachu', card_number: '025', grade: 9, note: 'regraded', sold: true, price: 5, calls: 3 });
    // what the row lacked, the late card gives
    expect((await upload(sid, [{ event_id: 'x2', calls: 1 }])).json()).toMatchObject({ created: 1 });
    expect((await upload(sid, [card('x2', { price: 5, grading: { endpoint: 'grade/v2', grades: { final: 6 } }, note: 'first', sold: false })])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid, '&event_id=x2')).results[0]).toMatchObject({ grade: 6, note: 'first', sold: false });
    // once the card is there, later sends merge as before (the create sent again is a retry, a new grading replaces)
    expect((await upload(sid, [create])).json()).toMatchObject({ duplicates: 1 });
    expect((await upload(sid, [{ event_id: 'x1', grading: { endpoint: 'grade/v2', grades: { final: 8 } } }])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid, '&event_id=x1')).results[0]).toMatchObject({ grade: 8, note: 'regraded', sold: true });
  });

  it('a card named after its kind or year was sent is keyed and priced as the whole card: one card, the slab price (h209)', async () => {
    const sid = await createSession(h);
    const mew = { name: 'Mew', set_code: 'MEW', card_number: '151' };
    const stats = [
      { stats_type: 'ungraded', interval: '30d', value: { median: 10, currency: 'USD' } },
      { stats_type: 'graded', interval: '30d', value: { median: 100, currency: 'USD' } },
    ];
    // in one batch and in two: the kind first, the card without it later
    await upload(sid, [
      { event_id: 'x1', id_type: 'tcg', grading: { grades: { final: 9 } } },
      { event_id: 'x2', id_type: 'tcg', ...mew },
      { event_id: 'b1', id_type: 'tcg' },
      { event_id: 'b1', ...mew },
      { event_id: 'c1', id_type: 'comics', year: '1963' },
      { event_id: 'c2', id_type: 'comics', name: 'Avengers', set_name: 'Marvel', card_number: '1', year: '1963' },
      { event_id: 's1', id_type: 'slab' },
    ]);
    await upload(sid, [
      { event_id: 'x1', ...mew },
      { event_id: 'c1', name: 'Avengers', set_name: 'Marvel', card_number: '1' },
      { event_id: 's1', name: 'Charizard', set_code: 'BS', card_number: '4', price_stats: stats },
    ]);
    const rows = new Map(((await list(sid)).results as Record<string, unknown>[]).map((r) => [r.event_id, r]));
    expect(rows.get('x1')).toMatchObject({ id_type: 'tcg', ...mew });
    expect(rows.get('s1')).toMatchObject({ id_type: 'slab', price: 100 });
    // Mew three times and Avengers 1963 twice are two cards, the slab a third
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ distinct_cards: 3 });
  });

  it('migration 037 puts right rows stored before: the key of the merged card, a slab priced as a slab, its session total (h209, h214)', async () => {
    const sid = await createSession(h);
    const stats = [
      { stats_type: 'ungraded', interval: '30d', value: { median: 10, currency: 'USD' } },
      { stats_type: 'graded', interval: '30d', value: { median: 100, currency: 'USD' } },
    ];
    await upload(sid, [
      { event_id: 'x1', id_type: 'tcg', name: 'Mew', set_code: 'MEW', card_number: '151' },
      { event_id: 'x2', id_type: 'tcg', name: 'Mew', set_code: 'MEW', card_number: '151' },
      { event_id: 's1', id_type: 'slab', name: 'Charizard', set_code: 'BS', card_number: '4', price_stats: stats },
    ]);
    // as the release before wrote them: x1 keyed without its kind, s1 priced ungraded
    const store = (h.app.loupe as unknown as { store: Store }).store;
    const ungraded = JSON.stringify({ interval: '30d', statistic: 'median', stats_type: 'ungraded' });
    await sql`UPDATE card_identifications SET card_key = '|mew|mew|151' WHERE event_id = 'x1' AND session_id = ${sid}`.execute(store.db);
    await sql`UPDATE card_identifications SET price = 10, price_basis = ${ungraded} WHERE event_id = 's1' AND session_id = ${sid}`.execute(store.db);
    await sql`UPDATE card_sessions SET total_price = total_price - 90 WHERE id = ${sid}`.execute(store.db);
    const summary = async () => (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect(await summary()).toMatchObject({ distinct_cards: 3, total_price: 10 });
    await sql`DELETE FROM loupe_migrations WHERE name = '037-card-key-late-cards'`.execute(store.db);
    expect(await migrate(store)).toEqual(['037-card-key-late-cards']);
    expect(await summary()).toMatchObject({ distinct_cards: 2, total_price: 100 });
    expect((await list(sid, '&event_id=s1')).results[0]).toMatchObject({ price: 100, price_derived: true });
  });

  it("a row's price or links set by PATCH before its card arrived leave the card to come; a card the user cleared does not come back (h188)", async () => {
    const sid = await createSession(h);
    const grading = { endpoint: 'grade/v2', grades: { final: 9.5 } };
    await upload(sid, [{ event_id: 'priced', grading }, { event_id: 'linked', grading }, { event_id: 'cleared', grading }]);
    const idOf = async (e: string) => (await list(sid, `&event_id=${e}`)).results[0].id as string;
    // the streamer types the sale price on the row the grading made, or a link
    expect((await h.request('PATCH', cs(`identification/${await idOf('priced')}/`), { body: { price: 300 } })).statusCode).toBe(200);
    expect((await h.request('PATCH', cs(`identification/${await idOf('linked')}/`), { body: { links: { shop: 'https://shop.example/1' } } })).statusCode).toBe(200);
    const res = await upload(sid, [card('priced', { price: undefined }), card('linked', { price: undefined })]);
    expect(res.json()).toEqual({ received: 2, created: 0, updated: 2, duplicates: 0 });
    expect((await list(sid, '&event_id=priced')).results[0]).toMatchObject({ name: 'Pikachu', card_number: '025', price: 300, grade: 9.5 });
    expect((await list(sid, '&event_id=linked')).results[0]).toMatchObject({ name: 'Pikachu', card_number: '025', links: { shop: 'https://shop.example/1' } });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ distinct_cards: 1 });
    // a card a user set and then cleared is the user's: a replay of the old send does not put it back
    const cleared = await idOf('cleared');
    await upload(sid, [card('cleared', { name: 'Raichu', card_number: '026' })]);
    expect((await h.request('PATCH', cs(`identification/${cleared}/`), { body: { name: null, set_code: null, card_number: null, set_name: null, full_name: null } })).statusCode).toBe(200);
    expect((await upload(sid, [card('cleared', { name: 'Raichu', card_number: '026' })])).json()).toMatchObject({ updated: 0 });
    expect((await list(sid, '&event_id=cleared')).results[0]).toMatchObject({ name: null, card_number: null });
    // …and so does one typed on the row still waiting for its card, then cleared, and links set then cleared (h200)
    await upload(sid, [{ event_id: 'typed', grading }, { event_id: 'unlinked', grading }]);
    const typed = await idOf('typed');
    await h.request('PATCH', cs(`identification/${typed}/`), { body: { name: 'Charizard', card_number: '006' } });
    await h.request('PATCH', cs(`identification/${typed}/`), { body: { name: null, card_number: null } });
    const unlinked = await idOf('unlinked');
    await h.request('PATCH', cs(`identification/${unlinked}/`), { body: { links: { shop: 'https://shop.example/2' } } });
    await h.request('PATCH', cs(`identification/${unlinked}/`), { body: { links: null } });
    await upload(sid, [card('typed', { price: undefined }), card('unlinked', { price: undefined })]);
    expect((await list(sid, '&event_id=typed')).results[0]).toMatchObject({ name: null, card_number: null });
    expect((await list(sid, '&event_id=unlinked')).results[0]).toMatchObject({ name: 'Pikachu', links: null });
  });

  it('refuses a row whose numbers JSON cannot keep as sent (1e309, integers beyond 2^53), and a run number beyond 2^53', async () => {
    const sid = await createSession(h);
    const res = await h.request('POST', cs(`session/${sid}/identifications/`), { payload: '{"identifications":[{"event_id":"ok","name":"A"},{"event_id":"inf","name":"B","grading":{"n":1e309}}]}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ field: 'identifications[1].grading.n' });
    expect((await h.request('GET', cs(`session/${sid}/`))).json().identification_count).toBe(0);
    // the same in a batch over 1 MiB, parsed on its own thread (its rows came back as text, 1e309 as null, stored)
    const pad = Array.from({ length: 400 }, (_, i) => JSON.stringify({ event_id: `pad${i}`, note: 'n'.repeat(3000) })).join(',');
    const large = await h.request('POST', cs(`session/${sid}/identifications/`), { payload: `{"identifications":[${pad},{"event_id":"inf","price":1e309}]}`, headers: { 'content-type': 'application/json' } });
    expect(large.statusCode).toBe(400);
    expect(large.json().errors.map((e: { field: string }) => e.field)).toContain('identifications[400].price');
    expect((await h.request('GET', cs(`session/${sid}/`))).json().identification_count).toBe(0);
    const calls = await h.request('POST', cs(`session/${sid}/calls/`), { payload: '{"run":12345678901234567890,"calls":1}', headers: { 'content-type': 'application/json' } });
    expect(calls.statusCode).toBe(400);
    expect((await h.request('POST', cs(`session/${sid}/calls/`), { body: { run: '12345678901234567890', calls: 1 } })).json()).toEqual({ run: '12345678901234567890', calls: 1 });
  });

  it('counts repeats inside one batch; received = created + updated + duplicates', async () => {
    const sid = await createSession(h);
    const res = await upload(sid, [card('x', { calls: 1 }), card('x', { calls: 1 }), card('x', { calls: 4 }), card('y')]);
    const body = res.json();
    expect(body).toEqual({ received: 4, created: 2, updated: 1, duplicates: 1 });
    expect(body.received).toBe(body.created + body.updated + body.duplicates);
    expect((await list(sid)).count).toBe(2);
    expect((await list(sid, '&event_id=x')).results[0].calls).toBe(4);
  });

  it('derives grade from grading.grades.final (numbers and numeric strings)', async () => {
    const sid = await createSession(h);
    await upload(sid, [
      { event_id: 'g1', name: 'A', grading: { grades: { final: 9 } } },
      { event_id: 'g2', name: 'B', grading: { grades: { final: '7.5' } } },
      { event_id: 'g3', name: 'C', grading: { grades: { final: null } } },
      { event_id: 'g4', name: 'D', grading: { records: [] } },
    ]);
    const rows = (await list(sid)).results;
    expect(rows.map((r: { grade: number | null }) => r.grade)).toEqual([9, 7.5, null, null]);
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().average_grade).toBe(8.25);
  });

  describe('a batch with one bad row is rejected whole, naming the row and field', () => {
    const bad: Array<[string, Record<string, unknown>, string]> = [
      ['name over 255', { name: 'n'.repeat(256) }, 'name'],
      ['full_name over 500', { full_name: 'f'.repeat(501) }, 'full_name'],
      ['set_code over 50', { set_code: 's'.repeat(51) }, 'set_code'],
      ['card_number over 50', { card_number: '1'.repeat(51) }, 'card_number'],
      ['year over 20', { year: '2'.repeat(21) }, 'year'],
      ['subcategory over 100', { subcategory: 'p'.repeat(101) }, 'subcategory'],
      ['series over 255', { series: 's'.repeat(256) }, 'series'],
      ['set_name over 255', { set_name: 's'.repeat(256) }, 'set_name'],
      ['a link over 2048', { links: { ebay: `https://e.com/${'x'.repeat(2048)}` } }, 'links.ebay'],
      ['11 alternatives', { alternatives: Array.from({ length: 11 }, () => ({})) }, 'alternatives'],
      ['11 price_stats', { price_stats: Array.from({ length: 11 }, () => ({})) }, 'price_stats'],
      ['grading over 64 KiB', { grading: { grades: { final: 9 }, blob: 'g'.repeat(65 * 1024) } }, 'grading'],
      ['alternatives over 64 KiB', { alternatives: [{ name: 'a'.repeat(65 * 1024) }] }, 'alternatives'],
      ['price_stats over 64 KiB', { price_stats: [{ n: 'p'.repeat(65 * 1024) }] }, 'price_stats'],
      ['a link name over 200', { links: { ['e'.repeat(201)]: 'https://e.com/x' } }, 'links'],
      ['calls as a string', { calls: '3' }, 'calls'],
      ['price as a string', { price: '1.00' }, 'price'],
      ['negative calls', { calls: -1 }, 'calls'],
      ['unknown id_type', { id_type: 'pokemon' }, 'id_type'],
      ['unknown confidence', { confidence: 'certain' }, 'confidence'],
      ['sold as a string', { sold: 'yes' }, 'sold'],
      ['seen that is no time', { seen: 'yesterday-ish' }, 'seen'],
      ['seen that is not ISO ("1")', { seen: '1' }, 'seen'],
      ['seen that is not ISO ("March 7")', { seen: 'March 7' }, 'seen'],
      ['seen in year 0', { seen: '0000-01-01T00:00:00Z' }, 'seen'],
      ['calls beyond what is stored', { calls: 3_000_000_000 }, 'calls'],
      ['a price beyond what is stored', { price: 1e308 }, 'price'],
      ['links not a dict', { links: ['https://x'] }, 'links'],
      // every client app shows a link as one (h271: stored and served back as sent)
      ['a javascript: link', { links: { tcgplayer: 'javascript:alert(8)' } }, 'links.tcgplayer'],
      ['a data: link', { links: { ebay: 'data:text/html,<script>alert(1)</script>' } }, 'links.ebay'],
    ];
    it.each(bad)('%s', async (_label, extra, field) => {
      const sid = await createSession(h);
      await upload(sid, [card('kept')]);
      const res = await upload(sid, [card('ok-1'), card('ok-2'), { ...card('bad'), ...extra }, card('ok-3')]);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.code).toBe('invalid_request');
      expect(body.errors[0]).toMatchObject({ row: 2, field: `identifications[2].${field}` });
      expect(body.detail).toContain('Row 2');
      expect(body.detail).toContain(field);
      const after = await list(sid);
      expect(after.count).toBe(1);
      expect(after.results[0].event_id).toBe('kept');
    });

    it('says what a link must be in words, for an upload and a correction (h310: the regular expression was quoted)', async () => {
      const sid = await createSession(h);
      const words = 'must be an http:// or https:// address, or empty';
      const res = await upload(sid, [card('a'), { ...card('b'), links: { tcgplayer: 'javascript:alert(8)' } }]);
      expect([res.statusCode, res.json().detail, res.json().errors]).toEqual([400, `Row 1: identifications[1].links.tcgplayer ${words}. The batch was not stored.`, [{ field: 'identifications[1].links.tcgplayer', message: words, row: 1 }]]);
      await upload(sid, [card('a')]);
      const id = (await list(sid)).results[0].id;
      const patch = await h.request('PATCH', cs(`identification/${id}/`), { body: { links: { ebay: 'ftp://ebay.com/itm/1' } } });
      expect([patch.statusCode, patch.json().detail]).toEqual([400, `links.ebay ${words}.`]);
    });

    it('a row without event_id', async () => {
      const sid = await createSession(h);
      const res = await upload(sid, [card('a'), { name: 'no id' }]);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ row: 1, field: 'identifications[1].event_id' });
      expect((await list(sid)).count).toBe(0);
    });

    it('several bad rows: each named once, in row order, so the batch is fixed in one round trip', async () => {
      const sid = await createSession(h);
      const res = await upload(sid, [card('ok'), { ...card('m1'), name: 5, year: '2'.repeat(21) }, card('ok-2'), { ...card('m3'), year: '2'.repeat(21) }, { name: 'no id' }]);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.errors.map((e: { row: number; field: string }) => [e.row, e.field])).toEqual([
        [1, 'identifications[1].name'],
        [3, 'identifications[3].year'],
        [4, 'identifications[4].event_id'],
      ]);
      expect(body.detail).toMatch(/^Row 1: identifications\[1\]\.name/);
      expect((await list(sid)).count).toBe(0);
      // rows the schema lets through but the rules refuse are named in the same answer (they came one round trip later)
      const mixed = await upload(sid, [card('ok'), { ...card('b1'), name: 5 }, card('b6', { seen: 'March 7' }), card('b7', { grading: { grades: { final: 11 } } })]);
      expect(mixed.statusCode).toBe(400);
      expect(mixed.json().errors.map((e: { row: number; field: string }) => [e.row, e.field])).toEqual([
        [1, 'identifications[1].name'],
        [2, 'identifications[2].seen'],
        [3, 'identifications[3].grading.grades.final'],
      ]);
      // a row over an item limit of its own (11 alternatives) does not hide the rule errors of the others (h334: only the
      // batch's own list over its length skips them; a grading over 64 KiB beside it came one round trip later)
      const items = await upload(sid, [card('ok'), card('a11', { alternatives: Array.from({ length: 11 }, () => ({})) }), card('g65', { grading: { blob: 'g'.repeat(65 * 1024) } }), card('s7', { seen: 'March 7' })]);
      expect(items.statusCode).toBe(400);
      expect(items.json().errors.map((e: { row: number; field: string }) => [e.row, e.field])).toEqual([
        [1, 'identifications[1].alternatives'],
        [2, 'identifications[2].grading'],
        [3, 'identifications[3].seen'],
      ]);
      // rows that break only rules: each once, at most 100, as the schema's check names them (all 1,000 were listed)
      const ruled = await upload(sid, Array.from({ length: 300 }, (_, i) => card(`r${i}`, { seen: 'March 7', grading: { grades: { final: 11 } } })));
      expect(ruled.statusCode).toBe(400);
      const named = ruled.json().errors as { row: number }[];
      expect(named).toHaveLength(100);
      expect(new Set(named.map((e) => e.row)).size).toBe(100);
      // and says the list is cut (nothing said of the other 200, h133)
      expect(ruled.json().detail).toMatch(/ 300 rows are bad; errors lists the first 100\.$/);
      // a number JSON cannot keep, deep in a row, is named as the schema names fields (`alternatives.0.id`, h133)
      const deep = await h.request('POST', cs(`session/${sid}/identifications/`), { payload: '{"identifications":[{"event_id":"big1","alternatives":[{"id":12345678901234567891}]}]}', headers: { 'content-type': 'application/json' } });
      expect(deep.json().errors[0].field).toBe('identifications[0].alternatives[0].id');
    });

    it('a body without identifications, or not a list', async () => {
      const sid = await createSession(h);
      expect((await h.request('POST', cs(`session/${sid}/identifications/`), { body: {} })).statusCode).toBe(400);
      expect((await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: {} } })).statusCode).toBe(400);
      expect((await h.request('POST', cs(`session/${sid}/identifications/`), { body: [] })).statusCode).toBe(400);
    });
  });

  it('accepts id_type and confidence in any case, stored lower-case', async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [card('case', { id_type: 'TCG', confidence: 'High' })])).statusCode).toBe(200);
    expect((await list(sid)).results[0]).toMatchObject({ id_type: 'tcg', confidence: 'high' });
    // another value is told what the values are, not the pattern that checks them
    const wrong = await upload(sid, [card('wrong', { id_type: 'card', confidence: 'sure' })]);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toEqual([{ field: 'identifications[0].id_type', message: 'must be one of "tcg", "sport", "comics", "slab" (any case)', row: 0 }]);
    const unsure = await upload(sid, [card('unsure', { confidence: 'sure' })]);
    expect(unsure.json().errors).toEqual([{ field: 'identifications[0].confidence', message: 'must be one of "high", "medium", "low" (any case)', row: 0 }]);
  });

  it('NUL characters are a 400, not a database error', async () => {
    const sid = await createSession(h);
    const res = await upload(sid, [card('ok'), card('nul', { name: 'Pika\u0000chu' })]);
    expect(res.statusCode).toBe(400);
    // which row, which field: a batch of hundreds was refused naming none
    expect(res.json().detail).toBe('NUL characters (\\u0000) are not accepted: identifications[1].name holds one.');
    expect((await h.request('GET', cs(`identification/?session=${sid}&event_id=a%00b`))).statusCode).toBe(400);
    expect((await list(sid)).count).toBe(0);
  });

  it('an identical re-send with grading is a duplicate on every backend (jsonb reorders keys)', async () => {
    const sid = await createSession(h);
    const grading = { records: [{ z: 1, a: 2 }], grades: { final: 9, condition: 'NM', corners: 9.5 }, endpoint: 'grade/v2' };
    expect((await upload(sid, [card('g', { grading })])).json().created).toBe(1);
    expect((await upload(sid, [card('g', { grading })])).json()).toEqual({ received: 1, created: 0, updated: 0, duplicates: 1 });
  });

  it("a retry of an earlier batch undoes none of the row's later grading, sold mark or note", async () => {
    const sid = await createSession(h);
    const first = card('r1', { sold: false, note: 'page 1 pocket 1', price: 300, grading: { endpoint: 'condition', grades: { final: 7, condition: 'LP' } } });
    expect((await upload(sid, [first])).json().created).toBe(1);
    const row = (await list(sid)).results[0];
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { sold: true, note: 'sold at show' } })).statusCode).toBe(200);
    expect((await upload(sid, [{ event_id: 'r1', grading: { endpoint: 'grade', grades: { final: 9 } } }])).json()).toMatchObject({ updated: 1 });
    // the app's queue sends the first batch again, byte for byte
    expect((await upload(sid, [first])).json()).toEqual({ received: 1, created: 0, updated: 0, duplicates: 1 });
    expect((await list(sid)).results[0]).toMatchObject({ sold: true, note: 'sold at show', grade: 9, grading: { endpoint: 'grade', grades: { final: 9 } } });
    // new data is still taken where no user set the field (since the thirty-ninth session the sold mark and note the
    // user set by PATCH stay: a phone's stale copy of the row undid them, h93)
    expect((await upload(sid, [{ event_id: 'r1', note: 'back in stock', sold: false, calls: 4 }])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid)).results[0]).toMatchObject({ sold: true, note: 'sold at show', grade: 9, calls: 4 });
  });

  it('a send that changed nothing is a retry too when it comes again after a change (a timed-out request sent again)', async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [card('w', { sold: false, note: 'x' })])).json().created).toBe(1);
    const row = (await list(sid)).results[0];
    // changes nothing, twice in one batch too: remembered once
    expect((await upload(sid, [{ event_id: 'w', sold: false }, { event_id: 'w', sold: false }])).json()).toMatchObject({ duplicates: 2 });
    const before = (await list(sid)).results[0];
    expect(before.updated_at).toBe(row.updated_at);
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { sold: true } })).statusCode).toBe(200);
    expect((await upload(sid, [{ event_id: 'w', sold: false }])).json()).toMatchObject({ updated: 0, duplicates: 1 });
    expect((await list(sid)).results[0]).toMatchObject({ sold: true, note: 'x' });
  });

  it('accepts limits exactly at the edge, nulls and a naive seen time (read as UTC)', async () => {
    const sid = await createSession(h);
    const edge = {
      event_id: 'edge',
      name: 'n'.repeat(255),
      full_name: 'é'.repeat(500),
      set_code: 's'.repeat(50),
      year: '2'.repeat(20),
      links: { a: `https://e.com/${'x'.repeat(2048 - 14)}` },
      alternatives: Array.from({ length: 10 }, (_, i) => ({ i })),
      price_stats: Array.from({ length: 10 }, (_, i) => ({ i })),
      grading: { grades: { final: 10 }, pad: 'g'.repeat(60 * 1024) },
      seen: '2026-11-20T10:00:00',
    };
    const res = await upload(sid, [edge, { event_id: 'nulls', name: null, price: null, links: null, grading: null, seen: null, id_type: null }]);
    expect(res.statusCode, res.body).toBe(200);
    const rows = (await list(sid)).results;
    expect(rows[0].seen).toBe('2026-11-20T10:00:00.000000Z');
    expect(rows[0].full_name).toHaveLength(500);
    expect(rows[1]).toMatchObject({ name: null, price: null, links: null, grading: null, seen: null });
    // an empty seen is no time, as null is (h277: an app sending "" for "unknown" had its whole batch refused)
    const empty = await upload(sid, [{ event_id: 'empty-seen', name: 'Pikachu', seen: '' }, { event_id: 'blank-seen', name: 'Eevee', seen: '  ' }]);
    expect(empty.statusCode, empty.body).toBe(200);
    expect((await list(sid)).results.slice(2).map((r: { seen: unknown }) => r.seen)).toEqual([null, null]);
  });

  it('a seen time sent without its zone (read as UTC) is put right by PATCH, no correction of the card (h121)', async () => {
    const sid = await createSession(h);
    expect((await upload(sid, [{ event_id: 'la', name: 'Pikachu', seen: '2026-11-30T20:00:00' }])).statusCode).toBe(200);
    const [row] = (await list(sid)).results;
    expect(row.seen).toBe('2026-11-30T20:00:00.000000Z');
    const fixed = await h.request('PATCH', cs(`identification/${row.id}/`), { body: { seen: '2026-11-30T20:00:00-08:00' } });
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect(fixed.json()).toMatchObject({ seen: '2026-12-01T04:00:00.000000Z', corrected: false, original: null, name: 'Pikachu' });
    // the same time again changes nothing, not even the version
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { seen: '2026-12-01T04:00:00Z' } })).json().etag).toBe(fixed.json().etag);
    // a time no calendar has is refused, naming the field; the row keeps its time
    const bad = await h.request('PATCH', cs(`identification/${row.id}/`), { body: { seen: '2026-02-30T10:00:00Z' } });
    expect([bad.statusCode, bad.json().detail]).toEqual([400, expect.stringMatching(/^seen must be an ISO 8601 time that exists/)]);
    expect((await list(sid)).results[0].seen).toBe('2026-12-01T04:00:00.000000Z');
    // a re-send of the row with its old time is a duplicate: the time put right stays
    expect((await upload(sid, [{ event_id: 'la', name: 'Pikachu', seen: '2026-11-30T20:00:00' }])).json()).toMatchObject({ duplicates: 1 });
    expect((await list(sid)).results[0].seen).toBe('2026-12-01T04:00:00.000000Z');
  });

  it('a row read and sent back as it came keeps its derived price derived: a later correction does not keep the old card\'s price (h133)', async () => {
    const sid = await createSession(h);
    const stats = [{ stats_type: 'overall', interval: '30d', value: { median: 3.5, mean: 3.6 } }];
    expect((await upload(sid, [{ event_id: 'echo', id_type: 'tcg', name: 'Pikachu', card_number: '58', price_stats: stats }])).statusCode).toBe(200);
    const [row] = (await list(sid)).results;
    expect(row).toMatchObject({ price: 3.5, price_derived: true });
    const again = await upload(sid, [row]);
    expect(again.json()).toMatchObject({ created: 0, updated: 0, duplicates: 1 });
    expect((await list(sid)).results[0]).toMatchObject({ price: 3.5, price_derived: true });
    const fixed = await h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'Raichu', card_number: '26' } });
    expect(fixed.json()).toMatchObject({ name: 'Raichu', price: null });
    // a price of the app's own, not the derived one, is the app's
    expect((await upload(sid, [{ event_id: 'own', id_type: 'tcg', name: 'Pikachu', card_number: '58', price_stats: stats }])).statusCode).toBe(200);
    expect((await upload(sid, [{ event_id: 'own', price: 4 }])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid)).results[1]).toMatchObject({ price: 4, price_derived: false });
    // a partial row recording a sale at the derived price is the app's price (it is not the row as read, h135)
    expect((await upload(sid, [{ event_id: 'sale', id_type: 'tcg', name: 'Pikachu', card_number: '58', price_stats: stats }])).statusCode).toBe(200);
    expect((await upload(sid, [{ event_id: 'sale', price: 3.5, sold: true }])).json()).toMatchObject({ updated: 1 });
    expect((await list(sid)).results[2]).toMatchObject({ price: 3.5, price_derived: false, sold: true });
  });

  it("takes a recognition result's document 3 names (set; a comic's number, publisher, date, title) on upload and PATCH (h133)", async () => {
    const sid = await createSession(h);
    const res = await upload(sid, [
      { event_id: 't', id_type: 'tcg', name: 'Pikachu', set: 'Base Set', card_number: '58' },
      { event_id: 'c', id_type: 'comics', name: 'Amazing Spider-Man', title: 'Amazing Spider-Man #300', number: '300', publisher: 'Marvel', date: '1988' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const [t, c] = (await list(sid)).results;
    expect(t).toMatchObject({ set_name: 'Base Set', card_number: '58' });
    expect(c).toMatchObject({ name: 'Amazing Spider-Man', full_name: 'Amazing Spider-Man #300', card_number: '300', set_name: 'Marvel', year: '1988' });
    // a comic alternative picked by PATCH replaces the whole match (the old comic's number, publisher and year stayed)
    const picked = await h.request('PATCH', cs(`identification/${c.id}/`), { body: { name: 'Batman', title: 'Batman #423', number: '423', publisher: 'DC Comics', date: '1988' } });
    expect(picked.json()).toMatchObject({ name: 'Batman', full_name: 'Batman #423', card_number: '423', set_name: 'DC Comics', year: '1988', corrected: true });
    // the console's pick sends the fields the alternative lacks as null: they are filled from its own names (h135: a 400)
    const consolePick = await h.request('PATCH', cs(`identification/${c.id}/`), { body: { name: 'Saga', title: 'Saga #1', number: '1', publisher: 'Image', date: '2012-03-14', set_name: null, card_number: null, year: null, full_name: null } });
    expect(consolePick.json()).toMatchObject({ name: 'Saga', full_name: 'Saga #1', card_number: '1', set_name: 'Image', year: '2012' });
    // a slab label's card_no too (h135)
    const slab = await h.request('PATCH', cs(`identification/${t.id}/`), { body: { name: 'Charizard', card_no: '4', set: 'Base Set' } });
    expect(slab.json()).toMatchObject({ name: 'Charizard', card_number: '4' });
    // a TCG app's own fields of those names are left as the unknown fields they were: a quantity, a scan time (h135: whole batches refused)
    const tcg = await upload(sid, [
      { event_id: 'q', id_type: 'tcg', name: 'Pikachu', card_number: '58', number: 1, date: '2026-11-30T20:00:00.000Z', title: 'my binder' },
      { event_id: 'q2', id_type: 'tcg', name: 'Pikachu', number: '3' },
      { event_id: 'x', set: 'Jungle', set_name: 'Fossil' },
    ]);
    expect(tcg.statusCode, tcg.body).toBe(200);
    const rows = (await list(sid)).results;
    expect(rows[2]).toMatchObject({ card_number: '58', year: null, full_name: null });
    expect(rows[3]).toMatchObject({ card_number: null });
    expect(rows[4]).toMatchObject({ set_name: 'Fossil' });
  });

  it('rejects more rows than the batch limit', async () => {
    const sid = await createSession(h);
    const rows = Array.from({ length: h.config.limits.batchRows + 1 }, (_, i) => ({ event_id: `r${i}` }));
    const res = await upload(sid, rows);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain(String(h.config.limits.batchRows));
    expect((await list(sid)).count).toBe(0);
  });

  it('reads a page of large rows a few at a time: a request sent meanwhile is answered before it', async () => {
    const sid = await createSession(h);
    const grading = { blob: Array.from({ length: 1000 }, (_, i) => ({ k: `key${i}`, v: i * 1.5, s: 'abcdefghij' })) };
    for (let b = 0; b < 2; b++) await upload(sid, Array.from({ length: 100 }, (_, i) => ({ event_id: `g${b}-${i}`, grading })));
    const order: string[] = [];
    const page = h.request('GET', cs(`identification/?session=${sid}&page_size=200`)).then((r) => {
      order.push('page');
      return r;
    });
    // sent after the page's request: answered first only when the page gives other requests turns
    await new Promise((r) => setImmediate(r));
    const health = h.app.inject({ method: 'GET', url: '/health' }).then(() => order.push('health'));
    const [res] = await Promise.all([page, health]);
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toHaveLength(200);
    expect(order).toEqual(['health', 'page']);
  });

  it('refuses a batch far over the limit by its length alone, its rows not checked one by one', async () => {
    const sid = await createSession(h);
    // every row bad, by the schema and by a rule: the all-errors check made an error per row (ten million
    // ended the process), and the rules were then checked on every row too
    const res = await upload(sid, Array.from({ length: 20_000 }, () => ({ event_id: 5, seen: 'x' })));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'identifications', message: 'must hold at most 1000 items (it has 20000)' }]);
    // longer than any endpoint takes, in a body large enough for the parsing thread: refused there, before its
    // rows are split into texts, sent across and parsed again (src/http/json-body.ts)
    const huge = await upload(sid, Array.from({ length: 150_000 }, () => ({ note: 'a note of some length' })));
    expect(huge.statusCode).toBe(400);
    expect(huge.json()).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining('holds 150000 items') });
    expect((await list(sid)).count).toBe(0);
  });

  it('409 with detail when uploading to a closed session; works again after reopen', async () => {
    const sid = await createSession(h);
    await h.request('POST', cs(`session/${sid}/close/`));
    const res = await upload(sid, [card('late')]);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'session_closed' });
    expect(res.json().detail).toMatch(/closed/);
    expect((await list(sid)).count).toBe(0);
    await h.request('POST', cs(`session/${sid}/reopen/`));
    expect((await upload(sid, [card('late')])).json().created).toBe(1);
    // closed again: a retry of what is stored changes nothing and is answered as one; new data is still refused (h81)
    await h.request('POST', cs(`session/${sid}/close/`));
    const retry = await upload(sid, [card('late')]);
    expect([retry.statusCode, retry.json()]).toEqual([200, { received: 1, created: 0, updated: 0, duplicates: 1 }]);
    expect((await upload(sid, [card('late', { grading: { grades: { final: 9 } } })])).statusCode).toBe(409);
    expect((await upload(sid, [card('late'), card('new')])).statusCode).toBe(409);
    expect((await list(sid)).count).toBe(1);
  });

  it('concurrent corrections of one row both apply; the price total stays exact', async () => {
    const sid = await createSession(h);
    await upload(sid, [card('cc', { price: 1 })]);
    const row = (await list(sid)).results[0];
    const results = await Promise.all([
      h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'Raichu', price: 5 } }),
      h.request('PATCH', cs(`identification/${row.id}/`), { body: { card_number: '026', price: 7 } }),
      h.request('PATCH', cs(`identification/${row.id}/`), { body: { year: '1999' } }),
    ]);
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const after = (await list(sid)).results[0];
    expect(after).toMatchObject({ name: 'Raichu', card_number: '026', year: '1999' });
    expect([5, 7]).toContain(after.price);
    expect((await h.request('GET', cs(`session/${sid}/`))).json().total_price).toBe(after.price);
    expect(after.original.price).toBe(1);
  });

  it('concurrent uploads of the same event ids make one row each and no error', async () => {
    const sid = await createSession(h);
    const batch = Array.from({ length: 40 }, (_, i) => card(`same-${i}`, { calls: 1 }));
    const results = await Promise.all(Array.from({ length: 8 }, (_, k) => upload(sid, k % 2 ? [...batch].reverse() : batch)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const created = results.reduce((n, r) => n + (r.json().created as number), 0);
    expect(created).toBe(40);
    for (const r of results) {
      const b = r.json();
      expect(b.received).toBe(b.created + b.updated + b.duplicates);
    }
    const rows = await list(sid, '&page_size=500');
    expect(rows.count).toBe(40);
    expect(new Set(rows.results.map((r: { event_id: string }) => r.event_id)).size).toBe(40);
  });

  it('uploads racing a close: each batch is all in (200) or all out (409), counters stay exact', async () => {
    const sid = await createSession(h);
    const batches = Array.from({ length: 12 }, (_, b) => Array.from({ length: 30 }, (_, i) => card(`race-${b}-${i}`, { price: 0.5 })));
    const uploads = batches.map((rows, b) => new Promise((r) => setTimeout(r, b)).then(() => upload(sid, rows)));
    const closing = new Promise((r) => setTimeout(r, 4)).then(() => h.request('POST', cs(`session/${sid}/close/`)));
    const results = await Promise.all(uploads);
    expect((await closing).statusCode).toBe(200);
    const accepted = results.filter((r) => r.statusCode === 200).length;
    expect(results.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);

    const rows = await list(sid, '&page_size=500');
    expect(rows.count).toBe(accepted * 30);
    for (let b = 0; b < batches.length; b++) {
      const stored = rows.results.filter((r: { event_id: string }) => r.event_id.startsWith(`race-${b}-`)).length;
      expect([0, 30]).toContain(stored);
    }
    const session = (await h.request('GET', cs(`session/${sid}/`))).json();
    const summary = (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect(session.identification_count).toBe(rows.count);
    expect(session.total_price).toBe(summary.total_price);
    expect(summary.identifications).toBe(rows.count);
  });

  it('lists in upload order with page_size (default 100, at most 500) and the event_id filter', async () => {
    const sid = await createSession(h);
    const rows = Array.from({ length: 620 }, (_, i) => ({ event_id: `p${String(i).padStart(4, '0')}`, name: `Card ${i}` }));
    expect((await upload(sid, rows.slice(0, 500))).json().created).toBe(500);
    expect((await upload(sid, rows.slice(500))).json().created).toBe(120);

    const first = await list(sid);
    expect(first.count).toBe(620);
    expect(first.results).toHaveLength(100);
    expect(first.results[0].event_id).toBe('p0000');
    const big = await list(sid, '&page_size=1000');
    expect(big.results).toHaveLength(500);
    expect(big.next).toContain('page=2');
    const second = (await h.request('GET', new URL(big.next).pathname + new URL(big.next).search)).json();
    expect(second.results).toHaveLength(120);
    expect(second.results[119].event_id).toBe('p0619');
    expect(second.next).toBeNull();

    const one = await list(sid, '&event_id=p0042');
    expect(one.count).toBe(1);
    expect(one.results[0].name).toBe('Card 42');
    expect((await list(sid, '&event_id=missing')).count).toBe(0);

    expect((await h.request('GET', cs('identification/'))).statusCode).toBe(400);
    expect((await h.request('GET', cs(`identification/?session=${randomUUID()}`))).statusCode).toBe(404);
    expect((await h.request('GET', cs(`identification/?session=${sid}&page_size=0`))).statusCode).toBe(400);
    const other = await h.newAccount();
    expect((await h.request('GET', cs(`identification/?session=${sid}`), { token: other.token })).statusCode).toBe(404);
  });

  it("a page holds exactly the rows of the session's OFFSET query, in its order, when rows tie on seen and lie among another session's (h354: pages read by their places first)", async () => {
    const db = (h.app.loupe as unknown as { store: Store }).store.db;
    const sid = await createSession(h);
    const other = await createSession(h);
    // event ids against the upload order (PostgreSQL inserts a batch sorted by event id, numbered in the order sent),
    // one `seen` for all, batches of both sessions one after the other: their places interleave in the table
    for (let b = 0; b < 4; b++) {
      const batch = (prefix: string) => Array.from({ length: 13 }, (_, i) => card(`${prefix}${String(99 - b * 13 - i).padStart(3, '0')}`, { name: `Card ${b}-${i}` }));
      expect((await upload(sid, batch('z'))).json().created).toBe(13);
      expect((await upload(other, batch('a'))).json().created).toBe(13);
    }
    const old = async (limit: number, offset: number, eventId?: string) => {
      let q = db.selectFrom('card_identifications').select('id').where('session_id', '=', sid);
      if (eventId !== undefined) q = q.where('event_id', '=', eventId);
      return (await q.orderBy('seq').limit(limit).offset(offset).execute()).map((r) => String(r.id));
    };
    const walked: string[] = [];
    for (let page = 1; page <= 8; page++) {
      const got = await list(sid, `&page_size=7&page=${page}`);
      const ids = (got.results as { id: string; session: string }[]).map((r) => r.id);
      expect(ids).toEqual(await old(7, (page - 1) * 7));
      expect(got.results.every((r: { session: string }) => r.session === sid)).toBe(true);
      walked.push(...ids);
    }
    expect(walked).toHaveLength(52);
    expect(new Set(walked).size).toBe(52);
    expect((await list(sid, '&page_size=7&page=9')).results).toEqual([]);
    const one = await list(sid, '&event_id=z050');
    expect(one.results.map((r: { id: string }) => r.id)).toEqual(await old(1, 0, 'z050'));
    expect((await list(sid, '&event_id=a050')).results).toEqual([]);
  });

  it('PATCH corrects the match, keeps the original visible, works on closed sessions', async () => {
    const sid = await createSession(h);
    await upload(sid, [card('fix')]);
    const row = (await list(sid)).results[0];
    await h.request('POST', cs(`session/${sid}/close/`));

    const res = await h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'Raichu', card_number: '026', price: 3 } });
    expect(res.statusCode).toBe(200);
    const fixed = res.json();
    expect(fixed).toMatchObject({ id: row.id, name: 'Raichu', card_number: '026', price: 3, corrected: true, set_code: 'MEW' });
    const links = { tcgplayer: 'https://www.tcgplayer.com/product/1', ebay: 'https://www.ebay.com/sch/i.html?_nkw=pikachu' };
    expect(fixed.original).toEqual({ name: 'Pikachu', full_name: 'Pikachu 025/165 Scarlet & Violet 151', set_name: 'Scarlet & Violet 151', set_code: 'MEW', card_number: '025', series: 'Scarlet & Violet', year: '2023', subcategory: 'Pokemon', price: 1.25, links, price_stats: [{ source: 'tcgplayer', market: 1.25, currency: 'USD' }] });
    expect(Date.parse(fixed.corrected_at)).not.toBeNaN();
    // another card: the recognised card's price_stats are not the picked card's (kept in original)
    expect(fixed.price_stats).toBeNull();
    // another card now: the recognised card's links would name the wrong one
    expect(fixed.links).toBeNull();

    const second = (await h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'Alakazam', price: null, links: { tcgplayer: 'https://www.tcgplayer.com/product/65' } } })).json();
    expect(second).toMatchObject({ name: 'Alakazam', price: null, links: { tcgplayer: 'https://www.tcgplayer.com/product/65' } });
    expect(second.original).toMatchObject({ name: 'Pikachu', links });
    // a year alone leaves the links as they are
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { year: '2024' } })).json().links).toEqual({ tcgplayer: 'https://www.tcgplayer.com/product/65' });
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { links: { x: 'y'.repeat(2049) } } })).statusCode).toBe(400);

    // A re-upload of the row does not undo the user's correction.
    await h.request('POST', cs(`session/${sid}/reopen/`));
    expect((await upload(sid, [card('fix')])).json().duplicates).toBe(1);
    expect((await list(sid)).results[0].name).toBe('Alakazam');

    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'x'.repeat(256) } })).statusCode).toBe(400);
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { price: 'free' } })).statusCode).toBe(400);
    expect((await h.request('PATCH', cs(`identification/${randomUUID()}/`), { body: { name: 'x' } })).statusCode).toBe(404);
    const other = await h.newAccount();
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { token: other.token, body: { name: 'x' } })).statusCode).toBe(404);

    // Price corrections keep the session's total in step with its rows.
    const session = (await h.request('GET', cs(`session/${sid}/`))).json();
    const summary = (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect(session.total_price).toBe(summary.total_price);
    expect(session.total_price).toBe(0);

    const sold = (await h.request('PATCH', cs(`identification/${row.id}/`), { body: { sold: true, note: 'to Sam' } })).json();
    expect(sold).toMatchObject({ sold: true, note: 'to Sam', name: 'Alakazam' });

    await h.request('DELETE', cs(`session/${sid}/`));
    expect((await h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'x' } })).statusCode).toBe(404);
  });

  it("PATCH of a name the card key reads as the same card keeps its price, stats and links (h156: a curly apostrophe tidied cleared them)", async () => {
    const sid = await createSession(h);
    const stats = [{ stats_type: 'ungraded', interval: '30d', currency: 'USD', value: { median: 4.5 } }];
    await upload(sid, [card('curly', { name: 'Farfetch’d', price: undefined, price_stats: stats, links: { tcgplayer: 'https://www.tcgplayer.com/product/1' } }), card('greek', { name: 'ΠΙΚΑΤΣΟΥ', card_number: '2', price: undefined, price_stats: stats })]);
    const rows = (await list(sid)).results as { id: string; event_id: string }[];
    for (const [event, name] of [['curly', "Farfetch'd"], ['greek', 'Πικάτσου']]) {
      const id = rows.find((r) => r.event_id === event)!.id;
      const res = (await h.request('PATCH', cs(`identification/${id}/`), { body: { name } })).json();
      expect(res, name).toMatchObject({ name, price: 4.5, price_derived: true, price_stats: stats, corrected: true });
    }
    expect((await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'curly').links).toEqual({ tcgplayer: 'https://www.tcgplayer.com/product/1' });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ total_price: 9, distinct_cards: 2 });
    // another card named without its full name: the old card's full name goes, kept in `original` (h157)
    await upload(sid, [card('sq', { name: 'Squirtle', full_name: 'Squirtle 007/165 Scarlet & Violet 151', card_number: '7' })]);
    const sq = (await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'sq');
    const fixed = (await h.request('PATCH', cs(`identification/${sq.id}/`), { body: { name: 'Wartortle', card_number: '8' } })).json();
    expect(fixed).toMatchObject({ name: 'Wartortle', full_name: null, original: { full_name: 'Squirtle 007/165 Scarlet & Violet 151' } });
    // a name tidied is the same card: its full name stays
    const tidy = (await h.request('PATCH', cs(`identification/${sq.id}/`), { body: { full_name: 'Wartortle 008/165', name: 'WARTORTLE' } })).json();
    expect(tidy).toMatchObject({ name: 'WARTORTLE', full_name: 'Wartortle 008/165' });
    expect((await h.request('PATCH', cs(`identification/${sq.id}/`), { body: { name: 'Wartortle' } })).json()).toMatchObject({ full_name: 'Wartortle 008/165' });
    // a row whose full name is its only name keeps it (h162: a number fixed left it nameless, no card in the summary)
    await upload(sid, [card('only-full', { name: null, full_name: 'Charizard ex 199/165 Scarlet & Violet 151', card_number: '199', set_code: 'MEW' })]);
    const onlyFull = (await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'only-full');
    expect((await h.request('PATCH', cs(`identification/${onlyFull.id}/`), { body: { card_number: '201' } })).json()).toMatchObject({ name: null, full_name: 'Charizard ex 199/165 Scarlet & Violet 151', card_number: '201' });
  });

  it('PATCH takes a recognition alternative as it came (set, price_stats), and refuses a body that changes nothing', async () => {
    const sid = await createSession(h);
    const stats = (market: number) => [{ stats_type: 'ungraded', interval: '30d', currency: 'USD', value: { median: market } }];
    // no price sent: derived from the recognised card's stats
    await upload(sid, [card('alt', { price: undefined, price_stats: stats(4) })]);
    const row = (await list(sid)).results[0];
    expect(row).toMatchObject({ price: 4, price_derived: true });
    const patch = (body: unknown) => h.request('PATCH', cs(`identification/${row.id}/`), { body });

    for (const body of [{}, { grade: 9 }, { color: 'yellow', rarity: 'Rare' }]) {
      const refused = await patch(body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().detail).toMatch(/^Nothing to change/);
    }
    expect((await patch({ set: 'Base', set_name: 'Jungle' })).statusCode).toBe(400);
    expect((await list(sid)).results[0]).toMatchObject({ name: 'Pikachu', set_name: 'Scarlet & Violet 151', corrected: false, price: 4 });

    // an alternative of document 3 (§2: `set`, not `set_name`), with fields a row does not keep and its own stats
    const alternative = { name: 'Pikachu', full_name: 'Pikachu 58/102 Base', set: 'Base', set_code: 'BS', card_number: '58', year: '1999', rarity: 'Common', color: 'Lightning', out_of: '102', price_stats: stats(12.5) };
    const picked = await patch(alternative);
    expect(picked.statusCode).toBe(200);
    expect(picked.json()).toMatchObject({ set_name: 'Base', set_code: 'BS', card_number: '58', year: '1999', price: 12.5, price_derived: true, price_stats: stats(12.5), corrected: true });
    expect(picked.json().original).toMatchObject({ set_name: 'Scarlet & Violet 151', price: 4, price_stats: stats(4) });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().total_price).toBe(12.5);
    // another card without stats: the derived price was the last card's, so it is unknown now
    const bare = (await patch({ set_name: 'Jungle', card_number: '60' })).json();
    expect(bare).toMatchObject({ set_name: 'Jungle', price: null, price_derived: false, price_stats: null });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().total_price).toBe(0);
    // a later pick with stats derives it again (the price was nobody's since the last pick)
    expect((await patch({ set_name: 'Base', card_number: '58', price_stats: stats(11) })).json()).toMatchObject({ price: 11, price_derived: true });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().total_price).toBe(11);
    // how the same card is written (case, spacing, a number's leading zeros) is no other card: stats and price stay
    const spelled = (await patch({ name: ' pikachu ', set_name: 'BASE', card_number: '058' })).json();
    expect(spelled).toMatchObject({ name: ' pikachu ', card_number: '058', price: 11, price_derived: true, price_stats: stats(11) });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().total_price).toBe(11);
    expect((await patch({ name: 'Pikachu', set_name: 'Base', card_number: '58' })).json()).toMatchObject({ price: 11, price_stats: stats(11) });
    // full-width, as a Japanese input method types them, likewise (they cleared the stats and the price)
    expect((await patch({ name: 'Ｐｉｋａｃｈｕ', card_number: '０５８' })).json()).toMatchObject({ name: 'Ｐｉｋａｃｈｕ', card_number: '０５８', price: 11, price_stats: stats(11) });
    expect((await patch({ name: 'Pikachu', card_number: '58' })).json()).toMatchObject({ price: 11 });
    // a price the user set is kept through a change of card
    await patch({ price: 7 });
    expect((await patch({ card_number: '61' })).json()).toMatchObject({ card_number: '61', price: 7, price_derived: false });
  });

  it('PATCH of price_stats alone re-derives a derived price and is no correction of the match', async () => {
    const sid = await createSession(h);
    const stats = (market: number) => [{ stats_type: 'ungraded', interval: '30d', currency: 'USD', value: { median: market } }];
    await upload(sid, [card('fresh', { price: undefined, price_stats: stats(4) })]);
    const row = (await list(sid)).results[0];
    const refreshed = (await h.request('PATCH', cs(`identification/${row.id}/`), { body: { price_stats: stats(20) } })).json();
    expect(refreshed).toMatchObject({ price: 20, price_derived: true, price_stats: stats(20), corrected: false, original: null, name: 'Pikachu' });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().total_price).toBe(20);
    // a price the app sent is its own: new stats leave it
    await upload(sid, [card('sent', { price: 3, price_stats: stats(4) })]);
    const sent = (await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'sent');
    expect((await h.request('PATCH', cs(`identification/${sent.id}/`), { body: { price_stats: stats(30) } })).json()).toMatchObject({ price: 3, price_derived: false, price_stats: stats(30) });
    // a change of card after it: `original` is the match as uploaded, not the stats the user typed (h209)
    const raichu = (await h.request('PATCH', cs(`identification/${row.id}/`), { body: { name: 'Raichu' } })).json();
    expect(raichu).toMatchObject({ corrected: true, price: null, original: { name: 'Pikachu', price: 4, price_stats: stats(4) } });
  });

  it('PATCH filling a number or set the row lacked completes the card: its price, stats and links stay; a comic\'s year names another volume (h209)', async () => {
    const sid = await createSession(h);
    const stats = [{ stats_type: 'ungraded', interval: '30d', currency: 'USD', value: { median: 5 } }];
    const links = { tcgplayer: 'https://www.tcgplayer.com/product/1' };
    const comic = { id_type: 'comics', name: 'Avengers', full_name: null, set_name: 'Marvel', set_code: null, card_number: '1', series: null, subcategory: null };
    await upload(sid, [
      card('blank', { card_number: null, price: undefined, price_stats: stats, links }),
      card('c1963', { ...comic, year: '1963', price: undefined, price_stats: [{ stats_type: 'ungraded', interval: '30d', currency: 'USD', value: { median: 15000 } }], links }),
      card('c2018', { ...comic, year: '2018', price: 4.99, price_stats: null, links: null }),
    ]);
    const idOf = async (e: string) => ((await list(sid)).results as { id: string; event_id: string }[]).find((r) => r.event_id === e)!.id;
    const filled = (await h.request('PATCH', cs(`identification/${await idOf('blank')}/`), { body: { card_number: '025' } })).json();
    expect(filled).toMatchObject({ card_number: '025', price: 5, price_derived: true, price_stats: stats, links, corrected: true });
    // a number changed is another card, as before
    expect((await h.request('PATCH', cs(`identification/${await idOf('blank')}/`), { body: { card_number: '026' } })).json()).toMatchObject({ price: null, price_stats: null, links: null });
    // a name given to a card named by its full name alone, or a set code beside its set name, names another card (h218)
    await upload(sid, [card('full-only', { name: null, full_name: 'Charizard ex 199/165 Scarlet & Violet 151', set_code: 'MEW', card_number: '199', price: undefined, price_stats: stats, links })]);
    await upload(sid, [card('set-named', { set_code: null, set_name: 'Base Set', price: undefined, price_stats: stats, links })]);
    expect((await h.request('PATCH', cs(`identification/${await idOf('full-only')}/`), { body: { name: 'Pikachu' } })).json()).toMatchObject({ name: 'Pikachu', full_name: null, price: null, links: null });
    expect((await h.request('PATCH', cs(`identification/${await idOf('set-named')}/`), { body: { set_code: 'SV3PT5' } })).json()).toMatchObject({ set_code: 'SV3PT5', price: null, links: null });
    const moved = (await h.request('PATCH', cs(`identification/${await idOf('c1963')}/`), { body: { year: '2018' } })).json();
    expect(moved).toMatchObject({ year: '2018', price: null, links: null, original: { year: '1963', price: 15000 } });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ total_price: 4.99 });
  });

  it("summary: a number's leading zeros and a name's Unicode form or width make no other card", async () => {
    const sid = await createSession(h);
    await upload(sid, [
      card('a', { card_number: '025' }),
      card('b', { card_number: '25' }),
      card('c', { name: 'Flabe\u0301be\u0301', card_number: '1' }),
      card('d', { name: 'Flabébé', card_number: '001' }),
      card('e', { card_number: '250' }),
      // the full- and half-width forms a Japanese input method types are the same card (they were two)
      card('f', { name: 'ピカチュウ', set_code: 'SV2a', card_number: '025/165' }),
      card('g', { name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ', card_number: '０２５/１６５' }),
    ]);
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ identifications: 7, distinct_cards: 4 });
    // what was sent is kept as sent
    expect((await list(sid)).results.map((r: { card_number: string }) => r.card_number).sort()).toEqual(['001', '025', '025/165', '1', '25', '250', '０２５/１６５']);
    expect((await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'g')).toMatchObject({ name: 'ﾋﾟｶﾁｭｳ', set_code: 'ＳＶ２ａ' });
  });

  it("summary: one card's number in another script's digits, Arabic spelling variants and a phone's direction marks make no other card (h146)", async () => {
    const sid = await createSession(h);
    const numbers = ['25/102', '025/102', '٢٥/١٠٢', '۲۵/۱۰۲', '२५/१०२', '২৫/১০২'];
    const names = ['بيكاتشو', '\u200fبيكاتشو', 'بیکاتشو'];
    await upload(sid, [
      ...numbers.map((n, i) => card(`n${i}`, { name: 'Pikachu', set_code: 'BS', card_number: n })),
      ...names.map((n, i) => card(`a${i}`, { name: n, set_code: 'BS', card_number: '25' })),
    ]);
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ identifications: 9, distinct_cards: 2 });
    // a comic's volumes are other comics: Avengers #1 of 1963 and of 2018 (h136: counted as one)
    const comics = await createSession(h);
    await upload(comics, [card('c1', { id_type: 'comics', name: 'Avengers', set_name: 'Marvel', card_number: '1', year: '1963' }), card('c2', { id_type: 'comics', name: 'Avengers', set_name: 'Marvel', card_number: '1', year: '2018' }), card('c3', { id_type: 'comics', name: 'Avengers', set_name: 'Marvel', card_number: '001', year: '1963' })]);
    expect((await h.request('GET', cs(`session/${comics}/summary/`))).json()).toMatchObject({ identifications: 3, distinct_cards: 2 });
    // kept as sent
    expect((await list(sid)).results.map((r: { card_number: string }) => r.card_number)).toEqual(expect.arrayContaining(numbers));
  });

  it("summary: invisible characters, a phone's curly apostrophe, ß, İ and a Greek name's accents make no other card (h152)", async () => {
    const sid = await createSession(h);
    const pairs = [['Pikachu\u200b', 'Pikachu'], ['Pikachu\u00ad', 'Pikachu'], ['Pikachu\ufe0f', 'Pikachu'], ["Farfetch'd", 'Farfetch’d'], ['İVYSAUR', 'ivysaur'], ['ΠΙΚΑΤΣΟΥ', 'Πικάτσου'], ['Glurak Straße', 'GLURAK STRASSE']];
    await upload(sid, pairs.flatMap(([a, b], i) => [card(`a${i}`, { name: a!, set_code: 'SV1', card_number: String(i + 1) }), card(`b${i}`, { name: b!, set_code: 'SV1', card_number: String(i + 1) })]));
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json()).toMatchObject({ identifications: 14, distinct_cards: 7 });
    // kept as sent
    expect((await list(sid)).results.find((r: { event_id: string }) => r.event_id === 'a3')).toMatchObject({ name: "Farfetch'd" });
  });

  it('summary: cards, distinct cards, prices, paid calls from runs and rows', async () => {
    const sid = await createSession(h);
    const empty = (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect(empty).toEqual({ identifications: 0, distinct_cards: 0, total_price: 0, paid_calls: 0, average_grade: null });

    await upload(sid, [
      card('1', { price: 1.1, calls: 2 }),
      card('2', { price: 2.2, calls: 1, name: ' PIKACHU ' }), // same card, other case and spaces
      card('3', { price: null, calls: 1, card_number: '026' }),
      { event_id: '4', calls: 3 }, // unidentified: not a card
    ]);
    const s = (await h.request('GET', cs(`session/${sid}/summary/`))).json();
    expect(s).toEqual({ identifications: 4, distinct_cards: 2, total_price: 3.3, paid_calls: 7, average_grade: null });
    const session = (await h.request('GET', cs(`session/${sid}/`))).json();
    expect(session).toMatchObject({ identification_count: 4, total_price: 3.3 });

    // Runs report every paid call, including failed ones; the highest count per run is kept.
    const post = (run: unknown, calls: unknown) => h.request('POST', cs(`session/${sid}/calls/`), { body: { run, calls } });
    expect((await post('run-1', 5)).json()).toEqual({ run: 'run-1', calls: 5 });
    expect((await post('run-1', 3)).json()).toEqual({ run: 'run-1', calls: 5 });
    expect((await post('run-1', 6)).json()).toEqual({ run: 'run-1', calls: 6 });
    expect((await post(2, 4)).json()).toEqual({ run: '2', calls: 4 });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().paid_calls).toBe(10);
    expect((await post('run-1', -1)).statusCode).toBe(400);
    expect((await post('run-1', 'many')).statusCode).toBe(400);
    expect((await h.request('POST', cs(`session/${randomUUID()}/calls/`), { body: { run: 'a', calls: 1 } })).statusCode).toBe(404);
    const other = await h.newAccount();
    expect((await h.request('POST', cs(`session/${sid}/calls/`), { token: other.token, body: { run: 'x', calls: 99 } })).statusCode).toBe(404);
    expect((await h.request('POST', cs(`session/${sid}/images/`), { token: other.token, body: { event_id: '1', image: 'AAAA' } })).statusCode).toBe(404);
    expect((await h.request('POST', cs(`session/${sid}/identifications/`), { token: other.token, body: { identifications: [{ event_id: 'intruder' }] } })).statusCode).toBe(404);
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().paid_calls).toBe(10);

    // A correction changes what counts as distinct.
    const rows = (await list(sid)).results;
    await h.request('PATCH', cs(`identification/${rows[2].id}/`), { body: { card_number: '025' } });
    expect((await h.request('GET', cs(`session/${sid}/summary/`))).json().distinct_cards).toBe(1);
  });
});
