import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimDataFolder, runningHolder } from './data-folder-claim.ts';

describe('claimDataFolder', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a second server while the first holds the folder, naming it, and lets go on release', () => {
    const release = claimDataFolder(dir);
    expect(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8').trim()).toBe(String(process.pid));
    expect(() => claimDataFolder(dir)).toThrow(new RegExp(`another Loupe server \\(pid ${process.pid}\\) already serves`));
    release();
    expect(fs.existsSync(path.join(dir, 'server.pid'))).toBe(false);
    claimDataFolder(dir)();
  });

  it("makes a new data folder its owner's alone, and leaves no journal beside the lock", () => {
    const fresh = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-new-')), 'data');
    try {
      const release = claimDataFolder(fresh);
      expect((fs.statSync(fresh).mode & 0o777).toString(8)).toBe('700');
      expect(fs.readdirSync(fresh).sort()).toEqual(['server.lock', 'server.pid']);
      release();
    } finally {
      fs.rmSync(path.dirname(fresh), { recursive: true, force: true });
    }
  });

  it('names the file and the likely cause when the folder cannot be written (SQLite said only "unable to open database file")', () => {
    const odd = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-odd-'));
    try {
      fs.mkdirSync(path.join(odd, 'server.lock'));
      expect(() => claimDataFolder(odd)).toThrow(/^cannot open .*server\.lock, the file that keeps a second server off this data folder \(.+\): the data folder and its files must be writable by this user$/);
    } finally {
      fs.rmSync(odd, { recursive: true, force: true });
    }
  });

  it("names the pid file it cannot write and leaves the one there whole (h221: a full disk emptied it, the error named no file)", () => {
    const odd = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-pid-'));
    try {
      fs.writeFileSync(path.join(odd, 'server.pid'), '12345\n');
      // a write that fails as a full disk's does: the temporary file is a directory
      fs.mkdirSync(path.join(odd, 'server.pid.tmp', 'x'), { recursive: true });
      expect(() => claimDataFolder(odd)).toThrow(new RegExp(`^cannot write ${odd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/server\\.pid \\(`));
      expect(fs.readFileSync(path.join(odd, 'server.pid'), 'utf8')).toBe('12345\n');
      // and the folder is not held: once the disk takes it, a start claims it
      fs.rmSync(path.join(odd, 'server.pid.tmp'), { recursive: true });
      claimDataFolder(odd)();
    } finally {
      fs.rmSync(odd, { recursive: true, force: true });
    }
  });

  it("keeps its claim when the caller drops the release function and the garbage collector runs (the lock's connection was collected and closed: CI's holder processes lost their claims)", async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-gc-'));
    const holder = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '-e', `import('${path.resolve(import.meta.dirname, 'data-folder-claim.ts')}').then((m) => { m.claimDataFolder(${JSON.stringify(own)}); setTimeout(() => { globalThis.gc(); console.log('held'); }, 50); setInterval(() => {}, 1000); })`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
      expect(() => claimDataFolder(own)).toThrow(new RegExp(`another Loupe server \\(pid ${holder.pid}\\) already serves`));
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.on('exit', r));
      fs.rmSync(own, { recursive: true, force: true });
    }
  }, 30_000);

  it('is free again when its holder is killed (kill -9): the operating system lets go of the lock, a stale pid file says nothing', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `import('${path.resolve(import.meta.dirname, 'data-folder-claim.ts')}').then((m) => { globalThis.release = m.claimDataFolder(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000); })`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
    expect(() => claimDataFolder(dir)).toThrow(new RegExp(`pid ${holder.pid}`));
    holder.kill('SIGKILL');
    await new Promise((r) => holder.on('exit', r));
    expect(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8').trim()).toBe(String(holder.pid));
    const release = claimDataFolder(dir);
    expect(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8').trim()).toBe(String(process.pid));
    release();
  }, 30_000);

  it("refuses a second server when the lock file was deleted under a running one, by the pid it names (h96)", async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `import('${path.resolve(import.meta.dirname, 'data-folder-claim.ts')}').then((m) => { globalThis.release = m.claimDataFolder(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000); })`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
      // an operator's "stale lock" reflex
      fs.rmSync(path.join(dir, 'server.lock'));
      expect(() => claimDataFolder(dir)).toThrow(new RegExp(`another Loupe server \\(pid ${holder.pid}\\) may still serve .*was it deleted\\?`));
      // the refusal leaves the running server's pid file as it was
      expect(fs.readFileSync(path.join(dir, 'server.pid'), 'utf8').trim()).toBe(String(holder.pid));
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.on('exit', r));
    }
    // once it is gone, the folder is free again
    claimDataFolder(dir)();
  }, 30_000);

  it("tells a live holder by its pid where /proc is not this process's own (a container shown its host's: CI failed)", () => {
    const foreign = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-proc-'));
    const pidFile = path.join(foreign, 'server.pid');
    try {
      // this process's parent lives; a pid past any in use does not
      fs.writeFileSync(pidFile, `${process.ppid}\n`);
      expect(runningHolder(pidFile, path.join(foreign, 'server.lock'), foreign)).toBe(process.ppid);
      fs.writeFileSync(pidFile, '4194303\n');
      expect(runningHolder(pidFile, path.join(foreign, 'server.lock'), foreign)).toBeUndefined();
      // with the real /proc, the parent holds no lock file of this folder: no holder
      fs.writeFileSync(pidFile, `${process.ppid}\n`);
      expect(runningHolder(pidFile, path.join(foreign, 'server.lock'))).toBeUndefined();
    } finally {
      fs.rmSync(foreign, { recursive: true, force: true });
    }
  });

  it('sees the running holder also when the data folder is reached through a symbolic link (the kernel names the real path; CI failed)', async () => {
    const real = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-claim-real-'));
    const link = `${real}-link`;
    fs.symlinkSync(real, link);
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `import('${path.resolve(import.meta.dirname, 'data-folder-claim.ts')}').then((m) => { globalThis.release = m.claimDataFolder(${JSON.stringify(link)}); console.log('held'); setInterval(() => {}, 1000); })`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
      fs.rmSync(path.join(link, 'server.lock'));
      expect(() => claimDataFolder(link)).toThrow(new RegExp(`pid ${holder.pid}\\) may still serve`));
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.on('exit', r));
      fs.rmSync(link, { force: true });
      fs.rmSync(real, { recursive: true, force: true });
    }
  }, 30_000);
});
