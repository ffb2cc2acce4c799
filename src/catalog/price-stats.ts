import { roundDecimal } from '../util/decimal-round.ts';

/**
 * Price statistics of one catalog card in the shape of spec 3 §2 (`price_stats`). Every figure
 * is defined in docs/prices.md; in short:
 * - prices are in USD: other currencies count only with a rate the operator configured
 *   (`rates`: US dollars per unit), otherwise they are left out (`leftOutCurrencies` says which);
 * - intervals end at the card's latest usable observation (not today), so the same data always
 *   gives the same figures; `start_date` is the first day inside;
 * - `overall` is every observation, `graded` the sales of graded copies (of the slab's company
 *   and grade only, when a slab was read), `ungraded` the rest; an interval with no observation
 *   of a type is left out, and a card with none gets no entries at all, never zeros;
 * - quantiles interpolate linearly between order statistics (PostgreSQL's and SQLite's
 *   `percentile_cont`); `std` is the sample standard deviation, null for one observation;
 * - the trend (line, forecast, volatility) reads the prices from the lowest to the highest that
 *   `trimmed_mean` keeps (below 10 prices, those within `LINE_FENCE` times of the middle ones): the least-squares
 *   line of price on day through them, their steps in date order.
 *
 * `PriceStore.priceStats` computes the same figures in SQL on either backend; this module holds
 * the definitions they share (intervals, the last arithmetic and the rounding, in `finishStats`)
 * and `priceStats`, the reference over an array that the store's SQL is tested against.
 */

export interface PriceObservation {
  /** `YYYY-MM-DD`. */
  date: string;
  price: number;
  /** The copy was graded (a slab sale). */
  graded: boolean;
  currency: string;
  /** Orders observations of one day (shorter first, then byte order), as the store does; file order when absent. */
  rowKey?: string;
  /** `company` (upper case, `PSA`) and `grade_value` (a number) of a graded sale, when known. */
  extra?: Record<string, unknown>;
}

export interface PriceTrend {
  r_squared: number | null;
  volatility: number | null;
  forecast_30d: number | null;
  trimmed_mean: number;
  slope_per_day: number | null;
  slope_per_day_pct: number | null;
}

export interface PriceStatsValue {
  q1: number;
  q3: number;
  max: number;
  min: number;
  std: number | null;
  mean: number;
  range: number;
  median: number;
  latest: number;
  oldest: number;
  latest_date: string;
  oldest_date: string;
  trend: PriceTrend;
}

export type PriceStatsType = 'overall' | 'graded' | 'ungraded';

export interface PriceStatsEntry {
  stats_type: PriceStatsType;
  interval: string;
  start_date: string | null;
  value: PriceStatsValue;
}

export interface PriceStatsOptions {
  /** US dollars per unit of another currency (`{"EUR": 1.08}`), as the operator configured them. */
  rates?: Readonly<Record<string, number>>;
  /**
   * The slab read on the record: `graded` entries then cover the sales of this company and grade
   * only (a PSA 10 is priced by PSA 10 sales). `overall` and `ungraded` do not change.
   */
  /** `gradeless`: the label prints no grade number (PSA's AUTHENTIC): only sales of that company without one (h145: every PSA sale of the card priced it). */
  slab?: { company?: string | null; grade?: number | null; gradeless?: boolean } | null;
}

/** The intervals reported, longest last; 3 types × 3 intervals stay within spec 1's 10 entries. */
export const PRICE_INTERVALS: readonly { name: string; days: number | null }[] = [
  { name: '30d', days: 30 },
  { name: '365d', days: 365 },
  { name: 'all', days: null },
];
export const PRICE_STATS_TYPES: readonly PriceStatsType[] = ['overall', 'graded', 'ungraded'];
export const PRICE_CURRENCY = 'USD';
/** The least span of days between the first and last prices of an entry's line for it to be read ahead (`forecast_30d`). */
export const MIN_FORECAST_SPAN_DAYS = 7;
/** The fewest prices an entry's line is read ahead from: a line through two fits them whatever they are (r² 1). */
export const MIN_FORECAST_PRICES = 3;

/** The trend line is read this many days after the entry's latest observation. */
export const FORECAST_DAYS = 30;
/** `trimmed_mean` drops ⌊n / 10⌋ observations at each end. */
export const TRIM_DIVISOR = 10;
/**
 * Below `TRIM_DIVISOR` prices, where the trim drops none, a price more than this many times the dearer of the entry's
 * two middle prices (its median for an odd count), or less than the cheaper one divided by it, is left out of the line:
 * four sales of $5, $5.50, $9,999 and $5 forecast 7000.70 (h296). Replayed on the shared files, the forecasts 5 changed
 * came nearer the prices a month on in 26 of 30, a larger share than with 3 or 4, and a rise of a few times is not a
 * wrong sale (docs/prices.md, "The line's prices").
 */
export const LINE_FENCE = 5;

/** Every (type, interval) entry that may be reported, in the order reported. */
export const PRICE_STATS_SETS: readonly { ord: number; stats_type: PriceStatsType; interval: string; days: number | null }[] = PRICE_STATS_TYPES.flatMap((stats_type, t) =>
  PRICE_INTERVALS.map((interval, i) => ({ ord: t * PRICE_INTERVALS.length + i, stats_type, interval: interval.name, days: interval.days })),
);

/** US dollars per unit of `currency`, or null when it has no configured rate. */
export function usdRate(currency: string, rates: PriceStatsOptions['rates'] = {}): number | null {
  if (currency === PRICE_CURRENCY) return 1;
  const r = Object.hasOwn(rates, currency) ? rates[currency] : undefined;
  return r !== undefined && isRate(currency, r) ? r : null;
}

const isRate = (currency: string, rate: number) => /^[A-Z]{3}$/.test(currency) && Number.isFinite(rate) && rate > 0;

/** The configured rates the store may use: positive finite numbers for three-letter codes, USD aside. */
export function usableRates(rates: PriceStatsOptions['rates'] = {}): [string, number][] {
  return Object.entries(rates).filter(([c, r]) => c !== PRICE_CURRENCY && isRate(c, r));
}

/** The slab's company as stored (upper case) and its numeric grade; null parts do not filter. */
export function slabFilter(options: PriceStatsOptions): { company: string | null; grade: number | null; gradeless: boolean } {
  const company = options.slab?.company?.trim().toUpperCase() || null;
  const grade = options.slab?.grade ?? null;
  const numbered = grade !== null && Number.isFinite(grade);
  return { company, grade: numbered ? grade : null, gradeless: !numbered && options.slab?.gradeless === true };
}

/**
 * What one (type, interval) group's figures are computed from, before the last arithmetic: the
 * backends and the reference below each produce these, in full precision.
 */
export interface RawPriceStats {
  n: number;
  min: number;
  max: number;
  mean: number;
  /** Sample standard deviation; null for one observation. */
  std: number | null;
  q1: number;
  median: number;
  q3: number;
  latest: number;
  latest_date: string;
  oldest: number;
  oldest_date: string;
  trimmed_mean: number;
  /**
   * The trend reads the line's prices: those from the lowest to the highest price the trimmed mean keeps, both
   * included (so every price equal to one it keeps, whichever day it fell on). One mistyped $9,999 among $5
   * sales drew the line, the forecast and the volatility as it did the mean (h291). Below 10 prices, where the trim
   * keeps every price, those within `LINE_FENCE` times of the middle prices (h296).
   * `line_mean` is their mean (USD), `line_range` their largest less their smallest (0: all the same), `line_span`
   * the days between their first and their last.
   */
  line_n: number;
  line_mean: number;
  line_range: number;
  line_span: number;
  /** Least-squares slope of the line's prices on day (USD per day); null when all fall on one day. */
  slope: number | null;
  /** R² of that line (1 when every one of its prices is the same); null without a slope. */
  r2: number | null;
  /** Mean day of the line's prices and the entry's last day, in days since 1970-01-01. */
  mean_x: number;
  last_x: number;
  /** Sample standard deviation of the relative changes between consecutive prices of the line. */
  volatility: number | null;
  /** Sales of graded copies and of raw ones together (`overall`): two markets, whose line and steps read none of them. */
  mixed?: boolean;
}

/** The last arithmetic and the rounding, one definition for both backends and the reference. */
export function finishStats(raw: RawPriceStats): PriceStatsValue {
  // A flat series: sums that should be 0 may come out ±1e-17 from one engine and not another.
  const flat = raw.max === raw.min;
  const flatLine = raw.line_range === 0;
  // a line through two markets (raw sales at 5, a PSA 10 at 120) is neither's trend: $5 cards forecast $502 (h270)
  const slope = raw.slope === null || raw.mixed ? null : flatLine ? 0 : raw.slope;
  const r2 = slope === null ? null : flatLine ? 1 : raw.r2;
  // a line over less than a week is not read a month ahead: two days of prices gave a forecast of 2760 from 30 and 120;
  // nor one through two prices (h291: a PSA sale of 155 then one of 650 forecast 1475)
  const readable = slope !== null && raw.line_n >= MIN_FORECAST_PRICES && raw.line_span >= MIN_FORECAST_SPAN_DAYS;
  const ahead = readable ? money(raw.line_mean + slope * (raw.last_x + FORECAST_DAYS - raw.mean_x)) : null;
  // a line that reaches $0 within the month has run out, it prices nothing: no card sells for nothing (a price of 0 is
  // no price on import); it was forecast as 0.00 for a card last sold at $88 (h291)
  const forecast = ahead !== null && ahead > 0 ? ahead : null;
  return {
    q1: money(raw.q1),
    q3: money(raw.q3),
    max: money(raw.max),
    min: money(raw.min),
    std: raw.n > 1 && raw.std !== null ? money(flat ? 0 : raw.std) : null,
    mean: money(raw.mean),
    range: money(raw.max - raw.min),
    median: money(raw.median),
    latest: money(raw.latest),
    oldest: money(raw.oldest),
    latest_date: raw.latest_date,
    oldest_date: raw.oldest_date,
    trend: {
      r_squared: r2 === null ? null : ratio(r2),
      volatility: raw.volatility === null || raw.mixed ? null : ratio(flatLine ? 0 : raw.volatility),
      forecast_30d: forecast,
      trimmed_mean: money(raw.trimmed_mean),
      slope_per_day: slope === null ? null : ratio(slope),
      // of the line's own level: a mean that one $9,999 sale raised to $481 made a $5 card's slope look small
      slope_per_day_pct: slope === null || !(raw.line_mean > 0) ? null : ratio((100 * slope) / raw.line_mean),
    },
  };
}

/** Start of an interval of `days` days ending on `anchor` (both inside), or null for all. */
export function intervalStart(anchor: string, days: number | null): string | null {
  return days === null ? null : dateOf(dayOf(anchor)! - days + 1);
}

/**
 * The reference: the figures of `priceStats` computed in TypeScript over a card's observations.
 * The store computes them in SQL; its tests compare both.
 */
export function priceStats(observations: readonly PriceObservation[], options: PriceStatsOptions = {}): PriceStatsEntry[] {
  const usable: (PriceObservation & { usd: number; day: number; order: number })[] = [];
  observations.forEach((o, order) => {
    const rate = usdRate(o.currency, options.rates);
    const day = dayOf(o.date);
    if (rate !== null && day !== null && Number.isFinite(o.price) && o.price >= 0) usable.push({ ...o, usd: o.price * rate, day, order });
  });
  if (!usable.length) return [];
  usable.sort((a, b) => a.day - b.day || byKey(a.rowKey, b.rowKey) || a.order - b.order);
  const anchor = usable[usable.length - 1]!.date;
  const slab = slabFilter(options);
  const inType = (o: PriceObservation, type: PriceStatsType) => (type === 'overall' ? true : type === 'ungraded' ? !o.graded : o.graded && slabMatches(o, slab));
  const out: PriceStatsEntry[] = [];
  for (const set of PRICE_STATS_SETS) {
    const start = intervalStart(anchor, set.days);
    const inside = usable.filter((o) => inType(o, set.stats_type) && (start === null || o.date >= start));
    if (!inside.length) continue;
    out.push({ stats_type: set.stats_type, interval: set.interval, start_date: start, value: finishStats({ ...rawStats(inside), mixed: inside.some((o) => o.graded) && inside.some((o) => !o.graded) }) });
  }
  return out;
}

/** Observations (by currency) that `priceStats` leaves out for want of a rate. */
export function leftOutCurrencies(observations: readonly PriceObservation[], options: PriceStatsOptions = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of observations) if (usdRate(o.currency, options.rates) === null) out[o.currency] = (out[o.currency] ?? 0) + 1;
  return out;
}

function slabMatches(o: PriceObservation, slab: { company: string | null; grade: number | null; gradeless: boolean }): boolean {
  if (slab.company !== null && (typeof o.extra?.company !== 'string' || o.extra.company.toUpperCase() !== slab.company)) return false;
  if (slab.grade !== null && Number(o.extra?.grade_value) !== slab.grade) return false;
  if (slab.gradeless && o.extra?.grade_value !== undefined && o.extra.grade_value !== null) return false;
  return true;
}

/** Byte order of UTF-8 text (as SQLite's BINARY and PostgreSQL's "C" collation), for ties. */
function byKey(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined || a === b) return 0;
  // shorter first, in characters as the engines' length() counts them: a file's repeated rows `#9`, `#10` in its order
  return [...a].length - [...b].length || Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Oldest first (ties by row key). */
function rawStats(obs: readonly { usd: number; day: number; date: string }[]): RawPriceStats {
  const n = obs.length;
  const ys = obs.map((o) => o.usd);
  const sorted = [...ys].sort((a, b) => a - b);
  const mean = sum(ys) / n;
  const syy = ys.reduce((a, y) => a + (y - mean) ** 2, 0);
  const cut = Math.floor(n / TRIM_DIVISOR);
  const kept = sorted.slice(cut, n - cut);
  // the line's prices, in date order: every one from the lowest kept to the highest kept
  const lo = kept[0]!;
  const hi = kept[kept.length - 1]!;
  // where nothing is trimmed, one wrong sale would draw the line alone: so none far from the middle prices (the two
  // order statistics themselves, not their mean, which the engines need not compute to the same last bit)
  const loMid = sorted[Math.floor((n - 1) / 2)]!;
  const hiMid = sorted[Math.floor(n / 2)]!;
  const near = (y: number) => cut > 0 || (y <= LINE_FENCE * hiMid && y * LINE_FENCE >= loMid);
  const line = obs.filter((o) => o.usd >= lo && o.usd <= hi && near(o.usd));
  const ly = line.map((o) => o.usd);
  const lx = line.map((o) => o.day);
  const lm = sum(ly) / line.length;
  const lmx = sum(lx) / line.length;
  let sxx = 0;
  let sxy = 0;
  let lyy = 0;
  for (let i = 0; i < line.length; i++) {
    sxx += (lx[i]! - lmx) ** 2;
    sxy += (lx[i]! - lmx) * (ly[i]! - lm);
    lyy += (ly[i]! - lm) ** 2;
  }
  const changes: number[] = [];
  for (let i = 1; i < line.length; i++) if (ly[i - 1]! > 0) changes.push(ly[i]! / ly[i - 1]! - 1);
  const cm = sum(changes) / changes.length;
  return {
    n,
    min: sorted[0]!,
    max: sorted[n - 1]!,
    mean: exactMean(micros(ys), n),
    std: n > 1 ? Math.sqrt(syy / (n - 1)) : null,
    q1: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q3: quantile(sorted, 0.75),
    latest: ys[n - 1]!,
    latest_date: obs[n - 1]!.date,
    oldest: ys[0]!,
    oldest_date: obs[0]!.date,
    trimmed_mean: exactMean(micros(kept), kept.length),
    line_n: line.length,
    line_mean: exactMean(micros(ly), line.length),
    line_range: ly.reduce((a, y) => Math.max(a, y)) - ly.reduce((a, y) => Math.min(a, y)),
    line_span: lx[lx.length - 1]! - lx[0]!,
    slope: sxx > 0 ? sxy / sxx : null,
    r2: sxx > 0 ? (lyy === 0 ? 1 : (sxy * sxy) / (sxx * lyy)) : null,
    mean_x: lmx,
    last_x: obs[n - 1]!.day,
    volatility: changes.length > 1 ? Math.sqrt(changes.reduce((a, c) => a + (c - cm) ** 2, 0) / (changes.length - 1)) : null,
  };
}

/** Linear interpolation between order statistics ("type 7", as `percentile_cont`). */
export function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (h - lo);
}

const DAY_MS = 86_400_000;
const sum = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);

/** A mean from its sum in whole millionths (price-store.ts `MICROS`): the same double whatever order the prices were added in. */
export const exactMean = (micros: number, n: number): number => micros / n / 1_000_000;
const micros = (v: readonly number[]) => sum(v.map((y) => Math.floor(y * 1_000_000 + 0.5)));

/** Days since 1970-01-01 of a real calendar date `YYYY-MM-DD`; null for anything else. */
export function dayOf(date: string): number | null {
  // (year 0000 is 1 BC to JavaScript and no year to PostgreSQL, which refused it with its own error, h198)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || date.startsWith('0000')) return null;
  const t = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(t) || new Date(t).toISOString().slice(0, 10) !== date) return null;
  return Math.round(t / DAY_MS);
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** Dollars to the cent, half away from zero as the decimal reads, as session totals round (h107: a median of 371.025 was 371.02). */
const money = (v: number) => roundDecimal(v, 2);
/** Ratios, percentages and dollars per day to 4 decimals. */
const ratio = (v: number) => roundDecimal(v, 4);
