import { ServiceError } from '../services/errors.ts';

/**
 * The body as UTF-8 whatever charset its Content-Type declares: JSON is UTF-8 (RFC 8259), but a
 * client that labels its bytes `charset=Shift_JIS` (or ISO-8859-1) means them so, and they were
 * read as UTF-8 (half-width katakana that happen to be valid UTF-8 were stored as Hebrew and Latin
 * letters). A charset this server cannot decode, or bytes not in it, are refused (415, 400).
 */
export function asUtf8(raw: Buffer, contentType: string | undefined): Buffer {
  const label = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (label === undefined || label === 'utf-8' || label === 'utf8' || raw.length === 0) return raw;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new ServiceError(415, 'unsupported_media_type', `The body's charset "${[...label].slice(0, 40).join('')}" is not one this server reads; send the JSON as UTF-8.`);
  }
  // UTF-16 and the others Node decodes by that name; an ASCII body reads the same in any of them
  if (decoder.encoding === 'utf-8') return raw;
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new ServiceError(400, 'invalid_json', `The body is not valid ${decoder.encoding} text, as its Content-Type says it is.`);
  }
  return Buffer.from(text, 'utf8');
}
