/**
 * A card row's price derived from its `price_stats` (docs/api-decisions.md "Derived price"), and the number and interval
 * readings it rests on: pure, so the card session service and the migrations that put stored prices right (037) read
 * prices alike.
 */
import { roundDecimal } from '../util/decimal-round.ts';

/** Which `price_stats` entry and statistic a derived price is. */
export interface PriceBasis {
  stats_type: string;
  interval: string | null;
  statistic: PriceStatistic;
}

/**
 * Rounded to cents, half away from zero as the decimal reads: 1.005 is 1.01 (n × 100 in binary
 * floating point gave 100.49999…, so 1.005 became 1.00 and 0.285 0.28 while 2.675 became 2.68).
 */
export const round2 = (n: number): number => roundDecimal(n, 2);

const decimalText = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A number, or text holding a plain decimal number ("9.5", " 8 "); null for anything else. Not
 * Number(): it reads "0x1A" as 26, "1e3" as 1000 and "" as 0.
 */
export function decimalNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !decimalText.test(value.trim())) return null;
  return Number(value.trim());
}

export type PriceStatistic = (typeof priceStatistics)[number];
/** Most representative first: the median ignores the odd outlier sale; the mean and the last sale stand in when it is missing. */
const priceStatistics = ['median', 'mean', 'latest'] as const;
const maxPrice = 1_000_000_000;

const intervalUnitDays: Record<string, number> = { d: 1, w: 7, m: 30, y: 365, h: 1 / 24, n: 1 / 1440 };
const everyWord: Record<string, number> = { hourly: 1 / 24, daily: 1, weekly: 7, monthly: 30, yearly: 365, annual: 365 };

/**
 * An interval such as "7d", "30 days", "24h", "3 months", "1y", "P30D", "PT24H" or "weekly" in days; Infinity for "all"
 * and anything unreadable. (Hours and ISO 8601's time part since h198: "24h" was unreadable, so last, and "PT30M" read
 * as 30 months.)
 */
export function intervalDays(interval: unknown): number {
  if (typeof interval !== 'string') return Infinity;
  const iso = /^\s*P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?\s*$/i.exec(interval);
  if (iso && iso.slice(1).some((v) => v !== undefined)) {
    const [y, mo, w, d, h, mi, sec] = iso.slice(1).map((v) => Number(v ?? 0));
    return y! * 365 + mo! * 30 + w! * 7 + d! + h! / 24 + mi! / 1440 + sec! / 86_400;
  }
  const word = everyWord[interval.trim().toLowerCase()];
  if (word !== undefined) return word;
  const m = /(\d+(?:\.\d+)?)\s*[-_ ]?\s*(d|days?|w|wks?|weeks?|mins?|minutes?|m|mos?|mon|months?|y|yrs?|years?|h|hrs?|hours?)(?![a-z])/i.exec(interval);
  if (m) {
    const unit = m[2]!.toLowerCase();
    return Number(m[1]) * intervalUnitDays[unit.startsWith('min') ? 'n' : unit[0]!]!;
  }
  return /^\s*\d+\s*$/.test(interval) ? Number(interval) : Infinity;
}

/**
 * A representative price from the recognition service's `price_stats` (spec 3 §2: entries of
 * `stats_type`, `interval`, `value.{median, mean, latest, …}`), for a row sent without a price.
 * The entry: by `stats_type`, `ungraded`, then `overall`, then `graded` (a slab: `graded` first,
 * then `overall`, then `ungraded`); within a type the shortest interval (the most current
 * market; "all" and unreadable intervals last), then the first sent. From the entry its median,
 * else its mean, else its latest sale: the first that is a number (or decimal text) above 0 and
 * at most 10⁹. Entries in another currency than USD are skipped. Rounded to cents.
 */
export function derivePrice(priceStats: unknown[] | null | undefined, idType: string | null | undefined): { price: number; basis: PriceBasis } | null {
  if (!Array.isArray(priceStats)) return null;
  const typeOrder = idType?.toLowerCase() === 'slab' ? ['graded', 'overall', 'ungraded'] : ['ungraded', 'overall', 'graded'];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const notUsd = (currency: unknown) => currency !== undefined && currency !== null && (typeof currency !== 'string' || currency.trim().toUpperCase() !== 'USD');
  let best: { rank: number; days: number; price: number; basis: PriceBasis } | undefined;
  for (const entry of priceStats) {
    if (!isObject(entry) || typeof entry.stats_type !== 'string' || !isObject(entry.value)) continue;
    const rank = typeOrder.indexOf(entry.stats_type.trim().toLowerCase());
    if (rank < 0 || notUsd(entry.currency) || notUsd(entry.value.currency)) continue;
    const days = intervalDays(entry.interval);
    // Strictly better only: among equals the first sent wins.
    if (best && (rank > best.rank || (rank === best.rank && days >= best.days))) continue;
    for (const statistic of priceStatistics) {
      const n = decimalNumber(entry.value[statistic]);
      if (n !== null && n > 0 && n <= maxPrice) {
        best = { rank, days, price: round2(n), basis: { stats_type: entry.stats_type, interval: typeof entry.interval === 'string' ? entry.interval : null, statistic } };
        break;
      }
    }
  }
  return best ? { price: best.price, basis: best.basis } : null;
}
