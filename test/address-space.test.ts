import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addressSpaceCap } from '../bin/address-space.mjs';

const root = path.resolve(import.meta.dirname, '..');

describe('an address-space cap (ulimit -v) too small for the WebAssembly runtime', () => {
  it('reads the cap from the process limits, none where unlimited', () => {
    const limits = (as: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 1048576              files\nMax address space         ${as}            unlimited            bytes\n`;
    expect(addressSpaceCap(limits('8589934592'))).toBe(8589934592);
    expect(addressSpaceCap(limits('unlimited'))).toBeNull();
    expect(addressSpaceCap('')).toBeNull();
  });

  it.runIf(process.platform === 'linux')('stops a command with one line saying what to change (h225: a stack trace from the loader, or exit 134 "heap out of memory")', () => {
    const run = spawnSync('bash', ['-c', `ulimit -v ${8 * 1024 * 1024}; exec node ${path.join(root, 'bin/loupe.js')} account list`], { encoding: 'utf8', env: { ...process.env, LOUPE_DATA_DIR: '/nonexistent-loupe-test' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('loupe: cannot start: the process may use 8 GB of address space (ulimit -v / prlimit --as); its WebAssembly runtime reserves more up front (up to about 256 GB with every model warmed; not memory it uses). Remove the cap and limit memory with a cgroup instead (MemoryMax= in a systemd unit, docker --memory; docs/operations.md "Memory")\n');
    expect(run.stdout).toBe('');
    // a command that runs no model needs less: 32 GB is enough for it (h232: every command was refused under 96 GB)
    const small = spawnSync('bash', ['-c', `ulimit -v ${32 * 1024 * 1024}; exec node ${path.join(root, 'bin/loupe.js')} --help`], { encoding: 'utf8' });
    expect(small.status, small.stderr).toBe(0);
    const worker = spawnSync('bash', ['-c', `ulimit -v ${32 * 1024 * 1024}; exec node ${path.join(root, 'bin/loupe.js')} worker`], { encoding: 'utf8', env: { ...process.env, LOUPE_DATA_DIR: '/nonexistent-loupe-test' } });
    expect([worker.status, worker.stderr]).toEqual([1, expect.stringMatching(/^loupe: cannot start: the process may use 32 GB of address space/)]);
  });
});
