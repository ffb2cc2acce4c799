import sharp from 'sharp';
import { decodeHeic, isHeic } from './heic-decode.ts';
import { ImageLoadError, pixelLimitError, unreadable } from './image-load-error.ts';
import { hasImageSignature } from './image-signature.ts';
import { refuseScanBomb } from './jpeg-scans.ts';

export interface RgbImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
  format: string;
  /** Size of the image as stored, EXIF rotation applied (before any `maxEdge` reduction). */
  originalWidth: number;
  originalHeight: number;
}

export const intakeFormats = ['jpeg', 'png', 'tiff', 'webp', 'gif', 'heif'] as const;
const accepted = 'PNG, JPEG, TIFF, WebP, GIF, HEIC or AVIF';

/** Past this many pixels an image must bring at least one byte per `MAX_PIXELS_PER_BYTE` of them. */
export const SPARSE_MIN_PIXELS = 4_000_000;
export const MAX_PIXELS_PER_BYTE = 10_000;

/**
 * A few hundred bytes that declare tens of megapixels: a flat picture at a size no camera gives it, which costs what a
 * photo of that size costs to decode (h280: a 633-byte AVIF of 8000 × 8000 took 1.2 GB and 5 s, AVIF having no
 * shrink-on-load; ten of them held the pool 30 s for 6 KB sent). A photo, even of a blank wall, brings hundreds of
 * bytes per ten thousand pixels; a flat picture sent at the size it shows passes.
 */
export function refuseSparseBomb(size: number, width: number, height: number): void {
  const pixels = width * height;
  if (pixels > SPARSE_MIN_PIXELS && pixels > size * MAX_PIXELS_PER_BYTE) {
    throw new ImageLoadError(`${width}x${height} in ${size} bytes is a flat picture at a size that costs a photo's decoding (over ${MAX_PIXELS_PER_BYTE} pixels a byte), refused as a decompression bomb; send it at the size it shows`, 400, 'invalid_image');
  }
}

/**
 * Decodes an image to 8-bit sRGB: EXIF orientation applied, first frame of animations, alpha
 * flattened on white, CMYK/greyscale converted, 16-bit reduced. Formats other than JPEG, PNG,
 * TIFF, WebP, GIF and HEIF (HEIC as iPhones write it, AVIF) are refused (SVG, PDF…); so is anything
 * over `maxPixels`, before it is decoded. `maxEdge` reduces the image (libvips, shrink-on-load where the format allows) so
 * its long edge is at most that (or at most what it gives for the image's long edge). Runs on libuv's thread pool, not the event loop.
 */
export async function decodeRgb(bytes: Buffer, maxPixels: number, options: { maxEdge?: number | ((longEdge: number) => number) } = {}): Promise<RgbImage> {
  // Sequential access: the image is read once, top to bottom (about 10 % cheaper per image).
  const open = () => sharp(bytes, { limitInputPixels: maxPixels, failOn: 'warning', pages: 1, sequentialRead: true });
  let format: string | undefined;
  let hevc = false;
  let originalWidth = 0;
  let originalHeight = 0;
  // no other format's parser is run, not even to name it (image-signature.ts)
  if (!hasImageSignature(bytes)) throw unreadable(bytes, accepted);
  try {
    const meta = await open().metadata();
    format = meta.format;
    hevc = isHeic(meta);
    const swap = (meta.orientation ?? 1) >= 5;
    originalWidth = (swap ? meta.height : meta.width) ?? 0;
    originalHeight = (swap ? meta.width : meta.height) ?? 0;
  } catch (err) {
    throw pixelLimitError(err, maxPixels, bytes, accepted) ?? unreadable(bytes, accepted);
  }
  if (!format || !(intakeFormats as readonly string[]).includes(format)) {
    throw new ImageLoadError(`format ${format ?? 'unknown'} is not accepted; send ${accepted}`, 400, 'unsupported_image_format');
  }
  if (format === 'jpeg') refuseScanBomb(bytes);
  refuseSparseBomb(bytes.length, originalWidth, originalHeight);
  try {
    let pipeline: sharp.Sharp;
    if (hevc) {
      // libheif has applied the file's rotation and mirroring; its EXIF orientation is not applied again
      const heic = await decodeHeic(bytes);
      // the header was held to the limit by sharp; what decodes may be larger than it says
      if (heic.width * heic.height > maxPixels) throw new Error('Input image exceeds pixel limit');
      originalWidth = heic.width;
      originalHeight = heic.height;
      pipeline = sharp(heic.data, { raw: { width: heic.width, height: heic.height, channels: 4 } });
    } else {
      pipeline = open().rotate();
    }
    // Reducing in the decoder (JPEG/WebP shrink-on-load) is what makes hashing fast: for a
    // 128-px target a 1024-px JPEG decodes at 1/8 scale.
    // a function chooses the edge by the image's own (card photos: as JPEG DCT scaling would reduce it)
    const maxEdge = typeof options.maxEdge === 'function' ? options.maxEdge(Math.max(originalWidth, originalHeight)) : options.maxEdge;
    if (maxEdge) pipeline = pipeline.resize({ width: maxEdge, height: maxEdge, fit: 'inside', withoutEnlargement: true });
    const { data, info } = await pipeline.flatten({ background: '#ffffff' }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels`);
    return { data, width: info.width, height: info.height, channels: 3, format, originalWidth, originalHeight };
  } catch (err) {
    throw pixelLimitError(err, maxPixels) ?? new ImageLoadError('the image data is corrupt or truncated');
  }
}
