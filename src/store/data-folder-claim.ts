import fs from 'node:fs';
import path from 'node:path';

/**
 * One API server per SQLite data folder: its search indexes live in the server's memory and
 * learn only of that server's writes, so a second server on the same folder would answer from
 * stale indexes (deleted records still found, others' inserts never). The server writes its pid
 * in `server.pid`; a second start finds the first alive and is refused, naming it. A pid file
 * whose process is gone (kill -9, a power cut) is taken over. `loupe worker` processes and the
 * CLI keep no indexes and do not claim the folder. PostgreSQL serves any number of servers.
 */
export function claimDataFolder(dataDir: string, pid = process.pid): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'server.pid');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8').trim() === String(pid)) fs.rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(file, 'utf8').trim());
    } catch {
      continue; // removed meanwhile: try again
    }
    if (Number.isSafeInteger(holder) && holder > 0 && holder !== pid && alive(holder)) {
      throw new Error(
        `another Loupe server (pid ${holder}) already serves ${path.resolve(dataDir)}: one server per SQLite data folder, whose search indexes live in that server's memory (run several with PostgreSQL, DATABASE_URL). If no such server runs, remove ${file}.`,
      );
    }
    // its server is gone: take it over
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not claim ${file}: other starts keep taking it`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, another user's
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
