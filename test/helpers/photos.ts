import fs from 'node:fs';
import path from 'node:path';

/** Real photos committed with the tests (sources and licences in test/fixtures/photos/README.md). */
export const photosDir = path.resolve(import.meta.dirname, '../fixtures/photos');

export const photoPath = (rel: string): string => path.join(photosDir, rel);
export const photoBytes = (rel: string): Buffer => fs.readFileSync(photoPath(rel));
export const photoBase64 = (rel: string): string => photoBytes(rel).toString('base64');

/** Every committed Caltech-101 photo, as paths relative to photosDir. */
export function caltechPhotos(): string[] {
  const root = photoPath('caltech101');
  return fs
    .readdirSync(root)
    .sort()
    .flatMap((cls) => fs.readdirSync(path.join(root, cls)).sort().map((f) => `caltech101/${cls}/${f}`));
}
