import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { JobContext, JobHandler } from '../../src/queue/job-handler.ts';
import type { Services } from '../../src/services/container.ts';
import { backends, createSession, cs, startHarness, type Backend, type Harness } from '../helpers/harness.ts';
import { scratchPgDatabase } from '../helpers/processes.ts';

/** Default lifetimes (docs/configuration.md): private links an hour, the public kind a week. */
const HOUR = 3600;
const WEEK = 7 * 86_400;
const base = '/account/v2/request';

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
const expiresOf = (url: string) => Number(new URL(url).searchParams.get('expires'));

async function jpeg(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#3a7' } }).jpeg().toBuffer();
}

/** Moves `Date` only (timers keep running), so the server sees time pass without waiting for it. */
function jumpAhead(seconds: number): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + seconds * 1000 });
}

/**
 * A job type that stores one picture per record and echoes `_url`: the real runner, request
 * service and webhook dispatcher handle its result, without a model in the way.
 */
function pictureJob(type: string, publicEndpoint?: string): JobHandler {
  return {
    type,
    accepts: () => true,
    endpoints: () => ['any'],
    ...(publicEndpoint ? { publicMedia: (endpoint: string) => endpoint === publicEndpoint } : {}),
    run: async (ctx: JobContext) => ({
      records: await Promise.all(
        ctx.records.map(async (r) => ({
          ...(r._url !== undefined ? { _url: r._url } : {}),
          _picture: await ctx.putMedia(await jpeg(20, 20), 'jpg'),
          nested: { pictures: [await ctx.putMedia(await jpeg(10, 10), 'jpg')] },
          _status: { code: 200, text: 'OK', request_id: ctx.requestId },
        })),
      ),
    }),
  };
}

describe.each(backends)('signed media links (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { urlAllowList: ['127.0.0.1'], queue: { workers: 1, pollMs: 100 } });
    // Job types are the container's business, not the routes': reach the registry directly.
    const { registry } = h.app.loupe as unknown as Services;
    registry.register(pictureJob('media-test'));
    registry.register(pictureJob('media-test-public', 'crop'));
    await h.app.ready();
  });
  afterAll(async () => h?.close());
  afterEach(() => vi.useRealTimers());

  const get = (url: string) => h.app.inject({ method: 'GET', url });
  const cardWithImage = async () => {
    const sid = await createSession(h);
    await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: [{ event_id: 'c1', name: 'Pikachu' }] } });
    const res = await h.request('POST', cs(`session/${sid}/images/`), { body: { event_id: 'c1', image: (await jpeg()).toString('base64') } });
    expect(res.statusCode, res.body).toBe(200);
    return { sid, row: res.json() as { image: string; thumbnail: string } };
  };
  const expectNotFound = async (url: string) => {
    const res = await get(url);
    expect(res.statusCode, url).toBe(404);
    // The house error shape, and the same answer as an unknown key: no hint which part was wrong.
    expect(res.json()).toEqual({ detail: 'Image not found.', code: 'not_found' });
  };

  it('hands out links signed for an hour; the bare key, a wrong signature, another key and a past expiry answer 404', async () => {
    const { row } = await cardWithImage();
    for (const url of [row.image, row.thumbnail]) {
      expect(url).toMatch(/^http:\/\/localhost(:\d+)?\/media\/[0-9a-f]{32}\.jpg\?expires=\d+&sig=[0-9a-f]{64}$/);
      const left = expiresOf(url) - Date.now() / 1000;
      expect(left).toBeGreaterThan(HOUR - 5);
      expect(left).toBeLessThanOrEqual(HOUR + 60);
    }
    const ok = await get(pathOf(row.image));
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('image/jpeg');
    // whatever bytes follow the image run nothing, even opened as a page of this origin (h185)
    expect(ok.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
    // Caches must not keep the image longer than the link lives, nor share it.
    const cache = String(ok.headers['cache-control']);
    expect(cache).toMatch(/^private, max-age=\d+$/);
    expect(Number(cache.split('=')[1])).toBeLessThanOrEqual(expiresOf(row.image) - Math.floor(Date.now() / 1000));

    const image = new URL(row.image);
    const thumb = new URL(row.thumbnail);
    const sig = image.searchParams.get('sig')!;
    const expires = image.searchParams.get('expires')!;
    await expectNotFound(image.pathname);
    await expectNotFound(`${image.pathname}?expires=${expires}`);
    await expectNotFound(`${image.pathname}?expires=${expires}&sig=${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    await expectNotFound(`${image.pathname}?expires=${Number(expires) + 60}&sig=${sig}`);
    await expectNotFound(`${image.pathname}?expires=${expires}&sig=${sig.slice(0, 32)}`);
    await expectNotFound(`${thumb.pathname}?expires=${expires}&sig=${sig}`);
    await expectNotFound(`/media/00000000000000000000000000000000.jpg?expires=${expires}&sig=${sig}`);

    // Past its expiry the link is dead, although it was signed by this server.
    jumpAhead(HOUR + 61);
    await expectNotFound(pathOf(row.image));
    await expectNotFound(pathOf(row.thumbnail));
  });

  it('signs fresh links on every read: a later read gets a later expiry, and the image outlives a leaked link', async () => {
    const { sid, row } = await cardWithImage();
    const list = async () => (await h.request('GET', cs(`identification/?session=${sid}&event_id=c1`))).json().results[0] as { image: string; thumbnail: string };
    const first = await list();
    expect(pathOf(first.image).split('?')[0]).toBe(new URL(row.image).pathname);

    jumpAhead(10 * 60);
    const later = await list();
    expect(expiresOf(later.image)).toBeGreaterThan(expiresOf(first.image));
    expect((await get(pathOf(first.image))).statusCode).toBe(200);
    expect((await get(pathOf(later.image))).statusCode).toBe(200);

    jumpAhead(2 * HOUR);
    await expectNotFound(pathOf(first.image));
    await expectNotFound(pathOf(later.thumbnail));
    const now = await list();
    expect((await get(pathOf(now.image))).statusCode).toBe(200);
    expect((await get(pathOf(now.thumbnail))).statusCode).toBe(200);
  });

  async function submitAndWait(type: string, endpoint: string, records: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
    const res = await h.request('POST', `${base}/`, { body: { type, endpoint, records, ...extra } });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    for (let i = 0; i < 400; i++) {
      const d = (await h.request('GET', `${base}/${id}`)).json() as { status: string; response?: { records: Record<string, unknown>[] } };
      if (d.status === 'DONE') return { id, records: d.response!.records as { _url?: string; _picture: string; nested: { pictures: string[] } }[] };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`request ${id} not done`);
  }

  it('asynchronous results: links are signed when read, so a poll after the first link expired gets a working one', async () => {
    const { id, records } = await submitAndWait('media-test', 'any', [{ _base64: (await jpeg()).toString('base64') }]);
    const [rec] = records;
    for (const url of [rec!._picture, rec!.nested.pictures[0]!]) {
      expect(url).toMatch(/\/media\/[0-9a-f]{32}\.jpg\?expires=\d+&sig=[0-9a-f]{64}$/);
      expect(expiresOf(url) - Date.now() / 1000).toBeLessThanOrEqual(HOUR + 60);
      expect((await get(pathOf(url))).statusCode).toBe(200);
      await expectNotFound(new URL(url).pathname);
    }

    jumpAhead(2 * HOUR);
    await expectNotFound(pathOf(rec!._picture));
    const again = (await h.request('GET', `${base}/${id}`)).json().response.records[0] as { _picture: string; nested: { pictures: string[] } };
    expect(new URL(again._picture).pathname).toBe(new URL(rec!._picture).pathname);
    expect(expiresOf(again._picture)).toBeGreaterThan(expiresOf(rec!._picture));
    expect((await get(pathOf(again._picture))).statusCode).toBe(200);
    expect((await get(pathOf(again.nested.pictures[0]!))).statusCode).toBe(200);
  });

  it('a publicly readable result gets the longer lifetime; other endpoints of the type keep the short one', async () => {
    const pub = (await submitAndWait('media-test-public', 'crop', [{ _base64: (await jpeg()).toString('base64') }])).records[0]!;
    const left = expiresOf(pub._picture) - Date.now() / 1000;
    expect(left).toBeGreaterThan(WEEK - 5);
    expect(left).toBeLessThanOrEqual(WEEK + 60);
    const priv = (await submitAndWait('media-test-public', 'other', [{ _base64: (await jpeg()).toString('base64') }])).records[0]!;
    expect(expiresOf(priv._picture) - Date.now() / 1000).toBeLessThanOrEqual(HOUR + 60);

    jumpAhead(2 * HOUR);
    expect((await get(pathOf(pub._picture))).statusCode).toBe(200);
    await expectNotFound(pathOf(priv._picture));
  });

  it('only the request’s own pictures are signed: a submitted URL naming another image stays as sent', async () => {
    const { row } = await cardWithImage();
    const bare = `${new URL(row.image).origin}${new URL(row.image).pathname}`;
    const { records } = await submitAndWait('media-test', 'any', [{ _url: bare }]);
    expect(records[0]!._url).toBe(bare);
    await expectNotFound(pathOf(bare));
  });

  it('webhook payloads carry links signed at delivery', async () => {
    const bodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await submitAndWait('media-test', 'any', [{ _base64: (await jpeg()).toString('base64') }], { webhook: { url } });
      for (let i = 0; i < 200 && bodies.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      const picture = (JSON.parse(bodies[0]!) as { response: { records: { _picture: string }[] } }).response.records[0]!._picture;
      expect(picture).toMatch(/\?expires=\d+&sig=[0-9a-f]{64}$/);
      expect((await get(pathOf(picture))).statusCode).toBe(200);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});

describe.each(backends)('the media secret (%s)', (backend: Backend) => {
  const dirs: string[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
    for (const drop of drops.splice(0)) await drop();
  });

  async function place() {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-secret-'));
    dirs.push(dataDir);
    const pg = backend === 'postgres' ? await scratchPgDatabase('loupe_secret') : undefined;
    if (pg) drops.push(pg.drop);
    return { dataDir, databaseUrl: pg?.url };
  }
  const open = (where: { dataDir: string; databaseUrl: string | undefined }, env: NodeJS.ProcessEnv = {}) =>
    buildApp(loadConfig(env, { ...where, logLevel: 'silent', rateLimit: { perSecond: 0, burst: 0 }, queue: { workers: 0 } }));
  async function imageUrl(app: FastifyInstance): Promise<string> {
    const { token } = await app.loupe.accounts.createAccount({ name: 'secret', credits: 10 });
    const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
    const sid = (await app.inject({ method: 'POST', url: cs('session/'), headers, payload: '{}' })).json().id as string;
    await app.inject({ method: 'POST', url: cs(`session/${sid}/identifications/`), headers, payload: JSON.stringify({ identifications: [{ event_id: 'x' }] }) });
    const res = await app.inject({ method: 'POST', url: cs(`session/${sid}/images/`), headers, payload: JSON.stringify({ event_id: 'x', image: (await jpeg()).toString('base64') }) });
    return pathOf(res.json().image as string);
  }

  it('is made once in the data folder (mode 0600) and kept across restarts', async () => {
    const where = await place();
    const first = await open(where);
    const url = await imageUrl(first);
    expect((await first.inject({ method: 'GET', url })).statusCode).toBe(200);
    await first.close();
    const file = path.join(where.dataDir, 'media-secret');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const secret = await fs.readFile(file, 'utf8');

    const second = await open(where);
    try {
      expect((await second.inject({ method: 'GET', url })).statusCode).toBe(200);
      expect(await fs.readFile(file, 'utf8')).toBe(secret);
    } finally {
      await second.close();
    }
  });

  it('LOUPE_MEDIA_SECRET replaces the file; links signed with another secret are refused', async () => {
    const where = await place();
    const env = { LOUPE_MEDIA_SECRET: 'k'.repeat(40) };
    const first = await open(where, env);
    const url = await imageUrl(first);
    await first.close();
    await expect(fs.stat(path.join(where.dataDir, 'media-secret'))).rejects.toThrow();

    const same = await open(where, env);
    expect((await same.inject({ method: 'GET', url })).statusCode).toBe(200);
    await same.close();
    const other = await open(where, { LOUPE_MEDIA_SECRET: 'z'.repeat(40) });
    expect((await other.inject({ method: 'GET', url })).statusCode).toBe(404);
    await other.close();
    const fromFile = await open(where);
    expect((await fromFile.inject({ method: 'GET', url })).statusCode).toBe(404);
    await fromFile.close();
  });

  it('a secret too short to be safe is refused at start', () => {
    expect(() => loadConfig({ LOUPE_MEDIA_SECRET: 'short' })).toThrow(/LOUPE_MEDIA_SECRET/);
  });
});
