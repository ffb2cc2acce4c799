import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MediaStore } from './media-store.ts';

describe('MediaStore', () => {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-media-')), 'media');
  afterAll(() => fs.rmSync(path.dirname(root), { recursive: true, force: true }));

  it("writes files readable by the server's user only, in folders only it can list", async () => {
    const store = new MediaStore(root);
    const key = await store.put(Buffer.from('jpeg bytes'), 'jpg');
    const file = path.join(root, key.slice(0, 2), key);
    expect(fs.readFileSync(file, 'utf8')).toBe('jpeg bytes');
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect((fs.statSync(path.dirname(file)).mode & 0o777).toString(8)).toBe('700');
    expect((fs.statSync(root).mode & 0o777).toString(8)).toBe('700');
  });
});
