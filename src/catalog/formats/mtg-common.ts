import type { CardRow, RecordPlace, RowSet, Fields } from '../catalog-rows.ts';

/** What the MTG shapes (MTGJSON, Scryfall bulk, booster pool) share. */

/**
 * MTGJSON writes Conflux's code `CON_` where a file or field may not be called `CON` (a reserved
 * file name on Windows); the card and every other source say `CON`.
 */
export function mtgSetCode(code: string): string {
  const upper = code.toUpperCase();
  return upper === 'CON_' ? 'CON' : upper;
}

const COLOR_ORDER = ['W', 'U', 'B', 'R', 'G'];

/** Colors from a mana cost (`{2}{W}{U/P}` → W, U), in WUBRG order; hybrid symbols give both. */
export function colorsOf(...manaCosts: (string | null | undefined)[]): string[] {
  const found = new Set<string>();
  for (const cost of manaCosts) {
    for (const m of (cost ?? '').matchAll(/\{([^}]*)\}/g)) {
      for (const ch of m[1]!.toUpperCase()) if (COLOR_ORDER.includes(ch)) found.add(ch);
    }
  }
  return COLOR_ORDER.filter((c) => found.has(c));
}

export const scryfallPage = (setCode: string, number: string): string => `https://scryfall.com/card/${encodeURIComponent(setCode.toLowerCase())}/${encodeURIComponent(number)}`;
export const gathererPage = (multiverseId: string): string => `https://gatherer.wizards.com/Pages/Card/Details.aspx?multiverseid=${encodeURIComponent(multiverseId)}`;
export const tcgplayerProduct = (productId: string): string => `https://www.tcgplayer.com/product/${encodeURIComponent(productId)}`;

/** Layouts printed on oversized cards (MTGJSON 5.2 has no `isOversized`). */
export const OVERSIZED_LAYOUTS = new Set(['planar', 'scheme', 'vanguard']);

/** One shape's reader of card records; `add` checks and keeps, `finish` gives the rows. */
export interface MtgCardReader {
  readonly format: string;
  readonly rank: number;
  add(f: Fields, at: RecordPlace): void;
  finish(cards: RowSet): void;
}

/** Links every MTG shape can build from ids. */
export function mtgLinks(row: Pick<CardRow, 'setCode' | 'number'>, ids: { multiverseId?: string | null; tcgplayerProductId?: string | null }): Record<string, string> {
  const links: Record<string, string> = {};
  if (row.setCode && row.number) links.scryfall = scryfallPage(row.setCode, row.number);
  if (ids.multiverseId) links.gatherer = gathererPage(ids.multiverseId);
  if (ids.tcgplayerProductId) links.tcgplayer = tcgplayerProduct(ids.tcgplayerProductId);
  return links;
}
