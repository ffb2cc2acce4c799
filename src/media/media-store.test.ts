import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
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

  it("names the cause when its shard folder cannot be made: a read-only mount is EROFS, which Node's recursive mkdir reports as ENOENT (h96)", async () => {
    const store = new MediaStore(root);
    const real = fs.promises.mkdir;
    const asked: boolean[] = [];
    const spy = vi.spyOn(fs.promises, 'mkdir').mockImplementation(async (dir, options) => {
      const recursive = typeof options === 'object' && options !== null && options.recursive === true;
      asked.push(recursive);
      throw Object.assign(new Error(`${recursive ? 'ENOENT: no such file or directory' : 'EROFS: read-only file system'}, mkdir '${String(dir)}'`), { code: recursive ? 'ENOENT' : 'EROFS', syscall: 'mkdir', path: String(dir) });
    });
    try {
      await expect(store.put(Buffer.from('x'), 'jpg')).rejects.toMatchObject({ code: 'EROFS', path: expect.stringContaining(root) });
      expect(asked).toEqual([true, false]);
    } finally {
      spy.mockRestore();
    }
    expect(fs.promises.mkdir).toBe(real);
  });

  it('flushes a file to disk before renaming it into place, then the folder holding it (a power cut leaves no row naming an empty file)', async () => {
    const store = new MediaStore(root);
    const order: string[] = [];
    const probe = await fs.promises.open(path.join(path.dirname(root), 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
    await probe.close();
    const sync = vi.spyOn(proto, 'sync');
    const rename = vi.spyOn(fs.promises, 'rename');
    sync.mockImplementation(async function (this: { fd: number }) {
      order.push(`sync ${fs.readlinkSync(`/proc/self/fd/${this.fd}`).endsWith('.tmp') ? 'file' : 'folder'}`);
    });
    rename.mockImplementation(async (from, to) => {
      order.push('rename');
      fs.renameSync(from, to);
    });
    try {
      await store.put(Buffer.from('jpeg bytes'), 'jpg');
    } finally {
      sync.mockRestore();
      rename.mockRestore();
    }
    expect(order.slice(0, 3)).toEqual(['sync file', 'rename', 'sync folder']);
  });

  it('leaves no part of a file whose write failed (a full disk left a .tmp no row names)', async () => {
    const store = new MediaStore(root);
    const before = new Set(fs.readdirSync(root, { recursive: true }).map(String));
    const full = vi.spyOn(fs.promises, 'rename').mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    try {
      await expect(store.put(Buffer.from('jpeg bytes'), 'jpg')).rejects.toThrow(/no space/);
    } finally {
      full.mockRestore();
    }
    const left = fs.readdirSync(root, { recursive: true }).map(String).filter((f) => !before.has(f) && f.endsWith('.tmp'));
    expect(left).toEqual([]);
  });
});
