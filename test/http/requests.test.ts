import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/container.ts';
import { signWebhook, verifyWebhook } from '../../src/webhooks/webhook-signature.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import type { Store } from '../../src/store/database.ts';
import { backends, filesUnder, startHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64 } from '../helpers/photos.ts';
import { webhookPayloadErrors } from '../helpers/answer-contract.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

const base = '/account/v2/request';
type Rec = { _id?: string; _status: { code: number; text: string; request_id: string }; [k: string]: unknown };
type Detail = { id: string; status: string; request: { type: string; endpoint: string; records: Record<string, unknown>[] }; response?: { records: Rec[] }; webhook?: { state: string; attempts: number; last_error: string | null; delivered: string | null } };

async function photo(width: number, height: number, format: 'jpeg' | 'png' = 'jpeg'): Promise<string> {
  // Smooth shapes, so the image has structure for hashes and the upscaler.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#4a7"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#e95"/><rect x="4" y="4" width="${width / 4}" height="${height / 5}" fill="#236"/></svg>`;
  return (await sharp(Buffer.from(svg))[format]().toBuffer()).toString('base64');
}

async function waitDone(h: Harness, id: string, timeoutMs = 60_000, token?: string): Promise<Detail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await h.request('GET', `${base}/${id}`, token ? { token } : {});
    expect(res.statusCode).toBe(200);
    const d = res.json() as Detail;
    if (d.status === 'DONE') return d;
    if (Date.now() > until) throw new Error(`request ${id} still ${d.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A webhook receiver that answers the given statuses in turn (then 200), recording each call. */
async function receiver(statuses: number[]) {
  const calls: { headers: http.IncomingHttpHeaders; body: string; raw: Buffer; at: number }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      calls.push({ headers: req.headers, body: raw.toString(), raw, at: Date.now() });
      res.statusCode = statuses[calls.length - 1] ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe.each(backends)('asynchronous requests (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, {
      urlAllowList: ['127.0.0.1'],
      vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 30_000, warm: [], embedder: '' },
      queue: { workers: 2, leaseMs: 5000, pollMs: 200 },
      webhooks: { retryDelaysMs: [100, 100, 100], timeoutMs: 2000, resendGapMs: 1500 } as never,
    });
    await h.app.ready();
    // the flows read the same group photo's faces and face crops again (a record twice, the HEIC test's JPEG, the second
    // backend): test/helpers/vision-memo.ts; the queue's jobs, steps, credits and webhooks still run on every request
    rememberVision(h);
  });
  /** Flows and the sweeper are the CLI's and the workers' business, not the API's: reach them directly. */
  const services = () => h.app.loupe as unknown as Services;
  afterAll(() => h?.close());

  const flow = (name: string, definition: unknown) => services().flows.put(name, definition);
  const hashAndFaces = {
    description: 'Hashes, then faces, then a descriptor of each face',
    steps: [{ endpoint: 'image_matching/visual_hash', as: 'hashes', hash_type: 'phash' }, { endpoint: 'identity/face' }, { endpoint: 'photo/descriptor', over: 'face', as: 'face_descriptors' }],
  };
  // The flow the other tests submit to; each test makes its own account, so any runs alone.
  beforeAll(() => flow('hash-and-faces', hashAndFaces));

  it('a submit whose workspace was erased after the token was checked is its 404, not a 500 (h244)', async () => {
    const acc = await h.newAccount();
    const submit = h.app.loupe.requests.submit({ accountId: acc.account, workspaceId: randomUUID(), baseUrl: 'http://localhost', services: ['*'] }, { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: photoBase64('caltech101/Leopards/image_0001.jpg') }] } as never);
    await expect(submit).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect((await h.app.loupe.accounts.getAccount(acc.account)).credits).toBe(100);
  });

  it("takes the body's workspace as ?workspace= names it (h257: it was ignored, the request went to the default workspace)", async () => {
    const acc = await h.newAccount();
    const { workspace: second } = await h.app.loupe.accounts.addWorkspace(acc.account, 'second shop');
    const body = { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: await photo(32, 32) }] };
    const submit = (extra: Record<string, unknown>, query = '') => h.request('POST', `${base}/${query}`, { token: acc.token, body: { ...body, ...extra } });
    const inBody = await submit({ workspace: second });
    expect([inBody.statusCode, inBody.json().workspace]).toEqual([201, second]);
    expect((await h.request('GET', `${base}/?workspace=${second}`, { token: acc.token })).json().results.map((r: { id: string }) => r.id)).toEqual([inBody.json().id]);
    expect((await submit({ workspace: second }, `?workspace=${second}`)).statusCode).toBe(201);
    expect((await submit({ workspace: null })).json().workspace).toBe(acc.workspace);
    const both = await submit({ workspace: second }, `?workspace=${acc.workspace}`);
    expect([both.statusCode, both.json().detail]).toEqual([400, expect.stringContaining('name two workspaces')]);
    // another account's workspace, or none, is a 404 as in the query; a number a 400
    expect((await submit({ workspace: h.account.workspace })).statusCode).toBe(404);
    expect((await submit({ workspace: randomUUID() })).statusCode).toBe(404);
    expect((await submit({ workspace: 7 })).statusCode).toBe(400);
    // the type in any case, as the list's filter reads it (h257)
    const cased = await submit({ type: ' Upscaler' });
    expect([cased.statusCode, cased.json().type]).toEqual([201, 'upscaler']);
    // and its endpoint, as the request then says it ran it (s73 noticed: `Upscale_2x` was 400 unknown_endpoint)
    for (const [sent, ran] of [['Upscale_2x', 'upscale_2x'], [' UPSCALE_4X', 'upscale_4x'], ['/Upscale_3x', '/upscale_3x']] as const) {
      const res = await submit({ endpoint: sent });
      expect([res.statusCode, res.json().request.endpoint], sent).toEqual([201, ran]);
    }
  });

  it('refuses unknown types and endpoints, too many records and bad webhooks at submit, and queues nothing', async () => {
    const { token } = await h.newAccount();
    const rec = { _base64: await photo(32, 32) };
    const cases: [unknown, number, string][] = [
      [{ type: 'teleporter', records: [rec] }, 400, 'unknown_type'],
      [{ type: 'upscaler', endpoint: 'upscale_5x', records: [rec] }, 400, 'unknown_endpoint'],
      [{ type: 'upscaler', records: [rec] }, 400, 'unknown_endpoint'],
      [{ type: 'flows', endpoint: 'no-such-flow', records: [rec] }, 400, 'unknown_endpoint'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: Array.from({ length: 11 }, () => rec) }, 400, 'too_many_records'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [] }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'ftp://example.com/x' } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://10.1.2.3/hook' } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { url: 'http://169.254.169.254/latest' } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://[::ffff:10.0.0.1]/x' } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://no-such-host.invalid/x' } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'Content-Length': '1' } } }, 400, 'invalid_request'],
      // numbers JSON cannot keep exactly would be stored, echoed and sent on altered
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [{ ...rec, meta: { sku: 2 ** 60 } }] }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'X-N': 2 ** 60 } } }, 400, 'invalid_request'],
      // the payload is JSON: another Content-Type would misname it
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'Content-Type': 'text/plain' } } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'X-A': 'a\r\nb' } } }, 400, 'invalid_request'],
      // a header of one hop or of the body's encoding failed every delivery, for an hour of retries
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { Trailer: 'X-Foo' } } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'content-encoding': 'gzip' } } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: {} }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'Loupe-Foo': '1' } } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'X-A': 'é中' } } }, 400, 'invalid_request'],
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: { 'X-Dup': 'a', 'x-dup': 'b' } } }, 400, 'invalid_request'],
      [{ type: 7, records: [rec] }, 400, 'invalid_request'],
      // more header bytes than receivers take: every delivery would end in 431 (h149)
      [{ type: 'upscaler', endpoint: 'upscale_2x', records: [rec], webhook: { endpoint: 'http://127.0.0.1/x', headers: Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`X-Big-${i}`, 'a'.repeat(4000)])) } }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const res = await h.request('POST', `${base}/`, { token, body });
      expect(res.statusCode, JSON.stringify(body).slice(0, 200)).toBe(status);
      expect(res.json().code).toBe(code);
    }
    const list = await h.request('GET', `${base}/`, { token });
    expect(list.json().count).toBe(0);
    expect((await h.request('GET', `${base}/${'0'.repeat(8)}-0000-4000-8000-000000000000`)).statusCode).toBe(404);
    const unknown = await h.request('GET', `${base}/not-a-uuid/status`);
    expect(unknown.statusCode).toBe(404);
    // spec 3 §7: an error body's status has code and text, beside the usual detail and code
    expect(unknown.json()).toMatchObject({ code: 'not_found', status: { code: 404, text: unknown.json().detail, request_id: expect.any(String) } });
    expect((await h.request('GET', `${base}/`, { token: null })).statusCode).toBe(401);
    // 1e400 parses as Infinity: refused, not sent as the text "Infinity"
    const inf = await h.request('POST', `${base}/`, { payload: `{"type":"upscaler","endpoint":"upscale_2x","records":[{"_url":"http://127.0.0.1/a.jpg"}],"webhook":{"endpoint":"http://127.0.0.1/x","headers":{"X-Inf":1e400}}}`, headers: { 'content-type': 'application/json' } });
    expect(inf.statusCode).toBe(400);
    expect(inf.json().detail).toMatch(/X-Inf is a number beyond/);
  });

  it('refuses a name the submit does not take, naming it, and stores and charges nothing (h343: webhook_url and frontWeight were ignored)', async () => {
    const acc = await h.newAccount(10);
    const rec = { _base64: await photo(32, 32) };
    for (const [extra, named] of [
      [{ webhook_url: 'https://hooks.example.com/x' }, 'webhook_url'],
      [{ Webhook: { endpoint: 'https://hooks.example.com/x' } }, 'Webhook'],
      [{ frontWeight: 0.9 }, 'frontWeight'],
      [{ Endpoint: 'upscale_4x' }, 'Endpoint'],
    ] as const) {
      const res = await h.request('POST', `${base}/`, { token: acc.token, body: { type: 'upscaler', endpoint: 'upscale_2x', records: [rec], ...extra } });
      expect([res.statusCode, res.json().code, res.json().detail], res.body).toEqual([400, 'invalid_request', expect.stringMatching(new RegExp(`^account/v2/request has no parameter ${named}: it takes type, records, endpoint, webhook, mode, front_weight, workspace`))]);
      expect(res.json().errors).toEqual([{ field: named, message: 'not a parameter of this method' }]);
      // spec 3 §7: the status block beside detail and code
      expect(res.json().status).toMatchObject({ code: 400 });
    }
    expect((await h.request('GET', `${base}/`, { token: acc.token })).json().count).toBe(0);
    expect((await h.app.loupe.accounts.getAccount(acc.account)).credits).toBe(10);
    // every name it takes is still taken
    const all = await h.request('POST', `${base}/`, { token: acc.token, body: { type: 'card-grader', endpoint: 'grade', records: [rec], mode: 'default', front_weight: 0.6, workspace: acc.workspace } });
    expect(all.statusCode, all.body).toBe(201);
  });

  it("refuses a flow whose steps' services the account is refused, charging and queueing nothing (h150: faces through a flow)", async () => {
    await flow('faces-only', { steps: [{ endpoint: 'identity/face' }] });
    const rec = { _base64: await photo(32, 32) };
    const noFaces = await h.newAccount(100, ['requests', 'descriptor', 'image_matching']);
    for (const endpoint of ['faces-only', 'hash-and-faces']) {
      const res = await h.request('POST', `${base}/`, { token: noFaces.token, body: { type: 'flows', endpoint, records: [rec] } });
      expect([res.statusCode, res.json().code], endpoint).toEqual([403, 'service_not_enabled']);
      expect(res.json().detail).toContain('identity');
    }
    expect((await h.request('GET', `${base}/`, { token: noFaces.token })).json().count).toBe(0);
    expect((await h.app.loupe.accounts.getAccount(noFaces.account)).credits).toBe(100);
    // every step's service enabled: queued
    const all = await h.newAccount(100, ['requests', 'identity', 'descriptor', 'image_matching']);
    expect((await h.request('POST', `${base}/`, { token: all.token, body: { type: 'flows', endpoint: 'hash-and-faces', records: [rec] } })).statusCode).toBe(201);
  });

  it('a record that is not an object is taken at submit and answered with its own 400, the records beside it run (h336: the whole submit\'s 400)', async () => {
    const { token } = await h.newAccount();
    const good = { _id: 'a', _base64: await photo(48, 48) };
    const submit = (records: unknown, key?: string) => h.request('POST', `${base}/`, { token, body: { type: 'flows', endpoint: 'hash-and-faces', records }, ...(key ? { headers: { 'idempotency-key': key } } : {}) });
    const sub = await submit([null, good, 5], 'not-objects');
    // it was the request's 400 `records[0] must be object`
    expect(sub.statusCode, sub.body).toBe(201);
    // stored as a record of no fields: nothing of it can be echoed
    expect(sub.json().request.records).toEqual([{}, { _id: 'a' }, {}]);
    const d = await waitDone(h, sub.json().id as string, 120_000, token);
    const [nul, read, num] = d.response!.records;
    expect(read).toMatchObject({ _id: 'a', _status: { code: 200 } });
    expect(nul).toEqual({ _status: { code: 400, text: 'Error Loading Image: records[0] must be an object (an image record with _url, _base64 or _file), not null', request_id: expect.any(String) } });
    expect(num!._status).toMatchObject({ code: 400, text: 'Error Loading Image: records[2] must be an object (an image record with _url, _base64 or _file), not a number' });
    // an idempotent retry is compared with what was sent: null is not {} (its placeholder) and not another value
    expect((await submit([null, good, 5], 'not-objects')).headers['idempotent-replayed']).toBe('true');
    for (const other of [[{}, good, 5], [null, good, 6]]) expect((await submit(other, 'not-objects')).statusCode, JSON.stringify(other)).toBe(422);
    // no records at all is still the submit's 400
    for (const records of [null, 5, {}, [], Array.from({ length: 11 }, () => null)]) {
      const whole = await submit(records);
      expect([whole.statusCode, typeof whole.json().detail], JSON.stringify(records)).toEqual([400, 'string']);
    }
  }, 120_000);

  it('an Idempotency-Key makes a submit sent again the same request, charged once; another body with the key is 422', async () => {
    const { account, token } = await h.newAccount();
    const credits = async () => (await h.app.loupe.accounts.getAccount(account)).credits;
    const body = { type: 'flows', endpoint: 'hash-and-faces', records: [{ _id: 'a', _base64: await photo(48, 48) }] };
    const submit = (key: string | undefined, b: unknown = body) => h.request('POST', `${base}/`, { token, body: b, ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });
    const before = await credits();
    const first = await submit('order-7/scan-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const charged = before - (await credits());
    expect(charged).toBeGreaterThan(0);
    // the answer was lost, the client sends it again: the same request, not charged again
    const again = await submit('order-7/scan-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    expect(before - (await credits())).toBe(charged);
    // sent again by another library, its keys in another order: the same body
    const reordered = { records: body.records.map(({ _id, _base64 }) => ({ _base64, _id })), endpoint: body.endpoint, type: body.type };
    expect((await submit('order-7/scan-1', reordered)).json().id).toBe(first.json().id);
    // the key with another body is a mistake, not a retry; another account's key is its own
    const other = await submit('order-7/scan-1', { ...body, records: [{ _id: 'b', _base64: await photo(40, 40) }] });
    expect([other.statusCode, other.json().code]).toEqual([422, 'idempotency_key_reused']);
    // the same body to another workspace of the account: named so, not "another body"
    const { workspace } = await h.app.loupe.accounts.addWorkspace(account, 'second');
    const elsewhere = await h.request('POST', `${base}/?workspace=${workspace}`, { token, body, headers: { 'idempotency-key': 'order-7/scan-1' } });
    expect([elsewhere.statusCode, elsewhere.json().errors[0].message]).toEqual([422, 'used in another workspace']);
    const stranger = await h.newAccount();
    const theirs = await h.request('POST', `${base}/`, { token: stranger.token, body, headers: { 'idempotency-key': 'order-7/scan-1' } });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(first.json().id);
    // keys of the wrong form; without a key, two submits are two requests
    expect((await submit('')).statusCode).toBe(400);
    expect((await submit('a b')).statusCode).toBe(400);
    expect((await submit('k'.repeat(256))).statusCode).toBe(400);
    const plain = [await submit(undefined), await submit(undefined)].map((r) => r.json().id);
    expect(new Set(plain).size).toBe(2);
    expect((await h.request('GET', `${base}/`, { token })).json().count).toBe(3);
    // once the request's retention has ended, the key names a new request
    await services().store.db.updateTable('async_requests').set({ expires_at: Date.now() - 1000 }).where('id', '=', first.json().id).execute();
    const fresh = await submit('order-7/scan-1');
    expect(fresh.statusCode).toBe(201);
    expect(fresh.json().id).not.toBe(first.json().id);
    expect((await submit('order-7/scan-1')).json().id).toBe(fresh.json().id);
    // the expired request goes now, so that no other test's sweep counts it
    await services().queue.sweep(Date.now());
    // the same key sent twice at once: one request, charged once
    const beforeRace = await credits();
    const race = await Promise.all([submit('race'), submit('race')]);
    expect(race.map((r) => r.statusCode)).toEqual([201, 201]);
    expect(race[0]!.json().id).toBe(race[1]!.json().id);
    expect(beforeRace - (await credits())).toBe(charged);
    // ... and by an account that can pay for one only: a request and its replay, never a request and a 402
    for (let i = 0; i < 5; i++) {
      await services().store.db.updateTable('accounts').set({ credits: charged }).where('id', '=', account).execute();
      const pair = await Promise.all([submit(`broke-${i}`), submit(`broke-${i}`)]);
      expect(pair.map((r) => r.statusCode)).toEqual([201, 201]);
      expect(pair[0]!.json().id).toBe(pair[1]!.json().id);
      expect(pair.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(1);
      expect(await credits()).toBe(0);
    }
    // with nothing left, a new submit is a 402 that stores nothing
    const listed = (await h.request('GET', `${base}/`, { token })).json().count;
    const broke = await submit('broke-new');
    expect([broke.statusCode, broke.json().code]).toEqual([402, 'insufficient_credits']);
    // and what the account holds (h307: the client had to ask)
    expect(broke.json().detail).toMatch(/^Not enough credits: requests\.flows costs \d+ credits?\. The account holds 0 credits\.$/);
    expect((await h.request('GET', `${base}/`, { token })).json().count).toBe(listed);
    expect(await credits()).toBe(0);
  });

  it('a flow runs each record through its steps; states go CREATED → DONE; failed records are per-record and not charged', async () => {
    const created = await flow('faces-then-descriptors', hashAndFaces);
    expect(created.outcome).toBe('created');
    const before = (await h.app.loupe.accounts.getAccount(h.account.account)).credits;
    const group = photoBase64('faces/faces.jpg');
    const res = await h.request('POST', `${base}/`, {
      body: { type: 'flows', endpoint: 'faces-then-descriptors', records: [{ _id: 'group', _base64: group }, { _id: 'text', _base64: Buffer.from('not an image').toString('base64') }, { _id: 'broken', _base64: '%%%' }, { _id: { not: 'an id' }, _base64: group }] },
    });
    expect(res.statusCode).toBe(201);
    const sub = res.json() as { id: string; status: string; type: string; request: Detail['request']; workspace: string; created: string };
    expect(sub).toMatchObject({ status: 'CREATED', type: 'flows', workspace: h.account.workspace });
    expect(sub.request.records[0]).toEqual({ _id: 'group' });
    expect(JSON.stringify(sub)).not.toContain(group.slice(0, 100));
    expect((await h.app.loupe.accounts.getAccount(h.account.account)).credits).toBe(before - 4);
    // an _id beyond 2^53 would be echoed altered, and fields beyond 64 KiB stored and echoed for days: the request's 400
    for (const [record, text] of [
      [{ _id: 2 ** 60, _base64: group }, /records\[0\]\._id \(read as 1152921504606847000\) cannot be kept exactly/],
      [{ _id: 'big', note: 'n'.repeat(65 * 1024), _base64: group }, /records\[0\]'s fields take 66 KiB of JSON; at most 64 KiB/],
    ] as const) {
      const refused = await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'faces-then-descriptors', records: [record] } });
      expect([refused.statusCode, refused.json().detail]).toEqual([400, expect.stringMatching(text)]);
    }
    expect((await h.app.loupe.accounts.getAccount(h.account.account)).credits).toBe(before - 4);

    const d = await waitDone(h, sub.id, 120_000);
    expect((await h.request('GET', `${base}/${sub.id}/status`)).json()).toEqual({ status: 'DONE' });
    const [g, text, broken, badId] = d.response!.records;
    // an `_id` is a label echoed back, of any form, as the synchronous endpoints echo it (h257: it failed its record here)
    expect(badId).toMatchObject({ _id: { not: 'an id' }, _status: { code: 200, text: 'OK' } });
    expect(g!._status).toEqual({ code: 200, text: 'OK', request_id: sub.id });
    expect(g).toMatchObject({ _id: 'group', _width: expect.any(Number) });
    expect((g!.hashes as { phash: string }).phash).toMatch(/^[01]{64}$/);
    const faces = (g!.face as { _objects: { bound_box: number[] }[] })._objects;
    expect(faces.length).toBeGreaterThan(2);
    const perFace = g!.face_descriptors as { bound_box: number[]; _descriptor: number[] }[];
    expect(perFace).toHaveLength(Math.min(faces.length, 10));
    expect(perFace[0]!.bound_box).toEqual(faces[0]!.bound_box);
    expect(perFace[0]!._descriptor.length).toBeGreaterThan(100);
    expect(text!._status.code).toBe(400);
    expect(text!._status.text).toMatch(/^(hashes: )?Error Loading Image/);
    expect(broken!._status).toMatchObject({ code: 400, request_id: sub.id });
    expect(broken!._status.text).toMatch(/Error Loading Image: the image is not valid base64/);
    // Two of four records failed: their credits come back.
    expect((await h.app.loupe.accounts.getAccount(h.account.account)).credits).toBe(before - 2);
  }, 180_000);

  it("crops the faces of an iPhone's HEIC photo for a flow's over step (every record of the request failed, h118)", async () => {
    await flow('faces-then-descriptors', hashAndFaces);
    const heic = photoBase64('faces/faces.heic');
    const res = await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'faces-then-descriptors', records: [{ _id: 'heic', _base64: heic }, { _id: 'jpeg', _base64: photoBase64('faces/faces.jpg') }] } });
    expect(res.statusCode).toBe(201);
    const d = await waitDone(h, (res.json() as { id: string }).id, 120_000);
    const [fromHeic, fromJpeg] = d.response!.records;
    for (const r of [fromHeic!, fromJpeg!]) {
      expect(r._status.code, String(r._id)).toBe(200);
      const faces = (r.face as { _objects: unknown[] })._objects;
      expect(faces.length, String(r._id)).toBeGreaterThan(2);
      const perFace = r.face_descriptors as { _descriptor?: number[]; _status?: unknown }[];
      expect(perFace.every((f) => (f._descriptor?.length ?? 0) > 100), String(r._id)).toBe(true);
    }
  }, 180_000);

  it('upscaler: a 2x result at the stated size, served as media; URLs are fetched by the worker; a too-large image is a per-record 413', async () => {
    const jpeg = Buffer.from(await photo(50, 30), 'base64');
    // a cut-out: opaque in its middle, transparent around it (h257: upscaled onto an opaque colour)
    const cutout = await sharp(Buffer.from(await photo(40, 40, 'png'), 'base64')).ensureAlpha().composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect x="10" y="10" width="20" height="20"/></svg>'), blend: 'dest-in' }]).png().toBuffer();
    const images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    const imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/photo.jpg`;
    const res = await h.request('POST', `${base}/`, {
      body: {
        type: 'upscaler',
        endpoint: 'upscale_2x',
        records: [{ _id: 'small', _base64: await photo(60, 40, 'png') }, { _id: 'huge', _base64: await photo(3000, 3000) }, { _id: 'web', _url: imageUrl }, { _id: 'private', _url: 'http://10.255.1.1/x.jpg' }, { _id: 'cutout', _base64: cutout.toString('base64') }],
      },
    });
    expect(res.statusCode).toBe(201);
    const d = await waitDone(h, res.json().id, 120_000);
    images.close();
    const [small, huge, web, privateRec, cut] = d.response!.records;
    const cutUrl = new URL(cut!._upscaled_image_url as string);
    const alpha = await sharp((await h.app.inject({ method: 'GET', url: cutUrl.pathname + cutUrl.search })).rawPayload).extractChannel('alpha').raw().toBuffer({ resolveWithObject: true });
    expect(alpha.info).toMatchObject({ width: 80, height: 80 });
    expect([alpha.data[0], alpha.data[40 * 80 + 40]]).toEqual([0, 255]);
    expect(web).toMatchObject({ _id: 'web', _url: imageUrl, _width: 50, _height: 30, _upscaled_width: 100, _upscaled_height: 60, _status: { code: 200 } });
    expect(new URL(web!._upscaled_image_url as string).pathname).toMatch(/\.jpg$/);
    expect(privateRec!._status).toMatchObject({ code: 400 });
    expect(privateRec!._status.text).toMatch(/^Error Loading Image: .*private/);
    expect(small).toMatchObject({ _id: 'small', _width: 60, _height: 40, _upscaled_width: 120, _upscaled_height: 80, _status: { code: 200 } });
    const url = new URL(small!._upscaled_image_url as string);
    const media = await h.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(media.statusCode).toBe(200);
    expect(media.headers['content-type']).toBe('image/png');
    expect(await sharp(media.rawPayload).metadata()).toMatchObject({ width: 120, height: 80 });
    expect(huge!._status, JSON.stringify(huge)).toMatchObject({ code: 413 });
    expect(huge).not.toHaveProperty('_upscaled_image_url');
  }, 180_000);

  it("upscaler: a WebP or GIF cut-out keeps its transparency as a PNG; an animated GIF's status says only its first frame was upscaled (h340)", async () => {
    // opaque in the middle, transparent around: both came back JPEGs flattened on white, with a plain OK
    const cutout = await sharp({ create: { width: 24, height: 24, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect x="6" y="6" width="12" height="12" fill="#36c"/></svg>') }])
      .png()
      .toBuffer();
    const frames = await sharp(Buffer.from(await photo(20, 60), 'base64')).raw().toBuffer();
    const animated = await sharp(frames, { raw: { width: 20, height: 60, channels: 3, pageHeight: 20 } as never }).gif({ loop: 0 }).toBuffer();
    const records = [
      { _id: 'webp', _base64: (await sharp(cutout).webp({ lossless: true }).toBuffer()).toString('base64') },
      { _id: 'gif', _base64: (await sharp(cutout).gif().toBuffer()).toString('base64') },
      { _id: 'animated', _base64: animated.toString('base64') },
    ];
    const res = await h.request('POST', `${base}/`, { body: { type: 'upscaler', endpoint: 'upscale_2x', records } });
    expect(res.statusCode, res.body).toBe(201);
    const [webp, gif, anim] = (await waitDone(h, res.json().id, 120_000)).response!.records;
    const read = async (r: Rec) => {
      const url = new URL(r._upscaled_image_url as string);
      const media = await h.app.inject({ method: 'GET', url: url.pathname + url.search });
      return { type: media.headers['content-type'], ...(await sharp(media.rawPayload).ensureAlpha().extractChannel('alpha').raw().toBuffer({ resolveWithObject: true })) };
    };
    for (const r of [webp!, gif!]) {
      expect(r, String(r._id)).toMatchObject({ _width: 24, _height: 24, _upscaled_width: 48, _upscaled_height: 48, _status: { code: 200, text: 'OK' } });
      const alpha = await read(r);
      expect([alpha.type, alpha.info.width, alpha.data[0], alpha.data[24 * 48 + 24]], String(r._id)).toEqual(['image/png', 48, 0, 255]);
    }
    expect(anim).toMatchObject({ _width: 20, _height: 20, _upscaled_width: 40, _upscaled_height: 40, _status: { code: 200, text: 'OK; the first of its 3 frames was upscaled: the result is a still image' } });
    expect((await read(anim!)).type).toBe('image/jpeg');
  }, 120_000);

  it('upscaler takes its endpoint with a leading /, as card-grader and collectibles-recognition do (h340: 400 unknown_endpoint)', async () => {
    const res = await h.request('POST', `${base}/`, { body: { type: 'upscaler', endpoint: '/upscale_3x', records: [{ _base64: await photo(10, 8) }] } });
    expect([res.statusCode, res.json().request?.endpoint], res.body).toEqual([201, '/upscale_3x']);
    expect((await waitDone(h, res.json().id as string)).response!.records[0]).toMatchObject({ _upscaled_width: 30, _upscaled_height: 24, _status: { code: 200 } });
  });

  it("a flow replaced after the submit with a step whose service the account lacks runs none of it: the records' 403, refunded (h340: faces ran)", async () => {
    await flow('swapped', { steps: [{ endpoint: 'image_matching/visual_hash', as: 'hashes' }] });
    await flow('gone', { steps: [{ endpoint: 'image_matching/visual_hash', as: 'hashes' }] });
    const acc = await h.newAccount(100, ['requests', 'image_matching']);
    const rec = { _base64: await photo(32, 32) };
    // no worker claims them while the flows change, as an administrator's change between a submit and its run
    await services().queue.stop();
    let swapped: string, gone: string;
    try {
      swapped = (await h.request('POST', `${base}/`, { token: acc.token, body: { type: 'flows', endpoint: 'swapped', records: [rec, rec] } })).json().id as string;
      gone = (await h.request('POST', `${base}/`, { token: acc.token, body: { type: 'flows', endpoint: 'gone', records: [rec] } })).json().id as string;
      expect((await h.app.loupe.accounts.getAccount(acc.account)).credits).toBe(97);
      await flow('swapped', { steps: [{ endpoint: 'image_matching/visual_hash', as: 'hashes' }, { endpoint: 'identity/face' }] });
      expect(await services().flows.delete('gone')).toBe(true);
    } finally {
      services().queue.start();
    }
    const records = (await waitDone(h, swapped, 60_000, acc.token)).response!.records;
    expect(records.map((r) => r._status)).toEqual(Array(2).fill({ code: 403, text: 'The flow swapped was changed after the request was submitted: it now runs identity/face, and the identity service is not enabled for this account', request_id: swapped }));
    expect(records[0]).not.toHaveProperty('face');
    expect((await waitDone(h, gone, 60_000, acc.token)).response!.records[0]!._status).toMatchObject({ code: 404, text: 'The flow gone was deleted before the request ran' });
    expect((await h.app.loupe.accounts.getAccount(acc.account)).credits).toBe(100);
    // an account with the service runs the flow as it is now
    const all = await h.newAccount(100, ['requests', 'image_matching', 'identity']);
    const ok = await h.request('POST', `${base}/`, { token: all.token, body: { type: 'flows', endpoint: 'swapped', records: [rec] } });
    expect((await waitDone(h, ok.json().id as string, 60_000, all.token)).response!.records[0]).toMatchObject({ _status: { code: 200 }, face: { _objects: [] } });
  }, 120_000);

  it('lists with filters and pages, newest first', async () => {
    const { token } = await h.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await h.request('POST', `${base}/`, { token, body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }] } });
      ids.push(r.json().id as string);
    }
    const upscale = await h.request('POST', `${base}/`, { token, body: { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: '!!' }] } });
    for (const id of [...ids, upscale.json().id as string]) await waitDone(h, id, 60_000, token);
    const page1 = (await h.request('GET', `${base}/?type=flows&page_size=3`, { token })).json() as { count: number; next: string | null; previous: string | null; results: { id: string; status: string; type: string; workspace: string }[] };
    expect(page1.count).toBe(4);
    expect(page1.results.map((r) => r.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(page1.previous).toBeNull();
    expect(new URL(page1.next!).searchParams.get('page')).toBe('2');
    const page2 = (await h.request('GET', `${base}/?type=flows&page_size=3&page=2`, { token })).json() as typeof page1;
    // past the most (100), the most, as the session lists read theirs (a 400, h134); above 1,000,000 a 400, as they say
    const capped = await h.request('GET', `${base}/?type=flows&page_size=500`, { token });
    expect(capped.statusCode).toBe(200);
    expect((capped.json() as typeof page1).results.length).toBe(Math.min(100, page1.count));
    expect((await h.request('GET', `${base}/?page_size=1000001`, { token })).statusCode).toBe(400);
    expect(page2.results.map((r) => r.id)).toEqual([ids[0]]);
    expect(page2.next).toBeNull();
    // requests submitted during a walk through the pages push no row read onto the next page (h223: 772 rows read for
    // 657 requests); the walk's pages list the requests as they were at its first
    const later = await h.request('POST', `${base}/`, { token, body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }] } });
    expect(later.statusCode).toBe(201);
    const followed = (await h.request('GET', new URL(page1.next!).pathname + new URL(page1.next!).search, { token })).json() as typeof page1;
    expect([followed.count, followed.results.map((r) => r.id)]).toEqual([4, [ids[0]]]);
    expect(new URL(followed.previous!).searchParams.get('up_to')).toBe(new URL(page1.next!).searchParams.get('up_to'));
    // a new walk sees it
    expect(((await h.request('GET', `${base}/?type=flows&page_size=3`, { token })).json() as typeof page1).results[0]!.id).toBe(later.json().id);
    await waitDone(h, later.json().id as string, 60_000, token);
    expect((await h.request('GET', `${base}/?type=upscaler`, { token })).json().count).toBe(1);
    expect((await h.request('GET', `${base}/?status=CREATED`, { token })).json().count).toBe(0);
    expect((await h.request('GET', `${base}/?status=DONE`, { token })).json().count).toBe(6);
    expect((await h.request('GET', `${base}/?status=LOST`, { token })).statusCode).toBe(400);
    // a client that writes the state or the type in another case filters as well
    expect((await h.request('GET', `${base}/?status=done`, { token })).json().count).toBe(6);
    expect((await h.request('GET', `${base}/?status=Done&type=Upscaler`, { token })).json().count).toBe(1);
    // empty filters are not given, as on the other lists (a client that always sends them, "" for all)
    expect((await h.request('GET', `${base}/?status=&type=`, { token })).json().count).toBe(6);
    expect((await h.request('GET', `${base}/?status=DONE&type=`, { token })).json().count).toBe(6);
    // Another account sees none of them.
    const other = await h.newAccount();
    expect((await h.request('GET', `${base}/`, { token: other.token })).json().count).toBe(0);
    expect((await h.request('GET', `${base}/${ids[0]}`, { token: other.token })).statusCode).toBe(404);
    expect((await h.request('GET', `${base}/${ids[0]}`, { token })).statusCode).toBe(200);
    // a type no handler runs is refused as an unknown status is, not answered as an empty list
    const typo = await h.request('GET', `${base}/?type=flow`, { token });
    expect(typo.statusCode).toBe(400);
    expect(JSON.stringify(typo.json())).toContain('one of:');
    // past its retention a request is gone at once, before the sweeper deletes it
    await (h.app.loupe as unknown as Services).store.db.updateTable('async_requests').set({ expires_at: Date.now() - 1000 }).where('id', '=', ids[0]!).execute();
    expect((await h.request('GET', `${base}/${ids[0]}`, { token })).statusCode).toBe(404);
    expect((await h.request('GET', `${base}/${ids[0]}/status`, { token })).statusCode).toBe(404);
    expect((await h.request('GET', `${base}/?type=flows`, { token })).json().count).toBe(4);
    expect(await (h.app.loupe as unknown as Services).queue.sweep(Date.now())).toBe(1);
  }, 60_000);

  it('a flow record whose bytes are no image begins "Error Loading Image", as every other load failure does (spec 3 §7)', async () => {
    const res = await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _id: 'text', _base64: Buffer.from('hello').toString('base64') }, { _id: 'b64', _base64: '!!' }] } });
    expect(res.statusCode).toBe(201);
    const done = await waitDone(h, res.json().id as string);
    const texts = done.response!.records.map((r) => (r._status as { text: string }).text);
    for (const t of texts) expect(t).toMatch(/^Error Loading Image: /);
    // the step that found it is still named
    expect(texts[0]).toMatch(/^Error Loading Image: hashes: /);
  }, 60_000);

  it('webhook: retried after failures, signed, with the configured headers; the delivery state is in the detail', async () => {
    const rx = await receiver([500, 503]);
    try {
      const res = await h.request('POST', `${base}/`, {
        // `method` POST, which some clients send, is accepted (another key is a 400, h180)
        body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _id: 'x', _base64: '!!' }], webhook: { endpoint: rx.url, method: 'POST', headers: { 'X-Shop': 'north', Authorization: 'Bearer abc', 'User-Agent': 'shop-hooks/2', 'Content-Type': 'application/json', 'X-Shop-Id': 42, 'X-Live': true, 'X-Filiale': 'München Café' } } },
      });
      expect(res.statusCode).toBe(201);
      const id = res.json().id as string;
      const done = await waitDone(h, id);
      const until = Date.now() + 10_000;
      let d = done;
      while (d.webhook?.state !== 'delivered' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        d = (await h.request('GET', `${base}/${id}`)).json() as Detail;
      }
      expect(d.webhook).toMatchObject({ state: 'delivered', attempts: 3, last_error: null });
      expect(rx.calls).toHaveLength(3);
      const last = rx.calls[2]!;
      expect(last.headers['x-shop']).toBe('north');
      expect(last.headers.authorization).toBe('Bearer abc');
      expect(last.headers['user-agent']).toBe('shop-hooks/2');
      // what clients commonly add (their JSON Content-Type, accepted above: the payload's own), numbers and booleans as text
      expect([last.headers['x-shop-id'], last.headers['x-live']]).toEqual(['42', 'true']);
      // Latin-1 letters go as Latin-1 bytes, as receivers read headers (sent as UTF-8, they read MÃ¼nchen CafÃ©, h94)
      expect(last.headers['x-filiale']).toBe('München Café');
      // delivered, the client's headers are not kept (a receiver's bearer token was kept in plain text for 7 days, h100)
      const stored = await new RequestStore((h.app.loupe as unknown as { store: Store }).store).get(id);
      expect(stored!.webhook).toEqual({ url: rx.url, headers: {} });
      expect(last.headers['loupe-delivery-attempt']).toBe('3');
      const payload = JSON.parse(last.body) as { status: string; id: string; type: string; response: { records: Rec[] } };
      expect(payload).toMatchObject({ status: 'DONE', id, type: 'flows' });
      expect(payload.response).toEqual(done.response);
      // as the OpenAPI document's callback of the submit declares it
      expect(webhookPayloadErrors(h.app, last.body)).toBeNull();
      const secret = await h.app.loupe.requests.webhookSecret(h.account.account);
      expect(verifyWebhook(secret, last.body, String(last.headers['loupe-signature']))).toBe(true);
      expect(verifyWebhook(`${secret}x`, last.body, String(last.headers['loupe-signature']))).toBe(false);
      // Retries waited their schedule (100 ms each here).
      expect(rx.calls[1]!.at - rx.calls[0]!.at).toBeGreaterThanOrEqual(90);
    } finally {
      await rx.close();
    }
  }, 60_000);

  /** The request's detail once its webhook is in one of `states` (10 s at most). */
  const webhookIn = async (id: string, states: string[]): Promise<Detail> => {
    for (let i = 0; i < 200; i++) {
      const d = (await h.request('GET', `${base}/${id}`)).json() as Detail;
      if (states.includes(d.webhook?.state ?? '')) return d;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`webhook never ${states.join(' or ')}`);
  };

  it("webhook: the verifiers docs/webhooks.md gives a developer accept a real delivery and refuse it altered, late or without its time (h350)", async () => {
    const doc = await readFile(path.join(import.meta.dirname, '../../docs/webhooks.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Verifying the signature'), doc.indexOf('## Delivery and retries'));
    const js = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    const py = /```python\n([\s\S]*?)```/.exec(section)?.[1];
    expect(js && py).toBeTruthy();
    const dir = await mkdtemp(path.join(tmpdir(), 'loupe-verifier-'));
    const rx = await receiver([]);
    try {
      await writeFile(path.join(dir, 'verify.mjs'), js!);
      const { verifyLoupeSignature } = (await import(pathToFileURL(path.join(dir, 'verify.mjs')).href)) as { verifyLoupeSignature: (secret: string, raw: Buffer, header: string) => boolean };
      // letters beyond ASCII in the body: the HMAC is over its bytes
      const res = await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _id: 'Café München ✓', _base64: '!!' }], webhook: { url: rx.url } } });
      expect(res.statusCode).toBe(201);
      for (let i = 0; i < 200 && !rx.calls.length; i++) await new Promise((r) => setTimeout(r, 50));
      const { raw, headers } = rx.calls[0]!;
      const header = String(headers['loupe-signature']);
      const secret = await h.app.loupe.requests.webhookSecret(h.account.account);
      const altered = Buffer.from(raw.toString().replace('"DONE"', '"DONe"'));
      const t = Number(/t=(\d+)/.exec(header)![1]);
      const cases: [string, string, Buffer, string, boolean][] = [
        ['as delivered', secret, raw, header, true],
        ['the body altered', secret, altered, header, false],
        ['the body parsed and written again', secret, Buffer.from(JSON.stringify(JSON.parse(raw.toString()), null, 1)), header, false],
        ['another secret', `${secret}x`, raw, header, false],
        ['its time moved', secret, raw, header.replace(`t=${t}`, `t=${t + 1}`), false],
        ['no time', secret, raw, header.replace(/t=\d+,/, ''), false],
        ['no header', secret, raw, '', false],
        // signed by the server's own code at another time: late is refused, within 5 minutes accepted
        ['signed 301 s ago', secret, raw, signWebhook(secret, raw.toString(), Date.now() - 301_000), false],
        ['signed 200 s ago', secret, raw, signWebhook(secret, raw.toString(), Date.now() - 200_000), true],
      ];
      for (const [name, key, body, sig, want] of cases) expect(verifyLoupeSignature(key, body, sig), `node: ${name}`).toBe(want);
      let python = true;
      try {
        execFileSync('python3', ['-c', 'pass']);
      } catch {
        python = false;
      }
      if (python) {
        await writeFile(path.join(dir, 'verify.py'), `${py!}\nimport sys\nprint(verify_loupe_signature(sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3]))\n`);
        for (const [i, [name, key, body, sig, want]] of cases.entries()) {
          await writeFile(path.join(dir, `body-${i}`), body);
          const said = execFileSync('python3', [path.join(dir, 'verify.py'), key, path.join(dir, `body-${i}`), sig], { encoding: 'utf8' }).trim();
          expect(said, `python: ${name}`).toBe(want ? 'True' : 'False');
        }
      }
    } finally {
      await rx.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("webhook: a receiver's answer is read up to 64 KiB, then its connection closed (h350: 200 MiB were read until the timeout cut them)", async () => {
    let written = 0;
    let heldMs = -1;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const began = Date.now();
        res.writeHead(200);
        const chunk = Buffer.alloc(1 << 20, 'x');
        const pump = () => {
          while (written < 256 << 20 && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (heldMs = Date.now() - began));
        pump();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const id = (await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], webhook: { url } } })).json().id as string;
      expect((await webhookIn(id, ['delivered', 'failed'])).webhook).toMatchObject({ state: 'delivered', attempts: 1 });
      for (let i = 0; i < 100 && heldMs < 0; i++) await new Promise((r) => setTimeout(r, 50));
      // closed long before the 2 s timeout, with what socket buffers hold written at most
      expect(heldMs).toBeGreaterThanOrEqual(0);
      expect(heldMs).toBeLessThan(1500);
      expect(written).toBeLessThan(32 << 20);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);


  it('webhook: a receiver that keeps failing ends as failed with its last error; a 410 Gone is not retried', async () => {
    const down = await receiver([500, 500, 500, 500, 500]);
    const gone = await receiver([410]);
    try {
      const submit = async (url: string) => (await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], webhook: { url } } })).json().id as string;
      const [a, b] = [await submit(down.url), await submit(gone.url)];
      const settle = (id: string) => webhookIn(id, ['failed', 'delivered']);
      expect((await settle(a)).webhook).toMatchObject({ state: 'failed', attempts: 4, last_error: 'the receiver answered HTTP 500' });
      // when it failed, for a reconciliation job (h180: only `modified`, which attempts do not move)
      expect((await settle(b)).webhook).toMatchObject({ state: 'failed', attempts: 1, last_error: 'the receiver answered HTTP 410', delivered: null, failed: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      expect(down.calls).toHaveLength(4);
      expect(gone.calls).toHaveLength(1);
      // the deliveries a receiver missed for good are found by their state (h149: only every request's detail said it)
      const listed = async (state: string) => ((await h.request('GET', `${base}/?webhook_state=${state}&page_size=100`)).json() as { results: { id: string }[] }).results.map((r) => r.id);
      expect(await listed('FAILED')).toEqual(expect.arrayContaining([a, b]));
      expect(await listed('delivered')).not.toContain(a);
      const lost = await h.request('GET', `${base}/?webhook_state=lost`);
      expect([lost.statusCode, lost.json().detail]).toEqual([400, expect.stringContaining('"waiting", "pending", "delivered", "failed"')]);
    } finally {
      await down.close();
      await gone.close();
    }
  }, 60_000);

  it('webhook sent again: a finished delivery to a new address with its headers, counted afresh; 404, 400 (h180; 409 while pending: the store test)', async () => {
    const gone = await receiver([410]);
    const moved = await receiver([]);
    try {
      const id = (await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], webhook: { url: gone.url, headers: { 'x-key': 'first' } } } })).json().id as string;
      const settle = (want: string) => webhookIn(id, [want]);
      await settle('failed');
      // a delivery a 410 ended after one POST is not sent again at once either (h262: the gap was delivered ones' only)
      const early = await h.request('POST', `${base}/${id}/webhook`, { body: { endpoint: moved.url, headers: { 'x-key': 'second' } } });
      expect([early.statusCode, early.json().code]).toEqual([429, 'rate_limited']);
      await new Promise((r) => setTimeout(r, 1600));
      const again = await h.request('POST', `${base}/${id}/webhook`, { body: { endpoint: moved.url, headers: { 'x-key': 'second' } } });
      expect(again.statusCode, again.body).toBe(200);
      // due at once: the dispatcher may have it (or be done with it) by the time the answer is read
      expect(again.json().webhook).toMatchObject({ url: moved.url, state: expect.stringMatching(/^(pending|delivered)$/), last_error: null });
      expect(again.json().webhook.attempts).toBeLessThanOrEqual(1);
      expect((await settle('delivered')).webhook).toMatchObject({ url: moved.url, attempts: 1 });
      expect(moved.calls).toHaveLength(1);
      expect(moved.calls[0]!.headers).toMatchObject({ 'x-key': 'second', 'loupe-delivery-attempt': '1', 'loupe-request-id': id });
      // delivered: sent again to the same address, without a body (the headers were dropped when it ended), once the
      // least gap after a delivery has passed (a free resend at once, again and again, was a relay of POSTs, h258)
      const soon = await h.request('POST', `${base}/${id}/webhook`);
      expect([soon.statusCode, soon.json().code, Number(soon.headers['retry-after'])]).toEqual([429, 'rate_limited', expect.any(Number)]);
      expect(Number(soon.headers['retry-after'])).toBeLessThanOrEqual(2);
      expect(moved.calls).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 1600));
      expect((await h.request('POST', `${base}/${id}/webhook`)).statusCode).toBe(200);
      await settle('delivered');
      for (let i = 0; i < 100 && moved.calls.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(moved.calls).toHaveLength(2);
      expect(moved.calls[1]!.headers['x-key']).toBeUndefined();
      expect(gone.calls).toHaveLength(1);
      const unknown = await h.request('POST', `${base}/${crypto.randomUUID()}/webhook`);
      expect(unknown.statusCode).toBe(404);
      const misspelt = await h.request('POST', `${base}/${id}/webhook`, { body: { endpoint: moved.url, header: { 'x-key': 'k' } } });
      expect([misspelt.statusCode, misspelt.json().detail]).toEqual([400, expect.stringContaining('unknown key "header"')]);
      // alone too (h186: it skipped the check and went out without the token)
      const alone = await h.request('POST', `${base}/${id}/webhook`, { body: { header: { 'x-key': 'k' } } });
      expect([alone.statusCode, alone.json().detail]).toEqual([400, expect.stringContaining('unknown key "header"')]);
      expect((await h.request('POST', `${base}/${id}/webhook`, { body: { method: 'GET' } })).statusCode).toBe(400);
      // the detail's webhook sent back as read: its delivery fields are ignored (h186)
      const read = (await h.request('GET', `${base}/${id}`)).json().webhook as Record<string, unknown>;
      const copied = await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], webhook: read } });
      expect(copied.statusCode, copied.body).toBe(201);
      const port0 = await h.request('POST', `${base}/${id}/webhook`, { body: { endpoint: 'http://127.0.0.1:0/h' } });
      expect([port0.statusCode, port0.json().detail]).toEqual([400, expect.stringContaining('port 0')]);
      // the body sent again is the webhook itself: its errors name its own keys, as `webhook` named nothing there (h315)
      const fieldOf = async (body: unknown) => ((await h.request('POST', `${base}/${id}/webhook`, { body })).json().errors as { field: string }[])[0]!.field;
      expect(await fieldOf({ endpoint: 'http://127.0.0.1:0/h' })).toBe('endpoint');
      expect(await fieldOf({ url: '../../etc/passwd' })).toBe('url');
      expect(await fieldOf({ url: moved.url, headers: { 'bad name': 'x' } })).toBe('headers');
      expect(await fieldOf({ header: { a: 'b' } })).toBe('header');
      expect(await fieldOf({ method: 'GET' })).toBe('method');
      // at submit too
      const atSubmit = await h.request('POST', `${base}/`, { body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], webhook: { url: moved.url, header: { a: 'b' } } } });
      expect([atSubmit.statusCode, atSubmit.json().detail]).toEqual([400, expect.stringContaining('unknown key "header"')]);
      expect(atSubmit.json().errors).toEqual([{ field: 'webhook', message: expect.stringContaining('unknown key "header"') }]);
    } finally {
      await gone.close();
      await moved.close();
    }
  }, 60_000);

  it("webhook resend (the CLI's): every delivery of the account that failed for good goes again, another account's not (h180)", async () => {
    const rx = await receiver([410, 410]);
    try {
      const mine = await h.newAccount();
      const other = await h.newAccount();
      const submit = async (token: string) => (await h.request('POST', `${base}/`, { token, body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], webhook: { url: rx.url } } })).json().id as string;
      const ids = [await submit(mine.token), await submit(mine.token)];
      const failedOf = async (token: string) => ((await h.request('GET', `${base}/?webhook_state=failed`, { token })).json() as { count: number }).count;
      for (let i = 0; i < 200 && (await failedOf(mine.token)) < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await failedOf(mine.token)).toBe(2);
      await submit(other.token);
      for (let i = 0; i < 200 && rx.calls.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
      const done = await h.app.loupe.requests.resendFailedWebhooks(mine.account);
      expect(done).toEqual({ resent: 2, not_resent: [] });
      for (let i = 0; i < 200 && rx.calls.length < 5; i++) await new Promise((r) => setTimeout(r, 50));
      expect(rx.calls.slice(3).map((c) => c.headers['loupe-request-id']).sort()).toEqual([...ids].sort());
      expect(await failedOf(mine.token)).toBe(0);
      expect(await h.app.loupe.requests.resendFailedWebhooks(mine.account)).toEqual({ resent: 0, not_resent: [] });
    } finally {
      await rx.close();
    }
  }, 60_000);

  it("the list's rows say each request's webhook_state as its filter names it, null without a webhook (h355)", async () => {
    const gone = await receiver([410, 410, 410, 410]);
    const ok = await receiver([]);
    try {
      const { token } = await h.newAccount();
      const submit = async (url?: string) => (await h.request('POST', `${base}/`, { token, body: { type: 'flows', endpoint: 'hash-and-faces', records: [{ _base64: '!!' }], ...(url ? { webhook: { url } } : {}) } })).json().id as string;
      const [none, failed, delivered, waiting, pending] = [await submit(), await submit(gone.url), await submit(ok.url), await submit(ok.url), await submit(ok.url)];
      await waitDone(h, none!, 60_000, token);
      const detail = async (id: string) => (await h.request('GET', `${base}/${id}`, { token })).json() as Detail;
      const settled = async (id: string, state: string) => {
        for (let i = 0; i < 200 && (await detail(id)).webhook?.state !== state; i++) await new Promise((r) => setTimeout(r, 50));
        expect((await detail(id)).webhook?.state).toBe(state);
      };
      await settled(failed!, 'failed');
      for (const id of [delivered!, waiting!, pending!]) await settled(id, 'delivered');
      // a request still running (held by a worker's lease for an hour) and a delivery waiting for its next try, as the
      // store keeps them: the queue cannot be paused between two states from outside
      const db = services().store.db;
      await db.updateTable('async_requests').set({ status: 'PROCESSING', lease_until: Date.now() + 3_600_000, webhook_state: null }).where('id', '=', waiting!).execute();
      await db.updateTable('async_requests').set({ webhook_state: 'pending', webhook_next_at: Date.now() + 3_600_000 }).where('id', '=', pending!).execute();
      const want: Record<string, string | null> = { [none!]: null, [failed!]: 'failed', [delivered!]: 'delivered', [waiting!]: 'waiting', [pending!]: 'pending' };
      const rows = async (query = '') => ((await h.request('GET', `${base}/?page_size=100${query}`, { token })).json() as { results: { id: string; webhook_state: string | null }[] }).results;
      expect(Object.fromEntries((await rows()).map((r) => [r.id, r.webhook_state]))).toEqual(want);
      for (const state of ['waiting', 'pending', 'delivered', 'failed']) {
        const found = await rows(`&webhook_state=${state}`);
        expect(found.map((r) => [r.id, r.webhook_state]), state).toEqual(Object.entries(want).filter(([, s]) => s === state));
      }
      // the detail says the same state
      for (const id of [failed!, delivered!, waiting!, pending!]) expect((await detail(id)).webhook?.state).toBe(want[id]);
      expect((await detail(none!)).webhook).toBeUndefined();
    } finally {
      await gone.close();
      await ok.close();
    }
  }, 60_000);

  it('retention: the sweeper deletes expired requests and their result media, and nothing younger', async () => {
    const { token } = await h.newAccount();
    const submitted = await h.request('POST', `${base}/`, { token, body: { type: 'upscaler', endpoint: 'upscale_2x', records: [{ _base64: await photo(24, 16, 'png') }] } });
    const upscaled = await waitDone(h, submitted.json().id as string, 120_000, token);
    const mediaUrl = new URL(upscaled.response!.records[0]!._upscaled_image_url as string);
    const mediaPath = mediaUrl.pathname + mediaUrl.search;
    expect((await h.app.inject({ method: 'GET', url: mediaPath })).statusCode).toBe(200);
    expect(await services().queue.sweep(Date.now() + 6 * 86_400_000)).toBe(0);
    // Every request of every account (other tests' too) is past seven days then.
    expect(await services().queue.sweep(Date.now() + 7 * 86_400_000 + 1000)).toBeGreaterThanOrEqual(1);
    expect((await h.request('GET', `${base}/`, { token })).json().count).toBe(0);
    expect((await h.request('GET', `${base}/`)).json().count).toBe(0);
    expect((await h.request('GET', `${base}/${upscaled.id}`)).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: mediaPath })).statusCode).toBe(404);
    const left = (await filesUnder(`${h.dataDir}/media`)).filter((f) => /\.(png|jpg)$/.test(f));
    expect(left).toHaveLength(0);
  });
});
