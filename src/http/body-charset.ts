import { isAscii, isUtf8 } from 'node:buffer';
import { ServiceError } from '../services/errors.ts';
import { byteSize } from './errors.ts';

/** The largest body read in another charset than UTF-8: it is decoded on the event loop (a 60 MiB one held it for a second). */
export const maxTranscodedBytes = 8 * 1024 * 1024;

/**
 * The body as UTF-8 whatever charset its Content-Type declares: JSON is UTF-8 (RFC 8259), but a
 * client that labels its bytes `charset=Shift_JIS` (or ISO-8859-1) means them so, and they were
 * read as UTF-8 (half-width katakana that happen to be valid UTF-8 were stored as Hebrew and Latin
 * letters). A charset this server cannot decode, or bytes not in it, are refused (415, 400).
 * - A single-byte charset (US-ASCII, ISO-8859-*, windows-125*) on bytes that are valid UTF-8 with
 *   some above 0x7F: the label is the mistake (Latin-1 text is practically never valid UTF-8), and
 *   the text is read as UTF-8, as it was before labels were read.
 * - `UTF-16` follows its byte-order mark, big-endian without one (RFC 2781).
 * - At most `maxTranscodedBytes` in another charset, and what it becomes within `limit`.
 */
export function asUtf8(raw: Buffer, contentType: string | undefined, limit: number): Buffer {
  let label = /;\s*charset\s*=\s*["']?([^"';\s]+)["']?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (label === undefined || label === 'utf-8' || label === 'utf8' || raw.length === 0) return raw;
  if (label === 'utf-16') label = raw[0] === 0xff && raw[1] === 0xfe ? 'utf-16le' : 'utf-16be';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new ServiceError(415, 'unsupported_media_type', `The body's charset "${[...label].slice(0, 40).join('')}" is not one this server reads; send the JSON as UTF-8.`);
  }
  // the names Node gives UTF-8 itself; an ASCII body reads the same in any of them
  if (decoder.encoding === 'utf-8') return raw;
  // ASCII reads the same in any of them, and UTF-8 bytes there are the label's mistake (native checks: a
  // callback per byte held the event loop half a second over 64 MiB)
  if (SINGLE_BYTE.test(decoder.encoding) && (isAscii(raw) || (isUtf8(raw) && utf8InScript(raw, decoder.encoding)))) return raw;
  if (raw.length > maxTranscodedBytes) throw new ServiceError(413, 'body_too_large', `A body in ${decoder.encoding} is read up to ${byteSize(maxTranscodedBytes)}; send a larger one as UTF-8.`);
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new ServiceError(400, 'invalid_json', `The body is not valid ${decoder.encoding} text, as its Content-Type says it is.`);
  }
  const out = Buffer.from(text, 'utf8');
  if (out.length > limit) throw new ServiceError(413, 'body_too_large', `The request body is too large: at most ${byteSize(limit)} on this endpoint, counted as UTF-8 (this ${decoder.encoding} body is ${byteSize(out.length)} so).`);
  return out;
}

/** The script a non-Latin single-byte charset writes: UTF-8 under its label is taken as UTF-8 only when it reads as that script. */
const SCRIPT_OF: [RegExp, RegExp][] = [
  [/^(windows-1256|iso-8859-6)$/, /\p{Script=Arabic}/u],
  [/^(windows-1255|iso-8859-8)$/, /\p{Script=Hebrew}/u],
  [/^(windows-1251|iso-8859-5|koi8-[ru]|ibm866|x-mac-cyrillic)$/, /\p{Script=Cyrillic}/u],
  [/^(windows-1253|iso-8859-7)$/, /\p{Script=Greek}/u],
  [/^(windows-874|iso-8859-11)$/, /\p{Script=Thai}/u],
];

/**
 * Whether UTF-8 bytes under a single-byte label are the label's mistake. For a Latin charset, always:
 * Latin-1 text is practically never valid UTF-8. For Arabic, Hebrew, Cyrillic, Greek or Thai ones,
 * only when every letter the UTF-8 reading gives is of that script or an accented Latin one: short Urdu text in windows-1256
 * (letters at 0xC2–0xDF then ک گ پ چ at 0x80–0xBF) is valid UTF-8 too, and was stored as `Ș ʘ ǐ` (h146).
 */
function utf8InScript(raw: Buffer, encoding: string): boolean {
  const script = SCRIPT_OF.find(([names]) => names.test(encoding))?.[1];
  if (!script) return true;
  const letters = raw.toString('utf8').match(/[^\p{ASCII}]/gu) ?? [];
  // Latin letters with accents beside them are the UTF-8 text's own (`بطاقة Pokémon`, `Карта café`, h147): those of
  // Latin-1 and Latin Extended-A; what Arabic, Hebrew or Cyrillic bytes read as otherwise lies beyond (Ș, ǐ, ʘ)
  return letters.every((c) => script.test(c) || !/\p{L}/u.test(c) || (c >= '\u00a0' && c <= '\u017f'));
}

/** WHATWG's names of single-byte encodings (US-ASCII and Latin-1 are windows-1252 there). */
const SINGLE_BYTE = /^(windows-125\d|iso-8859-\d+|koi8-[ru]|ibm866|macintosh|x-mac-cyrillic|windows-874)$/;
