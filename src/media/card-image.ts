import sharp from 'sharp';
import { decodeHeic, isHeic } from './heic-decode.ts';
import { ImageLoadError, pixelLimitError, tooManyPixels, unreadable } from './image-load-error.ts';
import { hasImageSignature } from './image-signature.ts';
import { refuseScanBomb } from './jpeg-scans.ts';
import { refuseSparseBomb } from './decode-rgb.ts';
import { readJpegFrame } from './jpeg-reduce.ts';
import type { MediaExt } from './media-store.ts';

export interface CardImageLimits {
  imagePixels: number;
  imageLongEdge: number;
  thumbnailLongEdge: number;
}

export interface PreparedCardImage {
  original: Buffer;
  originalExt: MediaExt;
  thumbnail: Buffer;
  width: number;
  height: number;
}

// HEIC and AVIF (iPhone and Android cameras) are stored as JPEG: browsers show few of them
const accepted: Record<string, MediaExt> = { jpeg: 'jpg', png: 'png', webp: 'webp', heif: 'jpg' };
const acceptedText = 'JPEG, PNG, WebP, HEIC or AVIF';

/**
 * Checks a card image by decoding it (never by trusting its bytes), and makes the stored
 * original (kept byte for byte when its long edge is within the limit and it needs no rotation,
 * otherwise scaled down; HEIC and AVIF as JPEG) and a JPEG thumbnail. sharp runs on libuv's thread
 * pool, HEIC's decoder in its own thread, both off the event loop.
 */
export async function prepareCardImage(bytes: Buffer, limits: CardImageLimits): Promise<PreparedCardImage> {
  let open = () => sharp(bytes, { limitInputPixels: limits.imagePixels, failOn: 'warning', sequentialRead: true });
  let meta: sharp.Metadata;
  // an SVG is parsed whole by libvips only to be refused (image-signature.ts)
  if (!hasImageSignature(bytes)) throw unreadable(bytes, acceptedText);
  try {
    meta = await open().metadata();
  } catch (err) {
    throw pixelLimitError(err, limits.imagePixels, bytes, acceptedText) ?? unreadable(bytes, acceptedText);
  }
  const ext = meta.format ? accepted[meta.format] : undefined;
  if (!ext) {
    throw new ImageLoadError(`format ${meta.format ?? 'unknown'} is not accepted; send ${acceptedText}`, 400, 'unsupported_image_format');
  }
  if (!meta.width || !meta.height) throw new ImageLoadError('the image has no size');
  if (meta.format === 'jpeg') refuseScanBomb(bytes);
  // a card photo is one picture: an animated WebP was stored with its frames while recognition read the first, and an
  // animated GIF is refused by its format (h118)
  if ((meta.pages ?? 1) > 1 && meta.format === 'webp') throw new ImageLoadError(`the image is animated (${meta.pages} frames); send one frame as a still image`, 400, 'unsupported_image_format');
  // an animated PNG too, which libvips reads as its default image (no pages): a browser showed its frames, the
  // thumbnail, grading and recognition another picture (h258)
  const apng = meta.format === 'png' ? apngFrames(bytes) : null;
  if (apng !== null) throw new ImageLoadError(`the image is an animated PNG (${apng} frame${apng === 1 ? '' : 's'}); send one frame as a still image`, 400, 'unsupported_image_format');
  if (meta.width * meta.height > limits.imagePixels) throw tooManyPixels(limits.imagePixels, meta.width, meta.height);
  refuseSparseBomb(bytes.length, meta.width, meta.height);
  // EXIF orientations 5-8 swap width and height.
  let rotated = (meta.orientation ?? 1) >= 5;
  let needsRotation = (meta.orientation ?? 1) !== 1;
  if (isHeic(meta)) {
    // libheif applies the file's rotation itself
    let heic;
    try {
      heic = await decodeHeic(bytes);
    } catch {
      throw new ImageLoadError('the image data is corrupt or truncated');
    }
    const raw = { raw: { width: heic.width, height: heic.height, channels: 4 as const } };
    open = () => sharp(heic.data, raw);
    meta = { ...meta, width: heic.width, height: heic.height };
    rotated = false;
    needsRotation = false;
  }
  const width = rotated ? meta.height! : meta.width!;
  const height = rotated ? meta.width! : meta.height!;
  try {
    const thumbnail = await open()
      .rotate()
      .resize({ width: limits.thumbnailLongEdge, height: limits.thumbnailLongEdge, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80 })
      .toBuffer();
    // a JPEG kept as sent is one browsers show: 8-bit Huffman-coded (baseline, extended or progressive); an arithmetic-
    // coded, lossless or 12-bit one is stored re-encoded, as a HEIC is (h217: kept byte for byte, a broken image there)
    const browserJpeg = meta.format !== 'jpeg' || readJpegFrame(bytes)?.precision === 8;
    if (Math.max(width, height) <= limits.imageLongEdge && !needsRotation && meta.format !== 'heif' && browserJpeg) {
      return { original: bytes, originalExt: ext, thumbnail, width, height };
    }
    const scaled = open().rotate().resize({ width: limits.imageLongEdge, height: limits.imageLongEdge, fit: 'inside', withoutEnlargement: true });
    const encoded = ext === 'jpg' ? scaled.flatten({ background: '#ffffff' }).jpeg({ quality: 88 }) : ext === 'png' ? scaled.png() : scaled.webp({ quality: 88 });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { original: data, originalExt: ext, thumbnail, width: info.width, height: info.height };
  } catch {
    throw new ImageLoadError('the image data is corrupt or truncated');
  }
}

/**
 * The frame count of an animated PNG: an `acTL` chunk before the first `IDAT` (the APNG specification), read from
 * the chunk headers only; null for a still PNG.
 */
export function apngFrames(png: Buffer): number | null {
  let at = 8;
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') return null;
    if (type === 'acTL') return at + 12 <= png.length ? png.readUInt32BE(at + 8) : 0;
    at += 12 + length;
  }
  return null;
}
