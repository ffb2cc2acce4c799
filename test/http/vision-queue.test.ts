import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/** The vision queue's room is every account's: downloads that never end must not hold it (a security review). */
describe.each(backends)('vision queue room (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 8, taskTimeoutMs: 30_000, warm: [], embedder: '' }, urlAllowList: ['127.0.0.1'] });
  });
  const servers: http.Server[] = [];
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    await h?.close();
  });

  it('images still downloading hold no room: another account is served meanwhile, even with more images than the queue holds', async () => {
    const sockets = new Set<Socket>();
    const silent = http.createServer(() => {});
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const slow = await h.newAccount(100);
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/card.jpg`;
      // as many downloads as the queue has room, that never answer
      const stuck = h.request('POST', '/photo/v2/descriptor', { token: slow.token, body: { records: Array.from({ length: 8 }, (_, i) => ({ _url: `${url}?${i}` })) } });
      for (let i = 0; i < 100 && sockets.size === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(sockets.size).toBeGreaterThan(0);
      const other = await h.newAccount(10);
      const png = (await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03020' } }).png().toBuffer()).toString('base64');
      const served = await h.request('POST', '/photo/v2/descriptor', { token: other.token, body: { records: [{ _base64: png }] } });
      expect(served.statusCode, served.body).toBe(200);
      // more images at once than the queue holds, the queue otherwise empty (the downloads hold none): taken, as a
      // request alone in the queue is whatever its size (h225: under a queue of 8 a ten-record call was 503 for good);
      // a request that would pass the queue beside another's room is refused (vision-engine.test.ts)
      const tooMany = await h.request('POST', '/photo/v2/descriptor', { token: other.token, body: { records: Array.from({ length: 9 }, () => ({ _base64: png })) } });
      expect(tooMany.statusCode).toBe(200);
      // the host goes away: the downloads fail (refused when tried again), their records 400
      const closed = new Promise((r) => silent.close(r));
      for (const s of sockets) s.destroy();
      await closed;
      const answered = await stuck;
      expect(answered.json().records.every((r: { _status: { code: number } }) => r._status.code === 400)).toBe(true);
    } finally {
      for (const s of sockets) s.destroy();
      if (silent.listening) await new Promise((r) => silent.close(r));
    }
  }, 60_000);

  it('a downloaded image that finds the queue full makes its request the busy 503 with Retry-After, not a 500', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#20a040' } }).png().toBuffer();
    let answer: (() => void) | null = null;
    const asked = new Promise<void>((askedNow) => {
      const server = http.createServer((_req, res) => {
        answer = () => res.end(png);
        askedNow();
      });
      servers.push(server);
      server.listen(0, '127.0.0.1');
    });
    const server = servers.at(-1)!;
    await new Promise<void>((r) => (server.listening ? r() : server.once('listening', () => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/card.png`;
    const b = await h.newAccount(10);
    const call = h.request('POST', '/photo/v2/descriptor', { token: b.token, body: { records: [{ _url: url }] } });
    await asked;
    // the queue fills while the image downloads
    const engine = (h.app.loupe as unknown as { vision: { engine: { admit(n: number): { release(): void } } } }).vision.engine;
    const full = engine.admit(8);
    try {
      answer!();
      const res = await call;
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({ code: 'busy' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      full.release();
    }
  });

  it("one account's failing URLs on a host rest that host for that account only", async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2040a0' } }).png().toBuffer();
    const server = http.createServer((req, res) => {
      if (req.url?.startsWith('/bad')) res.writeHead(503).end();
      else res.end(png);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const a = await h.newAccount(10);
    const b = await h.newAccount(10);
    const bad = await h.request('POST', '/image_matching/v2/visual_hash', { token: a.token, body: { records: Array.from({ length: 5 }, (_, i) => ({ _url: `${base}/bad/${i}` })), hash_type: 'phash' } });
    expect(bad.json().records.every((r: { _status: { code: number } }) => r._status.code === 400)).toBe(true);
    const mine = (await h.request('POST', '/image_matching/v2/visual_hash', { token: a.token, body: { records: [{ _url: `${base}/good.png` }], hash_type: 'phash' } })).json();
    expect(mine.records[0]._status.text).toMatch(/your last 5 downloads from it failed; not tried again for \d+ s/);
    const theirs = await h.request('POST', '/image_matching/v2/visual_hash', { token: b.token, body: { records: [{ _url: `${base}/good.png` }], hash_type: 'phash' } });
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json().records[0]._status.code).toBe(200);
  });
});
