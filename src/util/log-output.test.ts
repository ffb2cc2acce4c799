import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const module = path.resolve(import.meta.dirname, 'log-output.ts');

/** A process whose first three writes to stdout fail as a full disk fails them, logging four lines 50 ms apart. */
function logOnFullDisk(destination: 'ours' | 'pino'): { status: number | null; stdout: string } {
  const script = `
    import fs from 'node:fs';
    const real = fs.write;
    let failing = 3;
    fs.write = function (fd, ...rest) {
      if (fd !== 1 || failing-- <= 0) return real.call(fs, fd, ...rest);
      process.nextTick(rest[rest.length - 1], Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    };
    const { default: pino } = await import('pino');
    const log = ${destination === 'ours' ? `pino({}, (await import(${JSON.stringify(module)})).logOutput())` : 'pino({})'};
    for (const line of ['one', 'two', 'three', 'four']) {
      log.info(line);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 100));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout };
}

describe('the log on a disk that fails its writes', () => {
  it('keeps the process, writes the lines held once the disk takes them, and says so (h221: the server exited 1)', () => {
    // pino's own destination re-raises the error, and nothing listens: the process ends
    expect(logOnFullDisk('pino').status).not.toBe(0);
    const { status, stdout } = logOnFullDisk('ours');
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; code?: string; dropped?: number });
    expect(lines.map((l) => l.msg).slice(0, 4)).toEqual(['one', 'two', 'three', 'four']);
    expect(lines[4]).toMatchObject({ code: 'ENOSPC', dropped: 0, msg: expect.stringMatching(/^the log could not be written \(ENOSPC\) for \d+ s: the lines of that time were held and written now$/) });
  }, 120_000);
});
