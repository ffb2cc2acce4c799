import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, filesUnder, startTinyClipHarness, type Harness } from '../helpers/harness.ts';
import { photoBase64, photoBytes } from '../helpers/photos.ts';
import type { Services } from '../../src/services/container.ts';

const photo = (cls: string, n: number) => `caltech101/${cls}/image_${String(n).padStart(4, '0')}.jpg`;
/** The committed photos are 192 px across; a phone's photo is far larger than the thumbnail. */
const large = async (rel: string) => (await sharp(photoBytes(rel)).resize({ width: 900 }).jpeg({ quality: 90 }).toBuffer()).toString('base64');
type Body = { status: { code: number; text: string }; answer_records: Record<string, unknown>[]; skipped_records?: Record<string, unknown>[]; deleted_count?: number };

/**
 * Collection records keep a 256-px JPEG thumbnail of the image they were inserted or last updated with, in the media
 * folder, served through signed links by the `thumbnails` method (h357: a record sent as _base64 kept no picture, and the
 * console's search showed "no stored image").
 */
describe.each(backends)('collection record thumbnails (%s)', (backend) => {
  let h: Harness;
  let off: Harness;
  const base = '/similarity/photos/v2';
  beforeAll(async () => {
    // the tiny CLIP pack makes descriptors in well under a millisecond: the decode, the thumbnail and the stores are real
    [h, off] = await Promise.all([startTinyClipHarness(backend), startTinyClipHarness(backend, { recordThumbnails: false })]);
  }, 60_000);
  afterAll(async () => Promise.all([h?.close(), off?.close()]));

  const newCollection = async (on: Harness) => {
    const { account, token } = await on.newAccount();
    const { id } = await on.app.loupe.collections.create({ accountId: account, type: 'photo', name: 'shop' });
    const call = async (method: string, body: unknown) => {
      const res = await on.request('POST', `${base}/${method}`, { body, headers: { 'collection-id': id }, token });
      return res.json() as Body;
    };
    return { id, call };
  };
  const thumbnailOf = async (call: (m: string, b: unknown) => Promise<Body>, _id: string) => {
    const answer = await call('thumbnails', { records: [{ _id }] });
    expect(answer.status.code).toBe(205);
    return answer.answer_records[0]!._thumbnail as string | null;
  };
  const fetchUrl = (on: Harness, url: string) => on.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });
  const mediaFiles = (on: Harness) => filesUnder(path.join(on.dataDir, 'media'));
  const services = () => h.app.loupe as unknown as Services;

  it('a record inserted by _base64 has a signed link to a JPEG of long edge 256 px; an update with a new image replaces it; a delete removes it', async () => {
    const { call } = await newCollection(h);
    const before = (await mediaFiles(h)).length;
    expect((await call('insert', { records: [{ _id: 'leo', _base64: await large(photo('Leopards', 1)) }, { _id: 'plane', _base64: photoBase64(photo('airplanes', 1)) }] })).status.code).toBe(210);
    expect((await mediaFiles(h)).length).toBe(before + 2);
    const link = await thumbnailOf(call, 'leo');
    expect(link).toMatch(/^http:\/\/localhost(:\d+)?\/media\/[0-9a-f]{32}\.jpg\?expires=\d+&sig=[0-9a-f]{64}$/);
    const served = await fetchUrl(h, link!);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    const thumb = await sharp(served.rawPayload).metadata();
    const original = await sharp(photoBytes(photo('Leopards', 1))).metadata();
    expect(thumb.format).toBe('jpeg');
    expect(Math.max(thumb.width!, thumb.height!)).toBe(256);
    // the photo's shape kept
    expect(Math.abs(thumb.width! / thumb.height! - original.width! / original.height!)).toBeLessThan(0.02);
    // an unknown _id is skipped as get skips it; a bare key without its signature is 404
    const mixed = await call('thumbnails', { records: [{ _id: 'leo' }, { _id: 'nobody' }] });
    expect(mixed.status.code).toBe(206);
    expect(mixed.skipped_records).toHaveLength(1);
    expect((await h.app.inject({ method: 'GET', url: new URL(link!).pathname })).statusCode).toBe(404);

    // an update with a new image: a new file, the old one gone at once
    expect((await call('update', { records: [{ _id: 'leo', _base64: await large(photo('watch', 1)) }] })).status.code).toBe(205);
    const replaced = await thumbnailOf(call, 'leo');
    expect(replaced).not.toBe(link);
    expect((await fetchUrl(h, link!)).statusCode).toBe(404);
    const watch = await sharp((await fetchUrl(h, replaced!)).rawPayload).metadata();
    const watchOriginal = await sharp(photoBytes(photo('watch', 1))).metadata();
    expect(Math.max(watch.width!, watch.height!)).toBe(256);
    expect(Math.abs(watch.width! / watch.height! - watchOriginal.width! / watchOriginal.height!)).toBeLessThan(0.02);
    expect((await mediaFiles(h)).length).toBe(before + 2);
    // an update of its fields alone keeps the picture
    expect((await call('update', { records: [{ _id: 'leo', price: 3 }] })).status.code).toBe(205);
    expect(await thumbnailOf(call, 'leo')).toBe(replaced);

    // deleting the records takes their files; the media check finds nothing amiss
    expect((await call('delete', { records: [{ _id: 'leo' }] })).status.code).toBe(220);
    expect((await fetchUrl(h, replaced!)).statusCode).toBe(404);
    expect((await call('deleteByFilter', { filter: { _id: 'plane' } })).deleted_count).toBe(1);
    expect((await mediaFiles(h)).length).toBe(before);
    const audit = await services().mediaAudit();
    expect(audit).toMatchObject({ ok: true, unnamed_files: 0 });
  });

  it("deleting a collection removes its records' thumbnails; the media check counts them while they are there", async () => {
    const { id, call } = await newCollection(h);
    const before = (await mediaFiles(h)).length;
    const checked = (await services().mediaAudit()).checked;
    expect((await call('insert', { records: ['buddha', 'cannon', 'watch'].map((cls) => ({ _id: cls, _base64: photoBase64(photo(cls, 1)) })) })).status.code).toBe(210);
    expect((await mediaFiles(h)).length).toBe(before + 3);
    expect(await services().mediaAudit()).toMatchObject({ ok: true, checked: checked + 3, unnamed_files: 0 });
    const link = await thumbnailOf(call, 'cannon');
    expect(await h.app.loupe.collections.delete(id)).toEqual({ deleted: id, files: 3 });
    expect((await fetchUrl(h, link!)).statusCode).toBe(404);
    expect((await mediaFiles(h)).length).toBe(before);
    const pending = await services().store.db.selectFrom('media_deletions').select('key').execute();
    expect(pending.filter((p) => link!.includes(p.key))).toEqual([]);
  });

  it('a record refused at insert (its _id stored already) leaves no file', async () => {
    const { call } = await newCollection(h);
    expect((await call('insert', { records: [{ _id: 'x', _base64: photoBase64(photo('buddha', 1)) }] })).status.code).toBe(210);
    const files = (await mediaFiles(h)).length;
    expect((await call('insert', { records: [{ _id: 'x', _base64: photoBase64(photo('buddha', 2)) }] })).status.code).toBe(411);
    expect((await mediaFiles(h)).length).toBe(files);
  });

  it('LOUPE_RECORD_THUMBNAILS off stores none: the link is null', async () => {
    const { call } = await newCollection(off);
    expect((await call('insert', { records: [{ _id: 'leo', _base64: photoBase64(photo('Leopards', 1)) }] })).status.code).toBe(210);
    expect(await thumbnailOf(call, 'leo')).toBeNull();
    expect(await mediaFiles(off)).toEqual([]);
  });
});
