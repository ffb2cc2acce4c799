import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ImageLoadError } from './image-load-error.ts';

const inside = (p: string, root: string) => {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return p === root || p.startsWith(prefix);
};

/**
 * Reads `_file` records, only from inside `root`: relative paths are taken from the root,
 * absolute ones must already be inside it (by its configured or its real path), and the file
 * actually opened must lie inside the root's real path. The file is opened once (not following a
 * final symlink, not blocking on a FIFO) and everything after is done on that handle, so a path
 * swapped between check and read cannot slip through; on Linux the opened file's own path
 * (/proc/self/fd) is checked again.
 */
export async function readLocalImage(file: string, root: string | undefined, maxBytes: number): Promise<Buffer> {
  if (!root) throw new ImageLoadError('_file is not enabled on this server (set LOUPE_FILE_ROOT)');
  if (file.includes('\0')) throw new ImageLoadError('the file name is not valid');
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch {
    throw new ImageLoadError('the file folder of this server does not exist');
  }
  const wanted = path.resolve(root, file);
  if (!inside(wanted, path.resolve(root)) && !inside(wanted, realRoot)) throw new ImageLoadError('the file is outside the folder this server reads');
  let real: string;
  try {
    real = await fs.realpath(wanted).catch(async (err: unknown) => {
      // the name in the other Unicode form: files copied from a Mac are named in NFD, apps send NFC (h181)
      for (const form of ['NFC', 'NFD'] as const) {
        const other = path.resolve(root, file.normalize(form));
        if (other === wanted || (!inside(other, path.resolve(root)) && !inside(other, realRoot))) continue;
        const found = await fs.realpath(other).catch(() => null);
        if (found) return found;
      }
      throw err;
    });
  } catch {
    // a missing file under a link that leads out of the root is "outside" too: "does not exist" there told a
    // client which files exist in the folder the link points to
    if (!inside(await nearestRealAncestor(wanted), realRoot)) throw new ImageLoadError('the file is outside the folder this server reads');
    throw new ImageLoadError('the file does not exist');
  }
  if (!inside(real, realRoot)) throw new ImageLoadError('the file is outside the folder this server reads');

  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const opened = await fs.realpath(`/proc/self/fd/${handle.fd}`).catch(() => real);
    if (!inside(opened, realRoot)) throw new ImageLoadError('the file is outside the folder this server reads');
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ImageLoadError('the path is not a regular file');
    if (stat.size > maxBytes) throw new ImageLoadError(`the image is larger than ${maxBytes} bytes`);
    // Read at most one byte past the limit: the file may have grown since stat.
    const buf = Buffer.alloc(Math.min(maxBytes + 1, stat.size + 1));
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, length, buf.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new ImageLoadError(`the image is larger than ${maxBytes} bytes`);
      if (length === buf.length) break;
    }
    return buf.subarray(0, length);
  } catch (err) {
    if (err instanceof ImageLoadError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImageLoadError(code === 'EACCES' || code === 'EPERM' ? 'the server may not read the file' : code === 'ELOOP' ? 'the file is a symbolic link that changed' : 'the file cannot be read');
  } finally {
    await handle?.close();
  }
}

/** The real path of the deepest folder on `p`'s path that exists. */
async function nearestRealAncestor(p: string): Promise<string> {
  for (let dir = path.dirname(p); ; dir = path.dirname(dir)) {
    try {
      return await fs.realpath(dir);
    } catch {
      if (dir === path.dirname(dir)) return dir;
    }
  }
}
