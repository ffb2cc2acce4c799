import type { MatchObject, PriceStatsEntry } from '../types.ts';

/** Spec 1 §2 limits: a row over any of them rejects the whole batch, so cut here. */
const limits = { name: 255, full_name: 500, set_name: 255, set_code: 50, card_number: 50, series: 255, year: 20, subcategory: 100 } as const;

const text = (value: unknown, max: number): string | undefined => {
  if (value === null || value === undefined || value === '') return undefined;
  const s = typeof value === 'string' ? value : String(value);
  return s.length > max ? s.slice(0, max) : s;
};

/** Distances are e^(−score/4) (docs/recognition.md); the thresholds follow its score bands. */
export function confidenceOf(distance: number | undefined): 'high' | 'medium' | 'low' | undefined {
  if (distance === undefined || !Number.isFinite(distance)) return undefined;
  return distance <= 0.05 ? 'high' : distance <= 0.15 ? 'medium' : 'low';
}

/** A stable key for one detected card of one photo: the same photo added twice updates, never doubles. */
export function eventIdOf(photoHash: string, object: Pick<MatchObject, 'id'>): string {
  return `console:${photoHash}:${object.id}`;
}

/** FNV-1a over the photo's bytes (64 bits as two 32-bit halves): crypto.subtle is missing on plain-HTTP LAN addresses. */
export function hashBytes(bytes: Uint8Array): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i]!, 0x01000193);
    h2 = Math.imul(h2 ^ bytes[i]!, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/** What a photo is read as: the recognition endpoint (spec 3 §4), the row's `id_type` and a new session's `game` (spec 1). */
export const READ_AS = {
  tcg: { label: 'Trading cards', path: '/collectibles/v2/tcg_id', idType: 'tcg', game: 'TCG' },
  sport: { label: 'Sport cards', path: '/collectibles/v2/sport_id', idType: 'sport', game: 'Sports' },
  comics: { label: 'Comics', path: '/collectibles/v2/comics_id', idType: 'comics', game: 'Comics' },
} as const;
export type ReadAs = keyof typeof READ_AS;

/**
 * A best match's set, number and year, under the names its kind gives them: a trading card's `set` (or a sport card's
 * `set_name`), `card_number` and `year`; a comic's `publisher`, issue `number` and `date` (spec 3 §2).
 */
export function matchPlace(best: Record<string, unknown>): { set: unknown; number: unknown; year: unknown } {
  return { set: best.set ?? best.set_name ?? best.publisher, number: best.card_number ?? best.number, year: best.year ?? best.date };
}

/**
 * A recognised card as a card sessions row (spec 1 §2), the way the published scanner app fills it:
 * the best match's fields, its distance and links, up to 10 alternatives and price statistics.
 * Undefined when the card was not identified: there is nothing to keep.
 */
export function identificationFromObject(object: MatchObject, eventId: string, seen: string, readAs: ReadAs = 'tcg'): Record<string, unknown> | undefined {
  const ident = object._identification;
  const best = ident?.best_match;
  if (!best) return undefined;
  const distance = ident.distances[0];
  const place = matchPlace(best);
  const row: Record<string, unknown> = {
    event_id: eventId,
    seen,
    id_type: READ_AS[readAs].idType,
    name: text(best.name, limits.name),
    // a comic's whole name is its title (`Amazing Spider-Man (1963) #300`)
    full_name: text(best.full_name ?? best.title, limits.full_name),
    set_name: text(place.set, limits.set_name),
    set_code: text(best.set_code, limits.set_code),
    card_number: text(place.number, limits.card_number),
    series: text(best.series, limits.series),
    year: text(place.year, limits.year),
    subcategory: text(best.subcategory, limits.subcategory),
    distance,
    confidence: confidenceOf(distance),
    calls: 1,
  };
  const links = best.links;
  if (links && typeof links === 'object') {
    row.links = Object.fromEntries(Object.entries(links as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length <= 2048).slice(0, 50));
  }
  if (ident.alternatives.length) row.alternatives = ident.alternatives.slice(0, 10);
  const stats = best.price_stats as PriceStatsEntry[] | undefined;
  if (Array.isArray(stats) && stats.length) row.price_stats = stats.slice(0, 10);
  for (const key of Object.keys(row)) if (row[key] === undefined) delete row[key];
  return row;
}

/**
 * A card recognition did not identify, with one of its alternatives picked by a person as its
 * card: that alternative becomes the best match (its own distance kept, so the session row says how
 * unsure recognition was) and the others stay alternatives.
 */
export function pickAlternative(object: MatchObject, index: number): MatchObject {
  const ident = object._identification;
  const alt = ident?.alternatives[index];
  if (!ident || ident.best_match || !alt) return object;
  return {
    ...object,
    _identification: {
      best_match: alt,
      alternatives: ident.alternatives.filter((_, i) => i !== index),
      distances: [ident.distances[index] ?? 1, ...ident.distances.filter((_, i) => i !== index)],
    },
  };
}
