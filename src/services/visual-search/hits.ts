import type { StoredRecord } from '../../store/collection-store.ts';
import { valueAtPath } from '../record-paths.ts';

/**
 * Distances are cosine distances scaled to 0–200 (100 × (1 − cos)), so the spec's default
 * near-duplicate radius of 5 means cos ≥ 0.95: copies, resizes and recompressions of one photo.
 */
export const distanceScale = 100;

export const scaled = (d: number) => Math.round(d * distanceScale * 10_000) / 10_000;
/** A radius as answers show distances, as the cosine distance to search within: one shown at the radius is within it (h130). */
export const rawRadius = (radius: number) => (radius + 0.00005) / distanceScale;

/**
 * The best `want` hits, one per product when there is a product field (each product's best
 * record), the search widened until enough products are seen or the collection is exhausted.
 */
export async function onePerProduct<H extends { record: StoredRecord }>(productField: string | undefined, want: number, records: number, search: (n: number) => Promise<H[]>): Promise<H[]> {
  if (!productField) return search(want);
  for (let fetch = want * 4; ; fetch *= 4) {
    const raw = await search(fetch);
    const seen = new Set<string>();
    const hits = raw.filter((h) => {
      // own fields only (`__proto__` or `toString` would read the same built-in on every record and fold them into one); dotted paths as filters read them
      const p = JSON.stringify(valueAtPath(h.record.data, productField) ?? `\u0000${h.record.recordId}`);
      if (seen.has(p)) return false;
      seen.add(p);
      return true;
    });
    if (hits.length >= want || raw.length < fetch || fetch >= records) return hits;
  }
}

/**
 * The `want` nearest hits in a stable order: equal distances (one photo stored under several
 * SKUs) ordered by insertion, and the search widened until the tie at the page's edge is whole,
 * so that paging with `from` neither repeats nor skips a record. Distances are compared as they
 * are shown: pgvector and usearch differ in the last bits, and two records shown at one distance
 * came back in another order on each backend. `self`, the stored record a search by `_id` is
 * for, is at distance 0 and first among the records there (its copies stored before it).
 */
export async function tieStable<H extends { record: StoredRecord; distance: number }>(want: number, records: number, search: (n: number) => Promise<H[]>, self?: number): Promise<H[]> {
  const shown = (h: H) => (h.record.key === self ? 0 : scaled(h.distance));
  const first = (h: H) => (h.record.key === self ? 0 : 1);
  // One hit more than the page tells whether the page's last distance is shared beyond it.
  for (let n = want + 1; ; n *= 2) {
    const hits = [...(await search(n))].map((h) => (h.record.key === self ? { ...h, distance: 0 } : h)).sort((a, b) => shown(a) - shown(b) || first(a) - first(b) || a.record.key - b.record.key);
    if (hits.length < n || n >= records || shown(hits[hits.length - 1]!) > shown(hits[want - 1]!)) return hits.slice(0, want);
  }
}
