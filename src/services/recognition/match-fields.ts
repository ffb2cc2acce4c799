import type { StoredCard, StoredSet } from '../../store/catalog-store.ts';

/**
 * A catalog card in the spec's trading-card `best_match` shape (document 3 §2): `year`,
 * `full_name`, `name`, `set`, `color`, `type`, `set_code`, `rarity`, `out_of`, `card_number`,
 * `series`, `subcategory`, `links`, and `set_series_code`. Field by field per catalog kind in
 * docs/recognition.md "Match fields"; a field the catalog does not have is null, never made up.
 * `year` is a string (sessions store it as text, document 1).
 */
export interface TradingCardMatch {
  id: string;
  name: string;
  full_name: string;
  set: string | null;
  set_code: string | null;
  set_series_code: string | null;
  series: string | null;
  card_number: string | null;
  out_of: number | null;
  rarity: string | null;
  year: string | null;
  color: string | null;
  type: string | null;
  subcategory: string;
  links: Record<string, string>;
  catalog: string;
}

/** The spec's subcategory spellings per catalog kind. */
export const SUBCATEGORY: Record<string, string> = { pokemon: 'Pokemon', mtg: 'Magic The Gathering', yugioh: 'Yu-Gi-Oh!' };

/** A sport's name as the spec spells subcategories (`Baseball`). */
const sportName = (s: unknown): string | null => (typeof s === 'string' && s ? s[0]!.toUpperCase() + s.slice(1).toLowerCase() : null);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const MTG_COLORS: Record<string, string> = { W: 'White', U: 'Blue', B: 'Black', R: 'Red', G: 'Green' };

export function tradingCardMatch(kind: string, catalog: string, card: StoredCard, set: StoredSet | undefined): TradingCardMatch {
  const f = card.fields;
  const setName = set?.name ?? card.setName;
  const outOf = set?.printedTotal ?? (kind === 'csv' && /^[0-9]{1,5}$/.test(text(f.out_of) ?? '') ? Number(f.out_of) : null);
  let color: string | null = null;
  let type: string | null = null;
  let setCode = card.setCode;
  if (kind === 'pokemon') {
    color = strings(f.types).join(', ') || null;
    const sub = strings(f.subtypes);
    type = text(f.supertype) ? `${f.supertype as string}${sub.length ? ` — ${sub.join(' ')}` : ''}` : null;
    // the code printed on the card and used by players (`MEW`); the data project's id when there is none
    setCode = text(set?.extra.ptcgoCode) ?? card.setCode;
  } else if (kind === 'mtg') {
    color = strings(f.colors).map((c) => MTG_COLORS[c] ?? c).join(', ') || (card.fields.manaCost ? 'Colorless' : null);
    type = text(f.type);
  } else if (kind === 'yugioh') {
    color = text(f.attribute);
    type = text(f.monster_type_line) ?? ([text(f.card_type), text(f.property)].filter(Boolean).join(' — ') || null);
  } else if (kind === 'csv') {
    // a shop's own game: the fields its `--map` named so (`color=Ink,type=Version,out_of=Set Size`)
    color = text(f.color);
    type = text(f.type);
  }
  // as the card prints it: a promo its number alone (SWSH049: "SWSH049/307" was no card's), a subset's lettered number
  // its letters on the total too (SV69/SV94, TG05/TG30; h270)
  const promo = kind === 'pokemon' && /promo/i.test(`${setName ?? ''} ${card.rarity ?? ''}`);
  const letters = /^([A-Z]+)[0-9]+$/.exec(card.number ?? '')?.[1] ?? '';
  const numbered = card.number ? (kind === 'pokemon' && outOf && !promo ? `${card.number}/${letters}${outOf}` : card.number) : null;
  return {
    id: card.key,
    name: card.name,
    full_name: [card.name, numbered, setName].filter(Boolean).join(' '),
    set: setName,
    set_code: setCode,
    set_series_code: card.setCode,
    series: set?.series ?? null,
    card_number: card.number,
    out_of: promo ? null : outOf,
    rarity: card.rarity,
    year: (set?.releaseDate ?? card.year)?.slice(0, 4) ?? null,
    color,
    type,
    // a shop's own game (`--kind csv`) is named by its catalog, as it was imported (`lorcana`)
    subcategory: SUBCATEGORY[kind] ?? (kind === 'csv' ? catalog : kind),
    links: card.links,
    catalog,
  };
}

/** Simplified Chinese and other CJK characters: what `ignore_non_ascii` omits (accents stay). */
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

/** Whether a text holds CJK characters (what `ignore_non_ascii` leaves out). */
export const hasCjk = (text: string): boolean => CJK.test(text);

/**
 * The match with its text fields that hold CJK text null (`ignore_non_ascii`), its shape kept; its `id` and `catalog`,
 * Loupe's own keys of the card, as they are (h237: a Japanese shop catalog's match lost its id, name and full name, so
 * the card could not be named at all).
 */
export function withoutNonAscii<T extends object>(match: T): T {
  // a list of text (a sport card's teams and attributes) loses its entries that hold them (h147)
  return Object.fromEntries(
    Object.entries(match).map(([k, v]) => [k, k === 'id' || k === 'catalog' ? v : typeof v === 'string' && CJK.test(v) ? null : Array.isArray(v) ? v.filter((x) => !(typeof x === 'string' && CJK.test(x))) : v]),
  ) as T;
}

/**
 * A checklist card in the spec's sport-card `best_match` shape (document 3 §2): `year`, `name`,
 * `set_name`, `card_type`, `card_number`, `subcategory`, `sub_set`, `company`, `full_name`,
 * `links`; plus `id` and `catalog` as on trading cards, and the checklist's `teams` and `attributes`
 * (`Rookie Card`, `Rookie Debut`, …) a breaker sorts and prices by (h137: the spec names neither; they
 * were read from the checklist and dropped).
 */
export interface SportCardMatch {
  id: string;
  name: string;
  full_name: string;
  year: string | null;
  set_name: string | null;
  card_type: string | null;
  card_number: string | null;
  sub_set: string | null;
  company: string | null;
  subcategory: string | null;
  links: Record<string, string>;
  catalog: string;
  teams: string[];
  attributes: string[];
}

export function sportCardMatch(catalog: string, card: StoredCard): SportCardMatch {
  const f = card.fields;
  const subSet = text(f.sub_set);
  return {
    id: card.key,
    name: card.name,
    // checklists name their sets with the year first (`2022 Topps Update Series`)
    // and a parallel's or an insert's subset after it: a Red /99 and its base card, or an insert #1 and the base #1, had
    // one full name (h224)
    full_name: [card.year && !card.setName?.startsWith(card.year) ? card.year : null, card.setName, card.number ? `#${card.number}` : null, card.name].filter(Boolean).join(' ') + (subSet && subSet.toLowerCase() !== 'base' ? ` – ${subSet}` : ''),
    // the season as the checklist gives it (`2003-04`), its first year the card's year for matching (h224)
    year: card.year !== null && typeof f.year === 'string' && f.year.trim() ? f.year.trim() : card.year,
    set_name: card.setName,
    card_type: text(f.card_type),
    card_number: card.number,
    sub_set: subSet,
    company: text(f.company),
    subcategory: sportName(f.sport),
    links: card.links,
    catalog,
    teams: textList(f.teams),
    attributes: textList(f.attributes),
  };
}

const textList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * A catalog issue in the spec's comics `best_match` shape (document 3 §2): `name` (the series),
 * `title`, `date` (the publication year where the catalog has it), `number` (the issue),
 * `publisher`, `origin_date` (the series' first year), `links`; plus `id`, `catalog` and
 * `subcategory` (null: the spec names no comics subcategories).
 */
export function comicsMatch(catalog: string, card: StoredCard): Record<string, unknown> & { subcategory: null } {
  const f = card.fields;
  return {
    id: card.key,
    name: card.name,
    title: text(f.title) ?? card.name,
    date: card.year,
    number: card.number,
    publisher: card.setName,
    origin_date: text(f.origin_date) ?? (typeof f.series_start_year === 'number' ? String(f.series_start_year) : null),
    links: card.links,
    catalog,
    subcategory: null,
  };
}
