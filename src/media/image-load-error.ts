/**
 * An image could not be used; `reason` completes "Error Loading Image: …". Search-style services
 * report it as the record's own status; the card sessions service answers the request with
 * `status` and `code`.
 */
export class ImageLoadError extends Error {
  constructor(
    readonly reason: string,
    readonly status: 400 | 413 = 400,
    readonly code: 'invalid_image' | 'invalid_base64' | 'unsupported_image_format' | 'image_too_large' | 'too_large_to_process' = 'invalid_image',
  ) {
    super(`Error Loading Image: ${reason}`);
    this.name = 'ImageLoadError';
  }
}

/**
 * libvips refuses to even describe an image over `limitInputPixels`: that is a bomb, not garbage.
 * An SVG (never accepted) is refused for its format, whatever size it declares: `accepted` names the
 * formats the caller takes, for the message.
 */
export function pixelLimitError(err: unknown, limit: number, bytes?: Buffer, accepted?: string): ImageLoadError | undefined {
  if (!/pixel limit/i.test((err as Error)?.message ?? '')) return undefined;
  if (bytes && accepted && looksLikeMarkup(bytes)) return new ImageLoadError(`format svg is not accepted; send ${accepted}`, 400, 'unsupported_image_format');
  return tooManyPixels(limit);
}

/**
 * Bytes no decoder here reads: a file of a format known by its first bytes is refused for its format
 * (a Windows bitmap was "not a readable image" where an SVG was named), anything else as unreadable.
 */
export function unreadable(bytes: Buffer, accepted: string): ImageLoadError {
  const named = formatByMagic(bytes);
  return named ? new ImageLoadError(`format ${named} is not accepted; send ${accepted}`, 400, 'unsupported_image_format') : new ImageLoadError('the data is not a readable image');
}

/** Image and document formats sharp's build does not decode, by their signatures. */
function formatByMagic(b: Buffer): string | undefined {
  const at = (offset: number, text: string) => b.length >= offset + text.length && b.subarray(offset, offset + text.length).toString('latin1') === text;
  if (at(0, 'BM') && b.length >= 26 && b.readUInt32LE(2) >= 26) return 'bmp';
  if (b.length >= 6 && b[0] === 0 && b[1] === 0 && (b[2] === 1 || b[2] === 2) && b[3] === 0 && b[4]! > 0) return 'ico';
  if (at(0, '8BPS')) return 'psd';
  if (at(0, '%PDF')) return 'pdf';
  if ((b[0] === 0xff && b[1] === 0x0a) || at(4, 'JXL ')) return 'jxl';
  if (at(4, 'jP  ') || (b[0] === 0xff && b[1] === 0x4f && b[2] === 0xff && b[3] === 0x51)) return 'jp2';
  // refused before libvips sees them (image-signature.ts), so named here rather than by its metadata
  if (looksLikeMarkup(b)) return 'svg';
  if (b[0] === 0x1f && b[1] === 0x8b) return 'gzip (compressed data, such as an SVGZ)';
  return undefined;
}

/** Text that opens with a tag (after a byte-order mark and white space): SVG, or XML that claims to be it. */
function looksLikeMarkup(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 256).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  return head.startsWith('<');
}

export function tooManyPixels(limit: number, width?: number, height?: number): ImageLoadError {
  // what to do about it too: a phone's 108- or 200-megapixel mode makes such photos
  return new ImageLoadError(`${width ? `${width}x${height} is` : 'the image has'} more than ${limit} pixels; send a smaller one (resized, or a phone's 12-megapixel setting)`, 413, 'image_too_large');
}
