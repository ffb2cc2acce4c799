import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const watch = path.resolve(import.meta.dirname, 'launcher-watch.ts');
const launcherPid = path.resolve(import.meta.dirname, '../../bin/launcher-pid.mjs');

/**
 * A shell (npm's, in life) starts the watched process in the background and exits once the process says `ready` in a
 * file (not after a fixed time: a loaded machine took 1.6–3 s to load tsx, and the shell left first, h222): the process
 * is orphaned. `early`: the process takes its launcher from bin/launcher-pid.mjs, and looks only once the shell is
 * gone, as a server whose launcher was signalled while its modules loaded.
 */
function orphan(env: Record<string, string>, early = false): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-watch-'));
  const out = path.join(dir, 'exit.txt');
  const ready = path.join(dir, 'ready');
  const look = `whenLauncherExits(() => { fs.writeFileSync(${JSON.stringify(out)}, 'launcher exited'); process.exit(0); }, process.env, 50); setTimeout(() => { fs.writeFileSync(${JSON.stringify(out)}, 'still running'); process.exit(0); }, 2000);`;
  const script = early
    ? `import { whenLauncherExits } from ${JSON.stringify(watch)}; import fs from 'node:fs'; const first = process.ppid; fs.writeFileSync(${JSON.stringify(ready)}, ''); const gone = () => { if (process.ppid === first) return void setTimeout(gone, 20); ${look} }; gone();`
    : `import { whenLauncherExits } from ${JSON.stringify(watch)}; import fs from 'node:fs'; ${look} fs.writeFileSync(${JSON.stringify(ready)}, '');`;
  const node = `${JSON.stringify(process.execPath)} ${early ? `--import ${JSON.stringify(launcherPid)} ` : ''}--import tsx --input-type=module -e ${JSON.stringify(script)}`;
  spawnSync('sh', ['-c', `${node} >/dev/null 2>&1 & i=0; while [ ! -e ${JSON.stringify(ready)} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  for (let i = 0; i < 200 && !fs.existsSync(out); i++) spawnSync('sleep', ['0.05']);
  const said = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : 'nothing';
  fs.rmSync(dir, { recursive: true, force: true });
  return said;
}

describe('whenLauncherExits', () => {
  it('calls back when npm’s shell goes (a process manager signalled npm alone); leaves a process not started by npm alone', () => {
    expect(orphan({ npm_command: 'exec' })).toBe('launcher exited');
    expect(orphan({})).toBe('still running');
  }, 60_000);

  it('calls back at once when the shell went before it looked (while the server loaded its modules, h222)', () => {
    expect(orphan({ npm_command: 'exec' }, true)).toBe('launcher exited');
  }, 60_000);
});
