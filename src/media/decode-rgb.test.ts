import { spawnSync } from 'node:child_process';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { photoBytes } from '../../test/helpers/photos.ts';
import { decodeRgb, MAX_PIXELS_PER_BYTE } from './decode-rgb.ts';
import { stopDecoder } from './heic-decode.ts';

const name = 'cards/single-1730719045';

/** iPhones store photos as HEIC (HEVC in HEIF), which sharp's libvips reads the header of but cannot decode. */
describe('decodeRgb of a HEIC photo', () => {
  afterAll(() => stopDecoder());

  it('gives the pixels the same photo as JPEG gives, and its size', async () => {
    const heic = await decodeRgb(photoBytes(`${name}.heic`), 40e6);
    const jpeg = await decodeRgb(photoBytes(`${name}_jpg.rf.1f3c834b3218eeabaaeb134c11f2a614.jpg`), 40e6);
    expect(heic).toMatchObject({ width: 310, height: 430, channels: 3, format: 'heif', originalWidth: 310, originalHeight: 430 });
    let diff = 0;
    for (let i = 0; i < heic.data.length; i++) diff += Math.abs(heic.data[i]! - jpeg.data[i]!);
    expect(diff / heic.data.length).toBeLessThan(4);
    const reduced = await decodeRgb(photoBytes(`${name}.heic`), 40e6, { maxEdge: 215 });
    expect(reduced).toMatchObject({ width: 155, height: 215, originalWidth: 310, originalHeight: 430 });
  }, 30_000);

  it('refuses one over the pixel limit before decoding it, and a cut one as corrupt', async () => {
    const bytes = photoBytes(`${name}.heic`);
    await expect(decodeRgb(bytes, 100_000)).rejects.toMatchObject({ status: 413, code: 'image_too_large', reason: "the image has more than 100000 pixels; send a smaller one (resized, or a phone's 12-megapixel setting)" });
    await expect(decodeRgb(bytes.subarray(0, bytes.length >> 1), 40e6)).rejects.toMatchObject({ status: 400 });
  }, 30_000);

  it("leaves a process free to end once it has decoded (the decoder's thread held a CLI command 30 s)", () => {
    const script = `import { decodeRgb } from './src/media/decode-rgb.ts'; import fs from 'node:fs'; await decodeRgb(fs.readFileSync('test/fixtures/photos/${name}.heic'), 40e6); console.log('decoded');`;
    const t0 = Date.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8', timeout: 25_000 });
    expect(run.stdout.trim()).toBe('decoded');
    expect(Date.now() - t0).toBeLessThan(15_000);
  }, 30_000);

  it('still refuses formats it does not take, naming the ones it does', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    await expect(decodeRgb(svg, 40e6)).rejects.toMatchObject({ code: 'unsupported_image_format', reason: 'format svg is not accepted; send PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF' });
    const avif = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03020' } }).avif().toBuffer();
    const decoded = await decodeRgb(avif, 40e6);
    expect([decoded.width, decoded.height, decoded.data[0]]).toEqual([64, 48, expect.closeTo(0xc0, -1)]);
  });
});

describe('bytes of a format not decoded here', () => {
  // a 2 x 2 Windows bitmap, as Paint saves one
  const bmp = () => {
    const head = Buffer.alloc(54);
    head.write('BM', 0, 'latin1');
    head.writeUInt32LE(54 + 16, 2);
    head.writeUInt32LE(54, 10);
    head.writeUInt32LE(40, 14);
    head.writeInt32LE(2, 18);
    head.writeInt32LE(2, 22);
    head.writeUInt16LE(1, 26);
    head.writeUInt16LE(24, 28);
    return Buffer.concat([head, Buffer.alloc(16)]);
  };

  it('are refused for their format by name (a bitmap was "not a readable image"), other bytes as unreadable', async () => {
    await expect(decodeRgb(bmp(), 40e6)).rejects.toMatchObject({ status: 400, code: 'unsupported_image_format', reason: expect.stringMatching(/^format bmp is not accepted; send /) });
    await expect(decodeRgb(Buffer.concat([Buffer.from('8BPS'), Buffer.alloc(40)]), 40e6)).rejects.toMatchObject({ code: 'unsupported_image_format', reason: expect.stringMatching(/^format psd/) });
    await expect(decodeRgb(Buffer.from('hello, not an image at all'), 40e6)).rejects.toMatchObject({ code: 'invalid_image', reason: 'the data is not a readable image' });
  });
});

describe('bytes of no accepted format never reach a decoder', () => {
  it('refuses an SVG, gzipped or with entities, by its first bytes (libvips parsed a 40 KB SVGZ whole to name it: 4 s, 1.1 GB)', async () => {
    const shapes = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${'<rect width="1" height="1"/>'.repeat(20_000)}</svg>`);
    // librsvg named the gzipped one svg after inflating and parsing every shape
    await expect(decodeRgb(zlib.gzipSync(shapes), 64_500_000)).rejects.toMatchObject({ status: 400, code: 'unsupported_image_format', reason: 'format gzip (compressed data, such as an SVGZ) is not accepted; send PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF' });
    // librsvg refused the entities and the answer said only "not a readable image"
    const laughs = Buffer.from('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&b;</text></svg>');
    await expect(decodeRgb(laughs, 64_500_000)).rejects.toMatchObject({ code: 'unsupported_image_format', reason: expect.stringMatching(/^format svg is not accepted; /) });
    await expect(decodeRgb(shapes, 64_500_000)).rejects.toMatchObject({ code: 'unsupported_image_format', reason: expect.stringMatching(/^format svg is not accepted; /) });
  });
});

describe('a flat picture declared far larger than its bytes', () => {
  it('is refused before decoding as a bomb (h280: 633 bytes of AVIF took 1.2 GB); a flat picture at its own size, and a photo, pass', async () => {
    const flat = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#fff' } }).webp({ lossless: true }).toBuffer();
    const bomb = await flat(3000, 3000);
    expect(bomb.length).toBeLessThan(3000 * 3000 / MAX_PIXELS_PER_BYTE);
    await expect(decodeRgb(bomb, 64_500_000)).rejects.toMatchObject({ status: 400, reason: expect.stringMatching(/^3000x3000 in \d+ bytes .*decompression bomb/) });
    expect((await decodeRgb(await flat(1500, 1500), 64_500_000)).width).toBe(1500);
    expect((await decodeRgb(photoBytes('faces/happy.jpg'), 64_500_000)).width).toBeGreaterThan(0);
  });
});
