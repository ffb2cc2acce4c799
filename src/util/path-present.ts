import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A path this user may not look into: not the same as a path that is not there. */
export class PathUnreadableError extends Error {}

/**
 * Whether a path exists, as `existsSync`, except that a folder on the way this user may not enter is said so:
 * `existsSync` answers false, and a command run as another user than the server's said "no database" of a data
 * folder that holds one (h274).
 */
export function present(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      let user = 'this user';
      try {
        user = `this user (${os.userInfo().username})`;
      } catch {
        // no name for the uid: said without it
      }
      throw new PathUnreadableError(`${path.resolve(p)} cannot be read by ${user}: run loupe as the user the server runs as (for example sudo -u <that user> loupe …), or give this user access to the data folder`);
    }
    return false;
  }
}
