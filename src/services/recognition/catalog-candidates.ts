import { withSetFlags } from '../../catalog/formats/mtg-common.ts';
import { normalizeName, numberKey, withoutMarks } from '../../catalog/card-keys.ts';
import { pokemonBorder } from '../../catalog/pokemon-borders.ts';
import { pokemonLayout } from '../../catalog/pokemon-layouts.ts';
import { pokemonResistance } from '../../catalog/pokemon-resistance.ts';
import { mtgBorder } from '../../catalog/mtg-borders.ts';
import type { CatalogStore, CatalogSummary, StoredCard, StoredSet } from '../../store/catalog-store.ts';
import type { ArtworkIndex } from './artwork-references.ts';
import type { CandidateCard, CandidateSource } from './identify.ts';

/** Pokémon's supertypes as identification's kinds of card (other games' types say nothing here). */
const KINDS = new Map<unknown, CandidateCard['kind']>([['Pokémon', 'pokemon'], ['Trainer', 'trainer'], ['Energy', 'energy']]);

/** Names the engine's trigram search returns per name read; each brings its cards. */
const NAMES_PER_QUERY = 5;

/** Promo sets run for years under their first release date, so their date says nothing of a card's year. */
function isPromoSet(set: StoredSet | undefined): boolean {
  return set !== undefined && /promo/i.test(set.name);
}

function numberOrNull(v: unknown): number | null {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * A stored card as identification sees it: its set's printed total and year, its HP and regulation
 * mark, for a Pokémon catalog (`kind`) the colour of its border and its text box's layout, for a
 * Magic one its border (black or white).
 */
export function candidateOf(card: StoredCard, sets: ReadonlyMap<string, StoredSet>, kind?: string): CandidateCard {
  const set = card.setCode !== null ? sets.get(card.setCode) : undefined;
  // a shop's CSV catalog (a Japanese one) writes the number with its set's total, as cards print it:
  // the number is the part before the slash, the total the set's (they matched nothing: 0 of 14 read)
  const withTotal = kind === 'csv' && card.number !== null ? /^\s*([A-Za-z]*\d+[A-Za-z]*)\s*\/\s*(\d+)\s*$/.exec(card.number) : null;
  const year = isPromoSet(set) ? null : (set?.releaseDate ?? card.year)?.slice(0, 4) ?? null;
  const mark = card.fields.regulationMark;
  const cardKind = KINDS.get(card.fields.supertype) ?? null;
  return {
    key: card.key,
    name: card.name,
    nameNorm: card.nameNorm,
    number: withTotal ? withTotal[1]! : card.number,
    numberNorm: withTotal ? numberKey(withTotal[1]!) : card.numberNorm,
    setCode: card.setCode,
    setName: set?.name ?? card.setName ?? null,
    setCodes: [...new Set([card.setCode, typeof set?.extra.ptcgoCode === 'string' ? set.extra.ptcgoCode : null].filter((c): c is string => !!c).map((c) => c.toUpperCase()))],
    setTotal: set?.printedTotal ?? (withTotal ? Number(withTotal[2]) : null),
    year,
    hp: numberOrNull(card.fields.hp),
    regulationMark: typeof mark === 'string' ? mark : null,
    kind: cardKind,
    artist: typeof card.fields.artist === 'string' && card.fields.artist ? normalizeName(card.fields.artist) : null,
    layout: kind === 'pokemon' ? pokemonLayout({ rarity: card.rarity, number: card.number }) : null,
    // trainers and energies print no resistance
    resistance: kind === 'pokemon' && cardKind === 'pokemon' ? pokemonResistance(set?.series ?? null, card.setCode) : null,
    catalogKind: kind ?? null,
    border: kind === 'pokemon' ? pokemonBorder({ rarity: card.rarity, number: card.number, subtypes: textList(card.fields.subtypes) }, set?.series ?? null) : kind === 'mtg' ? mtgBorder(card.fields) : null,
  };
}

const textList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * A set code or name as a `set_code` hint is compared: any Unicode form and width, any case (a decomposed `É` from a
 * Mac, `ＳＶ２ａ` typed in a Japanese keyboard's full-width mode were unknown sets, h94), with or without accents, as
 * names are (`2023 Panini Seleccion Mexico` typed at a counter was an unknown set, h224); a kana's voiced marks stay.
 */
const setKey = (s: string): string => withoutMarks(s).trim().toUpperCase();

/** What a `set_code` hint may name in a catalog without a sets table: a code or a set name its cards carry (`setKey`). */
export function setHintKeys(cardSets: readonly { code: string | null; name: string | null }[]): Set<string> {
  const keys = new Set<string>();
  for (const s of cardSets) for (const k of [s.code, s.name]) if (k && k.trim()) keys.add(setKey(k));
  return keys;
}

export interface CandidateFilter {
  /** The `set_code` hint: a set's code or the code printed on its cards (`MEW`), any case; where the catalog has no sets table, also a set name its cards carry. */
  setCode?: string | undefined;
  /** MTG oversized (planar, scheme, vanguard) and digital-only printings are left out unless asked for. */
  includeOversized?: boolean;
  includeDigital?: boolean;
}

/** One catalog as identification searches it, and the stored cards behind its candidates. */
export interface CatalogSearch {
  catalog: CatalogSummary;
  source: CandidateSource;
  /** The stored card and its set behind a candidate this search returned. */
  detail(key: string): { card: StoredCard; set: StoredSet | undefined } | undefined;
  /** Whether the `set_code` hint may name a set of this catalog (always true without a hint or without a sets table). */
  hasSet: boolean;
  /** The option the hint's set needs: every printing of it is oversized or digital-only, left out without that option. */
  setNeeds?: 'include_mtg_oversized' | 'include_mtg_digital';
  /** The catalog's reference artworks, when it has any (artwork-references.ts). */
  art?: ArtworkIndex | null;
  /** Whether a card of the catalog is named exactly so (a folded name): a comic's series, asked of a digits-only title (h322). */
  hasName(nameNorm: string): Promise<boolean>;
}

/**
 * Candidates from one catalog through the store's indexes: exact folded numbers, and the engine's
 * trigram name search. `known`: the catalog's sets when the caller has them already; `cardSetCodes`:
 * for a catalog without sets, the set codes and names its cards carry (`setHintKeys`).
 */
export async function catalogSearch(store: CatalogStore, catalog: CatalogSummary, filter: CandidateFilter = {}, known?: readonly StoredSet[], cardSetCodes?: ReadonlySet<string>): Promise<CatalogSearch> {
  const sets = new Map((known ?? (await store.sets(catalog.id))).map((s) => [s.code, s]));
  const wanted = filter.setCode === undefined ? undefined : setKey(filter.setCode);
  const setCodes = wanted
    ? new Set([...sets.values()].filter((s) => setKey(s.code) === wanted || (typeof s.extra.ptcgoCode === 'string' && setKey(s.extra.ptcgoCode) === wanted)).map((s) => s.code))
    : null;
  const seen = new Map<string, StoredCard>();
  const keep = (c: StoredCard): boolean => {
    if (setCodes && !(c.setCode !== null && (setCodes.has(c.setCode) || setKey(c.setCode) === wanted)) && !(sets.size === 0 && c.setName != null && setKey(c.setName) === wanted)) return false;
    if (!filter.includeOversized && c.flags.includes('oversized')) return false;
    if (!filter.includeDigital && c.flags.includes('digital')) return false;
    return true;
  };
  const take = (cards: StoredCard[]): CandidateCard[] =>
    cards.filter(keep).map((c) => {
      seen.set(c.key, c);
      return candidateOf(c, sets, catalog.kind);
    });
  // Catalogs without a sets table (Yu-Gi-Oh!, sport checklists, comics) carry the set on each card
  // only, as a code (Yu-Gi-Oh!) or a name alone (sport checklists, comics): the hint names either.
  const carried = wanted && sets.size === 0 ? (cardSetCodes ?? setHintKeys(await store.cardSets(catalog.id))) : null;
  const hasSet = !wanted || (carried ? carried.has(wanted) : setCodes !== null && setCodes.size > 0);
  // a set printed only oversized (OC21) or sold only online: a hint naming it finds nothing without its option, said
  // (h270: a bare OK and no match)
  const hinted = setCodes?.size ? [...setCodes] : wanted && carried?.has(wanted) ? [filter.setCode!.trim().toUpperCase()] : [];
  const setFlags = catalog.kind === 'mtg' ? hinted.map((code) => withSetFlags(code.toUpperCase(), [])) : [];
  const setNeeds = !setFlags.length ? undefined : !filter.includeOversized && setFlags.every((f) => f.includes('oversized')) ? 'include_mtg_oversized' : !filter.includeDigital && setFlags.every((f) => f.includes('digital')) ? 'include_mtg_digital' : undefined;
  return {
    catalog,
    hasSet,
    ...(setNeeds ? { setNeeds } : {}),
    hasName: async (nameNorm) => (await store.cardsByName(catalog.id, nameNorm, { limit: 1 })).length > 0,
    detail: (key) => {
      const card = seen.get(key);
      return card ? { card, set: card.setCode !== null ? sets.get(card.setCode) : undefined } : undefined;
    },
    source: {
      byNumber: async (numberNorm) => take(await store.cardsByNumber(catalog.id, numberNorm)),
      byKeys: async (keys) => take((await Promise.all(keys.map((k) => store.card(catalog.id, k)))).filter((c): c is StoredCard => c !== null)),
      byName: async (text, limit) => {
        // each name brings its own cards: a name with many printings (Milotic, 18) must not crowd
        // out the next (Milotic ex), whose logo suffix the recogniser often does not read
        const out: CandidateCard[] = [];
        for (const n of await store.searchNames(catalog.id, text, { limit: NAMES_PER_QUERY })) out.push(...take(await store.cardsByName(catalog.id, n.nameNorm, { limit })));
        return out;
      },
    },
  };
}
