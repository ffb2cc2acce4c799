import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import type { Services } from '../../src/services/container.ts';
import { backupDataFolder } from '../../src/store/backup.ts';
import { mediaReferences } from '../../src/store/media-references.ts';
import { backends, filesUnder, startHarness, type Harness } from '../helpers/harness.ts';
import { photoPath } from '../helpers/photos.ts';
import { rememberVision } from '../helpers/vision-memo.ts';

const base = '/account/v2/request';
const cardPhoto = 'cards/read-416032719_901419734749956_6708327569765181669_n_jpg.rf.6fc7207f060c960502cef148cb233d25.jpg';
const gradePhoto = 'cards/single-1730719045_jpg.rf.1f3c834b3218eeabaaeb134c11f2a614.jpg';

type Preview = { index: number; _url: string; width: number; height: number };
type Detail = { id: string; status: string; response?: { records: Record<string, unknown>[] } };

/** A media link as handed out, signature included: the path the server answers it on. */
const linkPath = (url: string) => new URL(url).pathname + new URL(url).search;
/** The media key a link names (its file's name). */
const keyOf = (url: string) => path.basename(new URL(url).pathname);

/**
 * The card photo as a phone writes a photo held sideways: its pixels stored turned a quarter (960 × 720), EXIF
 * orientation 6 saying to turn them back. The result's boxes are in the photo as shown (720 × 960), and so must the
 * preview be.
 */
async function sidewaysPhoto(): Promise<string> {
  const turned = await sharp(photoPath(cardPhoto)).rotate(-90).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
  return turned.toString('base64');
}

describe.each(backends)('request previews (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 30_000, warm: [], embedder: '' }, queue: { workers: 2, pollMs: 200 } });
    await h.app.ready();
    rememberVision(h);
  });
  afterAll(() => h?.close());
  const services = () => h.app.loupe as unknown as Services;

  async function submitDone(body: Record<string, unknown>, token = h.account.token): Promise<Detail> {
    const res = await h.request('POST', `${base}/`, { token, body });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    for (let i = 0; i < 1200; i++) {
      const d = (await h.request('GET', `${base}/${id}`, { token })).json() as Detail;
      if (d.status === 'DONE') return d;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`request ${id} not done`);
  }
  const previewsOf = async (id: string, token: string | null = h.account.token, query = '') => h.request('GET', `${base}/${id}/previews${query}`, { token });
  const mediaKeys = async () => (await filesUnder(path.join(h.dataDir, 'media'))).map((f) => path.basename(f));

  it('a recognition request keeps a 512-px JPEG of each photo it read, sent as data too, at a signed link of its own route, scaled as its boxes are', async () => {
    const done = await submitDone({ type: 'collectibles-recognition', endpoint: 'card_ocr_id', records: [{ _id: 'sideways', _base64: await sidewaysPhoto() }, { _id: 'junk', _base64: 'bm90IGFuIGltYWdl' }] });
    const [card, junk] = done.response!.records as { _width: number; _height: number; _status: { code: number }; _objects: { bound_box: number[] }[] }[];
    expect(card!._status.code).toBe(200);
    expect([card!._width, card!._height]).toEqual([720, 960]);
    expect(junk!._status.code).toBe(400);
    // the detail (the spec's shape) says nothing of previews
    expect(JSON.stringify(done)).not.toMatch(/preview/i);

    const res = await previewsOf(done.id);
    expect(res.statusCode, res.body).toBe(200);
    const { previews } = res.json() as { previews: Preview[] };
    // the record whose data is no image has none
    expect(previews.map((p) => p.index)).toEqual([0]);
    const [p] = previews as [Preview];
    // the photo as shown (EXIF orientation applied): long edge 512, the boxes' scale on both axes
    expect([p.width, p.height]).toEqual([384, 512]);
    expect(Math.abs(p.width / card!._width - p.height / card!._height)).toBeLessThan(1 / p.height);
    // the card's box, scaled, lies inside the preview
    const [x0, y0, x1, y1] = card!._objects[0]!.bound_box as [number, number, number, number];
    const k = p.width / card!._width;
    expect(x0 >= 0 && y0 >= 0 && x1 > x0 && y1 > y0).toBe(true);
    expect([x1 * k <= p.width + 1, y1 * k <= p.height + 1]).toEqual([true, true]);
    // signed as every media link; served without the token; the JPEG it says
    expect(p._url).toMatch(/\/media\/[0-9a-f]{32}\.jpg\?expires=\d+&sig=[0-9a-f]{64}$/);
    const file = await h.app.inject({ method: 'GET', url: linkPath(p._url) });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(file.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 384, 512]);
    // its pixels are the photo turned upright, as shown: the original photo scaled to the same size (a preview left as
    // stored, turned a quarter, would differ everywhere)
    const upright = await sharp(photoPath(cardPhoto)).resize(384, 512).raw().toBuffer();
    const shown = await sharp(file.rawPayload).raw().toBuffer();
    let diff = 0;
    for (let i = 0; i < upright.length; i++) diff += Math.abs(upright[i]! - shown[i]!);
    expect(diff / upright.length).toBeLessThan(12);
    // an altered signature is no link
    expect((await h.app.inject({ method: 'GET', url: linkPath(p._url).replace(/sig=./, 'sig=0') })).statusCode).toBe(404);

    // `loupe media check` counts it, named as a preview, and a backup copies it
    const named = [];
    for await (const ref of mediaReferences(services().store)) if (ref.request === done.id) named.push(ref);
    expect(named).toEqual([{ key: keyOf(p._url), what: 'request preview', request: done.id }]);
    const audit = await services().mediaAudit();
    expect([audit.ok, audit.unnamed_files]).toEqual([true, 0]);
    if (backend === 'sqlite') {
      const to = path.join(os.tmpdir(), `loupe-preview-backup-${randomUUID()}`);
      try {
        await backupDataFolder(h.dataDir, to);
        expect((await filesUnder(path.join(to, 'media'))).map((f) => path.basename(f))).toContain(keyOf(p._url));
      } finally {
        await fs.rm(to, { recursive: true, force: true });
      }
    }
  }, 120_000);

  it('a grading request keeps its photo too; a slab endpoint too', async () => {
    const photo = (await fs.readFile(photoPath(gradePhoto))).toString('base64');
    const graded = await submitDone({ type: 'card-grader', endpoint: 'localize', records: [{ _base64: photo }] });
    const record = graded.response!.records[0] as { _width: number; _height: number; _status: { code: number } };
    expect(record._status.code).toBe(200);
    const { previews } = (await previewsOf(graded.id)).json() as { previews: Preview[] };
    // a photo smaller than 512 px is kept at its own size, never enlarged
    expect(previews).toEqual([{ index: 0, _url: expect.stringContaining('/media/'), width: record._width, height: record._height }]);
    expect(Math.max(record._width, record._height)).toBeLessThan(512);
    const slab = await submitDone({ type: 'collectibles-recognition', endpoint: 'slab_id', records: [{ _id: 'no label', _base64: photo }] });
    expect(((await previewsOf(slab.id)).json() as { previews: Preview[] }).previews.map((p) => p.index)).toEqual([0]);
  }, 120_000);

  it("is found as the request's detail is: the account's other workspace too; another account's, unknown or no id is 404", async () => {
    const acc = await h.newAccount();
    const { workspace: second } = await h.app.loupe.accounts.addWorkspace(acc.account, 'second shop');
    const photo = (await fs.readFile(photoPath(gradePhoto))).toString('base64');
    const done = await submitDone({ type: 'card-grader', endpoint: 'localize', records: [{ _base64: photo }] }, acc.token);
    expect(((await previewsOf(done.id, acc.token)).json() as { previews: Preview[] }).previews).toHaveLength(1);
    // detail and previews alike, in each workspace of the account
    expect((await h.request('GET', `${base}/${done.id}?workspace=${second}`, { token: acc.token })).statusCode).toBe(200);
    expect((await previewsOf(done.id, acc.token, `?workspace=${second}`)).statusCode).toBe(200);
    // another account (its default workspace or one it names) sees nothing: the same 404 as an unknown id
    for (const res of [await previewsOf(done.id), await previewsOf(done.id, h.account.token, `?workspace=${second}`), await previewsOf(randomUUID(), acc.token), await previewsOf('not-a-uuid', acc.token)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    expect((await previewsOf(done.id, null)).statusCode).toBe(401);
  }, 120_000);

  it('goes with its request: a delete, the account erasure, the retention sweep', async () => {
    const photo = (await fs.readFile(photoPath(gradePhoto))).toString('base64');
    const made = async (token: string) => {
      const done = await submitDone({ type: 'collectibles-recognition', endpoint: 'card_ocr_id', records: [{ _base64: photo }] }, token);
      const [p] = ((await previewsOf(done.id, token)).json() as { previews: Preview[] }).previews;
      expect(await mediaKeys()).toContain(keyOf(p!._url));
      return { id: done.id, url: p!._url };
    };
    const gone = async (url: string) => {
      expect(await mediaKeys()).not.toContain(keyOf(url));
      expect((await h.app.inject({ method: 'GET', url: linkPath(url) })).statusCode).toBe(404);
    };

    // `loupe request delete`
    const deleted = await made(h.account.token);
    expect((await services().deleteRequest(deleted.id)).files).toBe(1);
    await gone(deleted.url);

    // `loupe account delete`
    const erased = await h.newAccount();
    const ofErased = await made(erased.token);
    await services().erasure.erase(erased.account);
    await gone(ofErased.url);

    // seven days on: every request of every account is past its retention
    const kept = await made(h.account.token);
    expect(await services().queue.sweep(Date.now() + 6 * 86_400_000)).toBe(0);
    await expect(mediaKeys()).resolves.toContain(keyOf(kept.url));
    expect(await services().queue.sweep(Date.now() + 7 * 86_400_000 + 1000)).toBeGreaterThanOrEqual(1);
    await gone(kept.url);
    expect((await previewsOf(kept.id)).statusCode).toBe(404);
  }, 180_000);
});

describe('LOUPE_REQUEST_PREVIEWS', () => {
  it('is on by default at 512 px; off (0, false, no) keeps none', () => {
    expect(loadConfig({}).queue.previewEdge).toBe(512);
    expect(loadConfig({ LOUPE_REQUEST_PREVIEWS: 'on' }).queue.previewEdge).toBe(512);
    for (const off of ['off', '0', 'false', 'no']) expect(loadConfig({ LOUPE_REQUEST_PREVIEWS: off }).queue.previewEdge).toBe(0);
    expect(() => loadConfig({ LOUPE_REQUEST_PREVIEWS: 'maybe' })).toThrow(/LOUPE_REQUEST_PREVIEWS/);
  });

  it.each(backends)('off: a finished request has no preview and leaves no file beside its result (%s)', async (backend) => {
    const h = await startHarness(backend, { vision: { threads: 1, maxQueue: 24, taskTimeoutMs: 30_000, warm: [], embedder: '' }, queue: { workers: 1, pollMs: 200, previewEdge: 0 } });
    try {
      await h.app.ready();
      const photo = (await fs.readFile(photoPath(gradePhoto))).toString('base64');
      const sent = await h.request('POST', `${base}/`, { body: { type: 'card-grader', endpoint: 'centering', records: [{ _base64: photo }] } });
      const id = sent.json().id as string;
      let detail: Detail | undefined;
      for (let i = 0; i < 1200 && detail?.status !== 'DONE'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        detail = (await h.request('GET', `${base}/${id}`)).json() as Detail;
      }
      expect(detail!.response!.records[0]!._status).toMatchObject({ code: 200 });
      expect((await h.request('GET', `${base}/${id}/previews`)).json()).toEqual({ previews: [] });
      // centering's own two pictures (clean and exact), and nothing more
      const links = JSON.stringify(detail!.response).match(/\/media\/[0-9a-f]{32}\.jpg/g) ?? [];
      expect(links).toHaveLength(2);
      expect((await filesUnder(path.join(h.dataDir, 'media'))).filter((f) => f.endsWith('.jpg'))).toHaveLength(2);
    } finally {
      await h.close();
    }
  }, 120_000);
});
