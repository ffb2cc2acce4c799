import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';

/** A page of rows with grading was 31 MB of JSON to a phone, however its client asked (a helper's find). */
describe.each(backends)('answer compression (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(() => h?.close());

  it('compresses a large answer for a client that accepts it, and leaves the rest as they were', async () => {
    const sid = await createSession(h);
    const grading = { grades: { final: 8 }, detail: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, { v: i, s: 'surface scratch near the lower left corner' }])) };
    const rows = Array.from({ length: 40 }, (_, i) => ({ event_id: `e${i}`, name: 'Pikachu', card_number: String(i), grading }));
    expect((await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: rows } })).statusCode).toBe(200);
    const url = cs(`identification/?session=${sid}&page_size=40`);
    const plain = await h.request('GET', url);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const [encoding, inflate] of [['gzip', zlib.gunzipSync], ['br', zlib.brotliDecompressSync]] as const) {
      const packed = await h.request('GET', url, { headers: { 'accept-encoding': encoding } });
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.headers.vary).toMatch(/accept-encoding/i);
      expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 10);
      expect(JSON.parse(inflate(packed.rawPayload).toString('utf8'))).toEqual(plain.json());
    }
    // a small answer is sent as it is
    const small = await h.request('GET', cs(`session/${sid}/summary/`), { headers: { 'accept-encoding': 'gzip' } });
    expect([small.headers['content-encoding'], small.json().identifications]).toEqual([undefined, 40]);
  });

  it('does not decompress request bodies: their limits count the bytes that arrive', async () => {
    const body = zlib.gzipSync(JSON.stringify({ name: 'zipped', game: 'TCG' }));
    const res = await h.app.inject({ method: 'POST', url: cs('session/'), headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: body });
    // and says which coding it takes (RFC 7694), for clients that fall back on it (h220)
    expect([res.statusCode, res.json().code, res.headers['accept-encoding']]).toEqual([415, 'unsupported_media_type', 'identity']);
  });
});
