/**
 * Price statistics of one catalog card in the shape of spec 3 §2 (`price_stats`), computed from
 * its dated prices and sales. Definitions (docs/recognition.md "Price statistics"):
 * - intervals end at the card's latest observation, not today: the public price files are
 *   historical, and a card last sold a year ago still has a price a seller wants to see;
 * - `overall` is every USD observation, `graded` the sales of graded copies (all grades
 *   together; the spec's shape has no grade), `ungraded` the rest;
 * - quantiles interpolate linearly between order statistics; `std` is the sample standard
 *   deviation (0 for one observation);
 * - the trend is the least-squares line of price on day: `slope_per_day`, its share of the mean
 *   (`slope_per_day_pct`, in percent), `r_squared`, and `forecast_30d`, the line 30 days past
 *   the latest observation (never below 0); `volatility` is the standard deviation of the
 *   relative change between consecutive observations; `trimmed_mean` drops the lowest and the
 *   highest 10 %.
 * Prices in another currency (MTGO tix) are not mixed in.
 */

export interface PriceObservation {
  /** `YYYY-MM-DD`. */
  date: string;
  price: number;
  /** The copy was graded (a slab sale). */
  graded: boolean;
  currency: string;
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
  std: number;
  mean: number;
  range: number;
  median: number;
  latest: number;
  oldest: number;
  latest_date: string;
  oldest_date: string;
  trend: PriceTrend;
}

export interface PriceStatsEntry {
  stats_type: 'overall' | 'graded' | 'ungraded';
  interval: string;
  start_date: string | null;
  value: PriceStatsValue;
}

/** The intervals reported, longest last; 3 types × 3 intervals stay within spec 1's 10 entries. */
export const PRICE_INTERVALS: readonly { name: string; days: number | null }[] = [
  { name: '30d', days: 30 },
  { name: '365d', days: 365 },
  { name: 'all', days: null },
];
export const PRICE_CURRENCY = 'USD';
const DAY_MS = 86_400_000;

export function priceStats(observations: readonly PriceObservation[]): PriceStatsEntry[] {
  const usd = observations.filter((o) => o.currency === PRICE_CURRENCY && Number.isFinite(o.price) && o.price >= 0 && dayOf(o.date) !== null);
  if (!usd.length) return [];
  const latest = usd.reduce((a, o) => (o.date > a ? o.date : a), usd[0]!.date);
  const out: PriceStatsEntry[] = [];
  for (const type of ['overall', 'graded', 'ungraded'] as const) {
    const own = type === 'overall' ? usd : usd.filter((o) => o.graded === (type === 'graded'));
    for (const interval of PRICE_INTERVALS) {
      const start = interval.days === null ? null : dateOf(dayOf(latest)! - interval.days + 1);
      const inside = start === null ? own : own.filter((o) => o.date >= start);
      if (!inside.length) continue;
      out.push({ stats_type: type, interval: interval.name, start_date: start, value: statistics(inside) });
    }
  }
  return out;
}

function statistics(obs: readonly PriceObservation[]): PriceStatsValue {
  // Oldest first; several observations on one day keep the file's order.
  const byDate = [...obs].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const prices = byDate.map((o) => o.price);
  const sorted = [...prices].sort((a, b) => a - b);
  const n = prices.length;
  const mean = prices.reduce((a, b) => a + b, 0) / n;
  const std = n > 1 ? Math.sqrt(prices.reduce((a, p) => a + (p - mean) ** 2, 0) / (n - 1)) : 0;
  const first = byDate[0]!;
  const last = byDate[n - 1]!;
  return {
    q1: round(quantile(sorted, 0.25)),
    q3: round(quantile(sorted, 0.75)),
    max: round(sorted[n - 1]!),
    min: round(sorted[0]!),
    std: round(std),
    mean: round(mean),
    range: round(sorted[n - 1]! - sorted[0]!),
    median: round(quantile(sorted, 0.5)),
    latest: round(last.price),
    oldest: round(first.price),
    latest_date: last.date,
    oldest_date: first.date,
    trend: trend(byDate, sorted, mean),
  };
}

function trend(byDate: readonly PriceObservation[], sorted: readonly number[], mean: number): PriceTrend {
  const n = byDate.length;
  const cut = Math.floor(n * 0.1);
  const kept = sorted.slice(cut, n - cut);
  const trimmed = kept.reduce((a, b) => a + b, 0) / kept.length;
  const xs = byDate.map((o) => dayOf(o.date)!);
  const ys = byDate.map((o) => o.price);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - mean);
    syy += (ys[i]! - mean) ** 2;
  }
  const changes: number[] = [];
  for (let i = 1; i < n; i++) if (ys[i - 1]! > 0) changes.push(ys[i]! / ys[i - 1]! - 1);
  const cm = changes.reduce((a, b) => a + b, 0) / (changes.length || 1);
  const volatility = changes.length > 1 ? Math.sqrt(changes.reduce((a, c) => a + (c - cm) ** 2, 0) / (changes.length - 1)) : null;
  // A line needs two different days.
  if (sxx === 0) return { r_squared: null, volatility: nullable(volatility), forecast_30d: null, trimmed_mean: round(trimmed), slope_per_day: null, slope_per_day_pct: null };
  const slope = sxy / sxx;
  const intercept = mean - slope * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  const forecast = Math.max(0, intercept + slope * (xs[n - 1]! + 30));
  return {
    r_squared: round(r2, 4),
    volatility: nullable(volatility),
    forecast_30d: round(forecast),
    trimmed_mean: round(trimmed),
    slope_per_day: round(slope, 4),
    slope_per_day_pct: mean > 0 ? round((100 * slope) / mean, 4) : null,
  };
}

/** Linear interpolation between order statistics (the common "type 7" definition). */
export function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (h - lo);
}

function dayOf(date: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const t = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(t) ? Math.round(t / DAY_MS) : null;
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const round = (v: number, digits = 2) => Number(v.toFixed(digits));
const nullable = (v: number | null) => (v === null ? null : round(v, 4));
