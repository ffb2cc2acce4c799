/**
 * Which catalog card a card's text names (docs/recognition.md "Identification"). The clues read
 * from a card (card-text.ts) fetch candidates from the catalog by collector number and by name;
 * each candidate is scored by how many clues it agrees with, and how many it contradicts. A
 * number alone is no identity (9,153 of 20,202 Pokémon cards are unique by number and set
 * total), so a match needs the number and something more: the set total, the HP, the
 * regulation mark, the copyright year or the name.
 */
import { normalizeName } from '../../catalog/card-keys.ts';
import type { CardTextClues, CollectorNumber } from './card-text.ts';

/** What identification needs of a catalog card. */
export interface CandidateCard {
  key: string;
  name: string;
  /** {@link normalizeName} of the name. */
  nameNorm: string;
  number: string | null;
  numberNorm: string | null;
  setCode: string | null;
  /** Upper-case codes the card's set is known by: its catalog code and the code printed on its cards (`SVI`). */
  setCodes: string[];
  /** The set's printed total (`165` on `…/165`), when the catalog has it. */
  setTotal: number | null;
  /**
   * The year the set came out (or the card's year where the catalog has no sets); null for promo
   * sets, which run for years under their first release date.
   */
  year: string | null;
  hp: number | null;
  regulationMark: string | null;
}

/** How candidates are fetched; the catalog store answers with the engines' own indexes. */
export interface CandidateSource {
  byNumber(numberNorm: string): Promise<CandidateCard[]>;
  byName(text: string, limit: number): Promise<CandidateCard[]>;
  /** The cards of these keys (artwork's nearest references), those the search's filter keeps. */
  byKeys(keys: string[]): Promise<CandidateCard[]>;
}

/**
 * What the card's artwork says (docs/recognition.md "Artwork"): its distance to each catalog
 * card that has a reference image, and the nearest of those, which join the candidates.
 */
export interface ArtEvidence {
  /** Differing bits (0–256) between the card's artwork hash and the card's reference; null without a reference. */
  distance(key: string): number | null;
  /** Keys of the nearest references, near enough to count ({@link ART_NONE}), nearest first. */
  nearest: string[];
}

export interface Evidence {
  number: 'same' | 'none';
  /** A code with letters (`SWSH131`, `TG05`) that no other candidate has: a promo or subset card. */
  uniqueCode: boolean;
  /** A set code printed on the card (`SVI`) is the candidate's set's; misreads of other text make a mismatch say nothing. */
  setCode: 'same' | 'unknown';
  total: 'same' | 'differs' | 'unknown';
  year: 'same' | 'near' | 'differs' | 'unknown';
  regulationMark: 'same' | 'differs' | 'unknown';
  hp: 'same' | 'differs' | 'unknown';
  /** 1 for the same name, 0 for nothing alike (edit distance over length). */
  name: number;
  /** Artwork distance to the candidate's reference image (bits of 256); null when it has none. */
  art: number | null;
}

export interface Identified {
  card: CandidateCard;
  /** Sum of the clue weights; comparable between candidates of one card only. */
  score: number;
  evidence: Evidence;
}

/**
 * What each agreement or contradiction weighs. A total, HP and regulation mark are read from
 * small print and misread now and then, so a contradiction costs less than an agreement gains.
 */
export const WEIGHTS = {
  number: 4,
  uniqueCode: 2,
  setCode: 3,
  totalSame: 3,
  totalDiffers: -2,
  yearSame: 1.5,
  yearNear: 1,
  yearDiffers: -1,
  markSame: 1,
  markDiffers: -1,
  hpSame: 2,
  hpDiffers: -1,
  /** Times the name likeness (0–1), counted only from 0.75. */
  name: 4,
  /** An artwork within {@link ART_FULL} bits of the reference; less, in proportion, up to {@link ART_NONE}. */
  art: 6,
  /** An artwork {@link ART_DIFFERS} bits or more from the candidate's reference: another card's art, or a bad outline. */
  artDiffers: -2,
};
/**
 * Artwork distances (bits of 256) where the evidence is full and where it stops counting. On 36
 * generated photos of the SV151 scans, the right reference lay at 0–35 bits (median 6) and the
 * nearest wrong one at 53–98; on the 88 train-split real photos of cards with no reference, the
 * nearest reference lay at 36 bits at least, which scores 3.6: no match without the text.
 */
export const ART_FULL = 20;
export const ART_NONE = 60;
export const ART_DIFFERS = 90;

/** The score artwork at `d` bits from a candidate's reference adds. */
export function artScore(d: number | null): number {
  if (d === null) return 0;
  if (d >= ART_DIFFERS) return WEIGHTS.artDiffers;
  return WEIGHTS.art * Math.min(1, Math.max(0, (ART_NONE - d) / (ART_NONE - ART_FULL)));
}
/** Least likeness for a name to count. */
const NAME_MIN = 0.75;

/** Levenshtein distance, for names of a few dozen letters. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** How alike two folded names are, 0–1; a read name may carry a suffix the catalog spells apart (`Pikachu V`). */
export function nameLikeness(read: string, catalog: string): number {
  if (!read || !catalog) return 0;
  const whole = 1 - editDistance(read, catalog) / Math.max(read.length, catalog.length);
  return Math.max(0, whole);
}

function totalOf(n: CollectorNumber): number | null {
  if (!n.total || !/^\d+$/.test(n.total)) return null;
  return Number(n.total);
}

/** Scores one candidate against the clues. */
export function scoreCandidate(card: CandidateCard, clues: CardTextClues, holders: ReadonlyMap<string, number> = new Map(), art?: ArtEvidence): Identified {
  const evidence: Evidence = { number: 'none', uniqueCode: false, setCode: 'unknown', total: 'unknown', year: 'unknown', regulationMark: 'unknown', hp: 'unknown', name: 0, art: art?.distance(card.key) ?? null };
  const numbers = clues.numbers.filter((n) => card.numberNorm !== null && n.key === card.numberNorm);
  if (numbers.length) {
    evidence.number = 'same';
    evidence.uniqueCode = /^[A-Z]+[0-9]/.test(card.numberNorm!) && holders.get(card.numberNorm!) === 1;
    const totals = numbers.map(totalOf).filter((t): t is number => t !== null);
    if (totals.length && card.setTotal !== null) evidence.total = totals.includes(card.setTotal) ? 'same' : 'differs';
  }
  if (clues.setCodes.some((c) => card.setCodes.includes(c.toUpperCase()))) evidence.setCode = 'same';
  if (clues.year && card.year) {
    const d = Number(card.year.slice(0, 4)) - Number(clues.year);
    // a card printed ©2021 comes out in 2021 or early 2022
    evidence.year = d === 0 ? 'same' : d === 1 ? 'near' : 'differs';
  }
  if (clues.regulationMark && card.regulationMark) evidence.regulationMark = clues.regulationMark === card.regulationMark ? 'same' : 'differs';
  if (clues.hp !== null && card.hp !== null) evidence.hp = clues.hp === card.hp ? 'same' : 'differs';
  for (const n of clues.names.slice(0, 4)) evidence.name = Math.max(evidence.name, nameLikeness(n.norm, card.nameNorm));
  const w = WEIGHTS;
  let score = 0;
  if (evidence.number === 'same') score += w.number;
  if (evidence.uniqueCode) score += w.uniqueCode;
  if (evidence.setCode === 'same') score += w.setCode;
  score += evidence.total === 'same' ? w.totalSame : evidence.total === 'differs' ? w.totalDiffers : 0;
  score += evidence.year === 'same' ? w.yearSame : evidence.year === 'near' ? w.yearNear : evidence.year === 'differs' ? w.yearDiffers : 0;
  score += evidence.regulationMark === 'same' ? w.markSame : evidence.regulationMark === 'differs' ? w.markDiffers : 0;
  score += evidence.hp === 'same' ? w.hpSame : evidence.hp === 'differs' ? w.hpDiffers : 0;
  if (evidence.name >= NAME_MIN) score += w.name * evidence.name;
  score += artScore(evidence.art);
  return { card, score, evidence };
}

/** Least score for a best match: the number and one more clue, or a name alike and one more. */
export const MIN_SCORE = 6;
/** Least lead of the best match over the next: two cards the clues cannot tell apart are no match. */
export const MIN_LEAD = 1;

/**
 * The candidates for a card's clues, best first. Candidates come from every collector number read,
 * from the likeliest name lines and from the nearest reference images' artwork.
 */
export async function identify(given: CardTextClues, source: CandidateSource, limit = 5, nameLines = 2, hashNumbers = false, art?: ArtEvidence): Promise<Identified[]> {
  // `#197` / `No.197` is a checklist number on sport cards but the Pokédex number on Japanese Pokémon cards
  const clues = hashNumbers ? given : { ...given, numbers: given.numbers.filter((n) => n.form !== 'hash') };
  const seen = new Map<string, CandidateCard>();
  const holders = new Map<string, number>();
  for (const n of clues.numbers) {
    const found = await source.byNumber(n.key);
    holders.set(n.key, found.length);
    for (const c of found) seen.set(c.key, c);
  }
  for (const n of clues.names.slice(0, nameLines)) if (n.norm.length >= 3) for (const c of await source.byName(n.text, 20)) seen.set(c.key, c);
  const unseen = art?.nearest.filter((k) => !seen.has(k)) ?? [];
  if (unseen.length) for (const c of await source.byKeys(unseen)) seen.set(c.key, c);
  return [...seen.values()]
    .map((c) => scoreCandidate(c, clues, holders, art))
    .sort((a, b) => b.score - a.score || a.card.key.localeCompare(b.card.key))
    .slice(0, limit);
}

/** The best match, when it scores enough and leads the next candidate; otherwise null. */
export function bestMatch(ranked: readonly Identified[]): Identified | null {
  const [a, b] = ranked;
  if (!a || a.score < MIN_SCORE) return null;
  if (b && a.score - b.score < MIN_LEAD) return null;
  return a;
}

export { normalizeName };
