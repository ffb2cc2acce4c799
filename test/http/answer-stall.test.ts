import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';

/** An answer its client stops reading (h176: held in memory with its socket for good). */
describe('an answer its client stops reading', () => {
  let app: FastifyInstance;
  let dataDir: string;
  let port: number;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-stall-'));
    app = await buildApp(loadConfig({}, { dataDir, logLevel: 'silent', rateLimit: { perSecond: 0, burst: 0 }, seen: [] }), { answerStallMs: 1500 });
    // far more than the sockets' buffers hold
    app.get('/test-big', async (_request, reply) => reply.type('text/plain').send('x'.repeat(64 * 1024 * 1024)));
    app.get('/test-slow', async () => {
      await new Promise((r) => setTimeout(r, 2500));
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const get = (url: string, pause: boolean) => {
    const socket = net.connect(port, '127.0.0.1');
    let bytes = 0;
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(bytes)));
    socket.on('data', (d) => {
      bytes += d.length;
      if (pause) socket.pause();
    });
    socket.write(`GET ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    return { socket, closed };
  };

  it('is cut off once the client has taken nothing for a while; a request worked on longer than that is not', async () => {
    const stalled = get('/test-big', true);
    // a paused socket hears of its end only once read again: read on after the server's limit, and the answer stops short
    await new Promise((r) => setTimeout(r, 4000));
    stalled.socket.removeAllListeners('data');
    let bytes = 0;
    stalled.socket.on('data', (d: Buffer) => (bytes += d.length));
    stalled.socket.resume();
    const before = await Promise.race([stalled.closed, new Promise<number>((r) => setTimeout(() => r(-1), 8000))]);
    expect(before).toBeGreaterThan(0);
    // the headers and the text came to less than the text alone: cut off
    expect(before + bytes).toBeLessThan(64 * 1024 * 1024);
    const slow = get('/test-slow', false);
    let text = '';
    slow.socket.on('data', (d: Buffer) => (text += d.toString()));
    await slow.closed;
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain('{"ok":true}');
  }, 30_000);

  it('is not started by a pipelined request answered while an earlier one on the socket is still worked on (h178)', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write('GET /test-slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await closed;
    expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(text).toContain('{"ok":true}');
  }, 30_000);
});
