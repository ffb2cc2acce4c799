import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const cacheSetting = (tmpdir: string) => {
  const { TSX_DISABLE_CACHE: _, ...env } = process.env;
  return execFileSync(process.execPath, ['--input-type=module', '-e', "await import('./bin/tsx-cache.mjs'); console.log(process.env.TSX_DISABLE_CACHE ?? 'cache')"], { cwd: root, env: { ...env, TMPDIR: tmpdir } }).toString().trim();
};

describe('tsx compile cache (h184: a read-only root filesystem stopped the start with a stack trace)', () => {
  it('is turned off where the temporary folder cannot be written, and left on where it can', () => {
    expect(cacheSetting('/nonexistent/loupe-tmp')).toBe('1');
    expect(cacheSetting(fs.realpathSync(process.env.TMPDIR ?? '/tmp'))).toBe('cache');
  });

  it('is looked at before tsx loads, by npm start and by the admin command', () => {
    const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    expect(start.indexOf('--import ./bin/tsx-cache.mjs')).toBeGreaterThan(-1);
    expect(start.indexOf('--import ./bin/tsx-cache.mjs')).toBeLessThan(start.indexOf('--import tsx'));
    const bin = fs.readFileSync(path.join(root, 'bin/loupe.js'), 'utf8');
    expect(bin.indexOf("import './tsx-cache.mjs'")).toBeGreaterThan(-1);
    expect(bin.indexOf("import './tsx-cache.mjs'")).toBeLessThan(bin.indexOf('tsx/esm/api'));
  });
});
