import { sql } from 'kysely';
import { fromJson, type Store } from './database.ts';

/** A media file a row names, and the row (what an operator needs to find it and send it again). */
export interface MediaReference {
  key: string;
  what: 'session image' | 'session thumbnail' | 'request result' | 'request preview' | 'record thumbnail';
  session?: string;
  /** A record thumbnail's collection and record `_id` (migration 047). */
  collection?: string;
  record?: string;
  row?: string;
  event_id?: string;
  request?: string;
}

/**
 * Every media key the database names, a batch at a time (keyset pages: a large data folder is never held in
 * memory): card-session rows' images and thumbnails, finished requests' result files and previews, and collection records' thumbnails.
 */
export async function* mediaReferences(store: Store, batch = 1000): AsyncGenerator<MediaReference> {
  for (let after = 0; ; ) {
    const rows = (
      await sql<{ seq: number; id: string; session_id: string; event_id: string; image_key: string | null; thumbnail_key: string | null }>`
        SELECT seq, id, session_id, event_id, image_key, thumbnail_key FROM card_identifications
        WHERE seq > ${after} AND (image_key IS NOT NULL OR thumbnail_key IS NOT NULL) ORDER BY seq LIMIT ${batch}`.execute(store.db)
    ).rows;
    for (const r of rows) {
      const owner = { session: r.session_id, row: r.id, event_id: r.event_id };
      if (r.image_key) yield { key: r.image_key, what: 'session image', ...owner };
      if (r.thumbnail_key) yield { key: r.thumbnail_key, what: 'session thumbnail', ...owner };
    }
    if (rows.length < batch) break;
    after = Number(rows[rows.length - 1]!.seq);
  }
  for (let after = 0; ; ) {
    // through the partial index of records that have one (migration 047)
    const rows = (
      await sql<{ key: number; collection_id: string; record_id: string; thumbnail_key: string }>`
        SELECT key, collection_id, record_id, thumbnail_key FROM collection_records
        WHERE thumbnail_key IS NOT NULL AND key > ${after} ORDER BY key LIMIT ${batch}`.execute(store.db)
    ).rows;
    for (const r of rows) yield { key: r.thumbnail_key, what: 'record thumbnail', collection: r.collection_id, record: r.record_id };
    if (rows.length < batch) break;
    after = Number(rows[rows.length - 1]!.key);
  }
  for (let after = 0; ; ) {
    const rows = (await sql<{ seq: number; id: string; media: unknown; previews: unknown }>`SELECT seq, id, media, previews FROM async_requests WHERE seq > ${after} ORDER BY seq LIMIT ${batch}`.execute(store.db)).rows;
    for (const r of rows) {
      const keys = fromJson<unknown>(r.media);
      // a preview's key is in `media` too (migration 049): named as what it is, for an operator looking for it
      const shown = r.previews === null ? [] : fromJson<unknown>(r.previews);
      const previews = new Set(Array.isArray(shown) ? shown.map((p) => (p as { key?: unknown } | null)?.key) : []);
      if (Array.isArray(keys)) for (const key of keys) if (typeof key === 'string') yield { key, what: previews.has(key) ? 'request preview' : 'request result', request: r.id };
    }
    if (rows.length < batch) break;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/** Keys a delete has named for removal (migration 016): their files may still be there, named by no row. */
export async function mediaPendingDeletion(store: Store): Promise<Set<string>> {
  const rows = (await sql<{ key: string }>`SELECT key FROM media_deletions`.execute(store.db)).rows;
  return new Set(rows.map((r) => r.key));
}

/**
 * Whether the row a reference came from still names its file: a check beside a running server reads the references
 * first and the files after, so a session deleted meanwhile had its files counted missing (h252: 782 false "missing").
 */
export async function stillNamed(store: Store, ref: MediaReference): Promise<boolean> {
  if (ref.row) {
    const r = await sql<{ image_key: string | null; thumbnail_key: string | null }>`SELECT image_key, thumbnail_key FROM card_identifications WHERE id = ${ref.row}`.execute(store.db);
    return r.rows.some((x) => x.image_key === ref.key || x.thumbnail_key === ref.key);
  }
  if (ref.collection !== undefined && ref.record !== undefined) {
    const r = await sql<{ thumbnail_key: string | null }>`SELECT thumbnail_key FROM collection_records WHERE collection_id = ${ref.collection} AND record_id = ${ref.record}`.execute(store.db);
    return r.rows.some((x) => x.thumbnail_key === ref.key);
  }
  if (ref.request) {
    const r = await sql<{ media: unknown }>`SELECT media FROM async_requests WHERE id = ${ref.request}`.execute(store.db);
    return r.rows.some((x) => {
      const keys = fromJson<unknown>(x.media);
      return Array.isArray(keys) && keys.includes(ref.key);
    });
  }
  return true;
}
