import { emptiedOf } from '../util/emptied-fields.ts';
import { notARecordOf } from '../util/not-a-record.ts';
import type { AddressPolicy } from './address-policy.ts';
import { decodeBase64ImageInSteps } from './base64-image.ts';
import { decodeRgb, type RgbImage } from './decode-rgb.ts';
import { ImageLoadError } from './image-load-error.ts';
import { decodeReduced } from './jpeg-reduce.ts';
import { readLocalImage } from './local-file.ts';
import type { FetchLimits } from '../config/config.ts';
import { fetchImage, type DownloadHold } from './url-fetch.ts';
import type { MediaLinks } from './media-links.ts';
import { MediaStore } from './media-store.ts';

export interface ImageRecord {
  _url?: unknown;
  _base64?: unknown;
  _file?: unknown;
}

export interface IntakeOptions {
  policy: AddressPolicy;
  fetch: FetchLimits;
  /** Folder `_file` records are read from; `_file` is refused when unset. */
  fileRoot: string | undefined;
  maxBytes: number;
  maxPixels: number;
  /**
   * This server's own signed media links are read from its media folder, not fetched: a session image's link sent
   * back to recognition or grading named the server's own (loopback or private) address, which may not be fetched
   * (h259: the phone had to upload the same photo twice).
   */
  ownMedia?: { links: MediaLinks; store: MediaStore };
}

/**
 * The one way every image endpoint turns a record (`_base64`, `_url` or `_file`, in that order
 * of preference when several are given) into pixels. Failures are ImageLoadError, which services
 * report as the record's own status.
 */
export class ImageIntake {
  constructor(readonly options: IntakeOptions) {}

  /** `hold`: what a `_url` download holds of a byte budget, made its declared size once its answer's headers are in. */
  async bytes(record: ImageRecord, hold?: DownloadHold): Promise<Buffer> {
    // a record that is no object has no image to read (not-a-record.ts); said as what was sent, where
    const not = notARecordOf(record);
    if (not) throw new ImageLoadError(`records[${not.index}] must be an object (an image record with _url, _base64 or _file), not ${not.sent}`);
    const { _base64, _url, _file } = record;
    // The request schemas leave these to each record (a wrong one is the record's 400, not the request's).
    for (const [name, v, max] of [['_base64', _base64, Infinity], ['_url', _url, 8192], ['_file', _file, 1024]] as const) {
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw new ImageLoadError(`${name} must be a string, not ${Array.isArray(v) ? 'a list' : typeof v}`);
      // the image itself put where its address goes (a client's canvas.toDataURL()): said so, whatever its length
      if (name === '_url' && /^\s*data:/i.test(v)) throw new ImageLoadError('_url holds a data: URI, the image itself: send it as _base64 (the data: prefix may stay)');
      if (v.length > max) throw new ImageLoadError(`${name} is longer than ${max} characters`);
    }
    // a slice at a time: a 16-MiB image decoded at once held the event loop about 120 ms (h286)
    if (typeof _base64 === 'string') return decodeBase64ImageInSteps(_base64, this.options.maxBytes);
    if (typeof _url === 'string') {
      const own = await this.ownMedia(_url);
      if (own) return own;
    }
    if (typeof _url === 'string') return fetchImage(_url, this.options.policy, { ...this.options.fetch, maxBytes: Math.min(this.options.fetch.maxBytes, this.options.maxBytes) }, hold);
    if (typeof _file === 'string') return readLocalImage(_file, this.options.fileRoot, this.options.maxBytes);
    const empty = emptiedOf(record).filter((k) => k === '_url' || k === '_base64' || k === '_file');
    throw new ImageLoadError(empty.length ? `${empty.join(' and ')} ${empty.length > 1 ? 'are' : 'is'} empty (an empty field is not given): the record has no image; send one as _url, _base64 or _file` : 'the record has no _url, _base64 or _file');
  }

  /**
   * The file a link of this server's names, while its signature holds (whoever holds such a link may read it over
   * HTTP, so reading it here gives no one more); undefined for any other URL, or a file no longer here (fetched then,
   * as any URL is).
   */
  private async ownMedia(url: string): Promise<Buffer | undefined> {
    const own = this.options.ownMedia;
    if (!own || !url.includes('/media/')) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    const m = /\/media\/([^/]+)$/.exec(parsed.pathname);
    if (!m || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return undefined;
    // a key is never escaped: any other last segment is another server's file (h262: a bad escape threw before the fetch)
    const key = m[1]!;
    if (!MediaStore.isKey(key)) return undefined;
    const expires = parsed.searchParams.get('expires') ?? undefined;
    const sig = parsed.searchParams.get('sig') ?? undefined;
    if (own.links.secondsLeft(key, expires, sig) === undefined) {
      // ours, signed, past its time: said so (fetched, it was "a loopback address", h262)
      if (own.links.signedAt(key, expires, sig)) throw new ImageLoadError("this server's media link has expired: read the record it came from again for a fresh link");
      return undefined;
    }
    const bytes = await own.store.read(key, this.options.maxBytes);
    if (bytes === 'too_large') throw new ImageLoadError(`the image is larger than ${this.options.maxBytes} bytes`, 413, 'image_too_large');
    return bytes;
  }

  /** Pixels of the record; with `maxEdge`, reduced to a long edge under 2·`maxEdge` (see decodeReduced). */
  async rgb(record: ImageRecord, maxEdge?: number): Promise<RgbImage> {
    const bytes = await this.bytes(record);
    return maxEdge ? decodeReduced(bytes, this.options.maxPixels, maxEdge) : decodeRgb(bytes, this.options.maxPixels);
  }
}
