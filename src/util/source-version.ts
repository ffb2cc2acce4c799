import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * A short hash of source files (URLs of modules, e.g. `new URL('./x.ts', import.meta.url)`): an
 * algorithm's version that changes exactly when its code does, without anyone bumping it.
 */
export function sourceVersion(...files: URL[]): string {
  const h = crypto.createHash('sha256');
  for (const f of files) h.update(fs.readFileSync(f));
  return h.digest('hex').slice(0, 8);
}
