import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openToOthers } from './data-folder-modes.ts';
import { sqliteFileOf } from './database.ts';

describe('a data folder an older release made', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-modes-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is named where others may read it (folder, media folder, SQLite file), and not once owner-only', () => {
    fs.mkdirSync(path.join(dir, 'media'));
    fs.writeFileSync(sqliteFileOf(dir), '');
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, 'media'), 0o751);
    fs.chmodSync(sqliteFileOf(dir), 0o644);
    expect(openToOthers(dir, true)).toEqual([
      { path: path.resolve(dir), mode: '755', dir: true },
      { path: path.resolve(dir, 'media'), mode: '751', dir: true },
      { path: path.resolve(sqliteFileOf(dir)), mode: '644', dir: false },
    ]);
    // PostgreSQL: no SQLite file to look at
    expect(openToOthers(dir, false)).toHaveLength(2);
    // a group given access on purpose is not warned of
    fs.chmodSync(dir, 0o750);
    fs.chmodSync(path.join(dir, 'media'), 0o750);
    fs.chmodSync(sqliteFileOf(dir), 0o640);
    expect(openToOthers(dir, true)).toEqual([]);
    fs.chmodSync(dir, 0o700);
    fs.chmodSync(path.join(dir, 'media'), 0o700);
    fs.chmodSync(sqliteFileOf(dir), 0o600);
    expect(openToOthers(dir, true)).toEqual([]);
  });
});
