import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { apngFrames, prepareCardImage } from './card-image.ts';

const limits = { imagePixels: 64_500_000, imageLongEdge: 1024, thumbnailLongEdge: 256 };

describe('prepareCardImage', () => {
  it('refuses a gzipped SVG by its first bytes, before libvips parses it (a 40 KB SVGZ cost 4 s and 1.1 GB to be named)', async () => {
    const svgz = zlib.gzipSync(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${'<rect width="1" height="1"/>'.repeat(20_000)}</svg>`));
    await expect(prepareCardImage(svgz, limits)).rejects.toMatchObject({ status: 400, code: 'unsupported_image_format', reason: 'format gzip (compressed data, such as an SVGZ) is not accepted; send JPEG, PNG, WebP, HEIC or AVIF' });
  });

  it('refuses an animated WebP, naming its frames, and keeps a still one (h118: stored with its frames, read by its first)', async () => {
    // three 40x60 frames stacked: sharp writes them as an animation of pageHeight 60
    const frames = Buffer.alloc(40 * 180 * 3, 0);
    for (let i = 0; i < frames.length; i += 3) frames[i] = Math.floor(i / (40 * 60 * 3)) * 100;
    const animated = await sharp(frames, { raw: { width: 40, height: 180, channels: 3, pageHeight: 60 } }).webp({ loop: 0 }).toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(3);
    await expect(prepareCardImage(animated, limits)).rejects.toThrow('the image is animated (3 frames); send one frame as a still image');
    const still = await sharp(frames.subarray(0, 40 * 60 * 3), { raw: { width: 40, height: 60, channels: 3 } }).webp().toBuffer();
    expect((await prepareCardImage(still, limits)).originalExt).toBe('webp');
  });

  it('refuses an animated PNG, naming its frames, and keeps a still one (h258: stored with its frames, the thumbnail and readings of its default image)', async () => {
    const still = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#f00' } }).png().toBuffer();
    // an `acTL` chunk (2 frames, looping) after IHDR, as an APNG encoder writes it before the first IDAT
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const out = Buffer.alloc(12 + data.length);
      out.writeUInt32BE(data.length, 0);
      body.copy(out, 4);
      out.writeUInt32BE(zlib.crc32(body), 8 + data.length);
      return out;
    };
    const ihdrEnd = 8 + 12 + still.readUInt32BE(8);
    const actl = Buffer.alloc(8);
    actl.writeUInt32BE(2, 0);
    const animated = Buffer.concat([still.subarray(0, ihdrEnd), chunk('acTL', actl), still.subarray(ihdrEnd)]);
    expect(apngFrames(animated)).toBe(2);
    expect(apngFrames(still)).toBeNull();
    await expect(prepareCardImage(animated, limits)).rejects.toThrow('the image is an animated PNG (2 frames); send one frame as a still image');
    expect((await prepareCardImage(still, limits)).original.equals(still)).toBe(true);
  });

  it('stores an arithmetic-coded JPEG re-encoded, one browsers show; a baseline one as sent (h217)', async () => {
    // made with `jpegtran -arithmetic` from a 120 × 90 baseline JPEG (its frame marker is SOF9, FFC9)
    const arithmetic = fs.readFileSync(path.resolve(import.meta.dirname, '../../test/fixtures/images/arithmetic-coded.jpg'));
    expect(arithmetic.includes(Buffer.from([0xff, 0xc9]))).toBe(true);
    const stored = await prepareCardImage(arithmetic, limits);
    expect(stored.original.equals(arithmetic)).toBe(false);
    expect(stored.original.includes(Buffer.from([0xff, 0xc9]))).toBe(false);
    expect(await sharp(stored.original).metadata()).toMatchObject({ format: 'jpeg', width: 120, height: 90 });
    const baseline = await sharp(arithmetic).jpeg().toBuffer();
    expect((await prepareCardImage(baseline, limits)).original.equals(baseline)).toBe(true);
  });
});
