/**
 * Which catalog card a card's text names (docs/recognition.md "Identification"). The clues read
 * from a card (card-text.ts) fetch candidates from the catalog by collector number and by name;
 * each candidate is scored by how many clues it agrees with, and how many it contradicts. A
 * number alone is no identity (9,153 of 20,202 Pokémon cards are unique by number and set
 * total), so a match needs the number and something more: the set total, the HP, the
 * regulation mark, the copyright year or the name.
 */
import { normalizeName, numberKey } from '../../catalog/card-keys.ts';
import type { BorderColour } from '../../catalog/pokemon-borders.ts';
import type { CardLayout } from '../../catalog/pokemon-layouts.ts';
import type { MtgBorderColour } from '../../catalog/mtg-borders.ts';
import { SUFFIX_TEXT } from '../../catalog/pokemon-species-names.ts';
import { editDistance } from '../../util/edit-distance.ts';
import type { CardTextClues, CollectorNumber, NameCandidate } from './card-text.ts';

/** What identification needs of a catalog card. */
export interface CandidateCard {
  key: string;
  name: string;
  /** {@link normalizeName} of the name. */
  nameNorm: string;
  number: string | null;
  numberNorm: string | null;
  setCode: string | null;
  /** The set's name: a reprint may keep its first printing's code and number under another set (Yu-Gi-Oh!'s 25th-anniversary `LOB-EN001`). */
  setName?: string | null;
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
  /** What kind of card it is, where the catalog says (Pokémon's supertype). */
  kind: 'pokemon' | 'trainer' | 'energy' | null;
  /** The catalog's kind (`mtg`, `pokemon`…), where the caller knows it: a Magic card prints its power and toughness as a fraction. */
  catalogKind?: string | null;
  /** The illustrator, folded ({@link normalizeName}), where the catalog names one. */
  artist: string | null;
  /** The colour of the printing's border, where the catalog tells it (pokemon-borders.ts). */
  border: BorderColour | MtgBorderColour | null;
  /** Whether the printing's text box is plain or over its artwork, where the catalog tells it (pokemon-layouts.ts). */
  layout: CardLayout | null;
  /** The resistance its era prints (−20 or −30, as 20 or 30), where its series tells it (pokemon-resistance.ts). */
  resistance: 20 | 30 | null;
}

/**
 * What a card shows: the clues read from its text, and the colour of its border and its layout where
 * they were measured surely; `cardWidth`, the card's short side in the photo as read, in pixels
 * ({@link SURE_PRINT_CARD}).
 */
export type CardClues = CardTextClues & {
  border?: BorderColour | null;
  borderTone?: 'light' | 'dark' | null;
  layout?: CardLayout | null;
  cardWidth?: number | null;
  /** A comic's cover date's year (card-text.ts `coverDateYear`): the issue's own year, give or take the months a cover is dated ahead. */
  coverYear?: string | null;
};

/**
 * A card this many pixels across, or more, in the photo shows its collector line legibly (the
 * reader zooms its foot from this size, card-reading.ts `FOOT_ZOOM_MIN_CARD`): a set total read
 * there that is not the candidate's set's is another set's card ({@link WEIGHTS}.totalDiffersSure).
 * On a smaller card the total is misread too often to count as much.
 */
export const SURE_PRINT_CARD = 320;

/** How candidates are fetched; the catalog store answers with the engines' own indexes. */
export interface CandidateSource {
  byNumber(numberNorm: string): Promise<CandidateCard[]>;
  /** The cards of the names most like `text`, up to `limit` of each name. */
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
  /**
   * `differs`: a collector number was read and the candidate's is another, not one digit misread
   * (`near`: `146` read for `148`): another printing of the name, or another card of the set.
   */
  number: 'same' | 'near' | 'differs' | 'none';
  /** A code with letters (`SWSH131`, `TG05`) that no other candidate has: a promo or subset card. */
  uniqueCode: boolean;
  /** A set code printed on the card (`SVI`) is the candidate's set's; misreads of other text make a mismatch say nothing. */
  setCode: 'same' | 'unknown';
  total: 'same' | 'differs' | 'unknown';
  /** The card was large enough in the photo for its small print to be read surely ({@link SURE_PRINT_CARD}). */
  surePrint: boolean;
  year: 'same' | 'near' | 'differs' | 'unknown';
  regulationMark: 'same' | 'differs' | 'unknown';
  hp: 'same' | 'differs' | 'unknown';
  /** A trainer read where the candidate is a Pokémon, or the other way round: another card of the same number. */
  kind: 'same' | 'differs' | 'unknown';
  /** The illustrator credit read against the candidate's ({@link artistLikeness}). */
  artist: 'same' | 'differs' | 'unknown';
  /** 1 for the same name, 0 for nothing alike (edit distance over length). */
  name: number;
  /**
   * A name line read plainly ({@link NAME_READ}) is English, and the candidate's name is like none
   * of the name lines: another card. English: on a card read as English, or the very name of a
   * candidate card (the catalogs are English; on a French card a name that differs says nothing).
   */
  nameDiffers: boolean;
  /** Artwork distance to the candidate's reference image (bits of 256); null when it has none. */
  art: number | null;
  /** The border measured against the printing's. */
  border: 'same' | 'differs' | 'unknown';
  /** The text box's layout measured against the printing's. */
  layout: 'same' | 'differs' | 'unknown';
  /** The resistance read against the one the printing's era prints. */
  resistance: 'same' | 'differs' | 'unknown';
  /**
   * A set named with its year (a sport checklist's `2022 Topps Series 1`) printed on the card (a
   * back's set line) with that year, or with another: another year's card, never a misread.
   */
  setYear: 'same' | 'differs' | 'unknown';
  /** A comic's cover year against the year: within a year (covers are dated months ahead), or another issue. */
  coverYear: 'same' | 'differs' | 'unknown';
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
  /** A number one digit from the candidate's: a misread of its number, or another card's. */
  numberNear: -1,
  /** Another number: as much against the candidate as the same number is for it. */
  numberDiffers: -4,
  uniqueCode: 2,
  setCode: 3,
  totalSame: 3,
  totalDiffers: -2,
  /** A total read on a card large enough to read it ({@link SURE_PRINT_CARD}): the number read is another set's card of that number. */
  totalDiffersSure: -4,
  yearSame: 1.5,
  yearNear: 1,
  yearDiffers: -1,
  markSame: 1,
  markDiffers: -1,
  hpSame: 2,
  hpDiffers: -1,
  /** A card of another kind (a trainer for a Pokémon): read from the banner, seldom wrong. */
  kindDiffers: -3,
  /**
   * The same illustrator: another printing of a name is mostly another artwork, by another hand.
   * The credit is small print, often cut short or misread, so a mismatch costs less.
   */
  artistSame: 2,
  artistDiffers: -1,
  /** Times the name likeness (0–1), counted only from 0.75. */
  name: 4,
  /** Another name, read plainly and English: as much against as the same name is for. */
  nameDiffers: -4,
  /** An artwork within {@link ART_FULL} bits of the reference; less, in proportion, up to {@link ART_NONE}. */
  art: 6,
  /** An artwork {@link ART_DIFFERS} bits or more from the candidate's reference: another card's art, or a bad outline. */
  artDiffers: -2,
  /**
   * The border's colour: it tells a name's printings apart (a regular card from its full-art or
   * V printing, an older print from a Scarlet & Violet one; a Magic core-set reprint, white, from
   * its black-bordered printings), never one name from another. Same
   * and differs together are {@link MIN_LEAD}: the border alone can single a printing out.
   */
  borderSame: 0.5,
  borderDiffers: -0.5,
  /**
   * The text box, plain or over the artwork: a regular printing from its illustration rare or
   * full art, which in Scarlet & Violet share name, HP and border. Only a contradiction counts:
   * regular ex and V cards, whose layout the catalog leaves unknown, read as artwork as often as
   * their full arts do, so a full art measured full must not gain on them; and less than
   * {@link MIN_LEAD}, so it orders a name's printings without singling one out (a reverse holo's
   * foil under glare can read as artwork, card-layout.ts).
   */
  layoutSame: 0,
  layoutDiffers: -0.5,
  /**
   * The resistance, −20 or −30: the era of a printing (pokemon-resistance.ts), which a name's
   * printings of one era share. Only a contradiction counts, and less than {@link MIN_LEAD}: it
   * orders a name's printings of two eras (Sword & Shield and XY, both yellow-bordered) without
   * singling one out.
   */
  resistanceSame: 0,
  resistanceDiffers: -0.5,
  /** The set's name printed with its year: as sure as a set code. */
  setYearSame: 3,
  /**
   * With another year, or a comic's cover dated years from the issue: another year's card or
   * issue (a 2023 card of a 2022 checklist's player and number), as much against as a name and
   * number together are for: no best match from name and number alone.
   */
  setYearDiffers: -6,
  coverYearSame: 1.5,
  coverYearDiffers: -6,
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
/**
 * A name line read plainly enough to deny a candidate another name: set large in the top band
 * (its {@link NameCandidate} score: band × height × probability), and English: on a card read
 * as English with `minLetters` letters at least, or as alike as `known` to a candidate card's
 * name (any length: `Muk`, `Seel`). Below `differsBelow` likeness to every name line, a
 * candidate's name differs.
 */
export const NAME_READ = { minScore: 0.6, minLetters: 5, known: 0.9, differsBelow: 0.75 };
/** The digits of a folded number (`TG5` → `5`): a prefix the recogniser lost or misread says nothing. */
const digitsOf = (key: string) => key.replace(/[^0-9]/g, '');
/**
 * A number read as a collector number surely is: a promo code, or a fraction over a total of two
 * digits at least (an MTG creature's power and toughness, `4/5`, is a fraction too).
 */
const collectorLike = (n: CollectorNumber) => n.form === 'promo' || (n.form === 'fraction' && digitsOf(n.total ?? '').length >= 2);
/** One digit misread (`148` read `146`): hardly a contradiction. A digit more or less is another number (`6`, `65`). */
function oneDigitApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) d++;
  return d <= 1;
}

/**
 * The number read is the candidate's without its leading 1 (`92` read on a 192): the thinnest digit,
 * lost first on a small photo's collector line.
 */
function leadingOneLost(read: string, own: string): boolean {
  return own.length === read.length + 1 && own.startsWith('1') && own.slice(1) === read;
}

/**
 * How alike an illustrator credit read is to a catalog's, 0–1: the credit is often cut short at
 * the band's edge (`tomokozukon` for Tomokazu Komiya), so the read is also compared with as much
 * of the catalog's name as was read.
 */
export function artistLikeness(read: string, catalog: string): number {
  if (!read || !catalog) return 0;
  return Math.max(nameLikeness(read, catalog), read.length < catalog.length ? nameLikeness(read, catalog.slice(0, read.length)) : 0);
}
/** Credits at least this alike are the same illustrator's; below {@link ARTIST_DIFFERS}, another's. */
export const ARTIST_SAME = 0.75;
export const ARTIST_DIFFERS = 0.45;

/**
 * Card suffixes printed as logos beside the name, not as text (`ex` since Scarlet & Violet, `V`,
 * `VMAX`, `VSTAR`, `GX`, `BREAK`, the older `EX`, `LV.X`, `Prime`): the recogniser often reads the
 * name and not the logo (`Pondralugon300` on an Archaludon ex), so a name read without it is
 * nearly the suffixed card's name, and the HP or number tells the two apart.
 */
const LOGO_SUFFIX = new RegExp(`\\s+(?:${[...Object.values(SUFFIX_TEXT), 'EX'].map((t) => t.replace('.', '\\.')).join('|')})$`);
/** A name read without the candidate's logo suffix is this alike at most: the plain card of that name stays ahead on the name alone. */
export const SUFFIX_UNREAD = 0.9;
/** The folded name without its logo suffix, or null when it has none. */
export function logoStem(name: string): string | null {
  return LOGO_SUFFIX.test(name) ? normalizeName(name.replace(LOGO_SUFFIX, '')) : null;
}

/**
 * A capital I and a lowercase l are one glyph in the sans-serif fonts cards print names in, and the
 * recogniser reads either (`lvysaur`): folded names compare them as one letter.
 */
const lOrI = (x: string, y: string) => (x === 'l' && y === 'i') || (x === 'i' && y === 'l');

/** How alike two folded names are, 0–1; a read name may carry a suffix the catalog spells apart (`Pikachu V`). */
export function nameLikeness(read: string, catalog: string): number {
  if (!read || !catalog) return 0;
  const whole = 1 - editDistance(read, catalog, lOrI) / Math.max(read.length, catalog.length);
  return Math.max(0, whole);
}

/**
 * Whether a total read can be the set's printed total: the same, one digit misread, or one digit
 * more or less at either end (`TG02/630` read on a card of 30; `65` for `165`).
 */
export function totalFits(total: number, setTotal: number): boolean {
  const read = String(total);
  const own = String(setTotal);
  if (read === own || oneDigitApart(read, own)) return true;
  if (read.length === own.length + 1) return read.slice(1) === own || read.slice(0, -1) === own;
  if (read.length + 1 === own.length) return own.slice(1) === read || own.slice(0, -1) === read;
  return false;
}

function totalOf(n: CollectorNumber): number | null {
  if (!n.total || !/^\d+$/.test(n.total)) return null;
  return Number(n.total);
}

/**
 * Scores one candidate against the clues. `knownNames`: the folded name lines that are a candidate card's name ({@link englishNameLines}),
 * English whatever the card's language was read as.
 */
export function scoreCandidate(card: CandidateCard, clues: CardClues, holders: ReadonlyMap<string, number> = new Map(), art?: ArtEvidence, knownNames: ReadonlySet<string> = new Set()): Identified {
  const evidence: Evidence = { number: 'none', uniqueCode: false, setCode: 'unknown', total: 'unknown', surePrint: false, year: 'unknown', regulationMark: 'unknown', hp: 'unknown', kind: 'unknown', artist: 'unknown', name: 0, nameDiffers: false, art: art?.distance(card.key) ?? null, border: 'unknown', layout: 'unknown', resistance: 'unknown', setYear: 'unknown', coverYear: 'unknown' };
  // a run of digits split one way of several is the candidate's number only if its total is the candidate's too
  // on a Magic card a fraction over one digit (`1/1`, `4/4`) is a creature's power and toughness, no collector line:
  // it made every one-card promo set's #1 an alternative at a printing's distance (h119)
  const numbers = clues.numbers.filter((n) => card.numberNorm !== null && n.key === card.numberNorm && (n.form !== 'run' || totalOf(n) === card.setTotal) && !(card.catalogKind === 'mtg' && powerToughness(n)));
  const sure = (clues.cardWidth ?? 0) >= SURE_PRINT_CARD;
  if (numbers.length) {
    evidence.number = 'same';
    // a code with a dash (Yu-Gi-Oh!'s `SDK-001`, `LOB-EN001`) is as much a code as `SWSH1` (h119)
    evidence.uniqueCode = /^[A-Z]+-?[A-Z]*[0-9]/.test(card.numberNorm!) && holders.get(card.numberNorm!) === 1;
    // A run's split was chosen for its total to be the candidate's: that total is no second clue
    // (`17163` read on a Mr. Mime 179/165 is Blipbug 17/163 by number and total alone).
    const totals = numbers.filter((n) => n.form !== 'run').map(totalOf).filter((t): t is number => t !== null);
    // only a collector line's total is read surely on a large card: `4/4`, a creature's power and toughness, is none
    evidence.surePrint = sure && numbers.some((n) => n.form !== 'run' && collectorLike(n));
    // on a large card a total one digit from the set's is a misread and says nothing; another is another set's
    if (totals.length && card.setTotal !== null) evidence.total = totals.includes(card.setTotal) ? 'same' : evidence.surePrint && totals.some((t) => totalFits(t, card.setTotal!)) ? 'unknown' : 'differs';
  } else if (card.numberNorm !== null) {
    const own = digitsOf(card.numberNorm);
    const collector = clues.numbers.filter(collectorLike);
    const read = collector.map((n) => digitsOf(n.key));
    // the same digits under another prefix (`05/30` read for `TG05`) say nothing
    // numbers are printed padded to the total's width (`002/165`): `102` read is one digit from 2;
    // on a card large enough to read its total, one digit off over another set's total is that set's card, not a misread
    const nearMiss = (n: CollectorNumber, d: string) => {
      const t = totalOf(n);
      return (oneDigitApart(d, own.padStart(d.length, '0')) || leadingOneLost(d, own)) && (!sure || card.setTotal === null || t === null || totalFits(t, card.setTotal));
    };
    // the digits as printed, zeros kept: `005` read on an 085 is one digit misread, where its key `5` is a digit fewer (h183)
    if (own && read.length && !read.includes(own)) evidence.number = collector.some((n, i) => nearMiss(n, read[i]!) || nearMiss(n, digitsOf(n.number))) ? 'near' : 'differs';
  }
  if (clues.setCodes.some((c) => card.setCodes.includes(c.toUpperCase()))) evidence.setCode = 'same';
  if (clues.year && card.year) {
    const d = Number(card.year.slice(0, 4)) - Number(clues.year);
    // a card printed ©2021 comes out in 2021 or early 2022
    evidence.year = d === 0 ? 'same' : d === 1 ? 'near' : 'differs';
  }
  if (card.setName) evidence.setYear = printedSetYear(clues.fullText, card.setName);
  if (clues.coverYear && card.year) evidence.coverYear = Math.abs(Number(card.year.slice(0, 4)) - Number(clues.coverYear)) <= 1 ? 'same' : 'differs';
  if (clues.regulationMark && card.regulationMark) evidence.regulationMark = clues.regulationMark === card.regulationMark ? 'same' : 'differs';
  if (clues.hp !== null && card.hp !== null) evidence.hp = clues.hp === card.hp ? 'same' : 'differs';
  if (clues.kind && card.kind) evidence.kind = clues.kind === card.kind ? 'same' : 'differs';
  // a Magic printing's border is told by the neutral ring's lightness, a Pokémon one's by its colour
  const measured = card.border === 'white' || card.border === 'black' ? (clues.borderTone === 'light' ? 'white' : clues.borderTone === 'dark' ? 'black' : null) : clues.border;
  if (measured && card.border) evidence.border = measured === card.border ? 'same' : 'differs';
  if (clues.layout && card.layout) evidence.layout = clues.layout === card.layout ? 'same' : 'differs';
  if (clues.resistance && card.resistance) evidence.resistance = clues.resistance === card.resistance ? 'same' : 'differs';
  if (clues.artist && card.artist) {
    const like = artistLikeness(clues.artist, card.artist);
    evidence.artist = like >= ARTIST_SAME ? 'same' : like < ARTIST_DIFFERS ? 'differs' : 'unknown';
  }
  const stem = logoStem(card.name);
  const faces = faceNorms(card);
  const like = (read: string) => Math.max(...faces.map((f) => nameLikeness(read, f)), stem ? SUFFIX_UNREAD * nameLikeness(read, stem) : 0);
  // A line read as another language's name means its English name: its own letters alike to an
  // English name (`Sally` to Wally, when it is Opal's French name) say nothing.
  // A name spotted in a line (name-lexicon.ts) may be wrong where the line was read right: a card of
  // another game whose name is a letter from a species' keeps its own letters' likeness.
  for (const n of clues.names.slice(0, 4)) evidence.name = Math.max(evidence.name, like(n.english ? n.english.norm : n.norm), n.englishSpotted ? like(n.norm) : 0);
  if (card.catalogKind === 'sports') evidence.name = Math.max(evidence.name, comboLikeness(card.name, clues.names));
  if (evidence.name < NAME_READ.differsBelow && card.nameNorm) {
    // a species or card name read in another language and put into English is English
    const english = (n: NameCandidate) => !!n.english || knownNames.has(n.norm) || (clues.language === 'en' && n.norm.replace(/[0-9]/g, '').length >= NAME_READ.minLetters);
    evidence.nameDiffers = clues.names.slice(0, 4).some((n) => n.score >= NAME_READ.minScore && english(n));
  }
  const w = WEIGHTS;
  let score = 0;
  score += evidence.number === 'same' ? w.number : evidence.number === 'near' ? w.numberNear : evidence.number === 'differs' ? w.numberDiffers : 0;
  if (evidence.uniqueCode) score += w.uniqueCode;
  if (evidence.setCode === 'same') score += w.setCode;
  score += evidence.total === 'same' ? w.totalSame : evidence.total === 'differs' ? (evidence.surePrint ? w.totalDiffersSure : w.totalDiffers) : 0;
  score += evidence.year === 'same' ? w.yearSame : evidence.year === 'near' ? w.yearNear : evidence.year === 'differs' ? w.yearDiffers : 0;
  score += evidence.regulationMark === 'same' ? w.markSame : evidence.regulationMark === 'differs' ? w.markDiffers : 0;
  score += evidence.hp === 'same' ? w.hpSame : evidence.hp === 'differs' ? w.hpDiffers : 0;
  if (evidence.kind === 'differs') score += w.kindDiffers;
  score += evidence.artist === 'same' ? w.artistSame : evidence.artist === 'differs' ? w.artistDiffers : 0;
  if (evidence.name >= NAME_MIN) score += w.name * evidence.name;
  if (evidence.nameDiffers) score += w.nameDiffers;
  score += artScore(evidence.art);
  score += evidence.border === 'same' ? w.borderSame : evidence.border === 'differs' ? w.borderDiffers : 0;
  score += evidence.layout === 'same' ? w.layoutSame : evidence.layout === 'differs' ? w.layoutDiffers : 0;
  score += evidence.resistance === 'same' ? w.resistanceSame : evidence.resistance === 'differs' ? w.resistanceDiffers : 0;
  score += evidence.setYear === 'same' ? w.setYearSame : evidence.setYear === 'differs' ? w.setYearDiffers : 0;
  score += evidence.coverYear === 'same' ? w.coverYearSame : evidence.coverYear === 'differs' ? w.coverYearDiffers : 0;
  return { card, score, evidence };
}

/**
 * How surely every player of a sport checklist's combo card (`Guerrero Jr. / Perez / Ohtani`, players joined by ` / `)
 * is read: the least, over its players, of the likeness of a run of up to four words of a name line to that player's
 * name, each player its own run. A leaders' card prints each player's full name on a line of its own (`SHOHEI OHTANI`), so the whole
 * name, which no line is alike to, left the card unnamed where a player's solo card was found instead (h224). 0 for a
 * card of one player.
 */
export function comboLikeness(name: string, lines: readonly NameCandidate[]): number {
  const players = name.split(' / ').map((p) => normalizeName(p)).filter((p) => p.length > 0);
  if (players.length < 2 || players.length > 6) return 0;
  const runs: { line: number; from: number; to: number; text: string }[] = [];
  lines.slice(0, 8).forEach((n, line) => {
    const words = n.text.split(/[\s/]+/).map((w) => normalizeName(w)).filter((w) => w.length > 0);
    for (let i = 0; i < words.length; i++) for (let j = i + 1; j <= Math.min(words.length, i + 4); j++) runs.push({ line, from: i, to: j, text: words.slice(i, j).join('') });
  });
  // each player its own words: one printed name counts for one player only (h230: `KEN GRIFFEY JR.` read both Griffeys
  // of a Jr. / Sr. card, `PEDRO MARTINEZ` both Martinezes), so the least of an assignment of players to runs that share
  // no word, the best such assignment over each player's likeliest runs
  const options = players.map((p) =>
    runs
      .map((r) => ({ r, like: nameLikeness(r.text, p) }))
      .sort((a, b) => b.like - a.like)
      .slice(0, 6),
  );
  const overlaps = (a: (typeof runs)[number], b: (typeof runs)[number]) => a.line === b.line && a.from < b.to && b.from < a.to;
  let best = 0;
  const chosen: (typeof runs)[number][] = [];
  const assign = (k: number, least: number): void => {
    if (least <= best) return;
    if (k === players.length) {
      best = least;
      return;
    }
    for (const o of options[k]!) {
      if (chosen.some((c) => overlaps(c, o.r))) continue;
      chosen.push(o.r);
      assign(k + 1, Math.min(least, o.like));
      chosen.pop();
    }
  };
  assign(0, 1);
  return best;
}

/**
 * Whether the card prints its set's line (a set named with its year: `2022 Topps Series 1`) as the
 * candidate's: a year, then the set's first word (its brand) and what follows on that line up to a
 * `#` (the recogniser runs words together: `2023TOPPSSERIES1#1`; a label shortens it: `2022 TOPPS
 * UPDATE`). The same year and a line that starts the set's name, or that it starts: `same`; another
 * year, or another set of the brand (`2023 TOPPS SERIES 1` for `2022 Topps Update Series`):
 * `differs`; no such line (a copyright line, `2023 THE TOPPS COMPANY`, is none): `unknown`.
 */
export function printedSetYear(fullText: string, setName: string): 'same' | 'differs' | 'unknown' {
  const named = /^((?:19|20)[0-9]{2})\s*(.*[A-Za-z].*)$/.exec(setName.trim());
  if (!named) return 'unknown';
  const fold = (t: string) => t.normalize('NFKD').replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  const rest = fold(named[2]!);
  const brand = fold(named[2]!.trim().split(/\s+/)[0]!);
  if (rest.length < 4 || brand.length < 3) return 'unknown';
  // the next character after a shared start is no digit: Series 1 is not Series 10
  const starts = (long: string, short: string) => long.startsWith(short) && !(/[0-9]$/.test(short) && /[0-9]/.test(long[short.length] ?? ''));
  // the most specific set line printed decides: a label's `2022 TOPPS` fits every 2022 Topps set,
  // and must not outvote the back's `2022 TOPPS SERIES 1` (which told Series 1 from Update)
  let best: { year: string; seg: string } | null = null;
  for (const line of fullText.normalize('NFKD').toUpperCase().split('\n')) {
    // each year's segment ends at a `#` or the next year (`© 2023 THE TOPPS COMPANY, INC. 2023 TOPPS SERIES 1 #1`)
    for (const m of line.matchAll(/((?:19|20)[0-9]{2})((?:(?!(?:19|20)[0-9]{2})[^#])*)/g)) {
      const seg = fold(m[2]!);
      if (seg.startsWith(brand) && (!best || seg.length > best.seg.length)) best = { year: m[1]!, seg };
    }
  }
  if (!best) return 'unknown';
  return best.year === named[1] && (starts(rest, best.seg) || starts(best.seg, rest)) ? 'same' : 'differs';
}

/** The name lines read plainly that are (as alike as {@link NAME_READ}.known) the name of one of the candidates: English names. */
export function englishNameLines(clues: CardTextClues, candidates: Iterable<CandidateCard>): Set<string> {
  const lines = clues.names.slice(0, 4).filter((n) => n.score >= NAME_READ.minScore && n.norm.length >= 3);
  const out = new Set<string>();
  if (!lines.length) return out;
  for (const c of candidates) {
    const faces = faceNorms(c);
    for (const n of lines) if (!out.has(n.norm) && faces.some((f) => nameLikeness(n.norm, f) >= NAME_READ.known)) out.add(n.norm);
  }
  return out;
}

/**
 * A card's folded name and, for a card of several faces (`Bonecrusher Giant // Stomp`, a split or double-faced Magic
 * card), each face's: a card prints one face's name, which was 0.76 alike to the whole and so named no card (h119).
 */
function faceNorms(card: { name: string; nameNorm: string }): string[] {
  if (!card.name.includes('//')) return [card.nameNorm];
  return [card.nameNorm, ...card.name.split('//').map((f) => normalizeName(f)).filter((f) => f.length > 0)];
}

/**
 * `1/1`, `4/4`: on a Magic card a fraction over a one-digit total is a creature's power and toughness, not a collector
 * line's (Magic's promo sets of one to nine cards took it for theirs). Pokémon's sets of five to nine cards print it so.
 */
const powerToughness = (n: CollectorNumber) => n.form === 'fraction' && digitsOf(n.total ?? '').length === 1;

/**
 * Printings of each name found that are scored. The store gives them in key order, so a cap cuts
 * whole eras: at 20, the newest of Magneton's 40 printings (`svp-159`) was never scored. 120
 * holds every name of the Pokémon catalog (Pikachu: 103).
 */
export const NAME_PRINTINGS = 120;

/** Least score for a best match: the number and one more clue, or a name alike and one more. */
export const MIN_SCORE = 6;
/** Least lead of the best match over the next: two cards the clues cannot tell apart are no match. */
export const MIN_LEAD = 1;

/** One catalog's candidate source and the card's artwork against that catalog's references; `tag` comes back on its candidates. */
export interface CatalogCandidates<T> {
  source: CandidateSource;
  art?: ArtEvidence | undefined;
  tag: T;
}

/**
 * The candidates for a card's clues from several catalogs, best first, on one scale. Candidates
 * come from every collector number read, from the likeliest name lines and from the nearest
 * reference images' artwork. A name line is English ({@link englishNameLines}) when it is the name
 * of a candidate of any catalog searched.
 */
export async function identifyAcross<T>(given: CardClues, catalogs: readonly CatalogCandidates<T>[], limit = 5, nameLines = 2, hashNumbers = false): Promise<(Identified & { tag: T; alsoIn?: T[] })[]> {
  // `#197` / `No.197` is a checklist number on sport cards but the Pokédex number on Japanese Pokémon cards
  const clues = hashNumbers ? given : { ...given, numbers: given.numbers.filter((n) => n.form !== 'hash') };
  const found = [];
  for (const { source, art, tag } of catalogs) {
    const seen = new Map<string, CandidateCard>();
    const holders = new Map<string, number>();
    for (const n of clues.numbers) {
      const cards = await source.byNumber(n.key);
      // a shop's own catalog may write the number with its set's total, as the card prints it (067/172)
      const written = n.total ? await source.byNumber(numberKey(`${n.number}/${n.total}`)) : [];
      holders.set(n.key, cards.length + written.length);
      for (const c of [...cards, ...written]) seen.set(c.key, c);
    }
    for (const n of clues.names.slice(0, nameLines)) {
      // a name of digits alone is a comic's series its catalog holds (withSeriesTitledByNumber: `52`), searched however short
      if (n.norm.length >= 3 || /^[0-9]+$/.test(n.norm)) for (const c of await source.byName(n.text, NAME_PRINTINGS)) seen.set(c.key, c);
      if (n.english) for (const c of await source.byName(n.english.text, NAME_PRINTINGS)) seen.set(c.key, c);
    }
    const unseen = art?.nearest.filter((k) => !seen.has(k)) ?? [];
    if (unseen.length) for (const c of await source.byKeys(unseen)) seen.set(c.key, c);
    found.push({ cards: [...seen.values()], holders, art, tag });
  }
  const known = englishNameLines(clues, found.flatMap((f) => f.cards));
  const ranked = found
    .flatMap(({ cards, holders, art, tag }) => cards.map((c): Identified & { tag: T; alsoIn?: T[] } => ({ ...scoreCandidate(c, clues, holders, art, known), tag })))
    .sort(byScoreThenNewest);
  // One printing in two catalogs (a catalog imported twice under two names, or from MTGJSON and from Scryfall) is one
  // candidate, the better-scored (else the first catalog's), naming the others: each copy tied with the other and no
  // card had a best match (h252). Rows of one catalog alike are its own (a Yu-Gi-Oh! printing's rarities) and stay.
  const kept = new Map<string, Identified & { tag: T; alsoIn?: T[] }>();
  const out: (Identified & { tag: T; alsoIn?: T[] })[] = [];
  for (const r of ranked) {
    const id = printingIdentity(r.card);
    const first = id === null ? undefined : kept.get(id);
    if (first && first.tag !== r.tag) {
      if (!first.alsoIn?.includes(r.tag)) first.alsoIn = [...(first.alsoIn ?? []), r.tag];
      continue;
    }
    if (id !== null && !first) kept.set(id, r);
    out.push(r);
  }
  return out.slice(0, limit);
}

/** What names one printing in any catalog: its name, number and set (by code and name) and year; null without a number. */
function printingIdentity(c: CandidateCard): string | null {
  return c.numberNorm === null ? null : JSON.stringify([c.nameNorm, c.numberNorm, c.setCode?.toUpperCase() ?? null, normalizeName(c.setName ?? ''), c.year]);
}

/** One ranking for candidates: score, then among ties the newest set first (promos, which have no year, last), then key. */
function byScoreThenNewest(a: Identified, b: Identified): number {
  return b.score - a.score || (b.card.year ?? '0').localeCompare(a.card.year ?? '0') || a.card.key.localeCompare(b.card.key);
}

/** The candidates for a card's clues from one catalog, best first ({@link identifyAcross}). */
export async function identify(given: CardClues, source: CandidateSource, limit = 5, nameLines = 2, hashNumbers = false, art?: ArtEvidence): Promise<Identified[]> {
  return (await identifyAcross(given, [{ source, art, tag: null }], limit, nameLines, hashNumbers)).map(({ tag: _, ...m }) => m);
}

/**
 * A name-level match: the name read surely (likeness at least `likeness`, and not contradicted by
 * a number, a kind or an illustrator read), scoring `minScore` at least (the name alone), and
 * every candidate the clues cannot tell from it bearing the same name.
 */
export const NAME_LEVEL = { likeness: 0.9, minScore: 3.6 };

/** How a family's catalog rows single out a best match ({@link printingMatch}, {@link bestMatch}). */
export interface MatchRule {
  /**
   * Whether a name read surely, its printings tied, names the newest of them. A trading card's name is one card in
   * many printings; a comic's series or a player's name is many issues or cards, each its own price (h103: a
   * `SPIDER-MAN #999` cover was named Spider-Man (1990) #15, a Daredevil one the 2022 #1 with its $255 prices).
   */
  nameLevel: boolean;
  /** Whether the best match's name must be read (a player has many cards of one number and set line: h103's `JOHN FAKEPLAYER #77` was named Josh Naylor #77). */
  nameMustAgree: boolean;
  /** Whether rows of one name, set and number are one printing in several rarities (Yu-Gi-Oh!); a comic's variant cover is its own item. */
  rarityRows: boolean;
}
export const TRADING_CARDS: MatchRule = { nameLevel: true, nameMustAgree: false, rarityRows: true };

/**
 * The printing-level best match: it scores enough, leads the next candidate, and no collector
 * number read names another card (an alternate art of the name in its set shares the set code,
 * year and often the illustrator, which outweighed the number before); otherwise null.
 */
export function printingMatch(ranked: readonly Identified[], rule: MatchRule = TRADING_CARDS): Identified | null {
  const [a] = ranked;
  if (!a || a.score < MIN_SCORE || a.evidence.number === 'differs') return null;
  if (rule.nameMustAgree && a.evidence.name < NAME_MIN) return null;
  // the same printing in another rarity (a Yu-Gi-Oh! code printed as Ultra and as Secret Rare) is
  // one row each in the catalog: the card is that printing whichever its finish, the rows alternatives
  const next = ranked.slice(1).find((r) => !(rule.rarityRows && samePrinting(a.card, r.card)));
  if (next && a.score - next.score < MIN_LEAD) return null;
  return a;
}

/**
 * Two catalog rows of one printing: the same name, set and collector number (they differ in rarity
 * only). The set by its name too: Yu-Gi-Oh!'s 2023 reprint of Legend of Blue Eyes White Dragon kept the
 * 2002 codes, and the two printings (prices $12 and $450) were taken for one, the best match and its
 * price whichever row came first.
 */
function samePrinting(a: CandidateCard, b: CandidateCard): boolean {
  return a.numberNorm !== null && a.numberNorm === b.numberNorm && a.setCode === b.setCode && a.nameNorm === b.nameNorm && (a.setName ?? null) === (b.setName ?? null);
}

/**
 * The best match: the printing the clues single out ({@link printingMatch}); failing that, at the
 * name level ({@link NAME_LEVEL}), the newest printing of the name among those the clues cannot
 * tell apart (promos last; not one whose own reference scan shows other art where a tied one has
 * no scan), whose distance then equals the next alternatives': the card is that name, the printing
 * one of those. Otherwise null.
 */
export function bestMatch(ranked: readonly Identified[], rule: MatchRule = TRADING_CARDS): Identified | null {
  const printing = printingMatch(ranked, rule);
  if (printing || !rule.nameLevel) return printing;
  const a = ranked[0];
  if (!a || a.score < NAME_LEVEL.minScore || a.evidence.name < NAME_LEVEL.likeness) return null;
  // the same name gives the same name evidence, so only what tells printings apart is checked per candidate
  const tied = ranked.filter((r) => r.score > a.score - MIN_LEAD);
  if (tied.some((r) => r.card.nameNorm !== a.card.nameNorm || r.evidence.number === 'differs' || (r.evidence.total === 'differs' && r.evidence.surePrint) || r.evidence.kind === 'differs' || r.evidence.artist === 'differs')) return null;
  // ranked newest first among ties (byScoreThenNewest): not one whose own reference scan shows other art (ART_NONE bits
  // or more from the card's) where a printing tied with it exactly has no scan (h279: the newest won against its own
  // scan); a scan nearer than ART_NONE scores, so it is never tied exactly
  if (a.evidence.art !== null && a.evidence.art >= ART_NONE) return tied.find((r) => r.score === a.score && r.evidence.art === null) ?? a;
  return a;
}

export { normalizeName };
