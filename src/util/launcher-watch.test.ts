import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const watch = path.resolve(import.meta.dirname, 'launcher-watch.ts');

/** A shell (npm's, in life) starts the watched process in the background and exits: the process is orphaned. */
function orphan(env: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-watch-'));
  const out = path.join(dir, 'exit.txt');
  const script = `import { whenLauncherExits } from ${JSON.stringify(watch)}; import fs from 'node:fs'; whenLauncherExits(() => { fs.writeFileSync(${JSON.stringify(out)}, 'launcher exited'); process.exit(0); }, process.env, 50); setTimeout(() => { fs.writeFileSync(${JSON.stringify(out)}, 'still running'); process.exit(0); }, 4000);`;
  spawnSync('sh', ['-c', `${JSON.stringify(process.execPath)} --import tsx --input-type=module -e ${JSON.stringify(script)} >/dev/null 2>&1 & sleep 1.5`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  for (let i = 0; i < 100 && !fs.existsSync(out); i++) spawnSync('sleep', ['0.05']);
  const said = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : 'nothing';
  fs.rmSync(dir, { recursive: true, force: true });
  return said;
}

describe('whenLauncherExits', () => {
  it('calls back when npm’s shell goes (a process manager signalled npm alone); leaves a process not started by npm alone', () => {
    expect(orphan({ npm_command: 'exec' })).toBe('launcher exited');
    expect(orphan({})).toBe('still running');
  }, 20_000);
});
