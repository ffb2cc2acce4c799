import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRgb } from './decode-rgb.ts';
import { decodeReduced, jpegReduceAvailable, jpegScaleFor, readJpegFrame, reduceJpeg } from './jpeg-reduce.ts';

/** A 1024×640 photo-like gradient with a few shapes, so a wrong scale or channel order shows. */
async function scene(): Promise<sharp.Sharp> {
  const w = 1024;
  const h = 640;
  const rgb = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = (y * w + x) * 3;
      const inBox = x > 200 && x < 500 && y > 100 && y < 400;
      rgb[p] = inBox ? 220 : (x * 255) / w;
      rgb[p + 1] = inBox ? 30 : (y * 255) / h;
      rgb[p + 2] = (x + y) % 256 > 128 ? 180 : 60;
    }
  }
  return sharp(rgb, { raw: { width: w, height: h, channels: 3 } });
}

let plain: Buffer;
beforeAll(async () => {
  plain = await (await scene()).jpeg({ quality: 90 }).toBuffer();
});

describe('readJpegFrame', () => {
  it('reads size, components and precision from the frame header, past APP segments', async () => {
    const withExif = await (await scene()).jpeg().withMetadata({ orientation: 1 }).toBuffer();
    expect(readJpegFrame(withExif)).toEqual({ width: 1024, height: 640, components: 3, precision: 8 });
    const grey = await (await scene()).toColourspace('b-w').jpeg().toBuffer();
    expect(readJpegFrame(grey)?.components).toBe(1);
    const progressive = await (await scene()).jpeg({ progressive: true }).toBuffer();
    expect(readJpegFrame(progressive)?.width).toBe(1024);
  });

  it('is undefined for non-JPEG bytes and for a JPEG cut before its frame header', async () => {
    expect(readJpegFrame(await (await scene()).png().toBuffer())).toBeUndefined();
    expect(readJpegFrame(Buffer.from([0xff, 0xd8, 0xff]))).toBeUndefined();
    expect(readJpegFrame(plain.subarray(0, 20))).toBeUndefined();
  });
});

describe('jpegScaleFor', () => {
  it('takes the largest libjpeg scale that keeps the long edge at or over the target', () => {
    expect(jpegScaleFor(1024, 128)).toBe(8);
    expect(jpegScaleFor(1023, 128)).toBe(4);
    expect(jpegScaleFor(300, 128)).toBe(2);
    expect(jpegScaleFor(255, 128)).toBe(1);
    expect(jpegScaleFor(4000, 128)).toBe(8);
  });
});

describe.runIf(jpegReduceAvailable())('reduceJpeg (sharp’s libvips, called directly)', () => {
  it('decodes a plain JPEG at 1/8 scale to the same picture sharp gives', async () => {
    const fast = await reduceJpeg(plain, 100e6, 128);
    expect(fast).toMatchObject({ width: 128, height: 80, channels: 3, format: 'jpeg', originalWidth: 1024, originalHeight: 640 });
    const ref = await decodeRgb(plain, 100e6, { maxEdge: 128 });
    let diff = 0;
    for (let i = 0; i < ref.data.length; i++) diff += Math.abs(ref.data[i]! - fast!.data[i]!);
    // Two different reducing filters over the same picture: close, not identical.
    expect(diff / ref.data.length).toBeLessThan(6);
  });

  it('box-shrinks a large photo so the long edge stays under twice the target', async () => {
    const big = await (await scene()).resize(4000, 2500).jpeg().toBuffer();
    const fast = await reduceJpeg(big, 100e6, 128);
    expect(fast!.width).toBeGreaterThanOrEqual(128);
    expect(fast!.width).toBeLessThan(256);
  });

  it('declines, from the header alone, a result longer than asked (a 3000-px photo stays 3000 px over 1600)', async () => {
    const mid = await (await scene()).resize(3000, 1875).jpeg().toBuffer();
    expect(await reduceJpeg(mid, 100e6, 1600, 2400)).toBeUndefined();
    const big = await (await scene()).resize(4000, 2500).jpeg().toBuffer();
    expect((await reduceJpeg(big, 100e6, 1600, 2400))!.width).toBe(2000);
  });

  it('expands a greyscale JPEG to three equal channels', async () => {
    const grey = await (await scene()).toColourspace('b-w').jpeg().toBuffer();
    const fast = (await reduceJpeg(grey, 100e6, 128))!;
    expect(fast.data.length).toBe(fast.width * fast.height * 3);
    expect(fast.data[300]).toBe(fast.data[301]);
    expect(fast.data[301]).toBe(fast.data[302]);
  });

  it('leaves to sharp what it does not handle: EXIF rotation, ICC profiles, CMYK, other formats, over the pixel limit, truncated data', async () => {
    const rotated = await (await scene()).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await reduceJpeg(rotated, 100e6, 128)).toBeUndefined();
    const p3 = await (await scene()).jpeg().withIccProfile('p3').toBuffer();
    expect(await reduceJpeg(p3, 100e6, 128)).toBeUndefined();
    const cmyk = await (await scene()).toColourspace('cmyk').jpeg().toBuffer();
    expect(await reduceJpeg(cmyk, 100e6, 128)).toBeUndefined();
    expect(await reduceJpeg(await (await scene()).png().toBuffer(), 100e6, 128)).toBeUndefined();
    expect(await reduceJpeg(plain, 1000, 128)).toBeUndefined();
    expect(await reduceJpeg(plain.subarray(0, Math.floor(plain.length / 2)), 100e6, 128)).toBeUndefined();
  });

  it('decodeReduced applies EXIF rotation through sharp, and keeps sharp’s errors for bad data', async () => {
    const rotated = await (await scene()).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const img = await decodeReduced(rotated, 100e6, 128);
    expect(img.height).toBeGreaterThan(img.width);
    await expect(decodeReduced(plain.subarray(0, Math.floor(plain.length / 2)), 100e6, 128)).rejects.toThrow(/corrupt or truncated/);
    await expect(decodeReduced(plain, 1000, 128)).rejects.toThrow(/more than 1000 pixels/);
  });

  it('many decodes at once all finish (more than koffi’s limit of asynchronous calls)', async () => {
    const all = await Promise.all(Array.from({ length: 150 }, () => reduceJpeg(plain, 100e6, 128)));
    expect(all.every((img) => img?.width === 128)).toBe(true);
  });
});
