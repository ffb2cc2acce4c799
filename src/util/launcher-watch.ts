/**
 * Started through npm (`npm start`, `npx loupe …`), this process's parent is the shell npm ran the
 * script in. A process manager that signals only the pid it started (npm's) ends npm and that
 * shell, and this process ran on, orphaned, still serving and holding the data folder. So when the
 * parent goes, `onExit` is called once, as a signal would be. A process started otherwise (by
 * `node`, by a service manager, detached with `&`) is never watched: its parent may leave freely.
 */
export function whenLauncherExits(onExit: () => void, env: NodeJS.ProcessEnv = process.env, everyMs = 500): () => void {
  if (!env.npm_lifecycle_event && !env.npm_command) return () => undefined;
  // the parent as bin/launcher-pid.mjs saw it at the start: one gone while the modules loaded is gone already
  const recorded = (globalThis as Record<symbol, unknown>)[Symbol.for('loupe.launcherPid')];
  const parent = typeof recorded === 'number' ? recorded : process.ppid;
  if (process.ppid !== parent) {
    setImmediate(onExit);
    return () => undefined;
  }
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onExit();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
