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

/**
 * Sets printed only as oversized cards, for shapes that flag no card (MTGJSON 5.2 has no `isOversized`; the booster
 * pool nothing): the commander and league display cards and the Vintage Championship trophy (MTGJSON's memorabilia
 * sets named O…), and the planes, schemes and vanguards of their own sets. A drawn black-bordered Black Lotus was
 * named the oversized OVNT #2003 with `include_mtg_oversized` off (h183).
 */
const OVERSIZED_SETS = new Set(['OVNT', 'OLGC', 'OLEP', 'OCMD', 'OCM1', 'OAFC', 'OMIC', 'OVOC', 'OHOP', 'OPCA', 'OPC2', 'OARC', 'OE01', 'PHOP', 'PVAN']);
const oversizedSet = (setCode: string): boolean => OVERSIZED_SETS.has(setCode) || /^OC\d\d$/.test(setCode);

/**
 * Sets sold only on Magic Online or MTG Arena (Scryfall's `digital`), for shapes that flag no card: the booster pool
 * supplement carries ME1–ME4, VMA, TPR, AKR, KLR and J21 without a word (h183: an Arena-only J21 printing was a best
 * match with `include_mtg_digital` off).
 */
const DIGITAL_SETS = new Set([
  'ME1', 'ME2', 'ME3', 'ME4', 'VMA', 'TPR', 'PZ1', 'PZ2', 'TD0', 'TD2', 'PRM', 'PMOA', 'AKR', 'KLR', 'J21', 'ANA', 'ANB', 'OANA', 'PANA',
  'HA1', 'HA2', 'HA3', 'HA4', 'HA5', 'HA6', 'HA7', 'EA1', 'EA2', 'EA3', 'SIR', 'SIS', 'Y22', 'YMID', 'YNEO', 'YSNC', 'YDMU', 'YBRO', 'YONE',
  'YWOE', 'YLCI', 'YMKM', 'YOTJ', 'YBLB', 'YDSK',
]);

/** A printing's flags with those its set implies ({@link oversizedSet}, DIGITAL_SETS), in the order the shapes write them. */
export function withSetFlags(setCode: string, flags: readonly string[]): string[] {
  const has = new Set(flags);
  if (oversizedSet(setCode)) has.add('oversized');
  if (DIGITAL_SETS.has(setCode)) has.add('digital');
  return ['oversized', 'digital', 'promo'].filter((f) => has.has(f)).concat(flags.filter((f) => !['oversized', 'digital', 'promo'].includes(f)));
}

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
