import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cs, startHarness, type Harness } from '../helpers/harness.ts';

/** What the server logs for a request names the account that sent it (a security review: behind a proxy nothing did). */
describe('request log lines', () => {
  let h: Harness;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    h = await startHarness('sqlite', { logLevel: 'info', rateLimit: { perSecond: 1, burst: 1 }, limits: { largeBodyIdleMs: 1500 } });
    // pino writes its lines to standard output
    const keep = (data: unknown) => {
      for (const l of String(data).split('\n').filter((x) => x.startsWith('{'))) lines.push(JSON.parse(l) as Record<string, unknown>);
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(((data: unknown) => (keep(data), true)) as typeof process.stdout.write);
    const writeSync = fs.writeSync.bind(fs);
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
      if (fd !== 1) return (writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
      keep(Buffer.isBuffer(data) ? data.toString() : data);
      return Buffer.isBuffer(data) ? data.length : Buffer.byteLength(String(data));
    }) as typeof fs.writeSync);
    const write = fs.write.bind(fs);
    vi.spyOn(fs, 'write').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
      if (fd !== 1) return (write as (...a: unknown[]) => void)(fd, data, ...rest);
      keep(Buffer.isBuffer(data) ? data.toString() : data);
      const done = rest.find((x) => typeof x === 'function') as ((e: null, n: number) => void) | undefined;
      done?.(null, Buffer.isBuffer(data) ? data.length : Buffer.byteLength(String(data)));
    }) as typeof fs.write);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h?.close();
  });

  it('carry the account and token ids of an answered request and of a rate-limited one, never the token', async () => {
    const a = await h.newAccount();
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await h.request('GET', cs('session/'), { token: a.token })).statusCode);
    expect(codes).toContain(200);
    expect(codes).toContain(429);
    const done = lines.filter((l) => l.msg === 'request completed' && (l.res as { statusCode?: number } | undefined)?.statusCode !== undefined);
    for (const code of [200, 429]) expect(done.find((l) => (l.res as { statusCode: number }).statusCode === code), `${code}`).toMatchObject({ account: a.account, tokenId: expect.any(String) });
    expect(JSON.stringify(lines)).not.toContain(a.token);
  });

  /** A new account's batch of one row into a new session, its headers and first 10 bytes of body sent, no more. */
  const halfSentBatch = async (name: string) => {
    const a = await h.newAccount();
    const sid = (await h.request('POST', cs('session/'), { token: a.token, body: { name } })).json().id as string;
    await new Promise((r) => setTimeout(r, 1100)); // the account's one request a second
    if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    const body = JSON.stringify({ identifications: [{ event_id: 'e1', name: 'Pikachu' }] });
    let written!: () => void;
    // the head and half the body on the wire: a hang-up timed from here is one the server has a request to cut
    const sent = new Promise<void>((r) => (written = r));
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`POST ${cs(`session/${sid}/identifications/`)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${a.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`, () => written()),
    );
    return { a, sid, socket, sent };
  };

  it('says the server cut a body that stopped arriving, as a 408 of its own, not that the client hung up or aborted (h227)', async () => {
    const { socket } = await halfSentBatch('stalled');
    let answer = '';
    socket.on('data', (d) => (answer += String(d)));
    await new Promise((r) => socket.once('close', r));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const id = /x-request-id: (\S+)/i.exec(answer)![1];
    await expect.poll(() => lines.find((l) => l.reqId === id && typeof l.msg === 'string' && l.msg.startsWith('408 request_timeout: The body stopped arriving')), { timeout: 5_000 }).toBeDefined();
    await new Promise((r) => setTimeout(r, 300));
    const said = lines.filter((l) => l.reqId === id).map((l) => l.msg);
    expect(said).not.toContain('request aborted by its client');
    expect(said.filter((m) => typeof m === 'string' && m.startsWith('the client hung up'))).toEqual([]);
  });

  it('says a batch cut off mid-upload was neither kept nor charged (the line said "kept, and charged", h120)', async () => {
    const { a, sid, socket, sent } = await halfSentBatch('cut');
    await sent;
    await new Promise((r) => setTimeout(r, 300));
    socket.destroy();
    await expect.poll(() => lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('the client hung up')), { timeout: 10_000 }).toBeDefined();
    const said = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('the client hung up'));
    expect(said.map((l) => l.msg)).toEqual(['the client hung up before its answer (an error: nothing kept, not charged)']);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await h.request('GET', cs(`identification/?session=${sid}`), { token: a.token })).json().count).toBe(0);
  });
});
