import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cs, startHarness, type Harness } from '../helpers/harness.ts';

/** What the server logs for a request names the account that sent it (a security review: behind a proxy nothing did). */
describe('request log lines', () => {
  let h: Harness;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    h = await startHarness('sqlite', { logLevel: 'info', rateLimit: { perSecond: 1, burst: 1 } });
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
});
