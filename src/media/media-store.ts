import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** 128 random bits: a media URL works without the API token, so its key must not be guessable (links are signed as well: media-links.ts). */
const keyPattern = /^([0-9a-f]{2})[0-9a-f]{30}\.(jpg|png|webp)$/;

export const mediaTypes: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
export type MediaExt = 'jpg' | 'png' | 'webp';
export type MediaProblem = 'not_a_key' | 'missing' | 'unreadable' | 'empty' | 'not_an_image' | 'cut_short' | 'undecodable';

/**
 * Media files in a local folder, sharded by the key's first byte. Writes go to a temporary
 * name, flushed to disk and renamed into place (the folder flushed too), so neither a crash nor a
 * power cut leaves a half-written file under a key.
 * Readable by the server's user only, as the database is: customers' photos, served through
 * signed links, not the file system.
 */
export class MediaStore {
  /** `create: false`: the folder is made by the first write (a command that only reads or deletes makes none). */
  constructor(
    readonly root: string,
    options: { create?: boolean } = {},
  ) {
    if (options.create ?? true) fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  static isKey(key: string): boolean {
    return keyPattern.test(key);
  }

  private pathOf(key: string): string | undefined {
    const m = keyPattern.exec(key);
    return m ? path.join(this.root, m[1]!, key) : undefined;
  }

  async put(bytes: Buffer, ext: MediaExt): Promise<string> {
    return this.write(this.newKey(ext), bytes);
  }

  /** A key for a file not written yet (to be named in `media_deletions` before the write: migration 016). */
  newKey(ext: MediaExt): string {
    return `${randomBytes(16).toString('hex')}.${ext}`;
  }

  async write(key: string, bytes: Buffer): Promise<string> {
    const file = this.pathOf(key);
    if (!file) throw new Error(`not a media key: ${key}`);
    const made = await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 }).catch(async (err: NodeJS.ErrnoException) => {
      // Node's recursive mkdir says ENOENT where the folder cannot be made (a read-only mount: EROFS): asked again
      // without `recursive`, the cause shows, and the answer is 503 storage_unavailable rather than 500 (h96)
      if (err.code !== 'ENOENT') throw err;
      await fsp.mkdir(path.dirname(file), { mode: 0o700 });
      return path.dirname(file);
    });
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      // On disk before the rename, and the rename before the row naming the key commits: after a
      // power cut (not only a crash) a row never names an empty or missing file.
      const handle = await fsp.open(tmp, 'w', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(tmp, file);
      await syncFolder(path.dirname(file));
      if (made) await syncFolder(this.root);
    } catch (err) {
      // a write cut short (a full disk) left its part behind, named by no row
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return key;
  }

  /**
   * Removes these keys' files; answers the keys whose file was there and went (one missing may be in another folder: a
   * CLI run with another LOUPE_DATA_DIR), and those whose file is there and could not be removed. Never throws.
   */
  async remove(keys: Iterable<string>): Promise<{ removed: string[]; failed: string[] }> {
    const removed: string[] = [];
    const failed: string[] = [];
    await Promise.all(
      [...keys].map(async (key) => {
        const file = this.pathOf(key);
        if (!file) return;
        try {
          await fsp.unlink(file);
          removed.push(key);
        } catch (err) {
          // a file that stays (a read-only or failing disk) is the sweep's to remove later: the rows naming it are gone
          // already, and a delete that had committed answered 503 "nothing was stored" (h221)
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') failed.push(key);
        }
      }),
    );
    return { removed, failed };
  }

  /**
   * Removes these keys' files and any part of them a write cut short by a stopped process left
   * beside them (`<file>.<pid>.tmp`: a kill -9 between the write and its rename). For the sweep's
   * leftovers, whose writes are long over; one directory read per directory they lie in. Returns the keys a file of
   * which could not be removed (a read-only or failing disk), to try again later.
   */
  async removeWithLeftovers(keys: Iterable<string>): Promise<string[]> {
    const byDir = new Map<string, Set<string>>();
    const keyOf = new Map<string, string>();
    const failed = new Set<string>();
    for (const key of keys) {
      const file = this.pathOf(key);
      if (!file) continue;
      const dir = path.dirname(file);
      let names = byDir.get(dir);
      if (!names) byDir.set(dir, (names = new Set()));
      names.add(path.basename(file));
      keyOf.set(file, key);
    }
    for (const [dir, names] of byDir) {
      let present: string[];
      try {
        present = await fsp.readdir(dir);
      } catch {
        continue;
      }
      const owner = (n: string) => (n.endsWith('.tmp') ? n.slice(0, n.lastIndexOf('.', n.length - 5)) : n);
      await Promise.all(
        present
          .filter((n) => names.has(owner(n)))
          .map((n) =>
            fsp.rm(path.join(dir, n), { force: true }).catch(() => {
              failed.add(keyOf.get(path.join(dir, owner(n)))!);
            }),
          ),
      );
    }
    return [...failed];
  }

  /** Whether the file under `key` holds exactly `bytes` (false when there is none). */
  async holds(key: string, bytes: Buffer): Promise<boolean> {
    const file = this.pathOf(key);
    if (!file) return false;
    try {
      const { size } = await fsp.stat(file);
      return size === bytes.length && (await fsp.readFile(file)).equals(bytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /**
   * What is wrong with the file under `key`, if anything (`loupe media check`): gone, empty, not the image its name
   * says (its first bytes), cut short (a JPEG without its end marker, a PNG without IEND, a WebP shorter than its RIFF
   * size), or, with `decode`, an image that does not decode whole. The server writes every file whole (`write`), so
   * any of these is damage from outside: a disk, a copy, a hand.
   */
  async inspect(key: string, decode = false): Promise<MediaProblem | undefined> {
    const file = this.pathOf(key);
    if (!file) return 'not_a_key';
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(file);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
    }
    if (bytes.length === 0) return 'empty';
    const ext = key.slice(key.lastIndexOf('.') + 1);
    const starts = (magic: number[]) => magic.every((b, i) => bytes[i] === b);
    // the image's own structure walked to its end marker: data a phone appends after it (a motion photo's video,
    // a maker's trailer; kept as sent) is not damage, where looking for the marker at the file's end took it so (h98)
    if (ext === 'jpg') {
      if (!starts([0xff, 0xd8, 0xff])) return 'not_an_image';
      const end = jpegEnd(bytes);
      if (end === 'broken') return 'not_an_image';
      if (end === 'cut') return 'cut_short';
    } else if (ext === 'png') {
      if (!starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'not_an_image';
      if (!pngEnds(bytes)) return 'cut_short';
    } else if (ext === 'webp') {
      if (bytes.subarray(0, 4).toString('latin1') !== 'RIFF' || bytes.subarray(8, 12).toString('latin1') !== 'WEBP') return 'not_an_image';
      if (bytes.length < 8 + bytes.readUInt32LE(4)) return 'cut_short';
    }
    if (decode) {
      const { default: sharp } = await import('sharp');
      try {
        await sharp(bytes, { failOn: 'warning' }).raw().toBuffer();
      } catch {
        return 'undecodable';
      }
    }
    return undefined;
  }

  /** When a key's file was last written (ms), or undefined when there is none. */
  async modifiedAt(key: string): Promise<number | undefined> {
    const file = this.pathOf(key);
    if (!file) return undefined;
    try {
      return (await fsp.stat(file)).mtimeMs;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Every key with a file in the folder (temporary parts of writes left out). */
  async *keys(): AsyncGenerator<string> {
    let shards: string[];
    try {
      shards = await fsp.readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const shard of shards.sort()) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of (await fsp.readdir(path.join(this.root, shard))).sort()) if (keyPattern.test(name)) yield name;
    }
  }

  /**
   * Files in the folder that are no media file's (a name of another form, a file outside the shard folders, put there
   * by hand or by a tool), as paths under it; the temporary parts of writes left out. `loupe media check` counts them
   * with the files no row names (h109: only key-named files were counted).
   */
  async *strayFiles(): AsyncGenerator<string> {
    yield* (await this.otherFiles()).stray;
  }

  /** The temporary parts of writes a stopped process left (`<file>.<pid>.tmp`), as paths under the folder: the sweep removes them. */
  async *unfinishedWrites(): AsyncGenerator<string> {
    yield* (await this.otherFiles()).unfinished;
  }

  private async otherFiles(): Promise<{ stray: string[]; unfinished: string[] }> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(this.root, { withFileTypes: true, recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { stray: [], unfinished: [] };
      throw err;
    }
    const stray: string[] = [];
    const unfinished: string[] = [];
    for (const e of entries) {
      if (!e.isFile() && !e.isSymbolicLink()) continue;
      const rel = path.relative(this.root, path.join(e.parentPath, e.name));
      const parts = rel.split(path.sep);
      const keyed = parts.length === 2 && /^[0-9a-f]{2}$/.test(parts[0]!) && keyPattern.test(parts[1]!);
      if (keyed) continue;
      (e.name.endsWith('.tmp') ? unfinished : stray).push(parts.join('/'));
    }
    return { stray: stray.sort(), unfinished: unfinished.sort() };
  }

  /** A stored file's bytes, or undefined where there is none (or it is empty, as `open` reads it), or it is over `maxBytes`. */
  async read(key: string, maxBytes: number): Promise<Buffer | 'too_large' | undefined> {
    const file = this.pathOf(key);
    if (!file) return undefined;
    try {
      const { size } = await fsp.stat(file);
      if (size === 0) return undefined;
      if (size > maxBytes) return 'too_large';
      return await fsp.readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async open(key: string): Promise<{ stream: fs.ReadStream; size: number; contentType: string } | undefined> {
    const file = this.pathOf(key);
    if (!file) return undefined;
    try {
      const handle = await fsp.open(file, 'r');
      const { size } = await handle.stat();
      // the server writes no empty file: one is damage from outside, served as 200 with no image before (h96)
      if (size === 0) {
        await handle.close();
        return undefined;
      }
      return { stream: handle.createReadStream(), size, contentType: mediaTypes[key.slice(key.lastIndexOf('.') + 1)]! };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
}

/**
 * Where a JPEG's segments lead: to its end-of-image marker (`ok`), past the file's end (`cut`), or to bytes that are
 * no marker where one must be (`broken`). Segments are skipped by their lengths; entropy-coded data is scanned to the
 * next marker (a 0xFF not followed by 0x00, a restart marker or another 0xFF).
 */
function jpegEnd(b: Buffer): 'ok' | 'cut' | 'broken' {
  let i = 2;
  while (i + 1 < b.length) {
    if (b[i] !== 0xff) return 'broken';
    const m = b[i + 1]!;
    if (m === 0xff) {
      i++;
      continue;
    }
    if (m === 0xd9) return 'ok';
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) {
      i += 2;
      continue;
    }
    if (i + 3 >= b.length) return 'cut';
    i += 2 + b.readUInt16BE(i + 2);
    if (m === 0xda) {
      while (i + 1 < b.length && !(b[i] === 0xff && b[i + 1] !== 0x00 && b[i + 1] !== 0xff && !(b[i + 1]! >= 0xd0 && b[i + 1]! <= 0xd7))) i++;
    }
  }
  return 'cut';
}

/** Whether a PNG's chunks lead, each by its length, to its IEND chunk within the file. */
function pngEnds(b: Buffer): boolean {
  for (let i = 8; i + 8 <= b.length; ) {
    const length = b.readUInt32BE(i);
    if (b.toString('latin1', i + 4, i + 8) === 'IEND') return true;
    i += 12 + length;
  }
  return false;
}

/** Flushes a folder's entries (a rename into it) to disk; where the file system cannot, the rename stands as it is. */
async function syncFolder(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // EINVAL / EISDIR on file systems without folder sync
  } finally {
    await handle?.close();
  }
}
