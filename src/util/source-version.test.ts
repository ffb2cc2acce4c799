import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceVersion } from './source-version.ts';

describe('sourceVersion', () => {
  it('is 8 hex digits that change exactly when a file the algorithm reads changes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-version-'));
    try {
      const a = pathToFileURL(path.join(dir, 'a.ts'));
      const b = pathToFileURL(path.join(dir, 'b.ts'));
      fs.writeFileSync(a, 'export const x = 1;\n');
      fs.writeFileSync(b, 'export const y = 2;\n');
      const first = sourceVersion(a, b);
      expect(first).toMatch(/^[0-9a-f]{8}$/);
      expect(sourceVersion(a, b)).toBe(first);
      fs.writeFileSync(b, 'export const y = 3;\n');
      expect(sourceVersion(a, b)).not.toBe(first);
      expect(sourceVersion(a)).not.toBe(sourceVersion(a, b));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
