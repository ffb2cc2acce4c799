import { roundDecimal } from '../util/decimal-round.ts';
/**
 * How measured sub-grades become the final grade and condition labels (spec 3 §4 "grade" rules;
 * thresholds and scales in docs/grading.md).
 */

export function geometricMean(xs: number[]): number {
  return Math.exp(xs.reduce((s, x) => s + Math.log(Math.max(1, x)), 0) / xs.length);
}

const round1 = (x: number) => Math.round(x * 10) / 10;

export interface SubGrades {
  corners: number[];
  edges: number[];
  surface: number;
  /** Null when the card has no border to measure centering on. */
  centering: number | null;
}

export interface Grades {
  corners: number;
  edges: number;
  surface: number;
  centering: number | null;
  final: number;
  condition: string;
}

/** Geometric mean of (corners' geometric mean, edges' geometric mean, surface, centering); without centering, of the other three. */
export function gradesOf(s: SubGrades): Grades {
  const corners = geometricMean(s.corners);
  const edges = geometricMean(s.edges);
  const parts = [corners, edges, s.surface, ...(s.centering === null ? [] : [s.centering])];
  const final = round1(geometricMean(parts));
  return { corners: round1(corners), edges: round1(edges), surface: round1(s.surface), centering: s.centering === null ? null : round1(s.centering), final, condition: conditionLabel(final, 'grading') };
}

/** Front and back of one card: each grade weighed `frontWeight` : 1 − `frontWeight` (default 0.7). */
export function weighFrontBack(front: Grades, back: Grades, frontWeight = 0.7): Grades {
  // half up as the decimal reads: 7.0 and 3.5 weigh 5.95 (5.9499… in binary), which made 5.9 "Very Good", not 6.0 (h196)
  const mix = (a: number, b: number) => roundDecimal(a * frontWeight + b * (1 - frontWeight), 1);
  // A side weighted 0 says nothing; with one side unmeasured the other's stands alone.
  const centering = frontWeight >= 1 ? front.centering : frontWeight <= 0 ? back.centering : front.centering === null || back.centering === null ? (front.centering ?? back.centering) : mix(front.centering, back.centering);
  const final = mix(front.final, back.final);
  return { corners: mix(front.corners, back.corners), edges: mix(front.edges, back.edges), surface: mix(front.surface, back.surface), centering, final, condition: conditionLabel(final, 'grading') };
}

/** Condition scales, best label first, each with the lowest final grade that earns it. */
export const conditionScales = {
  /** The spec's default for trading cards (sports cards use `default_sports`). */
  default: [['Near Mint', 7.5], ['Lightly Played', 6], ['Moderately Played', 4], ['Damaged', 0]],
  default_sports: [['Near Mint', 7.5], ['Excellent', 6], ['Very Good', 4.5], ['Poor', 0]],
  five_step: [['Near Mint', 7.5], ['Lightly Played', 6], ['Moderately Played', 4.5], ['Heavily Played', 3], ['Damaged', 0]],
  grading: [['Gem Mint', 9.5], ['Mint', 8.5], ['Near Mint', 7.5], ['Excellent', 6], ['Very Good', 4.5], ['Good', 3], ['Fair', 2], ['Poor', 0]],
  seven_step: [['Mint', 8.5], ['Near Mint', 7.5], ['Excellent', 6], ['Good', 4.5], ['Light Played', 3.5], ['Played', 2], ['Poor', 0]],
} as const satisfies Record<string, readonly (readonly [string, number])[]>;

export type ConditionMode = keyof typeof conditionScales;
/** Modes a client may ask for; `default` picks `default_sports` for sports cards by itself. */
export const conditionModes = ['default', 'five_step', 'grading', 'seven_step'] as const;

/**
 * The marketplace names the spec's mode identifiers embed ("written here as `<mode_default>`,
 * `<mode_market_b>`, `<mode_own>`, `<mode_market_c>`"), by the label scales it gives each: eBay's
 * card conditions (NM, LP, MP, Damaged; sports NM, Excellent, Very Good, Poor), TCGplayer's five,
 * the grading vendor's own eight, Cardmarket's seven. Any case.
 */
const modeAliases: Record<string, (typeof conditionModes)[number]> = { ebay: 'default', tcgplayer: 'five_step', ximilar: 'grading', cardmarket: 'seven_step' };

/** The scale a requested mode names, or undefined for a mode that names none. */
export function conditionModeOf(requested: string): (typeof conditionModes)[number] | undefined {
  const m = requested.trim().toLowerCase();
  // own keys only: `constructor` or `__proto__` would read a built-in
  return (conditionModes as readonly string[]).includes(m) ? (m as (typeof conditionModes)[number]) : Object.hasOwn(modeAliases, m) ? modeAliases[m] : undefined;
}

export function conditionLabel(final: number, mode: ConditionMode): string {
  return conditionScales[mode].find(([, min]) => final >= min)![0];
}

/** The `Condition` entry of the condition endpoint. */
export function conditionEntry(final: number, mode: ConditionMode, requested: string) {
  const scale = conditionScales[mode].map(([label]) => label);
  const label = conditionLabel(final, mode);
  const index = scale.indexOf(label as never);
  return { id: index, name: label, value: round1(final), label, mode: requested, scale, scale_value: scale.length - index, max_scale_value: scale.length };
}

/** One candidate of a card tag (spec 3 §2 `_tags`); `pre-filled` when it was given or assumed, not measured. */
export interface TagEntry {
  id: number;
  name: string;
  prob: number;
  'pre-filled'?: true;
}

export const categories = ['Trading Card Game', 'Sport'] as const;
export type Category = (typeof categories)[number];

/** A client's `Category` hint: "sport"/"sports…" is Sport, any trading-card wording the other. */
export function categoryHint(v: unknown): Category | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  // a sport by its name too (spec 3 §4 lists Baseball, Basketball, Football, Hockey, Soccer, MMA for
  // /sport_id, whose results carry `Sport Card/Baseball`)
  if (/^sports?\b|\b(?:baseball|basketball|football|hockey|soccer|mma)\b/.test(s)) return 'Sport';
  if (/trading|tcg|ccg|game/.test(s)) return 'Trading Card Game';
  return undefined;
}

/**
 * An `Autograph` hint: a boolean, or as text `true`/`false` or the tag's own names `Yes`/`No`
 * (any case); undefined for anything else, which the submit refuses.
 */
export function autographHint(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  return s === 'true' || s === 'yes' ? true : s === 'false' || s === 'no' ? false : undefined;
}

/** A tag that was not measured: the given or assumed value, prob 1, flagged `pre-filled`. */
export function prefilled(name: string, names: readonly string[]): TagEntry[] {
  return [{ id: names.indexOf(name), name, prob: 1, 'pre-filled': true }];
}

/** Worst sub-grade at which wear counts as damage: a chipped corner, heavy whitening, long scratches (docs/grading.md). */
export const DAMAGED_BELOW = 4;

/**
 * `Damaged` from the measurements: the worst corner, edge or surface grade against
 * DAMAGED_BELOW, as a logistic with a half-grade scale, so a card right at the line is 50/50
 * and one a grade beyond it 88/12.
 */
export function damagedTag(s: Pick<SubGrades, 'corners' | 'edges' | 'surface'>): TagEntry[] {
  const worst = Math.min(...s.corners, ...s.edges, s.surface);
  const p = Math.round(1000 / (1 + Math.exp((worst - DAMAGED_BELOW) / 0.5))) / 1000;
  const yes = { id: 1, name: 'Yes', prob: p };
  const no = { id: 0, name: 'No', prob: Math.round((1 - p) * 1000) / 1000 };
  return p >= 0.5 ? [yes, no] : [no, yes];
}
