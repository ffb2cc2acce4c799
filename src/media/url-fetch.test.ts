import dns from 'node:dns';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AddressPolicy } from './address-policy.ts';
import { ImageLoadError } from './image-load-error.ts';
import { DownloadHoldExceeded, failingHosts, fetchImage, outOfDescriptors } from './url-fetch.ts';
import { withDownloadOwner } from '../util/download-scope.ts';
import { defaultFetchLimits } from '../config/config.ts';

describe('fetchImage', () => {
  let base: string;
  let server: http.Server;
  const hits: Record<string, number> = {};
  let redirectBodyClosed = false;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = new URL(req.url!, 'http://x').pathname;
      hits[p] = (hits[p] ?? 0) + 1;
      if (p === '/ok') return res.end(Buffer.from('image bytes'));
      if (p === '/pieces') {
        res.writeHead(200, { 'content-length': '12' });
        res.write('image ');
        return setTimeout(() => res.end('pieces'), 20);
      }
      if (p === '/chunked') {
        // no Content-Length: sent in chunks
        res.write('image ');
        return res.end('bytes');
      }
      if (p === '/gzipped-declared') {
        const body = zlib.gzipSync(Buffer.alloc(600, 1));
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(body.length) });
        return res.end(body);
      }
      if (p === '/slow') return; // never answers
      if (p === '/gzipped') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'image/jpeg' });
        return res.end(zlib.gzipSync(Buffer.from('image bytes')));
      }
      if (p === '/gzip-bomb') {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        return res.end(zlib.gzipSync(Buffer.alloc(3 * 1024 * 1024)));
      }
      if (p === '/compress') {
        res.writeHead(200, { 'content-encoding': 'compress' });
        return res.end('x');
      }
      if (p === '/overlong') {
        // a body longer than its Content-Length, then another response's garbage on the same socket
        req.socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nabcdefgh');
        return;
      }
      if (p === '/bad-location') {
        res.writeHead(302, { location: 'http://[not an address/' });
        return res.end();
      }
      if (p === '/declared-huge') {
        res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
        return res.write(Buffer.alloc(10));
      }
      if (p === '/redirect-with-endless-body') {
        res.writeHead(302, { location: '/ok' });
        const chunk = Buffer.alloc(64 * 1024);
        const pump = () => {
          while (res.write(chunk));
          res.once('drain', pump);
        };
        res.on('close', () => (redirectBodyClosed = true));
        return pump();
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const policy = new AddressPolicy(['127.0.0.1']);
  const limits = { connectTimeoutMs: 200, totalTimeoutMs: 600, maxBytes: 1024, maxRedirects: 2, retries: 2 };

  it('downloads from an allowed address', async () => {
    expect((await fetchImage(`${base}/ok`, policy, limits)).toString()).toBe('image bytes');
  });

  it('an allow-listed host name is reached through DNS', async () => {
    const byName = base.replace('127.0.0.1', 'localhost');
    const named = new AddressPolicy(['localhost']);
    expect((await fetchImage(`${byName}/ok`, named, limits)).toString()).toBe('image bytes');
  });

  it('one deadline covers every attempt: a server that never answers costs the total timeout, not three', async () => {
    // The idle timeout is longer than the deadline here, so only the deadline ends an attempt:
    // one deadline for all attempts stops at ~600 ms, one per attempt took 1.8 s when tried
    // (three 600 ms attempts), and the bound between them leaves room for a loaded machine.
    const slowLimits = { ...limits, connectTimeoutMs: 5000 };
    const t0 = Date.now();
    await expect(fetchImage(`${base}/slow`, policy, slowLimits)).rejects.toThrow(/cannot be downloaded \(one attempt, its time all taken\)/);
    expect(Date.now() - t0).toBeLessThan(slowLimits.totalTimeoutMs + 900);
  });

  it('undoes a gzip a server sent unasked, within the byte limit; names an encoding it cannot read', async () => {
    expect(String(await fetchImage(`${base}/gzipped`, policy))).toBe('image bytes');
    await expect(fetchImage(`${base}/gzip-bomb`, policy, { ...defaultFetchLimits, maxBytes: 1024 * 1024, retries: 0 })).rejects.toThrow(/larger than 1048576 bytes/);
    await expect(fetchImage(`${base}/compress`, policy)).rejects.toThrow(/compress encoding, which is not read here/);
    // a body longer than its Content-Length: said in words, not as the parser's "Expected HTTP/"
    await expect(fetchImage(`${base}/overlong`, policy, { ...defaultFetchLimits, retries: 0 })).rejects.toThrow(/the server's answer is not valid HTTP \(Expected HTTP\//);
  });

  it("holds a budget's share as the answer declares it once its headers are in: its Content-Length, else (none, or compressed) the image limit; never more than the body sent within it", async () => {
    const holding = () => {
      const sizes: number[] = [];
      return { sizes, hold: { resize: (n: number) => (sizes.push(n), true) } };
    };
    const ok = holding();
    expect(String(await fetchImage(`${base}/ok`, policy, limits, ok.hold))).toBe('image bytes');
    expect(ok.sizes).toEqual([11]);
    const pieces = holding();
    expect(String(await fetchImage(`${base}/pieces`, policy, limits, pieces.hold))).toBe('image pieces');
    expect(pieces.sizes).toEqual([12]);
    // a server that declares nothing may send anything up to the limit
    const chunked = holding();
    expect(String(await fetchImage(`${base}/chunked`, policy, limits, chunked.hold))).toBe('image bytes');
    expect(chunked.sizes).toEqual([1024]);
    // a compressed body's length says nothing of the image inflated from it
    const gzipped = holding();
    expect((await fetchImage(`${base}/gzipped-declared`, policy, limits, gzipped.hold)).length).toBe(600);
    expect(gzipped.sizes).toEqual([1024]);
    // a body longer than it declared: the parser stops at the Content-Length (and fails it); nothing more is held
    const overlong = holding();
    await expect(fetchImage(`${base}/overlong`, policy, { ...limits, retries: 0 }, overlong.hold)).rejects.toThrow(/not valid HTTP/);
    expect(Math.max(...overlong.sizes)).toBe(2);
  });

  it('a download its hold has no room for is cut (DownloadHoldExceeded): not retried, not the image failing, not held against its host', async () => {
    const before = hits['/chunked'] ?? 0;
    const err = await withDownloadOwner('acct-hold', () => fetchImage(`${base}/chunked`, policy, limits, { resize: (n) => n <= 100 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadHoldExceeded);
    expect(err).not.toBeInstanceOf(ImageLoadError);
    expect(hits['/chunked']).toBe(before + 1);
    expect([...failingHosts.hosts.keys()].some((k) => k.startsWith('acct-hold '))).toBe(false);
  });

  it('a redirect to an invalid URL fails at once, without retries', async () => {
    await expect(fetchImage(`${base}/bad-location`, policy, limits)).rejects.toThrow(/invalid URL/);
    expect(hits['/bad-location']).toBe(1);
  });

  it('a host DNS does not know is looked up once, not retried', async () => {
    // the answer of a resolver that knows the name does not exist, whatever network the tests run on
    const lookups = vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, _options: unknown, callback: (err: NodeJS.ErrnoException) => void) => {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
    }) as unknown as typeof dns.lookup);
    try {
      const open = new AddressPolicy([]);
      await expect(fetchImage('http://no-such-host.invalid/a.jpg', open, limits)).rejects.toThrow(/^Error Loading Image: the host no-such-host\.invalid is not found \(DNS\)$/);
      expect(lookups.mock.calls.filter(([name]) => name === 'no-such-host.invalid')).toHaveLength(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it('a Content-Length over the limit is refused before reading the body', async () => {
    const err = await fetchImage(`${base}/declared-huge`, policy, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageLoadError);
    expect((err as ImageLoadError).reason).toMatch(/larger than 1024 bytes/);
  });

  it('the body of a redirect is not read: the connection is closed and the target fetched', async () => {
    const t0 = Date.now();
    expect((await fetchImage(`${base}/redirect-with-endless-body`, policy, limits)).toString()).toBe('image bytes');
    expect(Date.now() - t0).toBeLessThan(500);
    // The server sees the close on a later turn of the event loop: wait for it, within a bound.
    for (let i = 0; i < 100 && !redirectBodyClosed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(redirectBodyClosed).toBe(true);
  });
});

describe('a host whose downloads keep failing', () => {
  it('is not tried again for that account for a while after five failures in a minute; other accounts and background work still reach it; one that answers is forgotten', async () => {
    let hits = 0;
    let up = false;
    const server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(up ? 200 : 503);
      res.end(up ? 'image bytes' : '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.jpg`;
    const policy = new AddressPolicy(['127.0.0.1']);
    const limits = { connectTimeoutMs: 200, totalTimeoutMs: 600, maxBytes: 1024, maxRedirects: 2, retries: 2 };
    const as = <T>(owner: string, fn: () => Promise<T>) => withDownloadOwner(owner, fn);
    let clock = 1_000_000;
    const real = failingHosts.now;
    failingHosts.now = () => clock;
    try {
      for (let i = 0; i < 5; i++) await expect(as('a', () => fetchImage(url, policy, limits))).rejects.toThrow(/after 3 attempts/);
      expect(hits).toBe(15);
      // resting for that account: refused at once, the host not asked
      await expect(as('a', () => fetchImage(`${url}?other`, policy, limits))).rejects.toThrow(/your last 5 downloads from it failed; not tried again for 30 s/);
      expect(hits).toBe(15);
      // another account's images from it, and work for no account, are still fetched
      up = true;
      expect((await as('b', () => fetchImage(url, policy, limits))).toString()).toBe('image bytes');
      expect((await fetchImage(url, policy, limits)).toString()).toBe('image bytes');
      expect(hits).toBe(17);
      // half a minute later it is tried again for the first account, and one answer forgets its failures
      clock += 30_001;
      expect((await as('a', () => fetchImage(url, policy, limits))).toString()).toBe('image bytes');
      up = false;
      for (let i = 0; i < 5; i++) await expect(as('a', () => fetchImage(url, policy, limits))).rejects.toThrow(/after 3 attempts/);
      expect(hits).toBe(18 + 15);
    } finally {
      failingHosts.now = real;
      failingHosts.hosts.clear();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("the process's own lack of file descriptors (h184)", () => {
  it('is told from a host failing, whichever way the error carries it', () => {
    expect(outOfDescriptors(Object.assign(new Error('connect EMFILE 127.0.0.1:80 - Local (undefined:undefined)'), { code: 'EMFILE' }))).toBe(true);
    expect(outOfDescriptors(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENFILE' }) }))).toBe(true);
    expect(outOfDescriptors(new Error('connect EMFILE 127.0.0.1:7851'))).toBe(true);
    expect(outOfDescriptors(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(outOfDescriptors(null)).toBe(false);
  });
});
