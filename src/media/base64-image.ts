import { ImageLoadError } from './image-load-error.ts';

const dataUrl = /^data:([a-z0-9.+/-]+)?(;[a-z0-9=.+-]+)*;base64,/i;
const base64Body = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Decodes base64 (standard or URL-safe alphabet, with or without a `data:image/...;base64,`
 * prefix, whitespace ignored). Node's decoder silently skips bad characters, so the alphabet is
 * checked first: broken base64 is an error, never a half image.
 */
export function decodeBase64Image(input: string, maxBytes: number): Buffer {
  let body = input;
  const prefix = dataUrl.exec(body.trimStart());
  if (prefix) body = body.trimStart().slice(prefix[0].length);
  // Fast path for the usual clean input: Node skips characters outside the alphabet, so a decoded
  // length equal to the one computed from the text means every character was valid.
  if (body.length > 0 && Buffer.byteLength(body, 'base64') <= maxBytes) {
    const fast = Buffer.from(body, 'base64');
    if (fast.length === Buffer.byteLength(body, 'base64') && body.length % 4 !== 1 && !/[^A-Za-z0-9+/_=-]/.test(body.slice(-4))) return fast;
  }
  body = body.replace(/\s+/g, '');
  if (body.length === 0) throw new ImageLoadError('the image is empty');
  if (!base64Body.test(body) || body.length % 4 === 1) {
    // an app that sent its image's address where the bytes go was told only "not valid base64" (h264)
    if (/^https?:\/\/\S+$/i.test(body)) throw new ImageLoadError('the image is a URL, not base64: send the image\'s bytes, Base64-encoded', 400, 'invalid_base64');
    throw new ImageLoadError('the image is not valid base64', 400, 'invalid_base64');
  }
  const approxBytes = Math.floor((body.length * 3) / 4);
  if (approxBytes > maxBytes + 2) {
    throw new ImageLoadError(`the image is larger than ${maxBytes} bytes`, 413, 'image_too_large');
  }
  return Buffer.from(body, 'base64');
}
