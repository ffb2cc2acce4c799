import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMediaSecret } from './media-links.ts';

describe('loadMediaSecret', () => {
  it("makes a missing data folder its owner's alone (on PostgreSQL it is the first to make it), the secret 0600, and reads the same secret again", async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-secret-'));
    try {
      const dataDir = path.join(parent, 'data');
      const first = await loadMediaSecret(dataDir, undefined);
      expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
      expect((fs.statSync(first.file!).mode & 0o777).toString(8)).toBe('600');
      expect((await loadMediaSecret(dataDir, undefined)).secret.equals(first.secret)).toBe(true);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
