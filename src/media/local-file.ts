import fs from 'node:fs/promises';
import path from 'node:path';
import { ImageLoadError } from './image-load-error.ts';

/**
 * Reads `_file` records, only from inside `root`: relative paths are taken from the root,
 * absolute ones must already be inside it, and the real path (symlinks resolved) must stay in it.
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
  const wanted = path.resolve(realRoot, file);
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + path.sep);
  if (!inside(wanted)) throw new ImageLoadError('the file is outside the folder this server reads');
  let real: string;
  try {
    real = await fs.realpath(wanted);
  } catch {
    throw new ImageLoadError('the file does not exist');
  }
  if (!inside(real)) throw new ImageLoadError('the file is outside the folder this server reads');
  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new ImageLoadError('the path is not a file');
  if (stat.size > maxBytes) throw new ImageLoadError(`the image is larger than ${maxBytes} bytes`);
  return fs.readFile(real);
}
