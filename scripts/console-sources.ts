import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Everything the console bundle is built from: its sources, its config and the versions of what it bundles. */
export function consoleSourceHash(): string {
  const files = [
    ...fs
      .readdirSync(path.join(root, 'console/src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => !f.endsWith('.test.ts'))
      .map((f) => path.join('console/src', f)),
    'console/index.html',
    'console/vite.config.ts',
  ]
    .filter((f) => fs.statSync(path.join(root, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const f of files) {
    // Line ends normalised: a checkout on Windows must not look stale.
    hash.update(`${f}\0${fs.readFileSync(path.join(root, f), 'utf8').replace(/\r\n/g, '\n')}\0`);
  }
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  for (const dep of ['preact', 'vite']) hash.update(`${dep}@${lock.packages[`node_modules/${dep}`]?.version ?? '?'}\0`);
  return hash.digest('hex');
}

export { root as repositoryRoot };
