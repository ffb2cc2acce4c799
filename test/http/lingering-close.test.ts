import net, { type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.ts';

/** h233: behind nginx's default (HTTP/1.0 to the upstream), an early refusal of a large upload was nginx's own 502. */
describe('an answer sent before its body was read, on a connection that closes', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(() => h?.close());

  const send = async (version: '1.0' | '1.1', token: string, size: number) => {
    const served = new Promise<Socket>((r) => h.app.server.once('connection', r));
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const body = `{"records":[{"_base64":"${'A'.repeat(size)}"}]}`;
    socket.write(`POST /collectibles/v2/tcg_id HTTP/${version}\r\nHost: 127.0.0.1\r\nAuthorization: Token ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${version === '1.1' ? 'Connection: close\r\n' : ''}\r\n`);
    socket.write(body);
    const server = await served;
    await closed;
    return { answer, bodyLength: body.length, read: server.bytesRead };
  };

  it('reads the rest of the body and drops it before closing, so the answer is not lost to a reset (HTTP/1.0, Connection: close)', async () => {
    for (const version of ['1.0', '1.1'] as const) {
      const r = await send(version, 'lp_revokedtokenxxxxxxxxxxxxxxxxxx', 4 * 1024 * 1024);
      expect(r.answer, version).toMatch(/^HTTP\/1\.1 401 /);
      // the whole body was read by the server before it closed (unread, the close was a reset)
      expect(r.read, version).toBeGreaterThanOrEqual(r.bodyLength);
    }
  }, 30_000);
});
