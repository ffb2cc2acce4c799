import type { CatalogImageStore } from '../../store/catalog-image-store.ts';
import type { CatalogSummary } from '../../store/catalog-store.ts';
import { artDistance, ARTWORK_VERSION, hashWords } from '../../vision/recognition/card-artwork.ts';
import { ART_NONE, type ArtEvidence } from './identify.ts';

/** A catalog's reference artworks, packed for comparing a card against all of them at once. */
export interface ArtworkIndex {
  keys: string[];
  /** Each key's place in `keys`. */
  at: ReadonlyMap<string, number>;
  /** 8 words per reference, in the order of `keys`. */
  words: Uint32Array;
}

/** References that join a card's candidates by artwork alone, at most. */
const NEAREST = 5;

/** The artwork of a card against a catalog's references: every distance, and the nearest that count. */
export function artEvidence(index: ArtworkIndex, hashes: readonly string[]): ArtEvidence {
  const read = hashes.map(hashWords);
  // on the event loop: one pass over packed words into a typed array, no per-reference objects
  const distances = new Uint16Array(index.keys.length);
  const near: number[] = [];
  for (let i = 0; i < index.keys.length; i++) {
    let d = 256;
    for (const h of read) d = Math.min(d, artDistance(h, index.words, i * 8));
    distances[i] = d;
    if (d < ART_NONE) near.push(i);
  }
  const nearest = near
    .sort((a, b) => distances[a]! - distances[b]! || index.keys[a]!.localeCompare(index.keys[b]!))
    .slice(0, NEAREST)
    .map((i) => index.keys[i]!);
  return { distance: (key) => (index.at.has(key) ? distances[index.at.get(key)!]! : null), nearest };
}

/**
 * Each catalog's references (loupe catalog images), read once per catalog version: attaching
 * images moves the version, so every process reloads them on its next request.
 */
export class ArtworkReferences {
  private readonly cache = new Map<string, Promise<ArtworkIndex | null>>();

  constructor(private readonly store: CatalogImageStore) {}

  /** The catalog's references of this method version; null when it has none. */
  of(catalog: CatalogSummary): Promise<ArtworkIndex | null> {
    const key = `${catalog.id}:${catalog.version}`;
    let index = this.cache.get(key);
    if (!index) {
      for (const k of this.cache.keys()) if (k.startsWith(`${catalog.id}:`)) this.cache.delete(k);
      index = this.store.artworks(catalog.id, ARTWORK_VERSION).then(({ keys, hashes }) => {
        if (!keys.length) return null;
        const words = new Uint32Array(keys.length * 8);
        hashes.forEach((h, i) => words.set(hashWords(h), i * 8));
        return { keys, at: new Map(keys.map((k, i) => [k, i])), words };
      });
      index.catch(() => this.cache.delete(key));
      this.cache.set(key, index);
    }
    return index;
  }
}
