import path from 'node:path';
import sharp from 'sharp';
import { pngBomb } from '../../helpers/images.ts';
import { photoBytes } from '../../helpers/photos.ts';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, createSession, cs, filesUnder, startHarness, type Harness } from '../../helpers/harness.ts';
import { CardSessionStore } from '../../../src/store/card-session-store.ts';
import type { Services } from '../../../src/services/container.ts';
import { existingMediaSecret, MediaLinks } from '../../../src/media/media-links.ts';
import type { MediaStore } from '../../../src/media/media-store.ts';

/** A photo-like test image: smooth gradients plus noise, so JPEG sizes are realistic. */
async function photo(width: number, height: number, format: 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' = 'jpeg', orientation?: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = (x * y) % 251;
    }
  }
  let img = sharp(raw, { raw: { width, height, channels: 3 } });
  if (orientation) img = img.withMetadata({ orientation });
  return img.toFormat(format).toBuffer();
}


describe.each(backends)('card images (%s)', (backend) => {
  let h: Harness;
  let mediaDir: string;
  beforeAll(async () => {
    h = await startHarness(backend, { limits: { imageBodyBytes: 4 * 1024 * 1024 } as never });
    mediaDir = path.join(h.dataDir, 'media');
  });
  afterAll(async () => h?.close());

  const attach = (sid: string, event_id: string, image: string) => h.request('POST', cs(`session/${sid}/images/`), { body: { event_id, image } });
  const withCard = async (event_id = 'c1') => {
    const sid = await createSession(h);
    await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: [{ event_id, name: 'Pikachu' }] } });
    return sid;
  };
  /** The link as handed out, signature included (test/http/media-links.test.ts covers the signing). */
  const fetchUrl = (url: string) => h.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });

  it('stores a large JPEG scaled to 1024 px plus a thumbnail, served without the token at unguessable URLs', async () => {
    const sid = await withCard();
    const jpeg = await photo(2000, 1500);
    const res = await attach(sid, 'c1', jpeg.toString('base64'));
    expect(res.statusCode, res.body).toBe(200);
    const row = res.json();
    expect(row).toMatchObject({ event_id: 'c1', name: 'Pikachu' });
    expect(row.image).toMatch(/^http:\/\/localhost(:\d+)?\/media\/[0-9a-f]{32}\.jpg\?expires=\d+&sig=[0-9a-f]{64}$/);
    expect(row.thumbnail).toMatch(/^http:\/\/localhost(:\d+)?\/media\/[0-9a-f]{32}\.jpg\?expires=\d+&sig=[0-9a-f]{64}$/);

    const image = await fetchUrl(row.image);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(image.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 768]);
    const thumb = await sharp((await fetchUrl(row.thumbnail)).rawPayload).metadata();
    expect(Math.max(thumb.width!, thumb.height!)).toBe(256);

    const listed = (await h.request('GET', cs(`identification/?session=${sid}&event_id=c1`))).json().results[0];
    expect(listed.image).toBe(row.image);
    expect((await h.app.inject({ method: 'GET', url: '/media/00000000000000000000000000000000.jpg' })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: '/media/..%2F..%2Floupe.db' })).statusCode).toBe(404);
  });

  it("takes the card's etag as If-Match: a stale one is 412 with nothing stored, a retry of the stored image still 200 (h241)", async () => {
    const sid = await withCard();
    const send = (image: Buffer, ifMatch: string) => h.request('POST', cs(`session/${sid}/images/`), { headers: { 'if-match': ifMatch }, body: { event_id: 'c1', image: image.toString('base64') } });
    const row = (await h.request('GET', cs(`identification/?session=${sid}&event_id=c1`))).json().results[0];
    const first = await photo(300, 400);
    const stored = await send(first, row.etag);
    expect(stored.statusCode, stored.body).toBe(200);
    // the same image again with the version it was sent against: a retry, answered as stored
    expect((await send(first, row.etag)).statusCode).toBe(200);
    const files = (await filesUnder(mediaDir)).length;
    const other = await photo(320, 420, 'png');
    const stale = await send(other, row.etag);
    expect([stale.statusCode, stale.json().code]).toEqual([412, 'precondition_failed']);
    expect((await filesUnder(mediaDir)).length).toBe(files);
    expect((await h.request('GET', cs(`identification/?session=${sid}&event_id=c1`))).json().results[0].image).toBe(stored.json().image);
    // the answer's ETag header is the row's new version, as a PATCH answers it (h259: only the body had it)
    expect(stored.headers.etag).toBe(stored.json().etag);
    const again = await send(other, stored.headers.etag as string);
    expect([again.statusCode, again.headers.etag]).toEqual([200, again.json().etag]);
    expect((await send(await photo(310, 410, 'webp'), '*')).statusCode).toBe(200);
  });

  it("reads its own image links sent back as _url from its media folder (h259: the server's loopback address was refused, the phone uploaded the photo twice)", async () => {
    const sid = await withCard();
    const row = (await attach(sid, 'c1', (await photo(1200, 900)).toString('base64'))).json();
    const hash = (url: string) => h.request('POST', '/image_matching/v2/visual_hash', { body: { records: [{ _url: url }] } });
    const own = (await hash(row.image)).json().records[0];
    expect(own).toMatchObject({ _status: { code: 200 }, _width: 1024, _height: 768 });
    // a link of another host with our signature is ours too (the server reached by its LAN address)
    const lan = new URL(row.image);
    lan.host = '192.168.1.20:8080';
    expect((await hash(lan.toString())).json().records[0]._status.code).toBe(200);
    // an altered or unsigned link is any URL (its signature's first digit changed: a signature starting 0 was left as
    // it was one time in sixteen, CI): fetched, and so refused here as a loopback address
    for (const bad of [row.image.replace(/sig=([0-9a-f])/, (_m: string, c: string) => `sig=${c === '0' ? '1' : '0'}`), row.image.split('?')[0]]) {
      const refused = (await hash(bad)).json().records[0];
      expect(refused._status, bad).toMatchObject({ code: 400, text: expect.stringMatching(/loopback/) });
    }
    // ours and signed, but past its time: said so, not "a loopback address" (h262)
    const { secret } = (await existingMediaSecret(h.dataDir, h.config.media.secret))!;
    const stale = new MediaLinks(secret, { privateS: 60, publicS: 60 }, () => Date.now() - 7_200_000).url('http://localhost', new URL(row.image).pathname.split('/').pop()!);
    expect((await hash(stale)).json().records[0]._status).toMatchObject({ code: 400, text: expect.stringContaining("this server's media link has expired") });
    // a last segment that is no key (a bad escape) is any URL: fetched (h262: it threw before the fetch)
    expect((await hash('http://127.0.0.1:9/media/caf%E9.jpg')).json().records[0]._status.text).toMatch(/loopback/);
    // a deleted card's image is no longer there to read
    const cardId = (await h.request('GET', cs(`identification/?session=${sid}&event_id=c1`))).json().results[0].id;
    expect((await h.request('DELETE', cs(`identification/${cardId}/`))).statusCode).toBe(204);
    expect((await hash(row.image)).json().records[0]._status.code).toBe(400);
  });

  it('keeps a small original byte for byte; accepts PNG, WebP and a data: prefix', async () => {
    const sid = await withCard();
    const png = await photo(600, 800, 'png');
    const res = await attach(sid, 'c1', `data:image/png;base64,${png.toString('base64')}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(new URL(res.json().image).pathname).toMatch(/\.png$/);
    const stored = await fetchUrl(res.json().image);
    expect(Buffer.compare(stored.rawPayload, png)).toBe(0);
    expect(stored.headers['content-type']).toBe('image/png');

    const webp = await photo(300, 200, 'webp');
    const w = await attach(sid, 'c1', webp.toString('base64'));
    expect(w.statusCode).toBe(200);
    expect(new URL(w.json().image).pathname).toMatch(/\.webp$/);
  });

  it('applies EXIF orientation when storing', async () => {
    const sid = await withCard();
    const res = await attach(sid, 'c1', (await photo(300, 200, 'jpeg', 6)).toString('base64'));
    expect(res.statusCode).toBe(200);
    const meta = await sharp((await fetchUrl(res.json().image)).rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([200, 300]);
  });

  it('replacing an image removes the old files; deleting the session leaves no file', async () => {
    const sid = await withCard('r1');
    await h.request('POST', cs(`session/${sid}/identifications/`), { body: { identifications: [{ event_id: 'r2' }] } });
    const before = new Set(await filesUnder(mediaDir));
    const first = (await attach(sid, 'r1', (await photo(400, 300)).toString('base64'))).json();
    await attach(sid, 'r2', (await photo(300, 400)).toString('base64'));
    const afterFirst = (await filesUnder(mediaDir)).filter((f) => !before.has(f));
    expect(afterFirst).toHaveLength(4);

    const second = (await attach(sid, 'r1', (await photo(500, 300)).toString('base64'))).json();
    expect(second.image).not.toBe(first.image);
    expect((await fetchUrl(first.image)).statusCode).toBe(404);
    expect((await fetchUrl(first.thumbnail)).statusCode).toBe(404);
    expect((await fetchUrl(second.image)).statusCode).toBe(200);
    expect((await filesUnder(mediaDir)).filter((f) => !before.has(f))).toHaveLength(4);
    // The answer's updated_at is the write it made, as the row now reads.
    expect(second.updated_at > first.updated_at).toBe(true);
    const row = (await h.request('GET', cs(`identification/?session=${sid}&event_id=r1`))).json().results[0];
    expect(Date.parse(row.updated_at)).toBe(Date.parse(second.updated_at));

    expect((await h.request('DELETE', cs(`session/${sid}/`))).statusCode).toBe(204);
    expect((await filesUnder(mediaDir)).filter((f) => !before.has(f))).toEqual([]);
    expect((await fetchUrl(second.image)).statusCode).toBe(404);
    // the files went and so did their entries: the sweep is left nothing to remove a second time
    const services = h.app.loupe as unknown as Services;
    const due = await services.store.db.selectFrom('media_deletions').select('key').where('due', '<=', Date.now()).execute();
    expect(due).toEqual([]);
  });

  it("a session's files outlive no process stopped between its rows' delete and its files': the queue's sweep removes them", async () => {
    const sid = await withCard('k1');
    const before = new Set(await filesUnder(mediaDir));
    await attach(sid, 'k1', (await photo(400, 300)).toString('base64'));
    expect((await filesUnder(mediaDir)).filter((f) => !before.has(f))).toHaveLength(2);
    // the rows deleted and committed, the process gone before it removed the files (a kill -9 left them for good)
    const services = h.app.loupe as unknown as Services;
    expect(await CardSessionStore.of(services.store).deleteSession(sid, h.account.workspace)).toHaveLength(2);
    expect((await filesUnder(mediaDir)).filter((f) => !before.has(f))).toHaveLength(2);
    await services.queue.sweep(Date.now());
    expect((await filesUnder(mediaDir)).filter((f) => !before.has(f))).toEqual([]);
  });

  it("a session deleted while a file of it cannot be removed (a read-only disk) is deleted, 204: the file is the sweep's (h221: 503 'nothing was stored')", async () => {
    const sid = await withCard('ro1');
    const before = new Set(await filesUnder(mediaDir));
    await attach(sid, 'ro1', (await photo(400, 300)).toString('base64'));
    const made = (await filesUnder(mediaDir)).filter((f) => !before.has(f));
    expect(made).toHaveLength(2);
    // a directory where the image was: its unlink fails (EISDIR), as a read-only disk's does (EROFS)
    const stuck = made[0]!;
    await fs.promises.rm(stuck);
    await fs.promises.mkdir(path.join(stuck, 'x'), { recursive: true });
    expect((await h.request('DELETE', cs(`session/${sid}/`))).statusCode).toBe(204);
    expect((await h.request('DELETE', cs(`session/${sid}/`))).statusCode).toBe(404);
    // its entry stays for the sweep, which tries again later and holds back nothing after it
    const services = h.app.loupe as unknown as Services;
    const pending = async () => (await services.store.db.selectFrom('media_deletions').select(['key', 'due']).execute()).filter((r) => stuck.endsWith(r.key.split('/').pop()!));
    expect(await pending()).toHaveLength(1);
    await services.queue.sweep(Date.now());
    expect((await pending())[0]!.due).toBeGreaterThan(Date.now());
    // once it can be, it is
    await fs.promises.rm(stuck, { recursive: true });
    await fs.promises.writeFile(stuck, 'x');
    await services.queue.sweep(Date.now() + 24 * 3_600_000);
    expect(await pending()).toEqual([]);
    expect(await filesUnder(mediaDir)).not.toContain(stuck);
  });

  it("an image written for a row that never committed is removed by the sweep once due; a committed one never is", async () => {
    const sid = await withCard('w1');
    const attached = (await attach(sid, 'w1', (await photo(400, 300)).toString('base64'))).json();
    const services = h.app.loupe as unknown as Services;
    // as the service writes one, and a process killed before its transaction committed leaves it
    const store = CardSessionStore.of(services.store);
    const media = (services as unknown as { cardSessions: { media: MediaStore } }).cardSessions.media;
    const orphan = media.newKey('jpg');
    await store.intendMedia([orphan]);
    await media.write(orphan, Buffer.from('jpeg bytes'));
    const has = async (key: string) => (await filesUnder(mediaDir)).some((f) => f.endsWith(key));
    await services.queue.sweep(Date.now());
    expect(await has(orphan)).toBe(true);
    // a write killed between its part and the rename leaves `<file>.<pid>.tmp` beside the key's place
    const cut = media.newKey('jpg');
    await store.intendMedia([cut]);
    await media.write(cut, Buffer.from('jpeg bytes'));
    const written = (await filesUnder(mediaDir)).find((f) => f.endsWith(cut))!;
    await fs.promises.rename(written, `${written}.99999.tmp`);
    expect((await filesUnder(mediaDir)).some((f) => f.endsWith(`${cut}.99999.tmp`))).toBe(true);
    await services.queue.sweep(Date.now() + 2 * 3_600_000);
    expect(await has(orphan)).toBe(false);
    expect((await filesUnder(mediaDir)).filter((f) => f.includes(cut))).toEqual([]);
    // the attached image and thumbnail were kept by the transaction that named them
    expect((await fetchUrl(attached.image)).statusCode).toBe(200);
    expect((await fetchUrl(attached.thumbnail)).statusCode).toBe(200);
  });

  it('the same image sent again, one after the other or two at once, keeps the links already answered working; another image replaces it', async () => {
    const sid = await withCard('s1');
    const jpeg = (await photo(300, 200)).toString('base64');
    const first = (await attach(sid, 's1', jpeg)).json();
    const again = (await attach(sid, 's1', jpeg)).json();
    const key = (url: string) => new URL(url).pathname;
    expect(key(again.image)).toBe(key(first.image));
    expect(again.updated_at).toBe(first.updated_at);
    expect((await fetchUrl(first.image)).statusCode).toBe(200);
    // a file of it lost (a disk restored without it): the same image sent again writes both again
    const thumbFile = path.join(mediaDir, key(first.thumbnail).split('/').pop()!.slice(0, 2), key(first.thumbnail).split('/').pop()!);
    fs.rmSync(thumbFile);
    const mended = (await attach(sid, 's1', jpeg)).json();
    expect((await fetchUrl(mended.thumbnail)).statusCode).toBe(200);
    expect((await fetchUrl(mended.image)).statusCode).toBe(200);
    // two phones at once, with an image the row does not have yet
    const other = (await photo(320, 200)).toString('base64');
    const both = await Promise.all([attach(sid, 's1', other), attach(sid, 's1', other)]);
    for (const res of both) {
      expect(res.statusCode).toBe(200);
      expect((await fetchUrl(res.json().image)).statusCode, 'a link an upload answered').toBe(200);
      expect((await fetchUrl(res.json().thumbnail)).statusCode).toBe(200);
    }
    expect((await fetchUrl(mended.image)).statusCode, 'the image replaced').toBe(404);
    const row = (await h.request('GET', cs(`identification/?session=${sid}&event_id=s1`))).json().results[0];
    expect(both.map((r) => key(r.json().image))).toContain(key(row.image));
  });

  it('a late retry of an older image, after a newer one, leaves the newer one (it replaced it, h81); a new image still replaces', async () => {
    const sid = await withCard('late-img');
    const a = (await photo(300, 200)).toString('base64');
    const b = (await photo(320, 240)).toString('base64');
    const c = (await photo(340, 260)).toString('base64');
    const key = (url: string) => new URL(url).pathname;
    await attach(sid, 'late-img', a);
    const second = (await attach(sid, 'late-img', b)).json();
    const late = await attach(sid, 'late-img', a);
    expect(late.statusCode).toBe(200);
    expect(key(late.json().image)).toBe(key(second.image));
    const row = (await h.request('GET', cs(`identification/?session=${sid}&event_id=late-img`))).json().results[0];
    expect(key(row.image)).toBe(key(second.image));
    expect((await fetchUrl(row.image)).statusCode).toBe(200);
    const third = (await attach(sid, 'late-img', c)).json();
    expect(key(third.image)).not.toBe(key(second.image));
    // b, no longer shown, is an earlier send now: its late retry changes nothing either
    expect(key((await attach(sid, 'late-img', b)).json().image)).toBe(key(third.image));
  });

  it.each(['ENOSPC', 'EFBIG'])('a full disk (%s; EFBIG a file-size limit, a 500 until the thirty-eighth session) is a 503 storage_full with Retry-After, and stores nothing (a plain 500 before)', async (code) => {
    const sid = await withCard(`f1-${code}`);
    const before = new Set(await filesUnder(mediaDir));
    // media files are written through a file handle (flushed before their rename): its write fails
    const probe = await fs.promises.open(path.join(h.dataDir, 'probe'), 'w');
    const handle = Object.getPrototypeOf(probe) as { writeFile(data: Buffer): Promise<void> };
    await probe.close();
    const full = vi.spyOn(handle, 'writeFile').mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code }));
    try {
      const res = await attach(sid, `f1-${code}`, (await photo(300, 200)).toString('base64'));
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'storage_full' });
      expect(res.headers['retry-after']).toBe('60');
    } finally {
      full.mockRestore();
    }
    expect((await filesUnder(mediaDir)).filter((f) => !before.has(f))).toEqual([]);
    const row = (await h.request('GET', cs(`identification/?session=${sid}&event_id=f1-${code}`))).json().results[0];
    expect(row.image).toBeNull();
  });

  it('attaches to a closed session (the card is already there) and 404s for an unknown event_id', async () => {
    const sid = await withCard();
    await h.request('POST', cs(`session/${sid}/close/`));
    const jpeg = (await photo(100, 140)).toString('base64');
    expect((await attach(sid, 'c1', jpeg)).statusCode).toBe(200);
    const missing = await attach(sid, 'nope', jpeg);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toContain('nope');
  });

  it("stores an iPhone's HEIC photo (and an AVIF) as JPEG, since browsers show few of them", async () => {
    const sid = await withCard();
    const heic = photoBytes('cards/single-1730719045.heic');
    const res = await attach(sid, 'c1', heic.toString('base64'));
    expect(res.statusCode, res.body).toBe(200);
    const image = await fetchUrl(res.json().image);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect(await sharp(image.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 310, height: 430 });
    expect((await sharp((await fetchUrl(res.json().thumbnail)).rawPayload).metadata()).format).toBe('jpeg');
    const avif = await sharp(await photo(400, 300)).avif().toBuffer();
    const stored = await fetchUrl((await attach(sid, 'c1', avif.toString('base64'))).json().image);
    expect(await sharp(stored.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 400, height: 300 });
    // a cut HEIC is refused, storing nothing
    const before = await filesUnder(mediaDir);
    const cut = await attach(sid, 'c1', heic.subarray(0, heic.length >> 1).toString('base64'));
    expect([cut.statusCode, cut.json().code]).toEqual([400, 'invalid_image']);
    expect(await filesUnder(mediaDir)).toEqual(before);
  });

  describe('rejects what is not a usable image, storing nothing', () => {
    const cases: Array<[string, () => Promise<string>, number, string]> = [
      ['broken base64', async () => 'this is not base64!!', 400, 'invalid_base64'],
      ['text that is valid base64', async () => Buffer.from('hello, I am not an image at all').toString('base64'), 400, 'invalid_image'],
      ['a truncated JPEG', async () => (await photo(400, 300)).subarray(0, 2000).toString('base64'), 400, 'invalid_image'],
      ['a GIF', async () => (await photo(50, 50, 'gif')).toString('base64'), 400, 'unsupported_image_format'],
      ['a TIFF', async () => (await photo(50, 50, 'tiff')).toString('base64'), 400, 'unsupported_image_format'],
      // refused for its format whatever size it declares (a large one was answered as too many pixels)
      ['an SVG declaring 100000 x 100000', async () => Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>').toString('base64'), 400, 'unsupported_image_format'],
      ['a decompression bomb (PNG claiming 100000 x 100000)', async () => pngBomb(100_000, 100_000).toString('base64'), 413, 'image_too_large'],
      ['an empty string of spaces', async () => '   ', 400, 'invalid_image'],
    ];
    it.each(cases)('%s', async (_label, make, status, code) => {
      const sid = await withCard();
      const before = await filesUnder(mediaDir);
      const res = await attach(sid, 'c1', await make());
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().code).toBe(code);
      expect(res.json().detail).toMatch(/^Error Loading Image: /);
      // the body's one image field named, as every other field's 400 names its field (h315: no errors at all)
      expect(res.json().errors).toEqual([{ field: 'image', message: res.json().detail.replace(/^Error Loading Image: /, '') }]);
      expect(await filesUnder(mediaDir)).toEqual(before);
      expect((await h.request('GET', cs(`identification/?session=${sid}`))).json().results[0].image).toBeNull();
    });

    it('a body over the image body limit is 413', async () => {
      const sid = await withCard();
      const res = await attach(sid, 'c1', 'A'.repeat(5 * 1024 * 1024));
      expect(res.statusCode).toBe(413);
      expect(res.json().code).toBe('body_too_large');
    });
  });
});
