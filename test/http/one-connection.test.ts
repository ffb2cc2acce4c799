import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';

/** Requests on one kept-alive connection, sent by hand: what a phone's HTTP stack does that app.inject cannot. */
describe('one connection', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(() => h?.close());

  const head = (method: string, path: string, more = '') => `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\n${more}`;
  const statusesOf = (answer: string) => [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  const connect = async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const seen = { answer: '', closed: false };
    socket.on('data', (d) => (seen.answer += d.toString()));
    socket.on('close', () => (seen.closed = true));
    socket.on('error', () => {});
    const closed = () => new Promise<void>((r) => (seen.closed ? r() : socket.once('close', () => r())));
    return { socket, seen, closed };
  };

  describe('pipelined (h241: an upload pipelined before close/ was overtaken by the close, and its cards dropped)', () => {
    it('run in the order sent: an upload, then the close, stores the upload', async () => {
      const sid = await createSession(h);
      const identifications = Array.from({ length: 800 }, (_, i) => ({ event_id: `p${i}`, name: `Card ${i}`, note: 'x'.repeat(200) }));
      const payload = JSON.stringify({ identifications });
      const { socket, seen, closed } = await connect();
      // three requests in one write, the last asking to close
      socket.write(
        head('POST', cs(`session/${sid}/identifications/`), `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`) +
          head('POST', cs(`session/${sid}/close/`), '\r\n') +
          head('GET', cs(`identification/?session=${sid}&event_id=p799`), 'Connection: close\r\n\r\n'),
      );
      await closed();
      expect(statusesOf(seen.answer)).toEqual([200, 200, 200]);
      expect(((await h.request('GET', cs(`session/${sid}/`))).json() as { status: string }).status).toBe('closed');
      expect(((await h.request('GET', cs(`identification/?session=${sid}&page_size=1`))).json() as { count: number }).count).toBe(800);
    }, 30_000);
  });

  it("a batch with the session's version, closed while its body was on the way, is stored (h278: the close moved the version, a 412)", async () => {
    const sid = await createSession(h);
    const etag = ((await h.request('GET', cs(`session/${sid}/`))).json() as { etag: string }).etag;
    const payload = JSON.stringify({ identifications: [{ event_id: 'slow', name: 'Sent on a slow line' }] });
    const half = Math.floor(payload.length / 2);
    const { socket, seen, closed } = await connect();
    socket.write(head('POST', cs(`session/${sid}/identifications/`), `If-Match: ${etag}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload.slice(0, half)}`));
    await new Promise((r) => setTimeout(r, 100));
    expect((await h.request('POST', cs(`session/${sid}/close/`))).statusCode).toBe(200);
    socket.write(payload.slice(half));
    await closed();
    expect(statusesOf(seen.answer), seen.answer.slice(-300)).toEqual([200]);
    expect(((await h.request('GET', cs(`identification/?session=${sid}&event_id=slow`))).json() as { count: number }).count).toBe(1);
    // one sent after the close is refused whatever its version: the session is closed
    const late = await h.request('POST', cs(`session/${sid}/identifications/`), { headers: { 'if-match': etag }, body: { identifications: [{ event_id: 'late' }] } });
    expect(late.statusCode).not.toBe(200);
  });

  describe('a body the parser refuses, read whole (h241: the connection was closed; a phone paid a new handshake each time)', () => {
    /** The statuses answered for a refused POST and a request sent after its answer, on one connection. */
    const twoOnOne = async (first: { body: string; type: string }): Promise<number[]> => {
      const { socket, seen, closed } = await connect();
      socket.write(head('POST', cs('session/'), `Content-Type: ${first.type}\r\nContent-Length: ${Buffer.byteLength(first.body)}\r\n\r\n${first.body}`));
      for (let i = 0; i < 100 && !/\r\n\r\n[\s\S]*\}$/.test(seen.answer); i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      if (!seen.closed) socket.write(head('GET', cs('ping/'), 'Connection: close\r\n\r\n'));
      await closed();
      return statusesOf(seen.answer);
    };

    it('keeps the connection: a JSON that does not parse, then a request on the same connection', async () => {
      expect(await twoOnOne({ body: '{"name": "broken', type: 'application/json' })).toEqual([400, 200]);
    });

    it('keeps it after a media type refused', async () => {
      expect(await twoOnOne({ body: 'name=x', type: 'text/plain' })).toEqual([415, 200]);
    });
  });
});
