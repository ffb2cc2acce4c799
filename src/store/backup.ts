import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/** What is not copied: the database's own files (copied through SQLite), a server's claim, and indexes (rebuilt from the database). */
const notCopied = new Set(['loupe.db', 'loupe.db-wal', 'loupe.db-shm', 'server.pid', 'indexes']);

/**
 * A consistent copy of an embedded data folder while its server runs (`loupe backup`): the
 * database through SQLite's online backup (a snapshot, never a torn copy of a file being
 * written), then the media, the media secret and installed model packs. Files are written before
 * the rows that name them, so every file the snapshot names is there (a copy of the whole folder
 * with `cp` missed some). Search indexes are left out: a server started on the copy rebuilds them
 * from the database.
 */
export async function backupDataFolder(dataDir: string, to: string): Promise<{ to: string; database_bytes: number; files: number }> {
  const source = path.resolve(dataDir);
  const target = path.resolve(to);
  const dbFile = path.join(source, 'loupe.db');
  if (!fs.existsSync(dbFile)) throw new Error(`no database in ${source} (LOUPE_DATA_DIR): nothing to back up`);
  if (target === source || target.startsWith(`${source}${path.sep}`)) throw new Error('the backup folder must be outside the data folder');
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) throw new Error(`${target} is not empty: back up into a new or empty folder`);
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  const db = new SQLite(dbFile, { fileMustExist: true });
  try {
    await db.backup(path.join(target, 'loupe.db'));
  } finally {
    db.close();
  }
  fs.chmodSync(path.join(target, 'loupe.db'), 0o600);
  let files = 0;
  for (const entry of fs.readdirSync(source)) {
    if (notCopied.has(entry) || entry.startsWith('.')) continue;
    const from = path.join(source, entry);
    // files that vanish while copying (a session deleted meanwhile) are no longer named by anything newer
    fs.cpSync(from, path.join(target, entry), { recursive: true, preserveTimestamps: true, force: false, errorOnExist: false, filter: (f) => fs.existsSync(f) });
  }
  const count = (dir: string): number => fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? count(path.join(dir, e.name)) : 1), 0);
  files = count(target) - 1;
  return { to: target, database_bytes: fs.statSync(path.join(target, 'loupe.db')).size, files };
}
