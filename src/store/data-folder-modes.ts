import fs from 'node:fs';
import path from 'node:path';
import { sqliteFileOf } from './database.ts';

/**
 * The data folder, its media folder and the SQLite file where other users (not the owner, not its group) may read them
 * (releases before 2026-11-30 made them 0755 / 0644): they hold token hashes, webhook secrets and
 * customers' photos. Said, not changed: the operator may have given a group access on purpose.
 */
export function openToOthers(dataDir: string, sqlite: boolean): { path: string; mode: string; dir: boolean }[] {
  const paths = [dataDir, path.join(dataDir, 'media'), ...(sqlite ? [sqliteFileOf(dataDir)] : [])];
  return paths.flatMap((p) => {
    try {
      const st = fs.statSync(p);
      // others than the owner's group: a group given access on purpose is not warned of at every start
      return (st.mode & 0o007) !== 0 ? [{ path: path.resolve(p), mode: (st.mode & 0o777).toString(8), dir: st.isDirectory() }] : [];
    } catch {
      return [];
    }
  });
}
