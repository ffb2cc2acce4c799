// Loaded first (`npm start`): the process that started this one, as it was at the very start. The server looks for its
// launcher's end (src/util/launcher-watch.ts) only once its modules are loaded, seconds later; a process manager that
// signalled npm alone meanwhile left it orphaned unseen, and it ran on, holding the port and the data folder (h222).
globalThis[Symbol.for('loupe.launcherPid')] ??= process.ppid;
