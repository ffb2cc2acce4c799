import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { decodeRgb, type RgbImage } from './decode-rgb.ts';
import { jpegScanCount, maxJpegScans } from './jpeg-scans.ts';

/**
 * A lean path for the commonest small-output decode: a plain 8-bit baseline/progressive JPEG
 * (grey or YCbCr, no ICC profile, no EXIF rotation) reduced to a thumbnail, as visual hashing
 * does. It calls the same libvips that sharp ships (its C API, through koffi), with libjpeg's
 * DCT-domain 1/2, 1/4, 1/8 scaling chosen by us.
 *
 * Why not sharp: for a 1024-px JPEG and a 128-px target, sharp halves the shrink-on-load factor
 * (a guard against libjpeg rounding when the shrink is an exact power of two) and decodes at
 * 1/4, then resizes with Lanczos, and its per-call set-up is heavy: about 3.7 ms per image
 * against 1.5 ms for the same libvips load called directly (bench/hashes.ts, docs/benchmarks.md).
 *
 * Anything this path does not handle returns `undefined` and the caller uses sharp, which also
 * produces the error message for bad data: this path never rejects an image itself.
 */

/** The JPEG's own frame header: enough to refuse bombs and odd variants before decoding. */
export interface JpegFrame {
  width: number;
  height: number;
  components: number;
  precision: number;
}

/** Reads the SOFn segment; `undefined` when the bytes are not a well-formed JPEG up to it. */
export function readJpegFrame(bytes: Uint8Array): JpegFrame | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) return undefined;
    const marker = bytes[p + 1]!;
    if (marker === 0xff) {
      p += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      p += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image or scan data before a frame
    const length = (bytes[p + 2]! << 8) | bytes[p + 3]!;
    if (length < 2) return undefined;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (p + 10 > bytes.length) return undefined;
      // Only baseline (C0), extended Huffman (C1) and progressive Huffman (C2): arithmetic coding
      // and lossless frames go to sharp.
      if (marker > 0xc2) return undefined;
      return {
        precision: bytes[p + 4]!,
        height: (bytes[p + 5]! << 8) | bytes[p + 6]!,
        width: (bytes[p + 7]! << 8) | bytes[p + 8]!,
        components: bytes[p + 9]!,
      };
    }
    p += 2 + length;
  }
  return undefined;
}

/** libjpeg scales by 1/1, 1/2, 1/4 or 1/8 while decoding: the largest that keeps the long edge ≥ maxEdge. */
export function jpegScaleFor(longEdge: number, maxEdge: number): 1 | 2 | 4 | 8 {
  for (const k of [8, 4, 2] as const) if (longEdge / k >= maxEdge) return k;
  return 1;
}

type Fn = ((...args: unknown[]) => unknown) & { async: (...args: unknown[]) => void };

interface Vips {
  jpegload: Fn;
  shrink: Fn;
  write: Fn;
  unref: Fn;
  gfree: Fn;
  width: Fn;
  height: Fn;
  bands: Fn;
  typeOf: Fn;
  orientation: Fn;
  errorClear: Fn;
  view: (ptr: unknown, length: number) => ArrayBuffer;
}

let vips: Vips | null | undefined;

/**
 * koffi refuses more than 64 asynchronous calls at once; decodes past this many wait their turn
 * (libuv has only a few threads anyway).
 */
const maxInFlight = 32;
let inFlight = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (inFlight >= maxInFlight) await new Promise<void>((resolve) => waiting.push(resolve));
  inFlight++;
  try {
    return await work();
  } finally {
    inFlight--;
    waiting.shift()?.();
  }
}

/** sharp's own libvips, opened once; `null` when it cannot be (another platform layout, sharp built against a system libvips). */
function openVips(): Vips | null {
  if (vips !== undefined) return vips;
  vips = null;
  // off in the words the other switches take (`off` and `false` left it on)
  if (['0', 'false', 'no', 'off'].includes((process.env.LOUPE_FAST_JPEG ?? '').trim().toLowerCase())) return vips;
  try {
    const require = createRequire(import.meta.url);
    const sharpDir = path.dirname(require.resolve('sharp/package.json'));
    const fromSharp = createRequire(path.join(sharpDir, 'package.json'));
    const libDir = [process.platform, `${process.platform}musl`]
      .map((os) => {
        try {
          return path.dirname(fromSharp.resolve(`@img/sharp-libvips-${os}-${process.arch}/lib`));
        } catch {
          return undefined;
        }
      })
      .find((dir) => dir !== undefined);
    if (!libDir) return vips;
    const file = fs.readdirSync(libDir).find((f) => /^libvips-cpp\.(so\.[\d.]+|[\d.]+\.dylib)$/.test(f));
    if (!file) return vips;
    // sharp must have loaded (and initialised) this very library first, so that one copy of
    // libvips serves both.
    require('sharp');
    const koffi = require('koffi') as { load: (p: string) => { func: (sig: string) => Fn }; view: Vips['view'] };
    const lib = koffi.load(path.join(libDir, file));
    const init = lib.func('int vips_init(const char *argv0)');
    if (init('loupe') !== 0) return vips;
    vips = {
      jpegload: lib.func('int vips_jpegload_buffer(void *buf, size_t len, _Out_ void **out, ...)'),
      shrink: lib.func('int vips_shrink(void *in, _Out_ void **out, double hshrink, double vshrink, ...)'),
      write: lib.func('void *vips_image_write_to_memory(void *in, _Out_ size_t *size)'),
      unref: lib.func('void g_object_unref(void *object)'),
      gfree: lib.func('void g_free(void *mem)'),
      width: lib.func('int vips_image_get_width(void *image)'),
      height: lib.func('int vips_image_get_height(void *image)'),
      bands: lib.func('int vips_image_get_bands(void *image)'),
      typeOf: lib.func('size_t vips_image_get_typeof(void *image, const char *name)'),
      orientation: lib.func('int vips_image_get_orientation(void *image)'),
      errorClear: lib.func('void vips_error_clear(void)'),
      view: koffi.view,
    };
  } catch {
    vips = null;
  }
  return vips;
}

/** Whether the lean path is available in this process (for logs and the benchmark). */
export function jpegReduceAvailable(): boolean {
  return openVips() !== null;
}

/**
 * The long edge {@link reduceJpeg} gives an image of `longEdge`: DCT scaling to at least `maxEdge`, then an
 * integer box shrink. Other routes aim at the same size, so that a photo is measured at one size
 * whatever its file: a phone photo with an ICC profile or an EXIF rotation goes to sharp, and
 * graded 4.3 where the same pixels without the profile (2000 px through this path, 2400 through sharp) graded 7.9.
 */
export function reducedJpegEdge(longEdge: number, maxEdge: number): number {
  const scaled = Math.ceil(longEdge / jpegScaleFor(longEdge, maxEdge));
  return Math.floor(scaled / Math.max(1, Math.floor(scaled / maxEdge)));
}

/**
 * The JPEG reduced by libjpeg's DCT scaling, then by an integer box shrink when still over twice
 * `maxEdge`, so its long edge ends between `maxEdge` and 2·`maxEdge` (or the original when
 * smaller). `undefined` when the image is not one this path handles, or when the result would
 * have a long edge over `maxResultEdge` (known from the header, before anything is decoded). The
 * decode runs on libuv's thread pool.
 */
export async function reduceJpeg(bytes: Buffer, maxPixels: number, maxEdge: number, maxResultEdge = Infinity): Promise<RgbImage | undefined> {
  return inTurn(() => reduceNow(bytes, maxPixels, maxEdge, maxResultEdge));
}

async function reduceNow(bytes: Buffer, maxPixels: number, maxEdge: number, maxResultEdge: number): Promise<RgbImage | undefined> {
  const frame = readJpegFrame(bytes);
  if (!frame || frame.precision !== 8 || (frame.components !== 1 && frame.components !== 3)) return undefined;
  if (frame.width === 0 || frame.height === 0 || frame.width * frame.height > maxPixels) return undefined;
  // a scan bomb is sharp's path's to refuse, with its message
  if (jpegScanCount(bytes, maxJpegScans + 1) > maxJpegScans) return undefined;
  const v = openVips();
  if (!v) return undefined;
  const scale = jpegScaleFor(Math.max(frame.width, frame.height), maxEdge);
  const scaled = Math.ceil(Math.max(frame.width, frame.height) / scale);
  if (scaled / Math.max(1, Math.floor(scaled / maxEdge)) > maxResultEdge) return undefined;
  const loaded: unknown[] = [null];
  // fail_on 3 = VIPS_FAIL_ON_WARNING, as sharp's failOn: 'warning'; revalidate: never a cached result.
  if (v.jpegload(bytes, bytes.length, loaded, 'str', 'shrink', 'int', scale, 'str', 'fail_on', 'int', 3, 'str', 'revalidate', 'int', 1, 'str', null) !== 0) {
    v.errorClear();
    return undefined;
  }
  let image = loaded[0];
  const toFree: unknown[] = [image];
  try {
    if (v.typeOf(image, 'icc-profile-data') !== 0 || v.orientation(image) !== 1) return undefined;
    const bands = v.bands(image) as number;
    if (bands !== 1 && bands !== 3) return undefined;
    const long = Math.max(v.width(image) as number, v.height(image) as number);
    const box = Math.floor(long / maxEdge);
    if (box >= 2) {
      const shrunk: unknown[] = [null];
      if (v.shrink(image, shrunk, box, box, 'str', null) !== 0) {
        v.errorClear();
        return undefined;
      }
      image = shrunk[0];
      toFree.push(image);
    }
    const width = v.width(image) as number;
    const height = v.height(image) as number;
    const size: number[] = [0];
    const pixels = await new Promise<unknown>((resolve, reject) => {
      // `bytes` is named in the callback so it stays reachable until libvips has read it.
      v.write.async(image, size, (err: unknown, ptr: unknown) => (err || bytes.length === 0 ? reject(err) : resolve(ptr)));
    });
    if (!pixels) {
      v.errorClear();
      return undefined;
    }
    try {
      if (size[0] !== width * height * bands) return undefined;
      const raw = new Uint8Array(v.view(pixels, size[0]));
      const data = Buffer.allocUnsafe(width * height * 3);
      if (bands === 3) data.set(raw);
      else for (let i = 0, o = 0; i < raw.length; i++, o += 3) data[o] = data[o + 1] = data[o + 2] = raw[i]!;
      return { data, width, height, channels: 3, format: 'jpeg', originalWidth: frame.width, originalHeight: frame.height };
    } finally {
      v.gfree(pixels);
    }
  } finally {
    for (const img of toFree.reverse()) v.unref(img);
  }
}

/**
 * Pixels for thumbnail work (visual hashes): the lean JPEG path when it applies, else sharp
 * reducing to at most `maxEdge`. Either way the long edge is under 2·`maxEdge`.
 */
export async function decodeReduced(bytes: Buffer, maxPixels: number, maxEdge: number): Promise<RgbImage> {
  return (await reduceJpeg(bytes, maxPixels, maxEdge)) ?? decodeRgb(bytes, maxPixels, { maxEdge });
}
