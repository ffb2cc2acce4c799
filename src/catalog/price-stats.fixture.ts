import { expect } from 'vitest';
import type { PriceObservation, PriceStatsEntry, PriceStatsValue } from './price-stats.ts';

/**
 * A small series whose figures were worked out by hand (below), shared by the reference's tests
 * (price-stats.test.ts) and the store's SQL on both backends (price-store.test.ts).
 *
 * The anchor is the latest observation, 2024-01-31: `30d` starts 2024-01-02, `365d` 2023-02-01.
 * Days are counted from 2024-01-01 (D0) below; the slope does not depend on the origin.
 *
 *   key  date        day    price  kind
 *   h:1  2022-12-01  D-396    5    ungraded         (only in `all`)
 *   h:2  2023-06-01  D-214   60    graded PSA 9     (365d, all)
 *   h:3  2024-01-01  D0      10    ungraded         (365d, all: one day before 30d starts)
 *   h:4  2024-01-11  D10     20    ungraded
 *   h:5  2024-01-21  D20     30    ungraded
 *   h:6  2024-01-31  D30     40    ungraded
 *   h:7  2024-01-31  D30    100    graded PSA 10    (same day as h:6; after it by key)
 *   h:8  2024-01-15  D14     50    ungraded, EUR    (left out without a rate)
 */
export const HAND_SERIES: (PriceObservation & { rowKey: string })[] = [
  { rowKey: 'h:1', date: '2022-12-01', price: 5, graded: false, currency: 'USD' },
  { rowKey: 'h:2', date: '2023-06-01', price: 60, graded: true, currency: 'USD', extra: { company: 'PSA', grade_value: 9 } },
  { rowKey: 'h:3', date: '2024-01-01', price: 10, graded: false, currency: 'USD' },
  { rowKey: 'h:4', date: '2024-01-11', price: 20, graded: false, currency: 'USD' },
  { rowKey: 'h:5', date: '2024-01-21', price: 30, graded: false, currency: 'USD' },
  { rowKey: 'h:6', date: '2024-01-31', price: 40, graded: false, currency: 'USD' },
  { rowKey: 'h:7', date: '2024-01-31', price: 100, graded: true, currency: 'USD', extra: { company: 'PSA', grade_value: 10 } },
  { rowKey: 'h:8', date: '2024-01-15', price: 50, graded: false, currency: 'EUR' },
];

/** The entries reported for the series without rates, in order. */
export const HAND_ENTRIES = [
  'overall 30d 2024-01-02',
  'overall 365d 2023-02-01',
  'overall all null',
  'graded 30d 2024-01-02',
  'graded 365d 2023-02-01',
  'graded all null',
  'ungraded 30d 2024-01-02',
  'ungraded 365d 2023-02-01',
  'ungraded all null',
];

/**
 * overall 30d: h:4, h:5, h:6, h:7 = 20, 30, 40, 100 on D10, D20, D30, D30 (n = 4).
 * - min 20, max 100, range 80; mean 190 / 4 = 47.5.
 * - quantiles, position h = (n − 1)·q = 3q between order statistics 20, 30, 40, 100:
 *   q1 h = 0.75 → 20 + 0.75·10 = 27.5; median h = 1.5 → 30 + 0.5·10 = 35; q3 h = 2.25 → 40 + 0.25·60 = 55.
 * - std: deviations −27.5, −17.5, −7.5, 52.5; squares 756.25 + 306.25 + 56.25 + 2756.25 = 3875;
 *   3875 / 3 = 1291.667; √ = 35.94.
 * - oldest 20 (2024-01-11); latest: h:6 and h:7 share the last day, h:7 comes after by key → 100.
 * - trimmed_mean: ⌊4 / 10⌋ = 0 dropped at each end → the mean, 47.5.
 * - line: mean day 22.5; dx −12.5, −2.5, 7.5, 7.5; Sxx = 156.25 + 6.25 + 56.25 + 56.25 = 275;
 *   Sxy = (−12.5)(−27.5) + (−2.5)(−17.5) + 7.5(−7.5) + 7.5(52.5) = 343.75 + 43.75 − 56.25 + 393.75 = 725;
 *   slope 725 / 275 = 2.636364 $/day → 2.6364; R² = 725² / (275 · 3875) = 525625 / 1065625 = 0.4933;
 *   forecast at D60 (30 days after D30): 47.5 + 2.636364 · (60 − 22.5) = 146.36;
 *   slope_per_day_pct = 100 · 2.636364 / 47.5 = 5.5502.
 * - volatility: changes 30/20 − 1 = 0.5, 40/30 − 1 = 0.333333, 100/40 − 1 = 1.5; mean 0.777778;
 *   deviations −0.277778, −0.444444, 0.722222; squares sum 0.796296; / 2 = 0.398148; √ = 0.6310.
 * - but raw and graded sales together are two markets: the line, forecast and volatility are null (h270), the
 *   figures above being what a line through both would say.
 */
export const OVERALL_30D: PriceStatsValue = {
  q1: 27.5,
  q3: 55,
  max: 100,
  min: 20,
  std: 35.94,
  mean: 47.5,
  range: 80,
  median: 35,
  latest: 100,
  oldest: 20,
  latest_date: '2024-01-31',
  oldest_date: '2024-01-11',
  // the line and the steps above are not reported: they run through raw sales and a PSA 10's, two markets (h270)
  trend: { r_squared: null, volatility: null, forecast_30d: null, trimmed_mean: 47.5, slope_per_day: null, slope_per_day_pct: null },
};

/**
 * ungraded 30d: h:4, h:5, h:6 = 20, 30, 40 on D10, D20, D30.
 * - mean 30, median 30, q1 (h = 0.5) 25, q3 (h = 1.5) 35, range 20.
 * - std: deviations −10, 0, 10 → 200 / 2 = 100 → 10.
 * - line: exactly one dollar a day, R² 1; forecast 40 + 30 = 70; 100 · 1 / 30 = 3.3333 % a day.
 * - volatility: changes 0.5 and 0.333333, mean 0.416667, deviations ±0.083333 → 0.013889 / 1 → 0.1179.
 */
export const UNGRADED_30D: PriceStatsValue = {
  q1: 25,
  q3: 35,
  max: 40,
  min: 20,
  std: 10,
  mean: 30,
  range: 20,
  median: 30,
  latest: 40,
  oldest: 20,
  latest_date: '2024-01-31',
  oldest_date: '2024-01-11',
  trend: { r_squared: 1, volatility: 0.1179, forecast_30d: 70, trimmed_mean: 30, slope_per_day: 1, slope_per_day_pct: 3.3333 },
};

/**
 * graded all (= graded 365d): h:2 and h:7 = 60 on 2023-06-01 and 100 on 2024-01-31, 244 days apart
 * (June 1 → January 1 is 30 + 31 + 31 + 30 + 31 + 30 + 31 = 214 days, then 30 more).
 * - mean and median 80; q1 (h = 0.25) 60 + 0.25·40 = 70; q3 90; std √((20² + 20²) / 1) = √800 = 28.28.
 * - line through both: slope 40 / 244 = 0.163934 → 0.1639, R² 1; 100 · 0.163934 / 80 = 0.2049 % a day;
 *   not read ahead (it would say 100 + 30 · 40/244 = 104.92): a line through two prices fits whatever they are (h291).
 * - volatility: a single change (100/60 − 1) has no standard deviation → null.
 */
export const GRADED_ALL: PriceStatsValue = {
  q1: 70,
  q3: 90,
  max: 100,
  min: 60,
  std: 28.28,
  mean: 80,
  range: 40,
  median: 80,
  latest: 100,
  oldest: 60,
  latest_date: '2024-01-31',
  oldest_date: '2023-06-01',
  trend: { r_squared: 1, volatility: null, forecast_30d: null, trimmed_mean: 80, slope_per_day: 0.1639, slope_per_day_pct: 0.2049 },
};

/** graded 30d: h:7 alone. One sale: its price everywhere, range 0, no spread and no trend (null). */
export const GRADED_30D: PriceStatsValue = {
  q1: 100,
  q3: 100,
  max: 100,
  min: 100,
  std: null,
  mean: 100,
  range: 0,
  median: 100,
  latest: 100,
  oldest: 100,
  latest_date: '2024-01-31',
  oldest_date: '2024-01-31',
  trend: { r_squared: null, volatility: null, forecast_30d: null, trimmed_mean: 100, slope_per_day: null, slope_per_day_pct: null },
};

/**
 * The longer intervals, order statistics only (their lines are checked against the reference):
 * - overall 365d: 10, 20, 30, 40, 60, 100 (h:2–h:7): mean 260 / 6 = 43.33; median (h = 2.5) 35;
 *   q1 (h = 1.25) 20 + 0.25·10 = 22.5; q3 (h = 3.75) 40 + 0.75·20 = 55; oldest 60 on 2023-06-01.
 * - overall all: 5 added: mean 265 / 7 = 37.86; median 30; q1 (h = 1.5) 15; q3 (h = 4.5) 50.
 * - ungraded 365d: 10, 20, 30, 40: mean 25, median 25, q1 17.5, q3 32.5, oldest 10 on 2024-01-01.
 * - ungraded all: 5, 10, 20, 30, 40: mean 21, median 20, q1 10, q3 30, oldest 5 on 2022-12-01.
 */
export const LONGER: Record<string, Partial<PriceStatsValue>> = {
  'overall 365d': { mean: 43.33, median: 35, q1: 22.5, q3: 55, min: 10, max: 100, oldest: 60, oldest_date: '2023-06-01' },
  'overall all': { mean: 37.86, median: 30, q1: 15, q3: 50, min: 5, oldest: 5, oldest_date: '2022-12-01', latest: 100 },
  'ungraded 365d': { mean: 25, median: 25, q1: 17.5, q3: 32.5, min: 10, max: 40, oldest: 10, oldest_date: '2024-01-01' },
  'ungraded all': { mean: 21, median: 20, q1: 10, q3: 30, min: 5, max: 40, oldest: 5, oldest_date: '2022-12-01', latest: 40 },
};

/** One entry's figures by `"stats_type interval"`. */
export const entryOf = (s: readonly PriceStatsEntry[], name: string): PriceStatsValue | undefined => s.find((e) => `${e.stats_type} ${e.interval}` === name)?.value;

/** The hand-worked figures of HAND_SERIES, asserted on what the reference or a store computed of it. */
export function expectHandFigures(stats: readonly PriceStatsEntry[]): void {
  expect(entryOf(stats, 'overall 30d')).toEqual(OVERALL_30D);
  expect(entryOf(stats, 'ungraded 30d')).toEqual(UNGRADED_30D);
  expect(entryOf(stats, 'graded all')).toEqual(GRADED_ALL);
  expect(entryOf(stats, 'graded 365d')).toEqual(GRADED_ALL);
  expect(entryOf(stats, 'graded 30d')).toEqual(GRADED_30D);
  for (const [name, figures] of Object.entries(LONGER)) expect(entryOf(stats, name), name).toMatchObject(figures);
}
