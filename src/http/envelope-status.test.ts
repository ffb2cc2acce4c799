import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerEnvelopeStatus } from './envelope-status.ts';

describe('an envelope answer\'s status line', () => {
  const app = Fastify();
  let base: string;
  beforeAll(async () => {
    registerEnvelopeStatus(app);
    // the answer is the query's status, as a route's service would give it
    app.get('/answer', { config: { envelope: true } }, async (request) => {
      const q = request.query as { code: string; text: string };
      return { status: { code: Number(q.code), text: q.text } };
    });
    app.get('/recognition', { config: { envelope: true, mixedIsSuccess: true } }, async () => ({ status: { code: 300, text: 'MIXED_RESULT' } }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  /** The status line as a client reads it: code and reason phrase. */
  const statusLine = (path: string) =>
    new Promise<string>((resolve, reject) => {
      http.get(`${base}${path}`, (res) => {
        res.resume();
        resolve(`${res.statusCode} ${res.statusMessage}`);
      }).on('error', reject);
    });

  it('says the spec\'s meaning where the HTTP phrase says another (h330: an insert of stored ids read "411 Length Required")', async () => {
    expect(await statusLine('/answer?code=411&text=All%20records%20already%20exist')).toBe('411 All records already exist');
    expect(await statusLine('/answer?code=412&text=Storage%20capacity%20exceeded')).toBe('412 Storage capacity exceeded');
    expect(await statusLine('/answer?code=210&text=Inserted')).toBe('210 Inserted');
    expect(await statusLine('/answer?code=220&text=Deleted')).toBe('220 Deleted');
    expect(await statusLine('/answer?code=300&text=MIXED_RESULT')).toBe('300 MIXED_RESULT');
    // fetch's statusText too
    expect((await fetch(`${base}/answer?code=211&text=Some%20records%20were%20not%20inserted`)).statusText).toBe('Some records were not inserted');
  });

  it('keeps the standard phrase where it is the spec\'s meaning, and where the text cannot be a reason phrase', async () => {
    expect(await statusLine('/answer?code=200&text=OK%20then')).toBe('200 OK');
    expect(await statusLine('/answer?code=404&text=No%20record%20found')).toBe('404 Not Found');
    expect(await statusLine('/answer?code=400&text=No%20record%20was%20inserted')).toBe('400 Bad Request');
    // a line break, or text beyond ASCII, is no reason phrase: the standard one stays
    expect(await statusLine('/answer?code=411&text=already%0D%0Aexists')).toBe('411 Length Required');
    expect(await statusLine('/answer?code=206&text=Trouv%C3%A9s')).toBe('206 Partial Content');
    // spec 3's mixed answer goes out as 200 OK
    expect(await statusLine('/recognition')).toBe('200 OK');
  });
});
