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
// Every claim's connection, reachable until released: a connection the garbage collector takes is closed, and its lock
// with it (a caller that dropped the release function lost the claim at the next collection; CI's holder processes did)
const held = new Set<SQLite.Database>();

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
  // The lock is the claim; the process `server.pid` names still holding the lock file open is a second sign, for when
  // that file was deleted under a running server ("a stale lock", h96): a second server then started and served stale
  // indexes.
  const running = runningHolder(pidFile, lockFile);
  if (running !== undefined) {
    try {
      lock.exec('ROLLBACK');
    } catch {
      // nothing open
    }
    lock.close();
    throw new Error(`another Loupe server (pid ${running}) may still serve ${path.resolve(dataDir)}: its server.pid names a process that still holds ${lockFile} open, though that file was not held (was it deleted?). Stop that server first`);
  }
  // written whole or not at all: a full disk left it empty, and the start's error named no file (h221)
  try {
    fs.writeFileSync(`${pidFile}.tmp`, `${process.pid}\n`, { mode: 0o600 });
    fs.renameSync(`${pidFile}.tmp`, pidFile);
  } catch (err) {
    try {
      fs.rmSync(`${pidFile}.tmp`, { force: true });
    } catch {
      // not ours to remove
    }
    lock.close();
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot write ${pidFile} (${(err as Error).message})${code === 'ENOSPC' || code === 'EDQUOT' ? ': the data folder\'s disk is full; free space and start again' : code === 'EROFS' ? ': the data folder is on a read-only file system' : ''}`);
  }
  fs.chmodSync(lockFile, 0o600);
  held.add(lock);
  return () => {
    held.delete(lock);
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

/**
 * The pid `server.pid` names when that process still holds this folder's `server.lock` open, the file deleted or not
 * (Linux's /proc: a running server's lock, whose file an operator removed); else undefined. Exact, so a pid a crash left
 * behind and another process took since is never taken for a server.
 */
export function runningHolder(pidFile: string, lockFile: string, proc = '/proc'): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  // a /proc that is not this process's own (a container seeing its host's, or none): its entries say nothing of our
  // processes, and a live holder went unseen (CI failed on it); whether the pid lives is then the sign, as close as
  // can be told
  const alive = () => {
    try {
      process.kill(pid, 0);
      return pid;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
    }
  };
  if (!ownProc(proc)) return alive();
  let fds: string[];
  try {
    fds = fs.readdirSync(`${proc}/${pid}/fd`);
  } catch (err) {
    // another process's open files may be closed to us (a container's security profile): its life is the sign then
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? alive() : undefined;
  }
  // the kernel names the file by its real path: a data folder reached through a symbolic link (a TMPDIR, a mount)
  // never matched, and the second server started (seen in CI)
  let lock = path.resolve(lockFile);
  try {
    lock = path.join(fs.realpathSync(path.dirname(lock)), path.basename(lock));
  } catch {
    // the folder itself gone: compare as given
  }
  for (const fd of fds) {
    let target = '';
    try {
      target = fs.readlinkSync(`${proc}/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (target === lock || target === `${lock} (deleted)`) return pid;
  }
  return undefined;
}

/** Whether `proc` is this process's view of its processes: its `self` names this process. */
function ownProc(proc: string): boolean {
  try {
    return fs.readlinkSync(`${proc}/self`) === String(process.pid);
  } catch {
    return false;
  }
}
