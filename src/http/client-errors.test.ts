import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientErrorResponse, handleClientError } from './client-errors.ts';

describe('client errors', () => {
  it('map the parser’s codes to statuses and house codes', () => {
    expect(clientErrorResponse('HPE_HEADER_OVERFLOW')).toMatchObject({ status: 431, body: { code: 'headers_too_large' } });
    expect(clientErrorResponse('HPE_CHUNK_EXTENSIONS_OVERFLOW')).toMatchObject({ status: 413, body: { code: 'body_too_large' } });
    expect(clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT')).toMatchObject({ status: 408, body: { code: 'request_timeout' } });
    expect(clientErrorResponse('HPE_INVALID_METHOD')).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    // a body cut short is said so, not "not valid HTTP" (h176)
    expect(clientErrorResponse('HPE_INVALID_EOF_STATE')).toMatchObject({ status: 400, body: { code: 'invalid_request', detail: expect.stringMatching(/^The request body ended before its Content-Length/) } });
    expect(clientErrorResponse(undefined)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
  });

  it('answer a request Node cannot parse with the headers every answer carries (h185)', async () => {
    const app = Fastify({ clientErrorHandler: handleClientError });
    app.get('/', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as AddressInfo).port;
      const out = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n'));
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(out).toMatch(/^HTTP\/1\.1 400 /);
      expect(out.toLowerCase()).toContain('x-content-type-options: nosniff');
      expect(out.toLowerCase()).toContain('x-frame-options: deny');
      expect(out.toLowerCase()).toContain('cache-control: no-store');
    } finally {
      await app.close();
    }
  });

  it('write nothing into a response already under way (a bad pipelined request behind a streamed one)', async () => {
    const app = Fastify({ clientErrorHandler: handleClientError });
    app.get('/slow', async (_request, reply) => {
      let i = 0;
      const body = new Readable({
        read() {
          setTimeout(() => this.push(i++ < 4 ? `part${i};` : null), 60);
        },
      });
      return reply.type('text/plain').send(body);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as AddressInfo).port;
      const out = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
          setTimeout(() => socket.write('GET /slow HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'), 150);
        });
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(out).toMatch(/^HTTP\/1\.1 200 /);
      // the answer under way goes out whole (it was cut off)
      expect(out).toContain('part4;');
      expect(out).not.toContain('HTTP/1.1 400');
      expect(out).not.toContain('invalid_request');
    } finally {
      await app.close();
    }
  });

  it('answer a whole request whose body runs past its Content-Length, then close (the 400 replaced an answer whose call had run, h81)', async () => {
    const app = Fastify({ clientErrorHandler: handleClientError });
    let ran = 0;
    app.post('/create', async (_request, reply) => {
      ran++;
      await new Promise((r) => setTimeout(r, 150));
      return reply.code(201).send({ id: 'made' });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as AddressInfo).port;
      const out = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write('POST /create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{"name":"extra2"}\r\nXYZ');
        });
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(ran).toBe(1);
      expect(out).toMatch(/^HTTP\/1\.1 201 /);
      expect(out).toContain('"id":"made"');
      expect(out.toLowerCase()).toContain('connection: close');
      expect(out).not.toContain('invalid_request');
    } finally {
      await app.close();
    }
  });
});
