import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { pngBomb } from '../helpers/images.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hammingDistance } from '../../src/vision/models/visual-hash.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

const im = (m: string) => `/image_matching/v2/${m}`;

async function photo(width: number, height: number, seed = 1, format: 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' = 'jpeg'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255 * seed) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = ((x * seed + y * 3) * 7) % 251;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).toFormat(format).toBuffer();
}

/** A smooth, photo-like scene (shapes on a gradient, softened), unlike the synthetic noise of photo(). */
async function sceneJpeg(variant: number): Promise<Buffer> {
  const shapes =
    variant === 1
      ? '<circle cx="200" cy="220" r="120" fill="#d33"/><rect x="380" y="80" width="180" height="260" fill="#2a6"/><ellipse cx="450" cy="400" rx="150" ry="50" fill="#fd4"/>'
      : '<rect x="40" y="300" width="560" height="120" fill="#236"/><circle cx="480" cy="140" r="90" fill="#f92"/><polygon points="100,40 300,260 60,260" fill="#8c4"/>';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#9cf"/><stop offset="1" stop-color="#fec"/></linearGradient></defs><rect width="640" height="480" fill="url(#g)"/>${shapes}</svg>`;
  return sharp(Buffer.from(svg)).blur(2).jpeg({ quality: 90 }).toBuffer();
}


/** A real HTTP server serving test images, redirects and failures on 127.0.0.1. */
async function imageServer(files: Record<string, Buffer>) {
  let hits503 = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname.startsWith('/redirect')) {
      res.writeHead(302, { location: url.searchParams.get('to')! });
      return res.end();
    }
    if (url.pathname === '/unavailable') {
      hits503++;
      res.writeHead(503);
      return res.end();
    }
    if (url.pathname === '/slow') return; // never answers
    if (url.pathname === '/huge') {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(Buffer.alloc(64 * 1024));
      return setTimeout(() => res.end(Buffer.alloc(64 * 1024)), 10);
    }
    const body = files[url.pathname];
    if (!body) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'image/jpeg' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${port}`, port, close: () => new Promise((r) => server.close(r)), hits503: () => hits503 };
}

describe('image matching', () => {
  let h: Harness;
  let open: Harness;
  let srv: Awaited<ReturnType<typeof imageServer>>;
  let fileRoot: string;
  let outside: string;
  let jpeg: Buffer;

  beforeAll(async () => {
    jpeg = await photo(640, 480, 1);
    srv = await imageServer({ '/a.jpg': jpeg, '/b.jpg': await photo(640, 480, 3), '/text.jpg': Buffer.from('not an image') });
    fileRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-files-'));
    await fs.writeFile(path.join(fileRoot, 'card.jpg'), jpeg);
    await fs.mkdir(path.join(fileRoot, 'sub'));
    await fs.writeFile(path.join(fileRoot, 'sub', 'card.png'), await photo(200, 150, 2, 'png'));
    // Outside the root: a folder of this run's own (a fixed name in /tmp is shared between runs).
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-outside-'));
    await fs.writeFile(path.join(outside, 'outside.jpg'), jpeg);
    await fs.symlink(path.join(outside, 'outside.jpg'), path.join(fileRoot, 'escape.jpg'));
    const fetch = { connectTimeoutMs: 300, totalTimeoutMs: 800, maxBytes: 100 * 1024, maxRedirects: 2, retries: 2 };
    // `h` may fetch from the local test server; `open` has no allow-list, as in production.
    h = await startHarness('sqlite', { urlAllowList: ['127.0.0.1'], fileRoot, fetch });
    open = await startHarness('sqlite', { fetch });
  });
  afterAll(async () => {
    await h?.close();
    await open?.close();
    await srv?.close();
    await fs.rm(fileRoot, { recursive: true, force: true });
    await fs.rm(outside, { recursive: true, force: true });
  });

  it('ping answers with the service info (GET and POST)', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await h.request(method, im('ping'));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: { code: 200, text: 'OK' }, _service_info: { _name: 'image_matching' } });
    }
    expect((await h.request('GET', im('ping'), { token: null })).statusCode).toBe(401);
  });

  it('visual_hash: both hashes by default, as binary strings, from base64, URL and file alike', async () => {
    const res = await h.request('POST', im('visual_hash'), {
      body: { records: [{ _base64: jpeg.toString('base64') }, { _url: `${srv.base}/a.jpg` }, { _file: 'card.jpg' }, { _base64: `data:image/jpeg;base64,${jpeg.toString('base64')}`, _id: 'x' }] },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toMatchObject({ code: 200, text: 'OK' });
    expect(body.status.request_id).toBeTruthy();
    expect(typeof body.statistics['processing time']).toBe('number');
    expect(typeof body.statistics.OperationTime).toBe('number');
    for (const r of body.records) {
      expect(r).toMatchObject({ _width: 640, _height: 480, _status: { code: 200 } });
      expect(r.bmh1).toMatch(/^[01]{256}$/);
      expect(r.phash).toMatch(/^[01]{64}$/);
      expect(r.bmh1).toBe(body.records[0].bmh1);
      expect(r.phash).toBe(body.records[0].phash);
      expect(r).not.toHaveProperty('_base64');
    }
    expect(body.records[1]._url).toBe(`${srv.base}/a.jpg`);
    const one = (await h.request('POST', im('visual_hash'), { body: { records: [{ _file: 'sub/card.png' }], hash_type: 'phash' } })).json();
    expect(one.records[0]).not.toHaveProperty('bmh1');
    expect(one.records[0].phash).toMatch(/^[01]{64}$/);
  });

  it('visual_hash: PNG, JPEG, TIFF, WebP, GIF, CMYK, 16-bit and alpha images all decode, to nearly the same hash', async () => {
    const scene = await sceneJpeg(1);
    const rgba = await sharp(scene).ensureAlpha(1).png().toBuffer();
    // A two-frame animation: the scene, then black. Only the first frame is hashed.
    const black = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#000' } }).png().toBuffer();
    const animated = await sharp([await sharp(scene).png().toBuffer(), black], { join: { animated: true } }).gif().toBuffer();
    expect((await sharp(animated, { pages: -1 }).metadata()).pages).toBe(2);
    const inputs: Record<string, Buffer> = {
      png: await sharp(scene).png().toBuffer(),
      tiff: await sharp(scene).tiff().toBuffer(),
      webp: await sharp(scene).webp().toBuffer(),
      gif: await sharp(scene).gif().toBuffer(),
      cmyk: await sharp(scene).toColourspace('cmyk').jpeg().toBuffer(),
      '16-bit': await sharp(scene).toColourspace('rgb16').png().toBuffer(),
      alpha: rgba,
      animated,
    };
    expect((await sharp(inputs.cmyk!).metadata()).space).toBe('cmyk');
    expect((await sharp(inputs['16-bit']!).metadata()).depth).toBe('ushort');
    const base = (await h.request('POST', im('visual_hash'), { body: { records: [{ _base64: scene.toString('base64') }] } })).json().records[0];
    const names = Object.keys(inputs);
    const res = (await h.request('POST', im('visual_hash'), { body: { records: names.map((n) => ({ _id: n, _base64: inputs[n]!.toString('base64') })) } })).json();
    expect(res.status.code).toBe(200);
    for (const r of res.records) {
      expect(r._status.code, r._id).toBe(200);
      expect([r._width, r._height], r._id).toEqual([640, 480]);
      expect(hammingDistance(base.phash, r.phash), r._id).toBeLessThanOrEqual(6);
    }
  });

  it('visual_hash: EXIF orientation is applied (a rotated photo reports its upright size and hash)', async () => {
    const scene = await sceneJpeg(2);
    // Stored sideways with orientation 6 (rotate 90° clockwise to view).
    const sideways = await sharp(scene).rotate(-90).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const body = (await h.request('POST', im('visual_hash'), { body: { records: [{ _base64: scene.toString('base64') }, { _base64: sideways.toString('base64') }] } })).json();
    expect([body.records[1]._width, body.records[1]._height]).toEqual([640, 480]);
    expect(hammingDistance(body.records[0].phash, body.records[1].phash)).toBeLessThanOrEqual(4);
  });

  it('visual_hash: limits and bad parameters are a clear 400 with the envelope status', async () => {
    const eleven = Array.from({ length: 11 }, () => ({ _base64: 'AAAA' }));
    const res = await h.request('POST', im('visual_hash'), { body: { records: eleven } });
    expect(res.statusCode).toBe(400);
    // past a call's record limit: too_many_records, as api-decisions says (h273: it was invalid_request)
    expect(res.json()).toMatchObject({ code: 'too_many_records', status: { code: 400 } });
    const md5 = await h.request('POST', im('visual_hash'), { body: { records: [{ _base64: 'AAAA' }], hash_type: 'md5' } });
    expect(md5.statusCode).toBe(400);
    expect(md5.json().errors[0]).toMatchObject({ field: 'hash_type', message: 'must be one of "bmh1", "phash"' });
    expect((await h.request('POST', im('visual_hash'), { body: { records: [] } })).statusCode).toBe(400);
    // a name the method does not take is 400 naming it (h341: `hash_typ` was ignored and both hashes came back)
    for (const [method, body, name] of [
      ['visual_hash', { records: [{ _base64: 'AAAA' }], hash_typ: 'phash' }, 'hash_typ'],
      ['remove_duplicates', { records: [{ _base64: 'AAAA' }], threshold: 5 }, 'threshold'],
      ['rank_images', { query_record: { _base64: 'AAAA' }, records: [{ _base64: 'AAAA' }], k: 3 }, 'k'],
    ] as const) {
      const typo = await h.request('POST', im(method), { body });
      expect(typo.statusCode, method).toBe(400);
      expect(typo.json(), method).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining(`image_matching/v2/${method} has no parameter ${name}`), errors: [{ field: name }] });
    }
  });

  describe('a bad record gets its own 400 status; the others are still processed', () => {
    const cases: Array<[string, () => Record<string, unknown>, RegExp]> = [
      ['broken base64', () => ({ _base64: '!!not base64!!' }), /not valid base64/],
      ['not an image', () => ({ _base64: Buffer.from('hello world, not an image').toString('base64') }), /not a readable image/],
      ['a truncated JPEG', () => ({ _base64: jpeg.subarray(0, 3000).toString('base64') }), /corrupt or truncated/],
      ['a PNG bomb', () => ({ _base64: pngBomb().toString('base64') }), /more than \d+ pixels/],
      ['an SVG', () => ({ _base64: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>').toString('base64') }), /format svg is not accepted/],
      ['a large SVG', () => ({ _base64: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>').toString('base64') }), /format svg is not accepted/],
      // libvips parsed a gzipped SVG whole only to name it (600,000 shapes in 40 KB: 4 s and 1.1 GB each)
      ['a gzipped SVG', () => ({ _base64: gzipSync(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${'<rect width="1" height="1"/>'.repeat(1000)}</svg>`).toString('base64') }), /format gzip \(compressed data, such as an SVGZ\) is not accepted/],
      ['a URL answering 404', () => ({ _url: `${srv.base}/missing.jpg` }), /HTTP 404/],
      ['a URL serving text', () => ({ _url: `${srv.base}/text.jpg` }), /not a readable image/],
      ['a URL over the byte limit', () => ({ _url: `${srv.base}/huge` }), /larger than/],
      ['a server that never answers', () => ({ _url: `${srv.base}/slow` }), /cannot be downloaded (after \d attempts|\(one attempt, its time all taken\))/],
      ['a server answering 503', () => ({ _url: `${srv.base}/unavailable` }), /cannot be downloaded after \d attempts/],
      ['too many redirects', () => ({ _url: `${srv.base}/redirect1?to=${encodeURIComponent(`${srv.base}/redirect2?to=${encodeURIComponent(`${srv.base}/redirect3?to=/a.jpg`)}`)}` }), /more than 2 redirects/],
      ['an ftp URL', () => ({ _url: 'ftp://example.com/a.jpg' }), /only http and https/],
      ['a file URL', () => ({ _url: 'file:///etc/passwd' }), /only http and https/],
      ['_file with ..', () => ({ _file: '../../etc/passwd' }), /outside the folder/],
      ['_file absolute elsewhere', () => ({ _file: '/etc/hostname' }), /outside the folder/],
      ['_file through a symlink out', () => ({ _file: 'escape.jpg' }), /outside the folder/],
      ['_file missing', () => ({ _file: 'nope.jpg' }), /does not exist/],
      ['a record with no image', () => ({ _id: 'empty' }), /no _url, _base64 or _file/],
      // said which was empty (h272: "" is "not given", and the record was told it had no _base64)
      ['an empty _base64', () => ({ _base64: '' }), /^Error Loading Image: _base64 is empty \(an empty field is not given\): the record has no image/],
      ['an empty _url and _file', () => ({ _url: '', _file: '' }), /_url and _file are empty/],
    ];
    it.each(cases)('%s', async (_label, make, reason) => {
      const res = await h.request('POST', im('visual_hash'), { body: { records: [{ _base64: jpeg.toString('base64') }, make()] } });
      // Spec 2 §7: the HTTP status carries status.code (300 MIXED_RESULT, body as with 200).
      expect(res.statusCode).toBe(300);
      const body = res.json();
      expect(body.status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
      expect(body.records[0]._status.code).toBe(200);
      expect(body.records[1]._status).toMatchObject({ code: 400 });
      expect(body.records[1]._status.text).toMatch(/^Error Loading Image: /);
      expect(body.records[1]._status.text).toMatch(reason);
      expect(body.records[1]._status.request_id).toBe(body.status.request_id);
    });
  });

  describe('SSRF guard: private addresses are refused after DNS, in redirects too', () => {
    const refused: Array<[string, string, RegExp]> = [
      ['loopback IPv4', 'http://127.0.0.1:9/a.jpg', /loopback/],
      ['loopback by name', 'http://localhost:9/a.jpg', /^(?!.*(127\.0\.0\.1|::1)).*localhost resolves to a loopback address and may not be fetched \(the server's operator can allow hosts with LOUPE_URL_ALLOWLIST\)/],
      ['loopback IPv6', 'http://[::1]:9/a.jpg', /loopback/],
      ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:9/a.jpg', /loopback/],
      ['private 10/8', 'http://10.0.0.1/a.jpg', /private/],
      ['private 192.168/16', 'http://192.168.1.1/a.jpg', /private/],
      ['cloud metadata', 'http://169.254.169.254/latest/meta-data/', /link-local/],
      ['unique-local IPv6', 'http://[fd00::1]/a.jpg', /unique-local/],
      ['multicast', 'http://224.0.0.1/a.jpg', /multicast/],
      ['unspecified', 'http://0.0.0.0:9/a.jpg', /unspecified/],
    ];
    it.each(refused)('%s', async (_label, url, reason) => {
      const res = await open.request('POST', im('visual_hash'), { body: { records: [{ _url: url }] } });
      // Every record failed: status.code 400, and so the HTTP status.
      expect(res.statusCode).toBe(400);
      expect(res.json().status).toMatchObject({ code: 400, text: 'Error Loading Image' });
      const r = res.json().records[0];
      expect(r._status.code).toBe(400);
      expect(r._status.text).toMatch(reason);
      // Refused before any connection (one would fail otherwise than `reason`), and not retried:
      // a retried failure reads "cannot be downloaded after N attempts (…)". (A clock
      // cannot tell: the retries' backoff is 300 ms, well within a loaded machine's noise.)
      expect(r._status.text).not.toMatch(/after \d attempts|one attempt, its time/);
    });

    it('without the allow-list, the local test server itself is refused', async () => {
      const res = await open.request('POST', im('visual_hash'), { body: { records: [{ _url: `${srv.base}/a.jpg` }] } });
      expect(res.json().records[0]._status.text).toMatch(/loopback/);
    });

    // the refusal names the redirect and where it went: the client named an allowed host (h220)
    it.each([
      ['to another loopback address', 'http://127.0.0.2:9/a.jpg', /^the URL redirects to 127\.0\.0\.2:9, which is refused: .*loopback/],
      ['to cloud metadata', 'http://169.254.169.254/latest/meta-data/', /^the URL redirects to 169\.254\.169\.254, which is refused: .*link-local/],
      ['to an IPv4-mapped private address', 'http://[::ffff:10.1.1.1]/x.jpg', /redirects to \[::ffff:a01:101\], which is refused: .*private/],
    ])('a redirect %s is refused even from an allowed server', async (_label, target, reason) => {
      const res = await h.request('POST', im('visual_hash'), { body: { records: [{ _url: `${srv.base}/redirect?to=${encodeURIComponent(target)}` }] } });
      const r = res.json().records[0];
      expect(r._status.code).toBe(400);
      expect(r._status.text.replace(/^Error Loading Image: /, '')).toMatch(reason);
    });

    it('a redirect within the allowed server is followed', async () => {
      const res = await h.request('POST', im('visual_hash'), { body: { records: [{ _url: `${srv.base}/redirect?to=/a.jpg` }] } });
      expect(res.json().records[0]._status.code).toBe(200);
    });
  });

  it('remove_duplicates: near-duplicates move into removed_records of the first match, deterministically', async () => {
    const a = jpeg;
    const aSmall = await sharp(a).resize(320, 240).jpeg({ quality: 60 }).toBuffer();
    const aBright = await sharp(a).modulate({ brightness: 1.1 }).jpeg().toBuffer();
    const b = await photo(640, 480, 3);
    const records = [
      { _id: 'a', _base64: a.toString('base64') },
      { _id: 'b', _base64: b.toString('base64') },
      { _id: 'a-small', _base64: aSmall.toString('base64') },
      { _id: 'broken', _base64: 'AAAA' },
      { _id: 'a-bright', _base64: aBright.toString('base64') },
      { _base64: a.toString('base64') },
    ];
    const exactRes = await h.request('POST', im('remove_duplicates'), { body: { records } });
    expect(exactRes.statusCode).toBe(300);
    const exact = exactRes.json();
    expect(exact.status.code).toBe(300);
    const exactIds = exact.records.map((r: { _id: string }) => r._id);
    expect(exactIds).toContain('a');
    expect(exactIds).toContain('b');
    expect(exact.records.find((r: { _id: string }) => r._id === 'a').removed_records.map((r: { _id: string }) => r._id)).toContain('5');
    expect(exact.records.find((r: { _id: string }) => r._id === 'broken')._status.code).toBe(400);

    const near = (await h.request('POST', im('remove_duplicates'), { body: { records, range: 20 } })).json();
    const first = near.records.find((r: { _id: string }) => r._id === 'a');
    expect(first.removed_records.map((r: { _id: string }) => r._id).sort()).toEqual(['5', 'a-bright', 'a-small']);
    for (const r of first.removed_records) expect(r._distance).toBeLessThanOrEqual(20);
    expect(near.records.map((r: { _id: string }) => r._id)).toEqual(['a', 'b', 'broken']);
    const again = (await h.request('POST', im('remove_duplicates'), { body: { records, range: 20 } })).json();
    const withoutRequestIds = (rs: Array<{ _status?: { request_id?: string } }>) => rs.map((r) => ({ ...r, _status: { ...r._status, request_id: undefined } }));
    expect(withoutRequestIds(again.records)).toEqual(withoutRequestIds(near.records));
  });

  it('remove_duplicates with phash takes a range of at most its 64 bits (h311: 100 made every image a duplicate of the first)', async () => {
    const b = await photo(640, 480, 3);
    const records = [{ _id: 'a', _base64: jpeg.toString('base64') }, { _id: 'b', _base64: b.toString('base64') }];
    const over = await h.request('POST', im('remove_duplicates'), { body: { records, hash_type: 'phash', range: 65 } });
    expect(over.statusCode).toBe(400);
    expect(over.json().detail).toMatch(/at most 64 with phash/);
    const all = await h.request('POST', im('remove_duplicates'), { body: { records, hash_type: 'phash', range: 64 } });
    expect(all.statusCode).toBe(200);
    // bmh1 keeps its 256
    expect((await h.request('POST', im('remove_duplicates'), { body: { records, range: 100 } })).statusCode).toBe(200);
  });

  it('an _id sent twice to remove_duplicates or rank_images is the repeat\'s own 400 (h284: which "a" was whose duplicate)', async () => {
    const small = await sharp(jpeg).resize(320, 240).toBuffer();
    const records = [
      { _id: 'a', _base64: jpeg.toString('base64') },
      { _id: 'a', _base64: small.toString('base64') },
      { _id: 'b', _base64: small.toString('base64') },
    ];
    const dedup = (await h.request('POST', im('remove_duplicates'), { body: { records, range: 33 } })).json();
    expect(dedup.status.code).toBe(300);
    expect(dedup.records.map((r: { _id: string; _status: { code: number } }) => [r._id, r._status.code])).toEqual([
      ['a', 200],
      ['a', 400],
    ]);
    expect(dedup.records[0].removed_records.map((r: { _id: string }) => r._id)).toEqual(['b']);
    expect(dedup.records[1]._status.text).toMatch(/^_id "a" is sent twice in this request \(records 1 and 2\)/);
    // the query's own _id may be a record's
    const ranked = (await h.request('POST', im('rank_images'), { body: { query_record: { _id: 'a', _base64: jpeg.toString('base64') }, records } })).json();
    expect(ranked.answer_records.map((r: { _id: string }) => r._id)).toEqual(['a', 'b']);
    expect(ranked.skipped_records.map((r: { _id: string; _status: { code: number } }) => [r._id, r._status.code])).toEqual([['a', 400]]);
  });

  it('a record that is not an object is its own 400, the records beside it answered, on every image-matching method (h336: the request\'s 400)', async () => {
    const good = { _id: 'good', _base64: jpeg.toString('base64') };
    const said = (i: number, kind: string) => `Error Loading Image: records[${i}] must be an object (an image record with _url, _base64 or _file), not ${kind}`;
    const hashed = await h.request('POST', im('visual_hash'), { body: { records: [null, good, 5, 'x', [1], true] } });
    // it was the request's 400 `records[0] must be object`, and the good image beside it unread
    expect(hashed.statusCode).toBe(300);
    const [nul, ok, ...rest] = hashed.json().records as { _id?: string; _status: { code: number; text: string }; bmh1?: string }[];
    expect(ok).toMatchObject({ _id: 'good', _status: { code: 200 } });
    expect(ok!.bmh1).toMatch(/^[01]{256}$/);
    // nothing of it can be echoed: its status alone
    expect(nul).toEqual({ _status: { code: 400, text: said(0, 'null'), request_id: expect.any(String) } });
    expect(rest.map((r) => r._status.text)).toEqual([said(2, 'a number'), said(3, 'a string'), said(4, 'a list'), said(5, 'a boolean')]);
    // where answers are told apart by _id, it gets its place, as any record sent without one
    const dedup = (await h.request('POST', im('remove_duplicates'), { body: { records: [good, null, { _base64: jpeg.toString('base64') }] } })).json();
    expect(dedup.status.code).toBe(300);
    expect(dedup.records.map((r: { _id: string; _status: { code: number } }) => [r._id, r._status.code])).toEqual([
      ['good', 200],
      ['1', 400],
    ]);
    expect(dedup.records[0].removed_records.map((r: { _id: string }) => r._id)).toEqual(['2']);
    const ranked = (await h.request('POST', im('rank_images'), { body: { query_record: good, records: [null, good] } })).json();
    expect(ranked.answer_records.map((r: { _id: string }) => r._id)).toEqual(['good']);
    expect(ranked.skipped_records).toEqual([{ _id: '0', _status: { code: 400, text: said(0, 'null'), request_id: expect.any(String) } }]);
    // all of them so: the envelope's 400, not a request error
    const none = await h.request('POST', im('visual_hash'), { body: { records: [null] } });
    expect([none.statusCode, none.json().status.text, none.json().detail]).toEqual([400, 'Error Loading Image', undefined]);
    // no records at all, and a query that is not one, are still the request's 400
    for (const body of [{}, { records: null }, { records: 5 }, { records: {} }, { records: [] }, { records: Array.from({ length: 11 }, () => null) }]) {
      const whole = await h.request('POST', im('visual_hash'), { body });
      expect([whole.statusCode, typeof whole.json().detail], JSON.stringify(body)).toEqual([400, 'string']);
    }
    const noQuery = await h.request('POST', im('rank_images'), { body: { query_record: null, records: [good] } });
    expect([noQuery.statusCode, typeof noQuery.json().detail]).toEqual([400, 'string']);
  });

  it('remove_duplicates takes an image of one colour for a duplicate only of one of that colour (h284: every swatch hashed alike)', async () => {
    const swatch = async (background: string, format: 'png' | 'jpeg' = 'png') => (await sharp({ create: { width: 300, height: 200, channels: 3, background } })[format]().toBuffer()).toString('base64');
    const records = [
      { _id: 'white', _base64: await swatch('#ffffff') },
      { _id: 'black', _base64: await swatch('#000000') },
      { _id: 'red', _base64: await swatch('#d01020') },
      { _id: 'white-jpeg', _base64: await swatch('#fefefe', 'jpeg') },
      { _id: 'photo', _base64: jpeg.toString('base64') },
    ];
    const res = (await h.request('POST', im('remove_duplicates'), { body: { records } })).json();
    expect(res.records.map((r: { _id: string; removed_records?: { _id: string }[] }) => [r._id, (r.removed_records ?? []).map((x) => x._id)])).toEqual([
      ['white', ['white-jpeg']],
      ['black', []],
      ['red', []],
      ['photo', []],
    ]);
  });

  it('rank_images: ascending distance, ids given where none was sent, skipped records, MIXED_RESULT', async () => {
    const b = await photo(640, 480, 3);
    const aSmall = await sharp(jpeg).resize(200, 150).toBuffer();
    const res = await h.request('POST', im('rank_images'), {
      body: {
        query_record: { _base64: jpeg.toString('base64'), _id: 'q' },
        records: [{ _base64: b.toString('base64') }, { _id: 'same', _base64: aSmall.toString('base64') }, { _id: 'bad', _url: 'http://10.0.0.1/x.jpg' }, { _url: `${srv.base}/a.jpg` }],
        hash_type: 'phash',
      },
    });
    expect(res.statusCode).toBe(300);
    const body = res.json();
    expect(body.status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    expect(body.answer_count).toBe(3);
    expect(body.answer_distances).toEqual([...body.answer_distances].sort((x: number, y: number) => x - y));
    expect(body.answer_records.map((r: { _id: string }) => r._id)).toEqual(['3', 'same', '0']);
    expect(body.answer_distances[0]).toBe(0);
    expect(body.skipped_records).toHaveLength(1);
    expect(body.skipped_records[0]).toMatchObject({ _id: 'bad', _status: { code: 400 } });
    expect(body.query_records[0]).toMatchObject({ _id: 'q', _width: 640, _height: 480 });
    expect(body.query_records[0]).not.toHaveProperty('_base64');

    const clean = (await h.request('POST', im('rank_images'), { body: { query_record: { _base64: jpeg.toString('base64') }, records: [{ _base64: jpeg.toString('base64') }] } })).json();
    expect(clean.status).toMatchObject({ code: 200, text: 'OK' });
    expect(clean.skipped_records).toEqual([]);
    // a place another record sent as its _id is not given again (h265: two answers "0")
    const clash = (await h.request('POST', im('rank_images'), { body: { query_record: { _base64: jpeg.toString('base64') }, records: [{ _base64: b.toString('base64') }, { _id: '0', _base64: jpeg.toString('base64') }] } })).json();
    expect(clash.answer_records.map((r: { _id: string }) => r._id)).toEqual(['0', '_0']);
    const dups = (await h.request('POST', im('remove_duplicates'), { body: { records: [{ _base64: b.toString('base64') }, { _id: 0, _base64: jpeg.toString('base64') }] } })).json();
    expect(dups.records.map((r: { _id: string }) => r._id)).toEqual(['_0', 0]);

    const allBadRes = await h.request('POST', im('rank_images'), { body: { query_record: { _base64: jpeg.toString('base64') }, records: [{ _base64: 'AAAA' }, { _file: '../x' }] } });
    expect(allBadRes.statusCode).toBe(400);
    const allBad = allBadRes.json();
    expect(allBad.status).toMatchObject({ code: 400, text: 'Error Loading Image' });
    expect(allBad.answer_count).toBe(0);
    expect(allBad.skipped_records).toHaveLength(2);

    const badQuery = await h.request('POST', im('rank_images'), { body: { query_record: { _base64: 'AAAA' }, records: [{ _base64: jpeg.toString('base64') }] } });
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json().status.text).toMatch(/query_record: Error Loading Image/);
  });

  it('a MIXED_RESULT reaches a fetch() client over HTTP as 300 with its body, not as a redirect', async () => {
    const address = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${address}${im('visual_hash')}`, {
      method: 'POST',
      headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ records: [{ _base64: jpeg.toString('base64') }, { _base64: 'AAAA' }] }),
    });
    expect(res.status).toBe(300);
    expect(res.redirected).toBe(false);
    expect(res.headers.get('location')).toBeNull();
    const body = (await res.json()) as { status: { code: number; text: string }; records: unknown[] };
    expect(body.status).toMatchObject({ code: 300, text: 'MIXED_RESULT' });
    expect(body.records).toHaveLength(2);
  });

  it('hashes survive re-encoding and scaling (Hamming distance small), but differ between different photos', async () => {
    const scene = await sceneJpeg(1);
    const variants = [await sharp(scene).resize(320, 240).toBuffer(), await sharp(scene).jpeg({ quality: 30 }).toBuffer(), await sharp(scene).resize(1280, 960).png().toBuffer()];
    const hash = async (buf: Buffer) => (await h.request('POST', im('visual_hash'), { body: { records: [{ _base64: buf.toString('base64') }] } })).json().records[0];
    const base = await hash(scene);
    for (const v of variants) {
      const x = await hash(v);
      expect(hammingDistance(base.bmh1, x.bmh1)).toBeLessThanOrEqual(20);
      expect(hammingDistance(base.phash, x.phash)).toBeLessThanOrEqual(8);
    }
    const other = await hash(await sceneJpeg(2));
    expect(hammingDistance(base.bmh1, other.bmh1)).toBeGreaterThan(40);
    expect(hammingDistance(base.phash, other.phash)).toBeGreaterThan(10);
  });

  it('needs the image_matching service and credits like every service', async () => {
    const acc = await h.newAccount(0, ['cardstream']);
    expect((await h.request('POST', im('visual_hash'), { token: acc.token, body: { records: [{ _base64: 'AAAA' }] } })).statusCode).toBe(403);
    await h.app.loupe.accounts.setServiceState(acc.account, ['image_matching'], true);
    const broke = await h.request('POST', im('visual_hash'), { token: acc.token, body: { records: [{ _base64: jpeg.toString('base64') }] } });
    expect(broke.statusCode).toBe(402);
    expect(broke.json().status.code).toBe(402);
  });
});

describe("a request's downloads", () => {
  // a host that takes every request and never answers; it counts the connections still open
  let tarpit: http.Server;
  let base = '';
  const open = new Set<Socket>();
  let seen = 0;
  beforeAll(async () => {
    tarpit = http.createServer(() => {
      seen++;
    });
    tarpit.on('connection', (s) => {
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((r) => tarpit.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await new Promise((r) => tarpit.close(r));
  });
  const until = async (ok: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end && !ok(); ) await new Promise((r) => setTimeout(r, 20));
    return ok();
  };
  const records = (n: number) => Array.from({ length: n }, (_, i) => ({ _url: `${base}/slow?${i}` }));

  it('stop when the client goes away: its downloads went on for minutes for nobody', async () => {
    // the default limits: 5 s idle, 20 s a download, so only the client's going stops them this soon
    const h = await startHarness('sqlite', { urlAllowList: ['127.0.0.1'] });
    try {
      const address = await h.app.listen({ host: '127.0.0.1', port: 0 });
      const client = new AbortController();
      const call = fetch(`${address}${im('visual_hash')}`, { method: 'POST', signal: client.signal, headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ records: records(10) }) }).catch(() => null);
      expect(await until(() => open.size === 8, 3000)).toBe(true);
      client.abort();
      await call;
      expect(await until(() => open.size === 0, 2000)).toBe(true);
      // none tried again, and the two records not started were never asked for
      expect(seen).toBe(8);
    } finally {
      await h.close();
    }
  }, 30_000);

  it("stop when the request's downloads run past their budget; the records say so", async () => {
    seen = 0;
    const h = await startHarness('sqlite', { urlAllowList: ['127.0.0.1'], fetch: { connectTimeoutMs: 5_000, totalTimeoutMs: 20_000, maxBytes: 1024 * 1024, maxRedirects: 2, retries: 2, requestTotalMs: 500 } });
    try {
      const res = await h.request('POST', im('visual_hash'), { body: { records: records(3) } });
      expect(res.statusCode).toBe(400);
      for (const r of res.json().records) expect(r._status.text).toContain("the request's downloads took over 0.5 s in all");
      expect(await until(() => open.size === 0, 2000)).toBe(true);
    } finally {
      await h.close();
    }
  }, 30_000);
});
