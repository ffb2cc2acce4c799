import fs from 'node:fs';
import path from 'node:path';

/** Every JPEG, PNG and WebP under `dir` (recursively), sorted; none when the folder is absent. */
export function listImages(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(jpe?g|png|webp)$/i.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}
