import type { AddressInfo } from 'node:net';
import fs from 'node:fs/promises';
import path from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.ts';
import { backends, createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';

describe.each(backends)('request errors (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h?.close());

  /** One request written on a socket of its own to the listening app, and all it got back by the time the server closed it. */
  const raw = async (request: string) => {
    if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    return new Promise<string>((resolve, reject) => {
      // Written, not ended: a half-closed socket may be closed before a slow answer (HTTP/1.0 closes after it).
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      let out = '';
      socket.on('data', (d) => (out += d.toString()));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });
  };

  it('/ready says whether the database and the media folder work (503 without internals when not); /health only that the process answers', async () => {
    const checked = performance.now();
    expect((await h.request('GET', '/ready', { token: null })).json()).toEqual({ status: 'ready' });
    const media = path.join(h.dataDir, 'media');
    const aside = `${media}-aside`;
    await fs.rename(media, aside);
    await fs.writeFile(media, 'not a folder');
    try {
      // one check a second answers every probe in it (each writes a row and 64 KiB; /ready takes no token)
      const cached = await h.request('GET', '/ready', { token: null });
      // (only within the check's second: on a loaded machine the rename may take it past, and a new check runs)
      if (performance.now() - checked < 800) expect(cached.statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 1_100));
      const res = await h.request('GET', '/ready', { token: null });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'unavailable', detail: 'Not ready: the media folder cannot be written (the server log says why).', code: 'not_ready' });
      expect((await h.request('GET', '/health', { token: null })).statusCode).toBe(200);
    } finally {
      await fs.rm(media);
      await fs.rename(aside, media);
    }
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await h.request('GET', '/ready', { token: null })).statusCode).toBe(200);
  });

  it("refuses a row of more keys than any record takes, naming it, before the loop walks them (h271: a million held every request for 15-40 s)", async () => {
    const sid = await createSession(h);
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',');
    // a card upload's unknown keys were dropped and the call answered 200 after 28 s
    const upload = await h.request('POST', cs(`session/${sid}/identifications/`), { payload: `{"identifications":[{"event_id":"e1","name":"Pikachu"},{"event_id":"e2",${keys(20_000)}}]}`, headers: { 'content-type': 'application/json' } });
    expect([upload.statusCode, upload.json().detail]).toEqual([400, expect.stringMatching(/^identifications\[1\] holds more than 10000 keys/)]);
    // a large body, parsed on its thread, and keys in many small objects of one record
    const many = `{"records":[{"_id":"r","_base64":"${'QUJD'.repeat(300_000)}","x":[${Array(12_000).fill('{"a":1}').join(',')}]}]}`;
    const hashed = await h.request('POST', '/image_matching/v2/visual_hash', { payload: many, headers: { 'content-type': 'application/json' } });
    expect([hashed.statusCode, hashed.json().detail]).toEqual([400, expect.stringMatching(/^records\[0\] holds more than 10000 keys/)]);
  });

  it('malformed JSON is 400 invalid_json', async () => {
    const sid = await createSession(h);
    // a key named twice in one object: JSON.parse kept the last and dropped the other value without a word
    const named = await h.request('POST', cs('session/'), { payload: '{"name":"first","name":"second","meta_data":{"a":1}}', headers: { 'content-type': 'application/json' } });
    expect([named.statusCode, named.json().code, named.json().detail]).toEqual([400, 'invalid_json', expect.stringMatching(/names the key "name" twice in one object/)]);
    for (const payload of ['{bad', '{"identifications": [', 'nul', '"\\u12"']) {
      const res = await h.request('POST', cs(`session/${sid}/identifications/`), { payload, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().code).toBe('invalid_json');
      // an answer is what its Content-Type says, never sniffed as a page (errors echo what was sent)
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await h.request('GET', cs('ping/'))).headers['x-content-type-options']).toBe('nosniff');
    // an account's data is kept by no cache, and no page is framed (h150)
    const sid2 = await createSession(h);
    for (const url of [cs(`session/${sid2}/`), cs('session/'), '/docs', '/docs/json']) {
      const res = await h.request('GET', url);
      expect([res.statusCode, res.headers['cache-control'], res.headers['x-frame-options']], url).toEqual([200, 'no-store', 'DENY']);
    }
    // two Authorization headers: Node kept the first silently, so which account acted was a guess
    const twice = await raw(`GET ${cs('ping/')} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\nAuthorization: Token lp_other\r\n\r\n`);
    expect(twice).toMatch(/^HTTP\/1\.[01] 400 /);
    expect(twice).toContain('sent more than once');
    // two Idempotency-Key headers: Node joined them ("k1, k2") and the answer blamed the key's characters (h120)
    const body = '{"name":"twice"}';
    const keys = await raw(`POST ${cs('session/')} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\nIdempotency-Key: k1\r\nIdempotency-Key: k2\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(keys).toMatch(/^HTTP\/1\.[01] 400 /);
    expect(keys).toContain('The Idempotency-Key header was sent more than once');
    // two Host lines: Node kept the first, which the answer's links were built from (RFC 9112 §3.2: 400), and two
    // collection-id headers were joined into "X, X", a collection not found (h195)
    const hosts = await raw(`GET ${cs('session/?page_size=1')} HTTP/1.0\r\nHost: evil.example\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\n\r\n`);
    expect(hosts).toMatch(/^HTTP\/1\.[01] 400 /);
    expect(hosts).toContain('The Host header was sent more than once');
    const ids = await raw(`GET /similarity/photos/v2/ping HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\ncollection-id: a\r\ncollection-id: a\r\n\r\n`);
    expect(ids).toMatch(/^HTTP\/1\.[01] 400 /);
    expect(ids).toContain('The collection-id header was sent more than once');
  });

  it('a body nested deeper than 32 levels is 400 invalid_json on every endpoint family, before any work', async () => {
    const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const sid = await createSession(h);
    const image = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const cases: [string, (inner: string) => string][] = [
      [cs('session/'), (v) => `{"name":"deep","meta_data":${v}}`],
      [cs(`session/${sid}/identifications/`), (v) => `{"identifications":[{"event_id":"e1","name":"x","grading":${v}}]}`],
      [cs(`session/${sid}/identifications/`), (v) => `{"identifications":[{"event_id":"e2","name":"x","alternatives":[${v}]}]}`],
      ['/image_matching/v2/visual_hash', (v) => `{"records":[{"_base64":"${image}","extra":${v}}]}`],
      ['/photo/v2/descriptor', (v) => `{"records":[{"_base64":"${image}","extra":${v}}]}`],
      ['/identity/v2/face', (v) => `{"records":[{"_base64":"${image}","extra":${v}}]}`],
      ['/similarity/custom/v2/insert', (v) => `{"records":[{"_id":"a","_base64":"${image}","meta":${v}}]}`],
      ['/account/v2/request/', (v) => `{"type":"flows","endpoint":"x","records":[{"_base64":"${image}","x":${v}}]}`],
    ];
    for (const [url, body] of cases) {
      for (const depth of [33, 5000, 20_000]) {
        const res = await h.request('POST', url, { payload: body(deep(depth)), headers: { 'content-type': 'application/json' } });
        expect(res.statusCode, `${url} at depth ${depth}`).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_json' });
        expect(res.json().detail).toMatch(/deeper than 32 levels/);
      }
    }
    // 32 levels in all is still a body: the session is made.
    const ok = await h.request('POST', cs('session/'), { payload: `{"name":"deep","meta_data":${deep(31)}}`, headers: { 'content-type': 'application/json' } });
    expect(ok.statusCode).toBe(201);
  });

  it('invalid UTF-8 and lone surrogate escapes are 400 invalid_json, and nothing is stored', async () => {
    const before = (await h.request('GET', cs('session/'))).json().count as number;
    const bodies = [
      Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3]), Buffer.from('"}')]),
      Buffer.from('{"name":"a\\ud800b"}'),
      Buffer.from('{"name":"ok","meta_data":{"\\uDC00":1}}'),
    ];
    for (const payload of bodies) {
      const res = await h.app.inject({ method: 'POST', url: cs('session/'), payload, headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json' } });
      expect(res.statusCode, payload.toString('latin1')).toBe(400);
      expect(res.json().code).toBe('invalid_json');
    }
    expect((await h.request('GET', cs('session/'))).json().count).toBe(before);
    // the place is named, as a NUL's is (h181: a row of 300 cut by String.slice)
    const rows = Array.from({ length: 300 }, (_, i) => `{"event_id":"e${i}","name":"${i === 217 ? 'Pikachu \\ud83d' : 'ok'}"}`).join(',');
    const named = await h.request('POST', cs(`session/${crypto.randomUUID()}/identifications/`), { payload: `{"identifications":[${rows}]}`, headers: { 'content-type': 'application/json' } });
    expect([named.statusCode, named.json().detail]).toEqual([400, expect.stringContaining('identifications[217].name holds one')]);
    // A well-formed pair, escaped or not, is a character like any other.
    const pair = await h.request('POST', cs('session/'), { payload: '{"name":"\\ud83c\\udccf 🃏"}', headers: { 'content-type': 'application/json' } });
    expect(pair.statusCode).toBe(201);
    // an escaped pair beside a long array (as Python's json.dumps writes both) is looked through without overflowing the stack
    const long = await h.request('POST', cs('session/'), { payload: `{"name":"\\ud83d\\ude00","meta_data":{"x":[${Array(150_000).fill(0).join(',')}]}}`, headers: { 'content-type': 'application/json' } });
    expect(long.statusCode).not.toBe(500);
    expect(pair.json().name).toBe('🃏 🃏');
  });

  it("a body in the charset its Content-Type names is read in it; a charset not known, or bytes not in it, are refused and nothing is stored", async () => {
    const post = (payload: Buffer, type: string) => h.app.inject({ method: 'POST', url: cs('session/'), payload, headers: { authorization: `Token ${h.account.token}`, 'content-type': type } });
    // ﾗｲﾄｳ in Shift_JIS is D7 B2 C4 B3, which is also valid UTF-8 (ײĳ): it was stored so
    const sjis = await post(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xd7, 0xb2, 0xc4, 0xb3]), Buffer.from('"}')]), 'application/json; charset=Shift_JIS');
    expect(sjis.statusCode).toBe(201);
    expect(sjis.json().name).toBe('ﾗｲﾄｳ');
    const latin1 = await post(Buffer.concat([Buffer.from('{"name":"Pok'), Buffer.from([0xe9]), Buffer.from('mon"}')]), 'application/json;charset="ISO-8859-1"');
    expect(latin1.json().name).toBe('Pokémon');
    expect((await post(Buffer.from('{"name":"utf"}'), 'application/json; charset=UTF-8')).json().name).toBe('utf');
    expect((await post(Buffer.from('{"name":"quoted"}'), "application/json; charset='utf-8'")).json().name).toBe('quoted');
    // UTF-16 by its byte-order mark, big-endian without one (RFC 2781; it was read little-endian: 400)
    const be = Buffer.from('{"name":"Pikachu ピカチュウ"}', 'utf16le').swap16();
    expect((await post(Buffer.concat([Buffer.from([0xfe, 0xff]), be]), 'application/json; charset=UTF-16')).json().name).toBe('Pikachu ピカチュウ');
    expect((await post(be, 'application/json; charset=utf-16')).json().name).toBe('Pikachu ピカチュウ');
    expect((await post(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"name":"le"}', 'utf16le')]), 'application/json; charset=UTF-16')).json().name).toBe('le');
    // UTF-8 bytes under a single-byte label are the label's mistake (they were stored as "ãã±ã¢ã³")
    for (const label of ['us-ascii', 'ISO-8859-1', 'windows-1252']) expect((await post(Buffer.from('{"name":"ポケモン Pokémon 🃏"}'), `application/json; charset=${label}`)).json().name, label).toBe('ポケモン Pokémon 🃏');
    // ... but Urdu in windows-1256 that happens to be valid UTF-8 is read in its label (h146: stored as "Ș ʘ ǐ"); Arabic
    // sent as UTF-8 under that label still reads as the Arabic it is
    const cp1256 = Buffer.from([0xc8, 0x98, 0x20, 0xca, 0x98, 0x20, 0xc7, 0x90]); // بک تک اگ
    expect((await post(Buffer.concat([Buffer.from('{"name":"'), cp1256, Buffer.from('"}')]), 'application/json; charset=windows-1256')).json().name).toBe('بک تک اگ');
    expect((await post(Buffer.from('{"name":"بيكاتشو"}'), 'application/json; charset=windows-1256')).json().name).toBe('بيكاتشو');
    // with a Latin word's accent beside it too (h147: garbled by the script check)
    for (const [name, label] of [['بطاقة Pokémon نادرة', 'windows-1256'], ['Карта Pokémon', 'windows-1251'], ['Κάρτα µ Pokémon', 'windows-1253'], ['Москва café', 'koi8-r'], ['Pokémon', 'windows-1256']]) {
      expect((await post(Buffer.from(`{"name":"${name}"}`), `application/json; charset=${label}`)).json().name, label).toBe(name);
    }
    // a large body in another charset is not decoded on the event loop: refused, said why
    const sid = (await post(Buffer.from('{"name":"batch"}'), 'application/json')).json().id as string;
    const big = await h.app.inject({ method: 'POST', url: cs(`session/${sid}/identifications/`), payload: Buffer.concat([Buffer.from('{"identifications":[{"event_id":"a","note":"'), Buffer.alloc(9 * 1024 * 1024, 0x41), Buffer.from('"}]}')]), headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json; charset=shift_jis' } });
    expect(big.statusCode).toBe(413);
    expect(big.json().detail).toMatch(/up to 8 MiB; send a larger one as UTF-8/);
    // the same size in ASCII under a single-byte label needs no decoding: read (it was 413), here to its row's own limit
    const ascii = await h.app.inject({ method: 'POST', url: cs(`session/${sid}/identifications/`), payload: Buffer.concat([Buffer.from('{"identifications":[{"event_id":"a","note":"'), Buffer.alloc(9 * 1024 * 1024, 0x41), Buffer.from('"}]}')]), headers: { authorization: `Token ${h.account.token}`, 'content-type': 'application/json; charset=iso-8859-1' } });
    expect(ascii.statusCode, ascii.body.slice(0, 200)).toBe(400);
    expect(ascii.json().detail).toMatch(/^Row 0: identifications\[0\]\.note must be at most 10000 characters long/);
    const before = (await h.request('GET', cs('session/'))).json().count as number;
    expect(before).toBeGreaterThan(0);
    const unknown = await post(Buffer.from('{"name":"x"}'), 'application/json; charset=klingon');
    expect(unknown.statusCode).toBe(415);
    expect(unknown.json()).toMatchObject({ code: 'unsupported_media_type', detail: expect.stringMatching(/charset "klingon"/) });
    const notSjis = await post(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0x82, 0xff]), Buffer.from('"}')]), 'application/json; charset=shift_jis');
    expect(notSjis.statusCode).toBe(400);
    expect(notSjis.json().detail).toMatch(/not valid shift_jis text/);
    expect((await h.request('GET', cs('session/'))).json().count).toBe(before);
  });

  it('a message quoting a client\'s text cut short never ends in half an emoji (a lone surrogate a strict JSON parser refuses)', async () => {
    const key = 'a'.repeat(99) + '😀';
    const twice = await h.request('POST', cs('session/'), { payload: `{"name":"x","${key}":1,"${key}":2}`, headers: { 'content-type': 'application/json' } });
    const page = await h.request('GET', cs(`session/?page=${'1'.repeat(39)}😀`));
    for (const res of [twice, page]) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      // the raw body, as a strict parser reads it: no \\ud83d escape left alone
      expect(res.body).not.toMatch(/\\ud83d(?!\\ude00)/i);
      expect(res.json().detail).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
    expect(twice.json().detail).toMatch(/aaaa" twice/);
  });

  it('an id in the path longer than the router takes is 404 in the error shape', async () => {
    for (const [method, url] of [['GET', cs(`session/${'a'.repeat(300)}/`)], ['PATCH', cs(`identification/${'9'.repeat(5000)}/`)], ['GET', `/account/v2/request/${'f'.repeat(400)}`]] as const) {
      const res = await h.request(method, url, method === 'PATCH' ? { body: { name: 'x' } } : {});
      expect(res.statusCode, url.slice(0, 60)).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found', detail: expect.any(String) });
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('a request without a valid Host header is 400, and nothing is stored with a broken URL', async () => {
    const auth = `Authorization: Token ${h.account.token}\r\n`;
    const body = '{"name":"no host"}';
    const post = (hostLine: string) => `POST ${cs('session/')} HTTP/1.0\r\n${hostLine}${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const before = (await h.request('GET', cs('session/'))).json().count as number;
    // HTTP/1.1 requires a Host too: answered by the app in the house shape, not Node's bare 400
    const post11 = `POST ${cs('session/')} HTTP/1.1\r\nConnection: close\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    // hosts the pattern let through but no URL can be built on (a 500 in every paged answer before)
    const unbuildable = ['evil.com:99999', 'h:65536', 'a.123', '999.1.1.1', '[1]', 'a..b', `${'x'.repeat(64)}.com`].map((host) => `GET ${cs('session/?page_size=1')} HTTP/1.0\r\nHost: ${host}\r\n${auth}\r\n`);
    for (const request of [`GET ${cs('session/')} HTTP/1.0\r\n${auth}\r\n`, post(''), post('Host: bad host/x\r\n'), post('Host: \r\n'), post11, ...unbuildable]) {
      const answer = await raw(request);
      expect(answer, request.split('\r\n')[0]).toMatch(/^HTTP\/1\.[01] 400 /);
      expect(answer).toContain('"code":"invalid_request"');
      expect(answer).toContain('Host');
    }
    expect((await h.request('GET', cs('session/'))).json().count).toBe(before);
    // A health probe needs no Host; a good one still works.
    expect(await raw('GET /health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(await raw('GET /health HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(await raw(`GET ${cs('session/')} HTTP/1.0\r\nHost: 127.0.0.1:${(h.app.server.address() as AddressInfo).port}\r\n${auth}\r\n`)).toMatch(/^HTTP\/1\.[01] 200 /);
    // host names as Docker Compose services and fully qualified names write them (refused before); the page's `next` link is built on them
    for (const name of ['a', 'b']) await h.request('POST', cs('session/'), { body: { name } });
    for (const host of ['card_server:4101', 'card_server', 'cards.example.com.', 'loupe_api.internal:8080']) {
      const answer = await raw(`GET ${cs('session/?page_size=1')} HTTP/1.0\r\nHost: ${host}\r\n${auth}\r\n`);
      expect(answer, host).toMatch(/^HTTP\/1\.[01] 200 /);
      expect(answer, host).toContain(`http://${host}/`);
    }
    // a request line in absolute form (RFC 9112 §3.2.2, proxy-aware clients): the list's links were the address twice, a 500 (h120)
    const port = (h.app.server.address() as AddressInfo).port;
    const absolute = await raw(`GET http://127.0.0.1:${port}${cs('session/?page_size=1')} HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\n${auth}\r\n`);
    expect(absolute).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(absolute).toMatch(new RegExp(`"next":"http://127\\.0\\.0\\.1:${port}${cs('session/')}\\?page_size=1&up_to=\\d+&page=2"`));
  });

  it('what the HTTP parser refuses (headers too large, a header that does not parse) is answered in the error shape', async () => {
    const huge = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4))).toEqual({ detail: expect.stringMatching(/headers are too large/), code: 'headers_too_large' });
    const broken = await raw('GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'invalid_request' });
    // the server still answers
    expect(await raw('GET /health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.[01] 200 /);
  });

  it('a body that is not JSON is 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await h.request('POST', cs('session/'), { payload: 'name=x', headers: { 'content-type': type } });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().code).toBe('unsupported_media_type');
    }
    // JSON by another name is JSON (RFC 6839; h264: a merge-patch PATCH was a 415)
    for (const type of ['application/merge-patch+json', 'application/vnd.api+json; charset=utf-8']) {
      const res = await h.request('POST', cs('session/'), { payload: JSON.stringify({ name: 'plus json' }), headers: { 'content-type': type } });
      expect([res.statusCode, res.json().name], type).toEqual([201, 'plus json']);
    }
    expect((await h.request('POST', cs('session/'), { payload: '{"name":', headers: { 'content-type': 'application/merge-patch+json' } })).json().code).toBe('invalid_json');
    expect((await h.request('POST', cs('session/'), { payload: 'x', headers: { 'content-type': 'application/jsonx' } })).statusCode).toBe(415);
  });

  it('a body over the limit is 413, naming the endpoint\'s limit', async () => {
    const res = await h.request('POST', cs('session/'), { body: { description: 'x'.repeat(2 * 1024 * 1024) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'body_too_large', detail: 'The request body is too large: at most 1 MiB on this endpoint.' });
  });

  it('refuses an undecodable escape in a path id, and page numbers not in decimal digits, with 400', async () => {
    const bad = await h.request('GET', '/cardstream/v2/session/%ZZ/');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_request' });
    for (const q of ['page=0x10', 'page=1e3', 'page_size=1.5', 'page=1&page=2']) {
      const res = await h.request('GET', cs(`session/?${q}`));
      expect(res.statusCode, q).toBe(400);
    }
    expect((await h.request('GET', cs('session/?page=1&page_size=10'))).statusCode).toBe(200);
    // ٢ is a decimal digit too: the message says which digits (h146)
    expect((await h.request('GET', cs(`session/?page=${encodeURIComponent('٢')}`))).json().detail).toBe('page must be a whole number written in the digits 0-9, not "٢".');
    // in the query too: a value was searched for as the escape's text
    for (const q of ['session/?search=%FF', 'session/?search=%ZZ', 'identification/?session=%E0%A4%A']) {
      const res = await h.request('GET', cs(q));
      expect([res.statusCode, res.json().code], q).toEqual([400, 'invalid_request']);
    }
    expect((await h.request('GET', cs('session/?search=caf%C3%A9+au+lait'))).statusCode).toBe(200);
  });

  it('refuses a compressed body with 415 saying so (it is not unpacked)', async () => {
    for (const encoding of ['gzip', 'br']) {
      const res = await h.request('POST', cs('session/'), { payload: '{"name":"p"}', headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      expect(res.statusCode, encoding).toBe(415);
      expect(res.json().detail).toContain(`Content-Encoding "${encoding}"`);
    }
    const plain = await h.request('POST', cs('session/'), { payload: '{"name":"p"}', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' } });
    expect(plain.statusCode).toBe(201);
  });

  it('refuses prototype-polluting keys (dropped, a filter {"$or":[{"__proto__":1}]} would match everything)', async () => {
    for (const payload of ['{"name":"p","meta_data":{"__proto__":{"polluted":true},"ok":1}}', '{"name":"p","meta_data":{"constructor":{"prototype":{"polluted":true}}}}']) {
      const res = await h.request('POST', cs('session/'), { payload, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_request' });
      expect(JSON.stringify(res.json())).toContain('__proto__');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // a plain field named constructor is data
    const ok = await h.request('POST', cs('session/'), { payload: '{"name":"p","meta_data":{"constructor":"Bob"}}', headers: { 'content-type': 'application/json' } });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().meta_data).toEqual({ constructor: 'Bob' });
  });

  it('unknown paths are 404 in the error shape; trailing slash optional', async () => {
    const res = await h.request('GET', cs('nothing-here/'));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found' });
    expect((await h.request('GET', '/cardstream/v2/ping')).statusCode).toBe(200);
  });

  it('a method a path does not take is 405 with Allow; the search-style families keep their status block', async () => {
    const sid = (await h.request('POST', cs('session/'), { body: { name: 's' } })).json().id as string;
    const put = await h.request('PUT', cs(`session/${sid}/`), { body: {} });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, PATCH, DELETE, HEAD');
    expect(put.json()).toMatchObject({ code: 'method_not_allowed', detail: expect.stringMatching(/^PUT is not allowed on \/cardstream\/v2\/session\/[0-9a-f-]+\/: GET, PATCH, DELETE are\.$/) });
    expect((await h.request('GET', cs(`session/${sid}/close/`))).headers.allow).toBe('POST');
    const recognition = await h.request('GET', '/collectibles/v2/tcg_id');
    expect(recognition.statusCode).toBe(405);
    expect(recognition.json()).toMatchObject({ code: 'method_not_allowed', status: { code: 405, text: recognition.json().detail } });
    const unknown = await h.request('POST', '/collectibles/v2/foo_id', { body: {} });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'not_found', status: { code: 404 } });
    // a product collection's base guessed from the text path's (h261): the 404 names where it is
    const guessed = await h.request('POST', '/similarity/products/v2/getRecordCount', { body: {} });
    expect([guessed.statusCode, guessed.json().detail]).toEqual([404, 'No endpoint POST /similarity/products/v2/getRecordCount. Product collections are under /similarity/products-new/v2/ (spec 2): /similarity/products-new/v2/getRecordCount.']);
    // with a body over the not-found route's own 1 MiB: said 404 / 405, not 413 "too large" (a mistyped path, h195)
    const big = JSON.stringify({ records: [{ _base64: 'A'.repeat(2 * 1024 * 1024) }] });
    const typo = await h.request('POST', cs(`session/${sid}/image/`), { payload: big, headers: { 'content-type': 'application/json' } });
    expect([typo.statusCode, typo.json().code]).toEqual([404, 'not_found']);
    const wrongMethod = await h.request('PUT', cs(`session/${sid}/images/`), { payload: big, headers: { 'content-type': 'application/json' } });
    expect([wrongMethod.statusCode, wrongMethod.json().code, wrongMethod.headers.allow]).toEqual([405, 'method_not_allowed', 'POST']);
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await h.request('GET', cs('ping/'), { headers: { 'x-request-id': 'client-abc-123' } });
    expect(given.headers['x-request-id']).toBe('client-abc-123');
    const made = await h.request('GET', cs('ping/'), { headers: { 'x-request-id': 'bad id with spaces <script>' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the API docs at /docs', async () => {
    const ui = await h.app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(ui.statusCode);
    const json = await h.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.json().openapi).toBe('3.0.3');
  });
});

describe('server errors', () => {
  it('5xx bodies hide internals and carry the request id', async () => {
    const h = await startHarness('sqlite');
    try {
      const sid = await createSession(h);
      // Pull the database away under the running app.
      await (h.app.loupe as unknown as { store: Store }).store.close();
      const res = await h.request('GET', cs(`session/${sid}/`), { headers: { 'x-request-id': 'trace-500' } });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body.code).toBe('internal_error');
      expect(body.detail).toContain('trace-500');
      expect(body.detail).not.toMatch(/sqlite|kysely|database|stack|at /i);
      // on a route whose answer may itself be 500 (every record failed), a request that fails as a
      // whole still answers the one error shape, not a serializer's complaint
      const search = await h.request('POST', '/photo/v2/descriptor', { body: { records: [{ _base64: 'AAAA' }] }, headers: { 'x-request-id': 'trace-500b' } });
      expect(search.statusCode).toBe(500);
      expect(search.json()).toMatchObject({ code: 'internal_error', status: { code: 500, request_id: 'trace-500b' } });
    } finally {
      await h.close().catch(() => undefined);
    }
  });
});

describe('a database that said its file is damaged', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
  });
  afterAll(async () => h?.close());

  it('leaves the load balancer: /ready answers 503 from then on, saying to restore a backup (h190)', async () => {
    expect((await h.request('GET', '/ready', { token: null })).statusCode).toBe(200);
    h.app.loupe.databaseDamaged();
    const res = await h.request('GET', '/ready', { token: null });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unavailable', code: 'not_ready', detail: expect.stringMatching(/^Not ready: the database file is damaged .*restore a backup/) });
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await h.request('GET', '/ready', { token: null })).statusCode).toBe(503);
  });
});
