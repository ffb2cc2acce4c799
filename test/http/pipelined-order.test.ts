import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';

/** h241: an upload pipelined before `close/` on one connection was overtaken by the close, and its cards dropped. */
describe('requests pipelined on one connection', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(() => h?.close());

  const pipelined = async (requests: Array<{ method: string; path: string; body?: unknown }>): Promise<number[]> => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    const text = requests
      .map(({ method, path, body }, i) => {
        const payload = body === undefined ? '' : JSON.stringify(body);
        const last = i === requests.length - 1 ? 'Connection: close\r\n' : '';
        return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\n${payload ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` : ''}${last}\r\n${payload}`;
      })
      .join('');
    socket.write(text);
    await new Promise<void>((r) => socket.once('close', () => r()));
    return [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  };

  it('run in the order sent: an upload, then the close, stores the upload', async () => {
    const sid = await createSession(h);
    const identifications = Array.from({ length: 800 }, (_, i) => ({ event_id: `p${i}`, name: `Card ${i}`, note: 'x'.repeat(200) }));
    const statuses = await pipelined([
      { method: 'POST', path: cs(`session/${sid}/identifications/`), body: { identifications } },
      { method: 'POST', path: cs(`session/${sid}/close/`) },
      { method: 'GET', path: cs(`identification/?session=${sid}&event_id=p799`) },
    ]);
    expect(statuses).toEqual([200, 200, 200]);
    const summary = (await h.request('GET', cs(`session/${sid}/`))).json() as { status: string };
    expect(summary.status).toBe('closed');
    const rows = (await h.request('GET', cs(`identification/?session=${sid}&page_size=1`))).json() as { count: number };
    expect(rows.count).toBe(800);
  }, 30_000);
});
