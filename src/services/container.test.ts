import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { openServices } from './container.ts';

describe('a start that fails at the database', () => {
  it('leaves no media secret behind (an operator backing up the data folder would keep one nobody used)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-secret-'));
    try {
      const config = loadConfig({}, { dataDir, databaseUrl: 'postgres://loupe@127.0.0.1:1/nowhere', logLevel: 'silent' });
      await expect(openServices(config, { longRunning: true })).rejects.toThrow(/ECONNREFUSED|connect/);
      expect(fs.existsSync(path.join(dataDir, 'media-secret'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
