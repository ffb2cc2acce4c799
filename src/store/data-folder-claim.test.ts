import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimDataFolder } from './data-folder-claim.ts';

describe('claimDataFolder', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a second server while the first is alive, naming it, and lets go on release', () => {
    const release = claimDataFolder(dir);
    expect(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8').trim()).toBe(String(process.pid));
    // another process (a pid other than ours) asks while we hold it
    expect(() => claimDataFolder(dir, process.pid + 1_000_000)).toThrow(new RegExp(`another Loupe server \\(pid ${process.pid}\\) already serves`));
    release();
    expect(fs.existsSync(path.join(dir, 'server.pid'))).toBe(false);
    claimDataFolder(dir, process.pid + 1_000_000)();
  });

  it('takes over the claim of a server that died without letting go (kill -9)', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    fs.writeFileSync(path.join(dir, 'server.pid'), `${pid}\n`);
    const release = claimDataFolder(dir);
    expect(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8').trim()).toBe(String(process.pid));
    release();
  });
});
