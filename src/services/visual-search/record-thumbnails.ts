import type { MediaLinks } from '../../media/media-links.ts';
import type { MediaStore } from '../../media/media-store.ts';
import type { CollectionStore } from '../../store/collection-store.ts';

/**
 * Collection records' thumbnails in the media folder (migration 047): a JPEG of `edge` px on its long side, made by the
 * vision worker from the pixels it decoded for the descriptor, so the console shows a record sent as `_base64` or
 * `_file`, and one sent as `_url` without hot-linking a shop's host (h357). Written as a card session's images are:
 * named in `media_deletions` before the write (a process stopped before the row names a file leaves it to the sweep),
 * kept by the transaction that stores the row, named again by the one that drops or replaces it, removed after that
 * commits.
 */
export class RecordThumbnails {
  constructor(
    private readonly media: MediaStore,
    private readonly links: MediaLinks,
    private readonly store: CollectionStore,
    /** Long edge in px; 0: no thumbnails are made (LOUPE_RECORD_THUMBNAILS off), those made before still served and removed. */
    readonly edge: number,
  ) {}

  /** The thumbnails the worker made, written; each one's key (null where there is none). */
  async write(made: readonly (ArrayBuffer | undefined)[]): Promise<(string | null)[]> {
    const keys = made.map((t) => (t && t.byteLength ? this.media.newKey('jpg') : null));
    const named = keys.filter((k): k is string => k !== null);
    if (!named.length) return keys;
    await this.store.intendMedia(named);
    await Promise.all(keys.map((k, i) => (k ? this.media.write(k, Buffer.from(made[i]!)) : undefined)));
    return keys;
  }

  /** Files no row names any more (after the commit that dropped or replaced them), then their `media_deletions` entries. */
  async remove(keys: readonly (string | null | undefined)[]): Promise<void> {
    const named = keys.filter((k): k is string => typeof k === 'string');
    if (!named.length) return;
    // one that stays (a read-only disk) keeps its entry, for the sweep: the change itself has committed
    const { failed } = await this.media.remove(named);
    await this.store.mediaRemoved(named.filter((k) => !failed.includes(k)));
  }

  /** A signed link to each of these records' thumbnails, null for a record without one; a record not stored is left out. */
  async linksOf(baseUrl: string, collectionId: string, recordIds: string[]): Promise<Map<string, string | null>> {
    const keys = await this.store.thumbnails(collectionId, recordIds);
    return new Map([...keys].map(([id, key]) => [id, this.links.url(baseUrl, key)]));
  }
}
