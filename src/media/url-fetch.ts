import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { resolvedRefusal, type AddressPolicy } from './address-policy.ts';
import { ImageLoadError } from './image-load-error.ts';

import { defaultFetchLimits, type FetchLimits } from '../config/config.ts';
import { downloadOwner, downloadSignal } from '../util/download-scope.ts';

export type { FetchLimits };

class Permanent extends ImageLoadError {}
/** The address policy's refusal of the host connected to. */
class Refused extends Permanent {}

/**
 * What a download holds of a byte budget while it runs (the job runner's images downloaded ahead, prefetch-budget.ts):
 * made the size the answer declares as soon as its headers are in, grown when more comes, never past the image limit.
 */
export interface DownloadHold {
  /** Holds `bytes` from now on; false where that is more than held and the budget has no room for it. */
  resize(bytes: number): boolean;
}

/**
 * A download stopped because its hold could not grow to what the answer declared or sent: not the image's fault nor
 * the host's (no retry, no failure held against the host); its caller downloads it again when it has the room.
 */
export class DownloadHoldExceeded extends Error {
  constructor() {
    super('the download needed more bytes than its budget had room for');
  }
}

/**
 * Downloads an image over http(s). The address is checked after DNS resolution, inside the
 * socket's own lookup, so the connection goes to exactly the address that was checked (no DNS
 * rebinding between check and connect); every redirect is checked again.
 */
export async function fetchImage(url: string, policy: AddressPolicy, limits: FetchLimits = defaultFetchLimits, hold?: DownloadHold): Promise<Buffer> {
  // held against the account whose URLs they are; background work (no account) is never held back
  const owner = downloadOwner();
  const host = owner ? hostOf(url, owner) : null;
  const resting = host ? failingHosts.resting(host) : null;
  if (resting) throw new ImageLoadError(resting);
  let lastError: ImageLoadError | undefined;
  // One deadline for the whole download, attempts and redirects included.
  const deadline = Date.now() + limits.totalTimeoutMs;
  // the request's: its client went away, or its downloads took too long in all (src/http/request-downloads.ts)
  const stop = downloadSignal();
  let tries = 0;
  for (let attempt = 0; attempt <= limits.retries; attempt++) {
    if (attempt > 0 && Date.now() >= deadline) break;
    if (stop?.aborted) throw stopped(stop);
    tries++;
    try {
      const body = await fetchFollowing(url, policy, limits, deadline, stop, hold);
      if (host) failingHosts.answered(host);
      return body;
    } catch (err) {
      if (err instanceof Permanent) throw new ImageLoadError(err.reason);
      if (err instanceof DownloadHoldExceeded) throw err;
      if (stop?.aborted) throw stopped(stop);
      // this process out of file descriptors: not the host's failure (it put the customer's image host to rest for
      // 30 s), and the operator's to know (h184: nothing was logged)
      if (outOfDescriptors(err)) throw new ImageLoadError(`the server cannot open a connection now (too many open files: raise its limit, docs/operations.md "Containers"); send the record again`);
      lastError = err instanceof ImageLoadError ? err : new ImageLoadError((err as Error).message);
      if (attempt < limits.retries) await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, Math.max(0, deadline - Date.now()))));
    }
  }
  if (host) failingHosts.failed(host);
  // a download that took the whole deadline was tried once (h280: "after several attempts" of one GET)
  throw new ImageLoadError(`the image cannot be downloaded ${tries > 1 ? `after ${tries} attempts` : '(one attempt, its time all taken)'} (${lastError!.reason})`);
}

let descriptorsSaidAt = 0;
/** Whether an error is the process's own lack of file descriptors; said on stderr (a process warning) once a minute. */
export function outOfDescriptors(err: unknown): boolean {
  const code = (err as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  const out = code === 'EMFILE' || code === 'ENFILE' || /\bE[MN]FILE\b/.test(String((err as Error | null)?.message ?? ''));
  if (out && Date.now() - descriptorsSaidAt > 60_000) {
    descriptorsSaidAt = Date.now();
    process.emitWarning('image downloads failed: the process is out of file descriptors (EMFILE); raise its open-files limit (docs/operations.md "Containers")', { code: 'LOUPE_EMFILE' });
  }
  return out;
}

/** `owner host:port` of a URL, lower case; null when it does not parse (refused later, as before). */
function hostOf(url: string, owner: string): string | null {
  try {
    const u = new URL(url);
    return `${owner} ${u.hostname.toLowerCase()}:${u.port}`;
  } catch {
    return null;
  }
}

/**
 * Hosts whose downloads for an account kept failing (no answer, a network error, a 5xx or 429, after
 * every attempt) are not tried again for that account for a while: 100 URLs of one failing host in
 * one call were 300 requests to it, and ten such calls at once 931, for nothing (calls whose every
 * record fails are free), an amplifier pointed at any site from the shop's address. Per account: a
 * process-wide rest let one account's five bad URLs on a shop's image host refuse every other
 * account's images from it (a reviewer's probe). A host that answers is forgotten. Keyed by the
 * name as written (another name of the same address is another host).
 */
export const failingHosts = {
  /** Failures within `windowMs` that put a host to rest, and for how long. */
  limit: 5,
  windowMs: 60_000,
  restMs: 30_000,
  now: () => Date.now(),
  hosts: new Map<string, { failures: number[]; until: number }>(),
  resting(host: string): string | null {
    const h = this.hosts.get(host);
    if (!h || h.until <= this.now()) return null;
    return `${host.slice(host.indexOf(' ') + 1).replace(/:$/, '')}: your last ${this.limit} downloads from it failed; not tried again for ${Math.ceil((h.until - this.now()) / 1000)} s (retry then)`;
  },
  failed(host: string): void {
    const now = this.now();
    const h = this.hosts.get(host) ?? { failures: [], until: 0 };
    h.failures = [...h.failures.filter((t) => t > now - this.windowMs), now];
    if (h.failures.length >= this.limit) {
      h.until = now + this.restMs;
      h.failures = [];
    }
    this.hosts.delete(host);
    this.hosts.set(host, h);
    // the oldest forgotten first: a bound on what strangers' URLs can make it hold
    if (this.hosts.size > 10_000) this.hosts.delete(this.hosts.keys().next().value!);
  },
  answered(host: string): void {
    this.hosts.delete(host);
  },
};

const stopped = (signal: AbortSignal) => (signal.reason instanceof ImageLoadError ? signal.reason : new ImageLoadError('the download was stopped'));

async function fetchFollowing(start: string, policy: AddressPolicy, limits: FetchLimits, deadline: number, stop?: AbortSignal, hold?: DownloadHold): Promise<Buffer> {
  let url = start;
  for (let hop = 0; ; hop++) {
    let res: Awaited<ReturnType<typeof fetchOnce>>;
    try {
      res = await fetchOnce(url, policy, limits, deadline, stop, hold);
    } catch (err) {
      // the refusal of a host the client never named sent it to its allow-list (h220: an allowed host redirecting to
      // 127.0.0.1 read "address 127.0.0.1 is a loopback address")
      if (hop > 0 && err instanceof Refused) throw new Refused(`the URL redirects to ${new URL(url).host}, which is refused: ${err.reason}`);
      throw err;
    }
    if ('location' in res) {
      if (hop >= limits.maxRedirects) throw new Permanent(`more than ${limits.maxRedirects} redirects`);
      try {
        url = new URL(res.location, url).toString();
      } catch {
        throw new Permanent('a redirect points to an invalid URL');
      }
      continue;
    }
    return res.body;
  }
}

/**
 * A socket lookup that refuses addresses the policy refuses, so the connection goes to exactly
 * the address that was checked. Shared by image downloads and webhook deliveries.
 */
export function guardedLookup(policy: AddressPolicy, refusal: (reason: string) => Error = (reason) => new Error(reason)): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as dns.LookupAddress[];
      for (const a of list) {
        const refused = policy.refusal(a.address, hostname);
        if (refused) return callback(refusal(resolvedRefusal(hostname, refused)), '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function parse(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Permanent('the URL is not valid');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Permanent(`only http and https URLs are fetched, not ${u.protocol.replace(':', '')}`);
  if (u.username || u.password) throw new Permanent('URLs with credentials are not fetched');
  return u;
}

function fetchOnce(url: string, policy: AddressPolicy, limits: FetchLimits, deadline: number, stop?: AbortSignal, hold?: DownloadHold): Promise<{ body: Buffer } | { location: string }> {
  const u = parse(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const refused = policy.refusal(host);
    if (refused) return Promise.reject(new Refused(refused));
  }
  const lookup = guardedLookup(policy, (reason) => new Refused(reason));
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new ImageLoadError('the download took too long'));

  return new Promise((resolve, reject) => {
    const client = u.protocol === 'https:' ? https : http;
    const req = client.get(u, { lookup, headers: { 'user-agent': 'Loupe image fetcher', accept: 'image/*' }, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      // Bodies of redirects and errors are not wanted: close the socket rather than read them.
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        return resolve({ location: res.headers.location });
      }
      if (status < 200 || status >= 300) {
        res.destroy();
        const msg = `the server answered HTTP ${status}`;
        return reject(status >= 500 || status === 429 ? new ImageLoadError(msg) : new Permanent(msg));
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > limits.maxBytes) {
        res.destroy();
        return reject(new Permanent(`the image is larger than ${limits.maxBytes} bytes`));
      }
      // held as declared from here: a compressed body's length says nothing of the image inflated from it, and a body
      // that declares none may be anything up to the limit
      const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
      const sized = (!encoding || encoding === 'identity') && Number.isSafeInteger(declared) && declared >= 0;
      let held = sized ? declared : limits.maxBytes;
      if (hold && !hold.resize(held)) {
        res.destroy();
        return reject(new DownloadHoldExceeded());
      }
      // a body of known size is copied into one buffer as it comes: its chunks, then their concatenation, held it
      // twice at its end (twenty downloads of 20 MiB ending together: 400 MiB more). Only where a budget counts the
      // declared size (the queue's downloads ahead): elsewhere a host declaring 24 MiB and sending nothing would have
      // the buffer made all the same, for every record that names it (review h299)
      let whole = hold && sized && declared > 0 ? Buffer.allocUnsafe(declared) : undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          res.destroy();
          reject(new Permanent(`the image is larger than ${limits.maxBytes} bytes`));
          return;
        }
        // more than it declared (HTTP's parser stops at the Content-Length; a guard for whatever passes it)
        if (hold && size > held) {
          if (!hold.resize(size)) {
            res.destroy();
            reject(new DownloadHoldExceeded());
            return;
          }
          held = size;
        }
        if (whole && size <= whole.length) return void chunk.copy(whole, size - chunk.length);
        if (whole) chunks.push(whole.subarray(0, size - chunk.length));
        whole = undefined;
        chunks.push(chunk);
      });
      res.on('end', () => {
        const body = whole ? whole.subarray(0, size) : Buffer.concat(chunks);
        decoded(body, res.headers['content-encoding'], limits.maxBytes).then((b) => resolve({ body: b }), reject);
      });
      res.on('error', (err) => reject(new ImageLoadError(err.message)));
    });
    const total = setTimeout(() => req.destroy(new ImageLoadError('the download took too long')), remaining);
    req.setTimeout(limits.connectTimeoutMs, () => req.destroy(new ImageLoadError('the server did not answer in time')));
    const onStop = () => req.destroy(stopped(stop!));
    stop?.addEventListener('abort', onStop, { once: true });
    req.on('error', (err) => {
      // a name DNS says does not exist is not tried again (h284: three lookups, and the backoff, for a typo);
      // EAI_AGAIN, the resolver's own failure, is retried like any other
      if ((err as NodeJS.ErrnoException).code === 'ENOTFOUND') return reject(new Permanent(`the host ${u.hostname} is not found (DNS)`));
      reject(err instanceof ImageLoadError ? err : new ImageLoadError(httpParserError(err) ?? err.message));
    });
    req.on('close', () => {
      clearTimeout(total);
      stop?.removeEventListener('abort', onStop);
    });
  });
}

const inflaters: Record<string, (body: Buffer, opts: zlib.ZlibOptions & zlib.BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/**
 * The body as the image's bytes: a server may send it compressed although it was not asked to (an
 * object stored gzipped with its Content-Encoding, as S3 and CDNs serve them; a browser decodes it):
 * gzip, deflate and brotli are undone, within the byte limit, on libuv's threads (24 MiB inflated on
 * the event loop would hold every request). Another encoding is named.
 */
async function decoded(body: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const e = (encoding ?? '').trim().toLowerCase();
  if (!e || e === 'identity') return body;
  // own keys only: a header naming `constructor` is an encoding like any unknown one
  const inflate = Object.hasOwn(inflaters, e) ? inflaters[e] : undefined;
  if (!inflate) throw new Permanent(`the server sent the image in the ${e} encoding, which is not read here; serve it as is`);
  try {
    return await inflate(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw new Permanent(`the image is larger than ${maxBytes} bytes`);
    throw new Permanent(`the server sent the image ${e}-compressed, and it does not decompress (${(err as Error).message})`);
  }
}

/** Node's HTTP parser's errors (HPE_…) as a sentence: the raw "Parse Error: Expected HTTP/" said nothing to a client. */
function httpParserError(err: Error): string | undefined {
  const code = (err as { code?: string }).code;
  if (!code?.startsWith('HPE_')) return undefined;
  return `the server's answer is not valid HTTP (${err.message.replace(/^Parse Error: /, '')}; a body longer than its Content-Length is one cause)`;
}
