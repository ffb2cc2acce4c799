import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { makeDataFolder } from './database.ts';

/**
 * One API server per SQLite data folder: its search indexes live in the server's memory and
 * learn only of that server's writes, so a second server on the same folder would answer from
 * stale indexes (deleted records still found, others' inserts never). The server holds an
 * exclusive SQLite lock on `server.lock` for its life: the operating system lets go of it when
 * the process ends however it ends (kill -9, a power cut), so there is no stale claim to judge,
 * whatever happened to the pid since. `server.pid` only names the holder in the refusal.
 * `loupe worker` processes and the CLI keep no indexes and do not claim the folder. PostgreSQL
 * serves any number of servers.
 */
export function claimDataFolder(dataDir: string): () => void {
  makeDataFolder(dataDir);
  const lockFile = path.join(dataDir, 'server.lock');
  const pidFile = path.join(dataDir, 'server.pid');
  // SQLite's own words ("unable to open database file") named neither the file nor the likely cause
  const cannotOpen = (err: unknown) =>
    new Error(`cannot open ${lockFile}, the file that keeps a second server off this data folder (${(err as Error).message}): the data folder and its files must be writable by this user`);
  let lock: SQLite.Database;
  try {
    lock = new SQLite(lockFile, { timeout: 0 });
  } catch (err) {
    throw cannotOpen(err);
  }
  try {
    // the lock holds no data: no journal file beside it (one was left readable by everyone)
    lock.pragma('journal_mode = MEMORY');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw cannotOpen(err);
    let holder = '';
    try {
      holder = fs.readFileSync(pidFile, 'utf8').trim();
    } catch {
      // not written yet
    }
    throw new Error(`another Loupe server${/^\d+$/.test(holder) ? ` (pid ${holder})` : ''} already serves ${path.resolve(dataDir)}: one server per SQLite data folder, whose search indexes live in that server's memory (run several with PostgreSQL, DATABASE_URL)`);
  }
  // The lock is the claim; `server.pid` naming a node process still running is a second sign, for when the lock file
  // was deleted under a running server ("a stale lock", h96): a second server then started and served stale indexes.
  const running = runningNodePid(pidFile);
  if (running !== undefined) {
    try {
      lock.exec('ROLLBACK');
    } catch {
      // nothing open
    }
    lock.close();
    throw new Error(`another Loupe server (pid ${running}) may still serve ${path.resolve(dataDir)}: its server.pid names a node process that is running, though ${lockFile} was not held (was it deleted?). Stop that server first; if pid ${running} is no Loupe server, delete ${pidFile}`);
  }
  fs.writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  fs.chmodSync(lockFile, 0o600);
  return () => {
    try {
      if (fs.readFileSync(pidFile, 'utf8').trim() === String(process.pid)) fs.rmSync(pidFile, { force: true });
    } catch {
      // already gone
    }
    try {
      lock.exec('ROLLBACK');
    } catch {
      // nothing open
    }
    lock.close();
  };
}

/** The pid `server.pid` names when it is another process running node (Linux's /proc), else undefined. */
function runningNodePid(pidFile: string): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: running, another user's (a server run as another user would not share this folder's modes)
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  let command = '';
  try {
    command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
  } catch {
    return undefined;
  }
  return /(^|\/)node[0-9.]*$/.test(command) ? pid : undefined;
}
