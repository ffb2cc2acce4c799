import net from 'node:net';
import ipaddr from 'ipaddr.js';
import os from 'node:os';
import path from 'node:path';
import { seenParts, type SeenPart } from '../text-search/seen-tokens.ts';
import { editDistance } from '../util/edit-distance.ts';
import { defaultEmbedder, embedderNames } from '../vision/models/embedder-names.ts';

/** About an hour in all: 9 attempts, the last 58 minutes after the first (docs/webhooks.md). */
export const defaultRetryDelaysMs = [5, 15, 45, 120, 300, 600, 900, 1500].map((s) => s * 1000);

/** Every limit the spec leaves open gets a documented default here (see docs/api-decisions.md). */
export interface Limits {
  /** Body limit for ordinary JSON endpoints. */
  bodyBytes: number;
  /** Body limit for identification batches (500 rows with grading can be large). */
  batchBodyBytes: number;
  /** Body limit for base64 image uploads. */
  imageBodyBytes: number;
  /** Decoded image bytes accepted. */
  imageBytes: number;
  /** Decoded pixels accepted (decompression-bomb guard). */
  imagePixels: number;
  /** Stored originals are scaled down to this long edge when larger. */
  imageLongEdge: number;
  thumbnailLongEdge: number;
  batchRows: number;
  sessionPageSize: number;
  identificationPageSize: number;
  identificationPageSizeMax: number;
  /** Records per visual_hash (spec: 10), and per remove_duplicates / rank_images (spec: not shown). */
  hashRecords: number;
  matchRecords: number;
  /** Body limit of image-matching requests (base64 images inline). */
  matchBodyBytes: number;
  /** Bodies over this size wait for one of `largeBodiesAtOnce` slots before they are read. */
  largeBodyBytes: number;
  largeBodiesAtOnce: number;
  /** Other bodies over `largeBodyBytes` (images inline) arriving at once; each gives its turn back once it has arrived. */
  largeBodiesArriving: number;
  /** Longest pause in a large body once its slot is taken (then 408): a stalled upload must not hold a slot. */
  largeBodyIdleMs: number;
  /** Slowest average a large body may arrive at once it has had `largeBodyRateGraceMs` (then 408): a body trickled a byte at a time never pauses. */
  largeBodyMinBytesPerSecond: number;
  largeBodyRateGraceMs: number;
}

/** How `_url` images are downloaded. */
export interface FetchLimits {
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Further attempts after a network error or a 5xx answer. */
  retries: number;
  /**
   * All of one HTTP request's downloads together (src/http/request-downloads.ts): 8 at once with 20 s
   * each, 100 records on a host that never answers held a request for 200 s. Optional: a limit
   * spelled without it (tests, callers outside a request) takes the default.
   */
  requestTotalMs?: number;
}

export const defaultFetchLimits: FetchLimits = { connectTimeoutMs: 5_000, totalTimeoutMs: 20_000, maxBytes: 24 * 1024 * 1024, maxRedirects: 3, retries: 2, requestTotalMs: 60_000 };

/** The vision worker pool (see src/vision/engine/vision-engine.ts). */
export interface VisionOptions {
  /** Worker threads; each loads its own copy of the models (tfjs-wasm runs single-threaded). */
  threads: number;
  /** Threads for minutes-long tasks (super-resolution), apart from the request threads. */
  longThreads?: number;
  /** Super-resolution: largest result in pixels, and the time one image may take. */
  upscaleMaxOutputPixels?: number;
  upscaleTimeoutMs?: number;
  /** Images waiting or running before new requests are turned away with 503. */
  maxQueue: number;
  /** An image taking longer than this is answered as a timeout (504); its worker is replaced if it has not finished `timeoutGraceMs` later. */
  taskTimeoutMs: number;
  /** How long a timed-out task may run on before its worker is stopped (default: 2 × the timeout, at least 10 s). */
  timeoutGraceMs?: number;
  /** Models loaded and run once on every worker at start-up; the others load on first use. */
  warm: string[];
  /** The generic image embedding behind descriptors (see docs/models.md); empty = the default. */
  embedder: string;
  /** Folder of the active CLIP-family pack (`loupe models activate`), found at start-up. */
  clipPack?: string | undefined;
  /** Lets tests crash a worker on purpose; never set in production. */
  testHooks?: boolean;
  /**
   * Where card grading finds the card: `detector`, the trained card detector (docs/card-detector.md),
   * or `classical`, issue 7's outline search alone (docs/grading.md "Localization").
   */
  cardLocator?: 'detector' | 'classical';
}

function locatorFrom(raw: string | undefined): 'detector' | 'classical' {
  // trimmed as every other setting is: a trailing space from an env file stopped the start (h317)
  const value = raw?.trim();
  if (value === undefined || value === '' || value === 'detector') return 'detector';
  if (value === 'classical') return 'classical';
  throw new Error(`LOUPE_CARD_LOCATOR: "${value}" is not detector or classical`);
}

export const visionModels = ['embed', 'faces', 'objects', 'pose', 'ocr'] as const;
/** What `LOUPE_VISION_WARM` names: the image models, and `card` (the card detector's four networks and OpenCV). */
export const warmableModels = [...visionModels, 'card'] as const;

function seenFrom(value: string | undefined): SeenPart[] {
  if (value === undefined || value === '' || value === 'all') return [...seenParts];
  if (value === 'none') return [];
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const m of list) {
    if (!(seenParts as readonly string[]).includes(m)) throw new Error(`LOUPE_SEEN: unknown part "${m}"; use all, none or a list of ${seenParts.join(', ')}`);
  }
  if (list.includes('framed') && !list.includes('objects')) throw new Error('LOUPE_SEEN: "framed" is a second view for objects; list "objects" too');
  return list as SeenPart[];
}

function warmFrom(value: string | undefined): string[] {
  if (value === undefined || value === '' || value === 'all') return [...warmableModels];
  if (value === 'none') return [];
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const m of list) {
    if (!(warmableModels as readonly string[]).includes(m)) throw new Error(`LOUPE_VISION_WARM: unknown model "${m}"; use all, none or a list of ${warmableModels.join(', ')}`);
  }
  return list;
}

/** The asynchronous request queue (docs/queue.md). */
export interface QueueOptions {
  /** Jobs this process runs at once; 0 = none here (run `loupe worker` processes instead). */
  workers: number;
  /** A job's lease; a worker that dies is noticed this long after its last renewal. */
  leaseMs: number;
  /** Look for work this often when no signal came (other processes on SQLite). */
  pollMs: number;
  /** Runs of one request before it is finished with every record failed. */
  maxAttempts: number;
  /** Requests and their result media are deleted this long after submission. */
  retentionMs: number;
  sweepIntervalMs: number;
  /** A job whose result the server's storage refused runs again after this long (its attempt given back). */
  storageRetryMs: number;
  /**
   * `LOUPE_QUEUE_PREFETCH_MB`: bytes of `_url` images the job runner holds downloaded ahead of its handlers, across its
   * jobs (src/queue/prefetch-budget.ts); 0 downloads none ahead.
   */
  prefetchBytes: number;
  /**
   * `LOUPE_REQUEST_PREVIEWS` (default on): long edge (px) of the JPEG preview a finished recognition or grading request
   * keeps of each photo it read, for the console's request view (h365); 0 when off.
   */
  previewEdge: number;
}

/** Completion webhooks (docs/webhooks.md). */
export interface WebhookSettings {
  retryDelaysMs: number[];
  timeoutMs: number;
  concurrency: number;
  perAccount: number;
  /** The least time between a delivered webhook and a resend of it (the resend is free: h258, a relay of POSTs). */
  resendGapMs: number;
}

/** Signed media links (src/media/media-links.ts). */
export interface MediaLinkSettings {
  /** LOUPE_MEDIA_SECRET; when unset, a secret made once in the data folder. */
  secret: string | undefined;
  /** Lifetime of links to private images (session images, thumbnails, request results). */
  linkLifetimeS: number;
  /** Lifetime of links to results the spec calls publicly readable (card grading's crop_level). */
  publicLinkLifetimeS: number;
}

export interface RateLimit {
  /** Sustained requests per second per token. */
  perSecond: number;
  /** Requests a token may send at once before the sustained rate applies. */
  burst: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * PostgreSQL connections per process. Measured on a 2-core machine running PostgreSQL, the API
   * and the load generator: 6 connections served 407 req/s at p99 244 ms, 20 gave 300 req/s at
   * p99 550 ms and 40 gave p99 1.5 s: more backends than cores only add contention.
   */
  pgPoolSize: number;
  /** A PostgreSQL statement unanswered this long closes its connection (server and workers; 0: never). */
  pgStatementLimitMs: number;
  /** Absolute base URL for links the server hands out (images, pages); taken from the request when unset. */
  publicUrl: string | undefined;
  logLevel: string;
  /**
   * Whether `X-Forwarded-*` headers are believed: `true` from any peer, or a list of the proxies' addresses and CIDR
   * ranges (`127.0.0.1,10.0.0.0/8`), whose forwarded addresses are skipped from the right: a client's own
   * `X-Forwarded-For` then cannot name its address in the logs (h112: with `1` it could).
   */
  trustProxy: boolean | string;
  rateLimit: RateLimit;
  /** Credits charged per priced endpoint, keyed `<service>.<operation>`. */
  prices: Record<string, number>;
  /**
   * US dollars per unit of another currency (LOUPE_PRICE_RATES, JSON such as {"EUR": 1.08}):
   * `price_stats` counts prices in a currency only with its rate; without one they are left out
   * and the record says so (docs/prices.md).
   */
  priceRates: Record<string, number>;
  defaultCredits: number;
  limits: Limits;
  /** Hosts, IPs and CIDRs that `_url` may reach although they are not public (LOUPE_URL_ALLOWLIST). */
  urlAllowList: string[];
  /** Origins (`https://app.example`) browser apps may call from, or `*` (LOUPE_CORS_ORIGINS); none by default. */
  corsOrigins: string[];
  /** Folder `_file` records are read from (LOUPE_FILE_ROOT); `_file` is refused when unset. */
  fileRoot: string | undefined;
  fetch: FetchLimits;
  vision: VisionOptions;
  /**
   * What text search looks for in each image a collection stores (LOUPE_SEEN: a list of objects,
   * framed, faces, colors, ocr, or `none`; default all). CenterNet (objects, and again for framed)
   * is most of the cost of an insert.
   */
  seen: SeenPart[];
  /**
   * LOUPE_RECORD_THUMBNAILS (default on): each collection record keeps a JPEG thumbnail (long edge 256 px) of the image it
   * was inserted or last updated with, in the media folder, for the console's search (h357). Off: none is made.
   */
  recordThumbnails: boolean;
  queue: QueueOptions;
  /**
   * `LOUPE_PAUSE_BACKGROUND`: the server runs no job, delivers no webhook and sweeps nothing (the API answers; jobs
   * wait): a restored backup or a copy checked without re-running its jobs and sending their webhooks again (h104).
   */
  pauseBackground: boolean;
  webhooks: WebhookSettings;
  media: MediaLinkSettings;
  /**
   * How often a running process reads whether a newer release upgraded its database (docs/upgrades.md; 10 s when
   * unset). Tests only, never an environment variable: the API test of that check waited the whole 10 s, both backends.
   */
  schemaCheckMs?: number;
}

export const defaultPrices: Record<string, number> = {
  'cardstream.session.create': 1,
  'image_matching.visual_hash': 1,
  'image_matching.remove_duplicates': 1,
  'image_matching.rank_images': 1,
  'descriptor.descriptor': 1,
  'identity.face': 1,
  'identity.person': 1,
  'visual_search.insert': 1,
  'visual_search.update': 1,
  'visual_search.visualKNN': 1,
  'visual_search.visualTagsKNN': 1,
  'visual_search.visualKNNMulti': 1,
  'visual_search.visualTagsKNNMulti': 1,
  'visual_search.range': 1,
  'visual_search.nearDuplicates': 1,
  'visual_search.nearDupsInsert': 1,
  'visual_search.detectKNN': 1,
  'text_search.text': 1,
  'visual_search.extract_colors': 1,
  'visual_search.extract_tags': 1,
  'collectibles.tcg_id': 1,
  'collectibles.sport_id': 1,
  'collectibles.comics_id': 1,
  'collectibles.card_ocr_id': 1,
  /** Also the extra a `slab_id` / `slab_grade` option of the identification endpoints costs, once a call. */
  'collectibles.slab_id': 1,
  'collectibles.slab_grade': 1,
  'collectibles.detect': 1,
  'collectibles.process': 1,
  'collectibles.analyze': 1,
  /** Asynchronous requests: per record, charged at submit, refunded for records that fail. */
  'requests.upscaler': 1,
  'requests.flows': 1,
  'requests.card-grader': 1,
  'requests.collectibles-recognition': 1,
};

export const defaultLimits: Limits = {
  bodyBytes: 1024 * 1024,
  batchBodyBytes: 64 * 1024 * 1024,
  // a 50-megapixel phone JPEG is 15–25 MB; its base64 a third more
  imageBodyBytes: 33 * 1024 * 1024,
  imageBytes: 24 * 1024 * 1024,
  // phones' 48-, 50- and 64-megapixel modes (8064 x 6048, 8160 x 6144, 9248 x 6936); JPEGs are decoded reduced
  imagePixels: 64_500_000,
  imageLongEdge: 1024,
  thumbnailLongEdge: 256,
  batchRows: 1000,
  sessionPageSize: 50,
  identificationPageSize: 100,
  identificationPageSizeMax: 500,
  hashRecords: 10,
  matchRecords: 100,
  matchBodyBytes: 64 * 1024 * 1024,
  largeBodyBytes: 1024 * 1024,
  largeBodiesAtOnce: 2,
  largeBodiesArriving: 16,
  largeBodyIdleMs: 30_000,
  largeBodyMinBytesPerSecond: 8 * 1024,
  largeBodyRateGraceMs: 20_000,
};

/** LOUPE_WEBHOOK_RETRIES_S: seconds, comma-separated; a blank entry (`5, 15,`) stops the start (it was a retry at once, h113). */
function retryDelaysFrom(value: string | undefined): number[] {
  if (!value?.trim()) return [...defaultRetryDelaysMs];
  return value.split(',').map((s) => {
    if (!s.trim()) throw new Error(`LOUPE_WEBHOOK_RETRIES_S has an empty entry (a stray comma?): "${value}"`);
    return intFrom(s.trim(), 0, 'LOUPE_WEBHOOK_RETRIES_S') * 1000;
  });
}

/** LOUPE_TRUST_PROXY: on or off in the words operators write, or the proxies' addresses and CIDR ranges, comma-separated. */
function trustProxyFrom(value: string | undefined): boolean | string {
  const v = (value ?? '').trim();
  const parts = v.split(',').map((p) => p.trim()).filter(Boolean);
  const address = (p: string) => {
    const [ip, bits, more] = p.split('/');
    if (more !== undefined || !ip || net.isIP(ip) === 0) return false;
    return bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (net.isIPv4(ip) ? 32 : 128));
  };
  if (parts.length && parts.every((p) => p.includes('.') || p.includes(':'))) {
    const bad = parts.find((p) => !address(p));
    if (bad) throw new Error(`LOUPE_TRUST_PROXY: "${bad}" is not an IP address or CIDR range (give the proxies' addresses, comma-separated, or 1 / 0)`);
    return parts.join(',');
  }
  try {
    return boolFrom(value, 'LOUPE_TRUST_PROXY');
  } catch {
    throw new Error(`LOUPE_TRUST_PROXY must be one of 1, true, yes, on (or 0, false, no, off), or the proxies' IP addresses and CIDR ranges, comma-separated; got "${value}"`);
  }
}

/** On and off in the words operators write; anything else stops the start, naming it (`yes` was read as off). */
function boolFrom(value: string | undefined, name: string): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || ['0', 'false', 'no', 'off'].includes(v)) return false;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  throw new Error(`${name} must be one of 1, true, yes, on (or 0, false, no, off), got "${value}"`);
}

function embedderFrom(value: string | undefined): string {
  const v = (value ?? '').trim();
  if (v && !(embedderNames as readonly string[]).includes(v)) throw new Error(`LOUPE_EMBEDDER must be one of ${embedderNames.join(', ')} (or unset for ${defaultEmbedder}), got "${value}"`);
  return v;
}

/** What an account may hold (account-service's maxCredits): beyond it every `account create` failed, naming no setting. */
function defaultCreditsFrom(value: string | undefined): number {
  const credits = intFrom(value, 1000, 'LOUPE_DEFAULT_CREDITS');
  if (credits > 1_000_000_000_000) throw new Error(`LOUPE_DEFAULT_CREDITS must be at most 1000000000000 (what an account holds), got "${value}"`);
  return credits;
}

function portFrom(value: string | undefined): number {
  const port = intFrom(value, 8080, 'PORT');
  if (port > 65535) throw new Error(`PORT must be a port number, 0 to 65535, got "${value}"`);
  return port;
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  // whole numbers only, in decimal digits: a port, a count of threads or days has no fraction
  // (PORT=8397.5 failed deep in Node), and 0x4797 or 1e3 are not what an operator means to write
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n)) throw new Error(`${name} must be a whole number, 0 or more, got "${value}"`);
  return n;
}

/**
 * A count or a time for which 0 means nothing an operator could want (no threads, links that expire
 * as they are made, a lease of no time): refused, naming it, rather than replaced by the default or 1
 * without a word.
 */
function positiveIntFrom(value: string | undefined, fallback: number, name: string, what = ''): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a whole number, 1 or more${what ? ` (${what})` : ''}, got "${value}"`);
  return n;
}

/** 0 would delete a request as it is made: still charged and run, its result never readable. */
function retentionDaysFrom(value: string | undefined): number {
  return positiveIntFrom(value, 7, 'LOUPE_RETENTION_DAYS', 'days an asynchronous request and its results are kept');
}

/** Settings of a known form, checked at start so a wrong one is named there, not met as a 500 later. */
function publicUrlFrom(value: string | undefined): string | undefined {
  const v = value?.trim().replace(/\/+$/, '');
  if (!v) return undefined;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new Error(`LOUPE_PUBLIC_URL must be an absolute http(s) URL such as https://loupe.example.com, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`LOUPE_PUBLIC_URL must be an http(s) URL, got "${value}"`);
  return v;
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
function logLevelFrom(raw: string | undefined): string {
  const value = raw?.trim();
  if (value === undefined || value === '') return 'info';
  if (!logLevels.includes(value)) throw new Error(`LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${value}"`);
  return value;
}

function databaseUrlFrom(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(value)) throw new Error('DATABASE_URL must be a PostgreSQL URL (postgres://user@host:port/database); leave it unset for the embedded SQLite database');
  return value;
}

function corsOriginsFrom(value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const e of entries) {
    if (e === '*') continue;
    let origin: string | undefined;
    try {
      origin = new URL(e).origin;
    } catch {
      origin = undefined;
    }
    // an origin is a scheme, a host and a port, as browsers send it: no path, no trailing slash
    if (origin !== e || !/^https?:/.test(e)) throw new Error(`LOUPE_CORS_ORIGINS: "${e}" is not an origin such as https://app.example or http://localhost:3000 (or * for any)`);
  }
  return entries;
}

function allowListFrom(value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const e of entries) {
    const cidr = e.includes('/');
    const ok = cidr ? ipaddr.isValidCIDR(e) : ipaddr.isValid(e) || /^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i.test(e);
    if (!ok) throw new Error(`LOUPE_URL_ALLOWLIST: "${e}" is not a host name, an IP address or a CIDR range (such as 10.0.0.0/8)`);
  }
  return entries;
}

function pricesFrom(value: string | undefined): Record<string, number> {
  if (!value) return { ...defaultPrices };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error('LOUPE_PRICES must be a JSON object such as {"cardstream.session.create": 1}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('LOUPE_PRICES must be a JSON object');
  const out = { ...defaultPrices };
  for (const [k, v] of Object.entries(parsed)) {
    // a mistyped name would leave the real price as it was, silently: billing not as configured
    if (!Object.hasOwn(defaultPrices, k)) {
      const near = Object.keys(defaultPrices).sort((a, b) => editDistance(k, a) - editDistance(k, b))[0]!;
      throw new Error(`LOUPE_PRICES names no price "${k}"${editDistance(k, near) <= 3 ? ` (did you mean "${near}"?)` : ''}; the prices are listed in docs/configuration.md`);
    }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`LOUPE_PRICES.${k} must be a non-negative integer`);
    // no account holds more (h236: 1e20 started, and each call was a 400 blaming the client's request)
    if (v > 1_000_000_000_000) throw new Error(`LOUPE_PRICES.${k} must be at most 1000000000000 (what an account holds), got ${v}`);
    out[k] = v;
  }
  return out;
}

function ratesFrom(value: string | undefined): Record<string, number> {
  if (!value) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error('LOUPE_PRICE_RATES must be a JSON object of US dollars per unit, such as {"EUR": 1.08}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('LOUPE_PRICE_RATES must be a JSON object such as {"EUR": 1.08}');
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (!/^[A-Z]{3}$/.test(k)) throw new Error(`LOUPE_PRICE_RATES: "${k}" is not a currency code (three capital letters, such as EUR)`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`LOUPE_PRICE_RATES.${k} must be a number above 0 (US dollars per ${k})`);
    out[k] = v;
  }
  return out;
}

/** A media secret shorter than this (from the environment or a damaged file) is refused, not used. */
export const MIN_SECRET_LENGTH = 32;

/** Every API node and worker must sign with the same secret; a short one could be guessed. */
function mediaSecretFrom(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.trim().length < MIN_SECRET_LENGTH) throw new Error(`LOUPE_MEDIA_SECRET must be at least ${MIN_SECRET_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`);
  return value.trim();
}

export type ConfigOverrides = Omit<Partial<Config>, 'limits' | 'vision' | 'queue' | 'webhooks' | 'media'> & {
  limits?: Partial<Limits>;
  vision?: Partial<VisionOptions>;
  queue?: Partial<QueueOptions>;
  webhooks?: Partial<WebhookSettings>;
  media?: Partial<MediaLinkSettings>;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): Config {
  // read by the vision workers themselves (media/jpeg-reduce.ts); checked here so `maybe` stops the start
  if (env.LOUPE_FAST_JPEG !== undefined && env.LOUPE_FAST_JPEG.trim() !== '') boolFrom(env.LOUPE_FAST_JPEG, 'LOUPE_FAST_JPEG');
  const queueWorkers = intFrom(env.LOUPE_QUEUE_WORKERS, 2, 'LOUPE_QUEUE_WORKERS');
  const config: Config = {
    port: portFrom(env.PORT),
    // blank is unset, as for LOUPE_DATA_DIR (h113: HOST="" stayed "")
    host: env.HOST?.trim() || '0.0.0.0',
    // empty is unset, as for every other setting (it meant the current folder)
    dataDir: path.resolve(env.LOUPE_DATA_DIR?.trim() || './data'),
    databaseUrl: databaseUrlFrom(env.DATABASE_URL),
    pgPoolSize: positiveIntFrom(env.LOUPE_PG_POOL, 2 * os.availableParallelism() + 2, 'LOUPE_PG_POOL'),
    pgStatementLimitMs: 1000 * intFrom(env.LOUPE_PG_STATEMENT_LIMIT, 120, 'LOUPE_PG_STATEMENT_LIMIT'),
    publicUrl: publicUrlFrom(env.LOUPE_PUBLIC_URL),
    logLevel: logLevelFrom(env.LOG_LEVEL),
    trustProxy: trustProxyFrom(env.LOUPE_TRUST_PROXY),
    rateLimit: {
      perSecond: intFrom(env.LOUPE_RATE_LIMIT, 100, 'LOUPE_RATE_LIMIT'),
      burst: intFrom(env.LOUPE_RATE_BURST, 200, 'LOUPE_RATE_BURST'),
    },
    prices: pricesFrom(env.LOUPE_PRICES),
    priceRates: ratesFrom(env.LOUPE_PRICE_RATES),
    defaultCredits: defaultCreditsFrom(env.LOUPE_DEFAULT_CREDITS),
    limits: {
      ...defaultLimits,
      largeBodiesAtOnce: positiveIntFrom(env.LOUPE_LARGE_BODIES, defaultLimits.largeBodiesAtOnce, 'LOUPE_LARGE_BODIES'),
      largeBodiesArriving: positiveIntFrom(env.LOUPE_ARRIVING_BODIES, defaultLimits.largeBodiesArriving, 'LOUPE_ARRIVING_BODIES'),
    },
    urlAllowList: allowListFrom(env.LOUPE_URL_ALLOWLIST),
    corsOrigins: corsOriginsFrom(env.LOUPE_CORS_ORIGINS),
    // blank is unset: " " resolved to the working folder, opening `_file` to the whole checkout and its data (h113)
    fileRoot: env.LOUPE_FILE_ROOT?.trim() ? path.resolve(env.LOUPE_FILE_ROOT.trim()) : undefined,
    fetch: { ...defaultFetchLimits },
    vision: {
      threads: positiveIntFrom(env.LOUPE_VISION_THREADS, os.availableParallelism(), 'LOUPE_VISION_THREADS'),
      maxQueue: positiveIntFrom(env.LOUPE_VISION_QUEUE, 64, 'LOUPE_VISION_QUEUE'),
      taskTimeoutMs: positiveIntFrom(env.LOUPE_VISION_TIMEOUT_MS, 30_000, 'LOUPE_VISION_TIMEOUT_MS'),
      warm: warmFrom(env.LOUPE_VISION_WARM),
      embedder: embedderFrom(env.LOUPE_EMBEDDER),
      longThreads: positiveIntFrom(env.LOUPE_VISION_LONG_THREADS, 1, 'LOUPE_VISION_LONG_THREADS'),
      upscaleMaxOutputPixels: positiveIntFrom(env.LOUPE_UPSCALE_MAX_PIXELS, 16_777_216, 'LOUPE_UPSCALE_MAX_PIXELS'),
      upscaleTimeoutMs: positiveIntFrom(env.LOUPE_UPSCALE_TIMEOUT_MS, 600_000, 'LOUPE_UPSCALE_TIMEOUT_MS'),
      cardLocator: locatorFrom(env.LOUPE_CARD_LOCATOR),
    },
    seen: seenFrom(env.LOUPE_SEEN),
    recordThumbnails: env.LOUPE_RECORD_THUMBNAILS?.trim() ? boolFrom(env.LOUPE_RECORD_THUMBNAILS, 'LOUPE_RECORD_THUMBNAILS') : true,
    pauseBackground: boolFrom(env.LOUPE_PAUSE_BACKGROUND, 'LOUPE_PAUSE_BACKGROUND'),
    queue: {
      workers: queueWorkers,
      leaseMs: positiveIntFrom(env.LOUPE_QUEUE_LEASE_MS, 30_000, 'LOUPE_QUEUE_LEASE_MS'),
      pollMs: positiveIntFrom(env.LOUPE_QUEUE_POLL_MS, 1000, 'LOUPE_QUEUE_POLL_MS'),
      maxAttempts: positiveIntFrom(env.LOUPE_QUEUE_MAX_ATTEMPTS, 3, 'LOUPE_QUEUE_MAX_ATTEMPTS'),
      retentionMs: retentionDaysFrom(env.LOUPE_RETENTION_DAYS) * 86_400_000,
      sweepIntervalMs: 10 * 60_000,
      storageRetryMs: 60_000,
      // what the jobs waiting on their downloads outside a slot (one a slot, h286) need to download all ten records at
      // once, sizes unknown: half the worst case before it (ten images for each of 2 × LOUPE_QUEUE_WORKERS jobs)
      prefetchBytes: intFrom(env.LOUPE_QUEUE_PREFETCH_MB, (queueWorkers * 10 * defaultLimits.imageBytes) / (1024 * 1024), 'LOUPE_QUEUE_PREFETCH_MB') * 1024 * 1024,
      // 512: the cards of a photo of one to a few stay large enough to tell on a screen, at about 39 KB a photo (h365)
      previewEdge: !env.LOUPE_REQUEST_PREVIEWS?.trim() || boolFrom(env.LOUPE_REQUEST_PREVIEWS, 'LOUPE_REQUEST_PREVIEWS') ? 512 : 0,
    },
    webhooks: {
      retryDelaysMs: retryDelaysFrom(env.LOUPE_WEBHOOK_RETRIES_S),
      timeoutMs: positiveIntFrom(env.LOUPE_WEBHOOK_TIMEOUT_MS, 10_000, 'LOUPE_WEBHOOK_TIMEOUT_MS'),
      // deliveries wait on the network, not the CPU; one account's share is bounded (slow receivers)
      concurrency: 32,
      perAccount: 4,
      resendGapMs: 60_000,
    },
    media: {
      secret: mediaSecretFrom(env.LOUPE_MEDIA_SECRET),
      linkLifetimeS: positiveIntFrom(env.LOUPE_MEDIA_LINK_TTL_S, 3600, 'LOUPE_MEDIA_LINK_TTL_S'),
      publicLinkLifetimeS: positiveIntFrom(env.LOUPE_MEDIA_PUBLIC_LINK_TTL_S, 7 * 86_400, 'LOUPE_MEDIA_PUBLIC_LINK_TTL_S'),
    },
  };
  return {
    ...config,
    ...overrides,
    limits: { ...config.limits, ...overrides.limits },
    vision: { ...config.vision, ...overrides.vision },
    queue: { ...config.queue, ...overrides.queue },
    webhooks: { ...config.webhooks, ...overrides.webhooks },
    media: { ...config.media, ...overrides.media },
  };
}
