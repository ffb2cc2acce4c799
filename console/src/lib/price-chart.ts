import type { PriceStatsEntry } from '../types.ts';

export interface PriceBox {
  label: string;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  latest: number | null;
  /** The entry's currency (USD when it names none). */
  currency: string;
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
};

/**
 * `price_stats` holds statistics per period, not a price history (spec 3 §2), so the chart is one
 * box per entry: min–max whisker, q1–q3 box, median line, latest sale as a dot. Entries without a
 * median are left out.
 */
export function priceBoxes(stats: readonly PriceStatsEntry[] | null | undefined): PriceBox[] {
  const out: PriceBox[] = [];
  for (const s of stats ?? []) {
    const v = s.value ?? {};
    const median = num(v.median) ?? num(v.mean);
    if (median === null) continue;
    const min = num(v.min) ?? median;
    const max = num(v.max) ?? median;
    const currency = typeof s.currency === 'string' && /^[A-Za-z]{3}$/.test(s.currency) ? s.currency.toUpperCase() : 'USD';
    out.push({ label: `${s.stats_type} · ${s.interval}${currency === 'USD' ? '' : ` (${currency})`}`, min, q1: num(v.q1) ?? min, median, q3: num(v.q3) ?? max, max, latest: num(v.latest), currency });
  }
  return out;
}

/** Pixel x of a price on a scale from 0 to the largest value, `width` wide. */
export function priceScale(boxes: readonly PriceBox[], width: number): { max: number; x: (price: number) => number } {
  const top = Math.max(1, ...boxes.map((b) => Math.max(b.max, b.latest ?? 0)));
  return { max: top, x: (price: number) => Math.round((Math.max(0, price) / top) * width * 10) / 10 };
}
