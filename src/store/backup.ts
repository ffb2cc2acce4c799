import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { MediaStore } from '../media/media-store.ts';
import { movedToPostgres, sqliteFileOf, UNFINISHED_BACKUP, type Database } from './database.ts';
import { mediaReferences } from './media-references.ts';

/** What is not copied: the database's own files (copied through SQLite), a server's claim, and indexes (rebuilt from the database). */
const notCopied = new Set(['loupe.db', 'loupe.db-wal', 'loupe.db-shm', 'server.pid', 'server.lock', 'server.lock-journal', 'indexes']);

/**
 * A consistent copy of an embedded data folder while its server runs (`loupe backup`): the
 * database through SQLite's online backup (a snapshot, never a torn copy of a file being
 * written), then the media files its rows name, the media secret and installed model packs. Files are written before
 * the rows that name them, so every file the snapshot names is there (a copy of the whole folder
 * with `cp` missed some), but for one deleted between the snapshot and its copy (a row the backup
 * still holds, its image gone: the session was being deleted). Search indexes are left out: a
 * server started on the copy rebuilds them from the database.
 */
export async function backupDataFolder(dataDir: string, to: string): Promise<{ to: string; database_bytes: number; files: number }> {
  const source = path.resolve(dataDir);
  const target = path.resolve(to);
  const dbFile = sqliteFileOf(source);
  const copyFile = sqliteFileOf(target);
  if (!fs.existsSync(dbFile)) throw new Error(`no database in ${source} (LOUPE_DATA_DIR): nothing to back up`);
  if (fs.existsSync(path.join(source, UNFINISHED_BACKUP))) throw new Error(`${source} is a backup that did not finish (see its ${UNFINISHED_BACKUP} file): it is no data folder to back up`);
  // a nightly backup of the database left behind by the move went on, exit 0, with accounts since erased (h194)
  const moved = movedToPostgres(source);
  if (moved) throw new Error(`${moved.message} (back PostgreSQL up with pg_dump: docs/operations.md "Backups")`);
  if (target === source || target.startsWith(`${source}${path.sep}`)) throw new Error('the backup folder must be outside the data folder');
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    // a cron retry into the same dated folder met its own unfinished attempt, unsaid (h109)
    if (fs.existsSync(path.join(target, UNFINISHED_BACKUP))) throw new Error(`${target} holds a backup that did not finish (its ${UNFINISHED_BACKUP} file says when it started): remove the folder and back up again, or back up into a new folder`);
    throw new Error(`${target} is not empty: back up into a new or empty folder`);
  }
  const made = !fs.existsSync(target);
  try {
    // the folder itself without `recursive`: on a read-only mount a recursive mkdir says ENOENT, not EROFS (as media-store.ts)
    if (made) {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.mkdirSync(target, { mode: 0o700 });
    }
  } catch (err) {
    throw new Error(`cannot make the backup folder ${target}: ${(err as Error).message}`);
  }
  const marker = path.join(target, UNFINISHED_BACKUP);
  let files = 0;
  try {
    fs.writeFileSync(marker, `loupe backup of ${source} started ${new Date().toISOString()} and has not finished: this folder is not a backup.\n`, { mode: 0o600 });
    // made first, the owner's only: a copy stopped half-way (a full disk, a kill) is not left readable by all where the
    // operator made the folder by hand (h190)
    fs.writeFileSync(copyFile, '', { mode: 0o600, flag: 'wx' });
    const db = new SQLite(dbFile, { fileMustExist: true });
    try {
      // in one step: SQLite starts an online backup over whenever the database is written between its steps, so one of
      // 100 pages a step never finished beside a server taking 20 writes a second (h190). One step reads one snapshot,
      // which in WAL mode holds no writer back.
      await db.backup(copyFile, { progress: () => 0x7fffffff });
    } catch (err) {
      throw sideOf(err, dbFile, target);
    } finally {
      db.close();
    }
    fs.chmodSync(copyFile, 0o600);
    // a copy of damaged pages is a backup that fails on the day it is needed (h267: exit 0, and a server started on it
    // said it was ready): the copy is checked, as it is, before it is called a backup
    checkCopy(copyFile, dbFile);
    // the media files the snapshot's rows name, and no other: an image written during the backup whose row came after
    // the snapshot was copied named by no row of it, so neither a sweep nor an erasure of the restore ever reached it
    // (h252: 292 customers' photos no account delete removed)
    const mediaRoot = path.join(source, 'media');
    const named = fs.existsSync(mediaRoot) ? await namedMedia(copyFile) : new Set<string>();
    // followed through symbolic links (a media folder moved to another disk is copied, not linked to),
    // and a file gone since it was listed (a session deleted meanwhile, the retention sweep) passed over
    const copy = (from: string, to: string): void => {
      let stat: fs.Stats;
      try {
        stat = fs.statSync(from);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      if (stat.isDirectory()) {
        fs.mkdirSync(to, { recursive: true, mode: 0o700 });
        for (const entry of fs.readdirSync(from)) copy(path.join(from, entry), path.join(to, entry));
        flush(to);
      } else if (stat.isFile()) {
        const stored = path.dirname(path.dirname(from)) === mediaRoot;
        if (stored && MediaStore.isKey(path.basename(from)) && !named.has(path.basename(from))) return;
        // the part of a write killed or still under way (`<key>.<pid>[.<random>].tmp`): no stored file, which the
        // restore's sweep removed (h267: copied into every backup)
        if (stored && path.basename(from).endsWith('.tmp')) return;
        try {
          fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
          fs.chmodSync(to, stat.mode & 0o777);
          flush(to);
          files++;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw sideOf(err, from, target);
        }
      }
    };
    for (const entry of fs.readdirSync(source)) {
      if (notCopied.has(entry) || entry.startsWith('.')) continue;
      copy(path.join(source, entry), path.join(target, entry));
    }
  } catch (err) {
    // no half backup left to be taken for a whole one, nor filling the disk it failed on (h267: a full backup disk
    // stayed full, and the next night's backup was refused for the folder left behind); a folder the operator made is
    // left, emptied
    if (made) fs.rmSync(target, { recursive: true, force: true });
    else for (const entry of fs.readdirSync(target)) fs.rmSync(path.join(target, entry), { recursive: true, force: true });
    throw err;
  }
  // on disk before the marker goes, as the media store writes its own files: a power cut in the seconds after a backup
  // left a folder with no marker whose newest files were empty (h345)
  flush(copyFile);
  flush(target);
  fs.rmSync(marker);
  flush(target);
  return { to: target, database_bytes: fs.statSync(copyFile).size, files };
}

/** A file's or a folder's contents flushed to disk (a folder: the names in it). Not every platform flushes a folder (Windows). */
function flush(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    if (!fs.statSync(file).isDirectory()) throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * An error of the copy said with the side it is on: SQLite's own words ("database or disk is full") read as if the live
 * database were full, and a damaged live database, the most urgent thing to learn, was not named (h267).
 */
function sideOf(err: unknown, source: string, target: string): Error {
  const code = String((err as { code?: unknown }).code ?? '');
  const message = (err as Error).message;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return new Error(`cannot write the backup folder ${target}: its disk is full (${message}); nothing was backed up`);
  if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return new Error(`cannot write the backup folder ${target} (${message}); nothing was backed up`);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return new Error(`the data folder's database ${source} is damaged (${message}): nothing was backed up; restore the last good backup (docs/operations.md "Backups")`);
  return err instanceof Error ? err : new Error(message);
}

/** Fails when the copy just made does not read back whole: the live database's pages were damaged. */
function checkCopy(copyFile: string, dbFile: string): void {
  const copy = new SQLite(copyFile, { fileMustExist: true });
  try {
    // as namedMedia: read in WAL mode, the copy kept a -wal and a -shm file (h255)
    copy.pragma('journal_mode = DELETE');
    const rows = copy.pragma('quick_check') as { quick_check: string }[];
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
    if (problems.length) throw new Error(`the data folder's database ${dbFile} is damaged (quick_check: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}): nothing was backed up; restore the last good backup (docs/operations.md "Backups")`);
  } catch (err) {
    if (String((err as { code?: unknown }).code ?? '').startsWith('SQLITE_CORRUPT') || (err as { code?: unknown }).code === 'SQLITE_NOTADB') throw sideOf(err, dbFile, copyFile);
    throw err;
  } finally {
    copy.close();
  }
}

/** Every media key a database file's rows name (the snapshot just made, which no server has opened). */
async function namedMedia(file: string): Promise<Set<string>> {
  const sqlite = new SQLite(file, { fileMustExist: true });
  // the copy keeps the source's WAL mode, and reading it so left loupe.db-wal and loupe.db-shm in every backup (h255);
  // a server started on the copy sets its own mode
  sqlite.pragma('journal_mode = DELETE');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    const keys = new Set<string>();
    for await (const ref of mediaReferences({ db, dialect: 'sqlite', close: () => db.destroy() })) keys.add(ref.key);
    return keys;
  } finally {
    await db.destroy();
  }
}
