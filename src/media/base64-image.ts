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

/** Characters of base64 text decoded between two turns of the event loop (about 0.75 MiB of image; a multiple of 4). */
const STEP_CHARS = 1 << 20;

/**
 * {@link decodeBase64Image}, a slice of the text at a time with the event loop let go between: the same bytes, the
 * same errors. For uploads kept to be worked on later (asynchronous requests), whose decoding at once held the server's
 * event loop for about 120 ms per 16 MiB image (h286; every other request waited on it).
 */
export async function decodeBase64ImageInSteps(input: string, maxBytes: number, stepChars = STEP_CHARS): Promise<Buffer> {
  if (input.length <= stepChars) return decodeBase64Image(input, maxBytes);
  let body = input;
  const prefix = dataUrl.exec(body.trimStart());
  if (prefix) body = body.trimStart().slice(prefix[0].length);
  // at most what the text can hold, and never more than the limit lets through (decodeBase64Image: 2 bytes over it)
  const out = Buffer.allocUnsafe(Math.min(Math.floor((body.length * 3) / 4), maxBytes + 2));
  let written = 0;
  let clean = 0;
  let padding = 0;
  let valid = true;
  let carry = '';
  for (let at = 0; at < body.length; at += stepChars) {
    let s = body.slice(at, at + stepChars);
    if (/\s/.test(s)) s = s.replace(/\s+/g, '');
    clean += s.length;
    // what the whole must be, slice by slice: the alphabet, then at most two `=` that end it
    if (valid && s.length > 0) {
      const m = /^([A-Za-z0-9+/_-]*)(=*)$/.exec(s);
      if (!m || (padding > 0 && m[1]!.length > 0)) valid = false;
      else padding += m[2]!.length;
      if (padding > 2) valid = false;
    }
    if (valid && written < out.length) {
      // whole groups of four, so each piece decodes as it would within the whole
      const text = carry + s;
      const last = at + stepChars >= body.length;
      const cut = last ? text.length : text.length - (text.length % 4);
      written += out.write(text.slice(0, cut), written, 'base64');
      carry = text.slice(cut);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (clean === 0) throw new ImageLoadError('the image is empty');
  // the exact refusal (a URL said as one) from the whole, as decodeBase64Image words it: broken input only
  if (!valid || clean % 4 === 1) return decodeBase64Image(input, maxBytes);
  if (Math.floor((clean * 3) / 4) > maxBytes + 2) throw new ImageLoadError(`the image is larger than ${maxBytes} bytes`, 413, 'image_too_large');
  return out.subarray(0, written);
}
