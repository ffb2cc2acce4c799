import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalImage } from './local-file.ts';

describe('readLocalImage', () => {
  let dir: string;
  let root: string;
  let link: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loupe-local-'));
    root = path.join(dir, 'root');
    await fs.mkdir(path.join(root, 'sub'), { recursive: true });
    await fs.writeFile(path.join(root, 'sub', 'a.jpg'), 'jpeg bytes');
    await fs.writeFile(path.join(dir, 'secret.txt'), 'secret');
    await fs.writeFile(path.join(root, 'big.jpg'), Buffer.alloc(2048));
    await fs.symlink(path.join(dir, 'secret.txt'), path.join(root, 'out.jpg'));
    // a folder link out of the root: a file missing there must read as "outside", not "does not exist"
    await fs.symlink(dir, path.join(root, 'dirlink'));
    link = path.join(dir, 'root-link');
    await fs.symlink(root, link);
    execFileSync('mkfifo', [path.join(root, 'pipe.jpg')]);
  });
  afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

  it('reads relative paths and absolute ones inside the root (by its configured or real path)', async () => {
    expect((await readLocalImage('sub/a.jpg', root, 1024)).toString()).toBe('jpeg bytes');
    expect((await readLocalImage(path.join(root, 'sub/a.jpg'), root, 1024)).toString()).toBe('jpeg bytes');
    expect((await readLocalImage(path.join(link, 'sub/a.jpg'), link, 1024)).toString()).toBe('jpeg bytes');
    expect((await readLocalImage(path.join(root, 'sub/a.jpg'), link, 1024)).toString()).toBe('jpeg bytes');
  });

  it('finds a file named in the other Unicode form (NFD on disk from a Mac, NFC sent, and back; h181)', async () => {
    await fs.writeFile(path.join(root, 'Cafe\u0301.jpg'), 'nfd');
    await fs.writeFile(path.join(root, 'Th\u00e9.jpg'), 'nfc');
    expect((await readLocalImage('Caf\u00e9.jpg', root, 1024)).toString()).toBe('nfd');
    expect((await readLocalImage('The\u0301.jpg', root, 1024)).toString()).toBe('nfc');
    await expect(readLocalImage('Cafe.jpg', root, 1024)).rejects.toThrow('the file does not exist');
  });

  it('a root of / reads any absolute path', async () => {
    expect((await readLocalImage(path.join(root, 'sub/a.jpg'), '/', 1024)).toString()).toBe('jpeg bytes');
  });

  it.each([
    ['..', '../secret.txt', /outside/],
    ['absolute elsewhere', '/etc/hostname', /outside/],
    ['a symlink out', 'out.jpg', /outside/],
    ['a FIFO (would block a thread forever)', 'pipe.jpg', /not a regular file/],
    ['a directory', 'sub', /not a regular file/],
    ['a missing file', 'nope.jpg', /does not exist/],
    ['a file under a folder link out, present', 'dirlink/secret.txt', /outside/],
    ['a file under a folder link out, missing (no oracle of what exists there)', 'dirlink/nonexistent.jpg', /outside/],
    ['a missing file in a missing folder', 'nofolder/nope.jpg', /does not exist/],
    ['too large', 'big.jpg', /larger than 1024/],
  ])('refuses %s', async (_label, file, reason) => {
    await expect(readLocalImage(file, root, 1024)).rejects.toThrow(reason);
  });

  it('is off without a root', async () => {
    await expect(readLocalImage('sub/a.jpg', undefined, 1024)).rejects.toThrow(/not enabled/);
  });
});
