import type { Kysely } from 'kysely';
import type { Database } from './database.ts';

const chunk = 500;

/**
 * Records that these media files are to be removed, in the transaction that drops the rows naming
 * them (migration 016); `remove` them after it commits, and `removed` once the files are gone.
 */
export async function forgetMedia(db: Kysely<Database>, keys: readonly string[], due = Date.now()): Promise<void> {
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += chunk) {
    await db
      .insertInto('media_deletions')
      .values(unique.slice(i, i + chunk).map((key) => ({ key, due })))
      .onConflict((oc) => oc.column('key').doUpdateSet({ due }))
      .execute();
  }
}

/**
 * Files about to be written for rows not yet committed: removed by the sweep after `ms` unless the
 * transaction that names them `keepMedia`s them (a process killed between the write and the commit
 * left them on disk, named by no row).
 */
export function intendMedia(db: Kysely<Database>, keys: readonly string[], ms = 60 * 60_000): Promise<void> {
  return forgetMedia(db, keys, Date.now() + ms);
}

/** Files a committing transaction now names: no longer to be removed. */
export function keepMedia(db: Kysely<Database>, keys: readonly string[]): Promise<void> {
  return mediaRemoved(db, keys);
}

/** The files gone: their entries go too. */
export async function mediaRemoved(db: Kysely<Database>, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += chunk) await db.deleteFrom('media_deletions').where('key', 'in', keys.slice(i, i + chunk)).execute();
}

/** Entries due by `now` (left by a process that stopped before it removed their files), oldest first. */
export async function mediaDue(db: Kysely<Database>, now: number, limit = chunk): Promise<string[]> {
  const rows = await db.selectFrom('media_deletions').select('key').where('due', '<=', now).orderBy('due').limit(limit).execute();
  return rows.map((r) => r.key);
}

/** The entries as the queue's sweep drains them (src/queue/queue-workers.ts). */
export class MediaDeletionStore {
  constructor(private readonly db: Kysely<Database>) {}
  due(now: number): Promise<string[]> {
    return mediaDue(this.db, now);
  }
  removed(keys: readonly string[]): Promise<void> {
    return mediaRemoved(this.db, keys);
  }
  /** Files that could not be removed now (a read-only disk): due again at `due`. */
  later(keys: readonly string[], due: number): Promise<void> {
    return forgetMedia(this.db, keys, due);
  }
}
