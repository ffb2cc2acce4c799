import type { MediaStore } from '../media/media-store.ts';
import type { Store } from '../store/database.ts';
import type { MediaDeletionStore } from '../store/media-deletions.ts';
import { mediaPendingDeletion, mediaReferences, stillNamed } from '../store/media-references.ts';
import type { RequestStore } from '../store/request-store.ts';
import { isUuid, ServiceError } from './errors.ts';
import { auditMedia, type MediaAuditReport } from './media-audit.ts';

/** The admin CLI's work on stored files: one request removed with its files, and every file the database names checked. */
export class MediaHousekeeping {
  constructor(
    private readonly deps: { store: Store; requests: RequestStore; media: MediaStore; deletions: MediaDeletionStore },
  ) {}

  /**
   * `loupe request delete`: one asynchronous request with its inputs and results before its retention ends (a
   * customer's request to remove one photo, h100); one not done is refunded.
   */
  async deleteRequest(id: string): Promise<{ deleted: string; files: number; files_not_found: number; refunded: number }> {
    const gone = isUuid(id) ? await this.deps.requests.deleteOne(id.toLowerCase()) : { deleted: 0, media: [], refunded: 0 };
    if (!gone.deleted) throw new ServiceError(404, 'not_found', `Request ${id} not found.`);
    const { removed, failed } = await this.deps.media.remove(gone.media);
    await this.deps.deletions.removed(removed);
    // files that could not be removed now (a read-only disk) are the sweep's: the request is deleted and refunded
    return { deleted: id, files: removed.length, files_not_found: gone.media.length - removed.length - failed.length, ...(failed.length ? { files_left: failed.length } : {}), refunded: gone.refunded };
  }

  /** What `loupe request delete` would remove (`--dry-run`): the same answer, its files looked for in this media folder. */
  async requestDeletion(id: string): Promise<{ deleted: string; files: number; files_not_found: number; refunded: number }> {
    const held = isUuid(id) ? await this.deps.requests.holdings({ id: id.toLowerCase() }) : { requests: 0, media: [], refunded: 0 };
    if (!held.requests) throw new ServiceError(404, 'not_found', `Request ${id} not found.`);
    const found = await filesHere(this.deps.media, held.media);
    return { deleted: id, files: found, files_not_found: held.media.length - found, refunded: held.refunded };
  }

  /** `loupe media check`: every file the database names, looked at (media-audit.ts). */
  async audit(options: { decode?: boolean } = {}): Promise<MediaAuditReport> {
    // beside a running server: rows deleted and files written while it runs are not problems (h252)
    const since = Date.now();
    return auditMedia(mediaReferences(this.deps.store), this.deps.media, { ...options, pendingDeletion: await mediaPendingDeletion(this.deps.store), stillNamed: (ref) => stillNamed(this.deps.store, ref), since });
  }
}

/**
 * How many of these keys have a file in this media folder: an erasure's `files` before it runs (the rest are its
 * `files_not_found`, left named for the sweep of a server whose folder holds them).
 */
export async function filesHere(media: MediaStore, keys: readonly string[]): Promise<number> {
  let found = 0;
  // a stat each, a few at a time: an account's erasure may name tens of thousands
  for (let i = 0; i < keys.length; i += 64) {
    const at = await Promise.all(keys.slice(i, i + 64).map((k) => media.modifiedAt(k)));
    found += at.filter((t) => t !== undefined).length;
  }
  return found;
}
