import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { AccountStore } from './account-store.ts';
import { backupDataFolder } from './backup.ts';
import { MOVED_TO_POSTGRES, openStore, sqliteFileOf } from './database.ts';
import { RequestStore } from './request-store.ts';

const made: string[] = [];
const tempDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A data folder whose database is a few megabytes (a thousand pages and more), in WAL mode as the server keeps it. */
function dataFolder(): string {
  const dir = tempDir('loupe-backup-src-');
  const db = new SQLite(sqliteFileOf(dir));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 4000; i++) insert.run('x'.repeat(1000));
  })();
  db.close();
  return dir;
}

describe('backupDataFolder', () => {
  it('flushes every file and folder it copied to disk before its unfinished marker goes (h345: a power cut after it could leave empty files)', async () => {
    const dir = dataFolder();
    fs.mkdirSync(path.join(dir, 'models', 'pack'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'models', 'pack', 'weights.bin'), Buffer.alloc(4096, 7));
    fs.writeFileSync(path.join(dir, 'media-secret'), 'secret');
    const to = path.join(tempDir('loupe-backup-to-'), 'copy');
    const opened = new Map<number, string>();
    const events: string[] = [];
    const open = fs.openSync;
    const spies = [
      vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
        const fd = (open as (...a: unknown[]) => number)(p, ...rest);
        opened.set(fd, path.resolve(String(p)));
        return fd;
      }) as typeof fs.openSync),
      vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => void events.push(`sync ${opened.get(fd)}`)),
      vi.spyOn(fs, 'rmSync').mockImplementation(((p: fs.PathLike) => void events.push(`rm ${path.resolve(String(p))}`)) as typeof fs.rmSync),
    ];
    try {
      await backupDataFolder(dir, to);
    } finally {
      for (const s of spies) s.mockRestore();
    }
    const markerGone = events.findIndex((e) => e.startsWith('rm ') && e.endsWith('BACKUP-UNFINISHED'));
    expect(markerGone).toBeGreaterThan(0);
    for (const f of [sqliteFileOf(to), path.join(to, 'models', 'pack', 'weights.bin'), path.join(to, 'models', 'pack'), path.join(to, 'media-secret'), to]) {
      expect(events.indexOf(`sync ${path.resolve(f)}`), f).toBeGreaterThanOrEqual(0);
      expect(events.indexOf(`sync ${path.resolve(f)}`), f).toBeLessThan(markerGone);
    }
    // and the folder once more after, so the marker's removal is on disk too
    expect(events.slice(markerGone)).toContain(`sync ${path.resolve(to)}`);
  });

  it('finishes while another connection writes between its steps (an online backup of 100 pages a step started over at each write, h190)', async () => {
    const dir = dataFolder();
    const writer = new SQLite(sqliteFileOf(dir));
    let writes = 0;
    let running = true;
    const write = () => {
      if (!running) return;
      writer.prepare('INSERT INTO t (v) VALUES (?)').run(`w${writes++}`);
      setImmediate(write);
    };
    setImmediate(write);
    try {
      const to = path.join(tempDir('loupe-backup-to-'), 'copy');
      const done = await backupDataFolder(dir, to);
      expect(done.database_bytes).toBeGreaterThan(4_000_000);
      expect(writes).toBeGreaterThan(0);
      const copy = new SQLite(sqliteFileOf(to), { readonly: true });
      expect((copy.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBeGreaterThanOrEqual(4000);
      expect(copy.pragma('quick_check', { simple: true })).toBe('ok');
      copy.close();
      expect(fs.statSync(sqliteFileOf(to)).mode & 0o777).toBe(0o600);
    } finally {
      running = false;
      writer.close();
    }
  }, 60_000);

  it("copies the media files the database's rows name and no other (h252: images written during a backup, named by none of its rows, were kept for good)", async () => {
    const dir = tempDir('loupe-backup-media-');
    const store = await openStore({ dataDir: dir });
    const named = `ab${'0'.repeat(30)}.jpg`;
    const unnamed = `ab${'1'.repeat(30)}.jpg`;
    try {
      const accountId = randomUUID();
      const workspaceId = randomUUID();
      await new AccountStore(store).createAccount({ id: accountId, name: 'media', credits: 0, services: [], workspaceId, tokenId: randomUUID(), tokenHash: randomUUID() });
      const requests = new RequestStore(store);
      await requests.insert({ id: randomUUID(), accountId, workspaceId, type: 't', endpoint: 'e', request: {}, options: {}, charged: 0, webhook: null, expiresAt: Date.now() + 3_600_000, inputs: new Map() });
      for (const { row, token } of await requests.claim(1, 60_000)) await requests.complete(row.id, token, { response: {}, media: [named], refund: 0, webhookAt: null });
    } finally {
      await store.close();
    }
    fs.mkdirSync(path.join(dir, 'media', 'ab'), { recursive: true });
    for (const key of [named, unnamed]) fs.writeFileSync(path.join(dir, 'media', 'ab', key), key);
    // a file of another name, put there by hand, is the operator's: copied
    fs.writeFileSync(path.join(dir, 'media', 'notes.txt'), 'mine');
    // the part a write killed or under way left beside its file is no stored file (h267: copied into every backup)
    fs.writeFileSync(path.join(dir, 'media', 'ab', `${named}.4242.tmp`), 'half');
    fs.writeFileSync(path.join(dir, 'media', 'ab', `${named}.4242.0a1b2c3d.tmp`), 'half');
    const to = path.join(tempDir('loupe-backup-to-'), 'copy');
    const done = await backupDataFolder(dir, to);
    expect(fs.readFileSync(path.join(to, 'media', 'ab', named), 'utf8')).toBe(named);
    expect(fs.existsSync(path.join(to, 'media', 'ab', unnamed))).toBe(false);
    expect(fs.readFileSync(path.join(to, 'media', 'notes.txt'), 'utf8')).toBe('mine');
    expect(fs.readdirSync(path.join(to, 'media', 'ab'))).toEqual([named]);
    // reading the copy's rows leaves no write-ahead files beside it (h255)
    expect(fs.readdirSync(to).filter((f) => f.startsWith('loupe.db')).sort()).toEqual(['loupe.db']);
    expect(done.files).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('fails on a damaged database, naming it, and leaves no half backup behind (h267: exit 0, and a server started on the copy was ready)', async () => {
    const dir = dataFolder();
    // pages of the table's leaves overwritten, as a failing disk leaves them
    const fd = fs.openSync(sqliteFileOf(dir), 'r+');
    fs.writeSync(fd, Buffer.alloc(4 * 4096, 0xa5), 0, 4 * 4096, 200 * 4096);
    fs.closeSync(fd);
    const to = path.join(tempDir('loupe-backup-dst-'), 'nightly');
    await expect(backupDataFolder(dir, to)).rejects.toThrow(new RegExp(`the data folder's database ${sqliteFileOf(dir).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is damaged`));
    expect(fs.existsSync(to)).toBe(false);
    // a folder the operator made is left, empty
    const own = tempDir('loupe-backup-own-');
    await expect(backupDataFolder(dir, own)).rejects.toThrow(/is damaged/);
    expect(fs.readdirSync(own)).toEqual([]);
  });

  it('says when the backup folder cannot be made, with the reason, not a bare ENOENT', async () => {
    const dir = dataFolder();
    const parent = tempDir('loupe-backup-ro-');
    fs.chmodSync(parent, 0o500);
    try {
      // (as root the folder can be made whatever its mode: then the backup is made)
      if (process.getuid?.() === 0) return;
      await expect(backupDataFolder(dir, path.join(parent, 'bk'))).rejects.toThrow(/^cannot make the backup folder .*bk: EACCES/);
    } finally {
      fs.chmodSync(parent, 0o700);
    }
  });

  it('refuses a folder whose database was moved to PostgreSQL: a nightly backup of it copied a frozen database, exit 0 (h194)', async () => {
    const dir = dataFolder();
    fs.writeFileSync(path.join(dir, MOVED_TO_POSTGRES), '{"to":"postgres://db/loupe","at":"2026-12-01T00:00:00Z"}\n');
    const to = path.join(tempDir('loupe-backup-to-'), 'copy');
    await expect(backupDataFolder(dir, to)).rejects.toThrow(/was moved to PostgreSQL \(postgres:\/\/db\/loupe, .*pg_dump/);
    expect(fs.existsSync(to)).toBe(false);
  });
});
