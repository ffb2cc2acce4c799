import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

const ping = '/cardstream/v2/ping/';
const preflight = (origin: string, method = 'POST') => ({ origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' });

describe('browser apps (LOUPE_CORS_ORIGINS)', () => {
  let h: Harness;
  let closed: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { corsOrigins: ['https://app.example', 'http://localhost:3000'], limits: { largeBodyIdleMs: 800 } });
    closed = await startHarness('sqlite');
  });
  afterAll(async () => {
    await h?.close();
    await closed?.close();
  });

  it("lets a named origin read the server's own 408 for a body that stopped arriving, and its request id (h230)", async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(`POST /cardstream/v2/session/ HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://app.example\r\nAuthorization: Token ${h.account.token}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name":`);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('access-control-allow-origin: https://app.example');
    expect(answer.toLowerCase()).toMatch(/access-control-expose-headers: [^\r]*x-request-id/);
  });

  it('answers a named origin\'s preflight without a token, and lets it read the answer and its request id', async () => {
    const pre = await h.request('OPTIONS', '/cardstream/v2/session/', { token: null, headers: preflight('https://app.example') });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers).toMatchObject({ 'access-control-allow-origin': 'https://app.example', vary: 'Origin' });
    // every request header the API reads (If-Match on a PATCH: a browser refused to send it, h120)
    for (const name of ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'collection-id', 'X-Request-Id']) expect(String(pre.headers['access-control-allow-headers']).split(', '), name).toContain(name);
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/PATCH/);
    expect(pre.headers).not.toHaveProperty('access-control-allow-credentials');
    const call = await h.request('GET', ping, { headers: { origin: 'http://localhost:3000' } });
    expect(call.statusCode).toBe(200);
    expect(call.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    // and every answer header it sets for clients to read (a PATCH's ETag was hidden from the app, h120)
    for (const name of ['X-Request-Id', 'Retry-After', 'Allow', 'Deprecation', 'Link', 'Idempotent-Replayed', 'ETag']) expect(String(call.headers['access-control-expose-headers']).split(', '), name).toContain(name);
    // errors too: the app must read why it failed
    const refused = await h.request('GET', ping, { token: 'lp_wrong', headers: { origin: 'https://app.example' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('https://app.example');
  });

  it('refuses another origin\'s preflight and gives its calls no CORS header', async () => {
    const pre = await h.request('OPTIONS', '/cardstream/v2/session/', { token: null, headers: preflight('https://evil.example') });
    expect(pre.statusCode).toBe(403);
    expect(pre.headers).not.toHaveProperty('access-control-allow-origin');
    // without an Origin it is no preflight but an OPTIONS as any other: 405 naming the methods ("Origin undefined", 403, h195)
    const bare = await h.request('OPTIONS', '/cardstream/v2/session/', { token: null, headers: { 'access-control-request-method': 'POST' } });
    expect([bare.statusCode, bare.json().code]).toEqual([405, 'method_not_allowed']);
    const call = await h.request('GET', ping, { headers: { origin: 'https://evil.example' } });
    expect(call.statusCode).toBe(200);
    expect(call.headers).not.toHaveProperty('access-control-allow-origin');
    // every answer varies on Origin with a list (a shared cache keeps one copy per origin), added to what else it varies on
    expect(call.headers.vary).toBe('Origin');
    expect((await h.request('GET', ping)).headers.vary).toBe('Origin');
    const page = await h.request('GET', '/console', { token: null, headers: { origin: 'https://app.example', 'accept-encoding': 'gzip' } });
    expect(String(page.headers.vary).split(/,\s*/).sort()).toEqual(['Origin', 'accept-encoding']);
  });

  it('without the setting, nothing changes: a preflight is the 405 of a method the path lacks', async () => {
    const pre = await closed.request('OPTIONS', '/cardstream/v2/session/', { token: null, headers: preflight('https://app.example') });
    expect(pre.statusCode).toBe(405);
    expect((await closed.request('GET', ping, { headers: { origin: 'https://app.example' } })).headers).not.toHaveProperty('access-control-allow-origin');
  });

  it('a setting that names no origin stops the start', () => {
    expect(loadConfig({ LOUPE_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(loadConfig({ LOUPE_CORS_ORIGINS: ' https://a.example , http://localhost:3000' }).corsOrigins).toEqual(['https://a.example', 'http://localhost:3000']);
    for (const bad of ['https://a.example/', 'a.example', 'https://a.example/app', 'ftp://a.example']) expect(() => loadConfig({ LOUPE_CORS_ORIGINS: bad }), bad).toThrow(/LOUPE_CORS_ORIGINS/);
  });
});
