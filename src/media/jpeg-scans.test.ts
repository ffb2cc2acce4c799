import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareCardImage } from './card-image.ts';
import { decodeRgb } from './decode-rgb.ts';
import { reduceJpeg } from './jpeg-reduce.ts';
import { jpegScanCount, maxJpegScans } from './jpeg-scans.ts';

/**
 * A valid progressive greyscale JPEG of `size` × `size` whose AC coefficients come one band per scan, refined
 * bit by bit (h150's scan bomb): every scan is end-of-band runs, a few bytes each; `bands` bands of 14 scans.
 */
function scanBomb(size: number, bands: number): Buffer {
  const seg = (marker: number, data: number[]) => [0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 0xff, ...data];
  const bits = () => {
    const out: number[] = [];
    let acc = 0;
    let n = 0;
    const put = (v: number, count: number) => {
      for (let i = count - 1; i >= 0; i--) {
        acc = (acc << 1) | ((v >> i) & 1);
        if (++n === 8) {
          out.push(acc);
          if (acc === 0xff) out.push(0);
          acc = 0;
          n = 0;
        }
      }
    };
    const flush = () => {
      while (n) put(1, 1);
      return out;
    };
    return { put, flush };
  };
  const blocks = Math.ceil(size / 8) ** 2;
  const sos = (ss: number, se: number, ah: number, al: number) => seg(0xda, [1, 1, 0, ss, se, (ah << 4) | al]);
  const j: number[] = [0xff, 0xd8, ...seg(0xdb, [0, ...Array<number>(64).fill(1)])];
  j.push(...seg(0xc2, [8, size >> 8, size & 0xff, size >> 8, size & 0xff, 1, 1, 0x11, 0]));
  j.push(...seg(0xc4, [0x00, 1, ...Array<number>(15).fill(0), 0]));
  j.push(...seg(0xc4, [0x10, 0, 0, 0, 15, ...Array<number>(12).fill(0), ...Array.from({ length: 15 }, (_, k) => k << 4)]));
  const dc = bits();
  for (let b = 0; b < blocks; b++) dc.put(0, 1);
  j.push(...sos(0, 0, 0, 0), ...dc.flush());
  const runs = bits();
  for (let left = blocks; left > 0; ) {
    const r = Math.min(left, 32767);
    const n = Math.floor(Math.log2(r));
    runs.put(n, 4);
    if (n) runs.put(r - (1 << n), n);
    left -= r;
  }
  const eob = runs.flush();
  for (let k = 1; k <= bands; k++) {
    j.push(...sos(k, k, 0, 13), ...eob);
    for (let al = 12; al >= 0; al--) j.push(...sos(k, k, al + 1, al), ...eob);
  }
  j.push(0xff, 0xd9);
  return Buffer.from(j);
}

describe('JPEG scans (h150: a 67 KB file of 883 scans took 7 s to decode within the pixel limit)', () => {
  it('counts the scans of what encoders write, and of a bomb', async () => {
    const grey = sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } });
    expect(jpegScanCount(await grey.clone().jpeg().toBuffer())).toBe(1);
    expect(jpegScanCount(await grey.clone().jpeg({ progressive: true }).toBuffer())).toBe(10);
    expect(jpegScanCount(scanBomb(64, 10))).toBe(1 + 10 * 14);
    expect(jpegScanCount(scanBomb(64, 10), 20)).toBe(20);
    expect(jpegScanCount(Buffer.from('not a jpeg'))).toBe(0);
  });

  it('refuses a JPEG of more than the limit of scans before decoding it, on every path, and decodes one within it', async () => {
    const bomb = scanBomb(64, 8);
    expect(jpegScanCount(bomb)).toBeGreaterThan(maxJpegScans);
    // the file is a JPEG libjpeg reads: its scans are legal
    expect((await sharp(bomb).raw().toBuffer({ resolveWithObject: true })).info.width).toBe(64);
    const refused = /more than 100 scans/;
    await expect(decodeRgb(bomb, 40e6)).rejects.toMatchObject({ status: 400, code: 'invalid_image', reason: expect.stringMatching(refused) });
    await expect(prepareCardImage(bomb, { imagePixels: 40e6, imageLongEdge: 2048, thumbnailLongEdge: 256 })).rejects.toMatchObject({ reason: expect.stringMatching(refused) });
    // the lean thumbnail path leaves it to sharp's, which refuses it
    expect(await reduceJpeg(bomb, 40e6, 16)).toBeUndefined();
    const within = scanBomb(64, 7);
    expect(jpegScanCount(within)).toBeLessThanOrEqual(maxJpegScans);
    expect((await decodeRgb(within, 40e6)).width).toBe(64);
  });
});
