import type { AddressPolicy } from './address-policy.ts';
import { decodeBase64Image } from './base64-image.ts';
import { decodeRgb, type RgbImage } from './decode-rgb.ts';
import { ImageLoadError } from './image-load-error.ts';
import { decodeReduced } from './jpeg-reduce.ts';
import { readLocalImage } from './local-file.ts';
import type { FetchLimits } from '../config/config.ts';
import { fetchImage } from './url-fetch.ts';

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
}

/**
 * The one way every image endpoint turns a record (`_base64`, `_url` or `_file`, in that order
 * of preference when several are given) into pixels. Failures are ImageLoadError, which services
 * report as the record's own status.
 */
export class ImageIntake {
  constructor(readonly options: IntakeOptions) {}

  async bytes(record: ImageRecord): Promise<Buffer> {
    const { _base64, _url, _file } = record;
    // The request schemas leave these to each record (a wrong one is the record's 400, not the request's).
    for (const [name, v, max] of [['_base64', _base64, Infinity], ['_url', _url, 8192], ['_file', _file, 1024]] as const) {
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw new ImageLoadError(`${name} must be a string, not ${Array.isArray(v) ? 'a list' : typeof v}`);
      // the image itself put where its address goes (a client's canvas.toDataURL()): said so, whatever its length
      if (name === '_url' && /^\s*data:/i.test(v)) throw new ImageLoadError('_url holds a data: URI, the image itself: send it as _base64 (the data: prefix may stay)');
      if (v.length > max) throw new ImageLoadError(`${name} is longer than ${max} characters`);
    }
    if (typeof _base64 === 'string') return decodeBase64Image(_base64, this.options.maxBytes);
    if (typeof _url === 'string') return fetchImage(_url, this.options.policy, { ...this.options.fetch, maxBytes: Math.min(this.options.fetch.maxBytes, this.options.maxBytes) });
    if (typeof _file === 'string') return readLocalImage(_file, this.options.fileRoot, this.options.maxBytes);
    throw new ImageLoadError('the record has no _url, _base64 or _file');
  }

  /** Pixels of the record; with `maxEdge`, reduced to a long edge under 2·`maxEdge` (see decodeReduced). */
  async rgb(record: ImageRecord, maxEdge?: number): Promise<RgbImage> {
    const bytes = await this.bytes(record);
    return maxEdge ? decodeReduced(bytes, this.options.maxPixels, maxEdge) : decodeRgb(bytes, this.options.maxPixels);
  }
}
