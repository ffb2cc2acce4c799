import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cs, startHarness, type Harness } from '../helpers/harness.ts';

/** h241: a JSON that did not parse closed a kept-alive connection, read whole; a phone paid a new handshake each time. */
describe('a body the parser refuses, read whole', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(() => h?.close());

  /** The statuses answered on one connection for two requests sent one after the other's answer. */
  const twoOnOne = async (first: { body: string; type: string }): Promise<number[]> => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let answer = '';
    let closed = false;
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    socket.write(`POST ${cs('session/')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\nContent-Type: ${first.type}\r\nContent-Length: ${Buffer.byteLength(first.body)}\r\n\r\n${first.body}`);
    for (let i = 0; i < 100 && !/\r\n\r\n[\s\S]*\}$/.test(answer); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
    if (!closed) socket.write(`GET ${cs('ping/')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\nConnection: close\r\n\r\n`);
    await new Promise<void>((r) => (closed ? r() : socket.once('close', () => r())));
    return [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  };

  it('keeps the connection: a JSON that does not parse, then a request on the same connection', async () => {
    expect(await twoOnOne({ body: '{"name": "broken', type: 'application/json' })).toEqual([400, 200]);
  });

  it('keeps it after a media type refused', async () => {
    expect(await twoOnOne({ body: 'name=x', type: 'text/plain' })).toEqual([415, 200]);
  });
});
