import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MIN_SECRET_LENGTH } from '../config/config.ts';

/** `public` is for results the spec calls publicly readable (card grading's crop_level). */
export type LinkKind = 'private' | 'public';

export interface LinkLifetimes {
  privateS: number;
  publicS: number;
}

/**
 * Expiries are rounded up to the next whole minute: a client that lists the same rows again
 * within the minute gets the same URLs, so its image cache still hits.
 */
const EXPIRY_STEP_S = 60;
const SECRET_FILE = 'media-secret';

/**
 * Signed, expiring media URLs: `<base>/media/<key>?expires=<unix s>&sig=<hex>`, the signature an
 * HMAC-SHA256 of key and expiry under the server's secret. A leaked link stops working when it
 * expires; whoever may read the record gets a fresh one on every read.
 */
export class MediaLinks {
  constructor(
    private readonly secret: Buffer,
    private readonly lifetimes: LinkLifetimes,
    private readonly now: () => number = () => Date.now(),
  ) {}

  url(baseUrl: string, key: string, kind?: LinkKind): string;
  url(baseUrl: string, key: string | null, kind?: LinkKind): string | null;
  url(baseUrl: string, key: string | null, kind: LinkKind = 'private'): string | null {
    if (key === null) return null;
    const lifetime = kind === 'public' ? this.lifetimes.publicS : this.lifetimes.privateS;
    const expires = Math.ceil((this.now() / 1000 + lifetime) / EXPIRY_STEP_S) * EXPIRY_STEP_S;
    return `${baseUrl}/media/${key}?expires=${expires}&sig=${this.sign(key, expires)}`;
  }

  /** Whole seconds the link has left, or undefined when it is not ours, was altered or has expired. */
  secondsLeft(key: string, expires: unknown, sig: unknown): number | undefined {
    if (!this.signedAt(key, expires, sig)) return undefined;
    const left = Math.floor(Number(expires) - this.now() / 1000);
    return left > 0 ? left : undefined;
  }

  /** Whether the link carries this server's signature, whatever its expiry. */
  signedAt(key: string, expires: unknown, sig: unknown): boolean {
    if (typeof expires !== 'string' || typeof sig !== 'string' || !/^[0-9]{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(sig)) return false;
    return timingSafeEqual(Buffer.from(this.sign(key, Number(expires)), 'hex'), Buffer.from(sig, 'hex'));
  }

  private sign(key: string, expires: number): string {
    // A purpose prefix, so this secret never signs anything that could pass for another use.
    return createHmac('sha256', this.secret).update(`loupe-media\n${key}\n${expires}`).digest('hex');
  }
}

/**
 * How result media are written into stored asynchronous results: unsigned, and never served as
 * is. Reads replace them with signed links (src/services/result-links.ts).
 */
export function storedMediaUrl(baseUrl: string, key: string): string {
  return `${baseUrl}/media/${key}`;
}

/** The secret if there is one (the setting, or the data folder's file, checked), without making one. */
export async function existingMediaSecret(dataDir: string, fromEnv: string | undefined): Promise<{ secret: Buffer; file?: string } | undefined> {
  if (fromEnv !== undefined) return { secret: Buffer.from(fromEnv, 'utf8') };
  const file = path.join(dataDir, SECRET_FILE);
  const existing = await readSecret(file);
  return existing ? { secret: existing, file } : undefined;
}

/**
 * The signing secret: `LOUPE_MEDIA_SECRET` when given, else `<dataDir>/media-secret`, made once
 * (mode 0600) and read by every later start and by `loupe worker` processes on the same folder.
 * Two processes starting at once both end up with the first file written: it appears whole
 * (hard link of a synced temporary file) or not at all.
 */
export async function loadMediaSecret(dataDir: string, fromEnv: string | undefined): Promise<{ secret: Buffer; file?: string }> {
  const existing = await existingMediaSecret(dataDir, fromEnv);
  if (existing) return existing;
  const file = path.join(dataDir, SECRET_FILE);
  // a data folder Loupe makes is its owner's alone, as on SQLite (an existing one keeps its mode)
  await fsp.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fsp.open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fsp.link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fsp.rm(tmp, { force: true });
  }
  // The new name must survive a power cut: links handed out after this depend on it.
  const dir = await fsp.open(dataDir, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
  return { secret: (await readSecret(file))!, file };
}

async function readSecret(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = (await fsp.readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (text.length < MIN_SECRET_LENGTH) throw new Error(`${file} holds no usable secret; delete it to make a new one (media links handed out so far stop working)`);
  return Buffer.from(text, 'utf8');
}
