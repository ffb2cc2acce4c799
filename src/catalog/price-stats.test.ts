import { describe, expect, it } from 'vitest';
import { entryOf as entry, expectHandFigures, GRADED_30D, GRADED_ALL, HAND_ENTRIES, HAND_SERIES, OVERALL_30D } from './price-stats.fixture.ts';
import { dayOf, intervalStart, leftOutCurrencies, priceStats, quantile, type PriceObservation, type PriceStatsEntry } from './price-stats.ts';

const usd = (date: string, price: number, graded = false): PriceObservation => ({ date, price, graded, currency: 'USD' });
const names = (s: PriceStatsEntry[]) => s.map((e) => `${e.stats_type} ${e.interval} ${e.start_date}`);
const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);

describe('priceStats (the TypeScript reference)', () => {
  const stats = priceStats(HAND_SERIES);

  it('gives every type and interval, anchored at the latest observation', () => {
    expect(names(stats)).toEqual(HAND_ENTRIES);
  });

  it('matches the hand-computed figures (price-stats.fixture.ts)', () => {
    expectHandFigures(stats);
  });

  it('leaves a currency without a rate out and says so; with a rate it counts in dollars', () => {
    expect(leftOutCurrencies(HAND_SERIES)).toEqual({ EUR: 1 });
    const withEur = priceStats(HAND_SERIES, { rates: { EUR: 1.1 } });
    expect(leftOutCurrencies(HAND_SERIES, { rates: { EUR: 1.1 } })).toEqual({});
    // ungraded 30d gains 50 EUR × 1.1 = 55 on 2024-01-15: 20, 55, 30, 40; sorted 20, 30, 40, 55:
    // mean 145 / 4 = 36.25; median (h = 1.5) 35; q3 (h = 2.25) 40 + 0.25·15 = 43.75; the latest stays 40.
    expect(entry(withEur, 'ungraded 30d')).toMatchObject({ mean: 36.25, median: 35, q3: 43.75, max: 55, latest: 40, oldest: 20 });
    // rates that are not positive numbers for a three-letter code are no rates
    for (const rates of [{ EUR: 0 }, { EUR: -1 }, { EUR: Number.NaN }, { eur: 1.1 }] as Record<string, number>[]) expect(priceStats(HAND_SERIES, { rates })).toEqual(stats);
  });

  it('prices a read slab by its company and grade; other types do not change', () => {
    const psa10 = priceStats(HAND_SERIES, { slab: { company: 'psa', grade: 10 } });
    // h:7 alone is a PSA 10: each graded interval holds that one sale
    for (const interval of ['30d', '365d', 'all']) expect(entry(psa10, `graded ${interval}`)).toEqual(GRADED_30D);
    expect(entry(psa10, 'overall 30d')).toEqual(OVERALL_30D);
    expect(entry(priceStats(HAND_SERIES, { slab: { company: 'PSA', grade: null } }), 'graded all')).toEqual(GRADED_ALL);
    const bgs = priceStats(HAND_SERIES, { slab: { company: 'BGS', grade: 10 } });
    expect(names(bgs)).toEqual(HAND_ENTRIES.filter((n) => !n.startsWith('graded')));
  });

  it('rounds a figure on half a cent up, as the decimal reads and session totals round (h107: 1.00 and 1.01 gave a mean of 1.00)', () => {
    const e = entry(priceStats([usd(day(0), 1), usd(day(1), 1.01)]), 'overall all');
    expect(e).toMatchObject({ mean: 1.01, median: 1.01 });
    // a median of 371.025 (371.02 and 371.03), which toFixed made 371.02
    expect(entry(priceStats([usd(day(0), 371.02), usd(day(1), 371.03)]), 'overall all')).toMatchObject({ median: 371.03 });
    // interpolated in doubles as 18.814999999999998: rounded as 18.815 reads (h110)
    expect(entry(priceStats([usd(day(0), 18.81), usd(day(1), 18.82)]), 'overall all')).toMatchObject({ mean: 18.82, median: 18.82 });
  });

  it('gives nothing, not zeros, for a card without a usable price', () => {
    expect(priceStats([])).toEqual([]);
    const tix = [{ date: '2024-01-01', price: 3, graded: false, currency: 'TIX' }];
    expect(priceStats(tix)).toEqual([]);
    expect(leftOutCurrencies(tix)).toEqual({ TIX: 1 });
  });

  it('reports one sale as itself, with no spread and no trend', () => {
    const one = priceStats([usd('2024-03-05', 12.5)]);
    expect(names(one)).toEqual(['overall 30d 2024-02-05', 'overall 365d 2023-03-07', 'overall all null', 'ungraded 30d 2024-02-05', 'ungraded 365d 2023-03-07', 'ungraded all null']);
    expect(entry(one, 'ungraded all')).toEqual({
      ...GRADED_30D,
      ...{ q1: 12.5, q3: 12.5, max: 12.5, min: 12.5, mean: 12.5, median: 12.5, latest: 12.5, oldest: 12.5, latest_date: '2024-03-05', oldest_date: '2024-03-05' },
      trend: { ...GRADED_30D.trend, trimmed_mean: 12.5 },
    });
  });

  it('drops a tenth at each end for the trimmed mean, and forecasts nothing where the line runs out below a cent', () => {
    // 12 observations, ⌊12 / 10⌋ = 1 dropped each end: 1 and 1000 go, the mean of 2..11 is 6.5
    const twelve = priceStats([...Array.from({ length: 11 }, (_, i) => usd(day(i), i + 1)), usd(day(11), 1000)]);
    expect(entry(twelve, 'overall all')!.trend.trimmed_mean).toBe(6.5);
    // nine observations: ⌊0.9⌋ = 0, nothing dropped
    expect(entry(priceStats(Array.from({ length: 9 }, (_, i) => usd(day(i), i + 1))), 'overall all')!.trend.trimmed_mean).toBe(5);
    // 50, then 10, then 1 for eight days: the line falls below zero before day 9 + 30; no card sells for nothing, so
    // it is no forecast (h291: it was 0.00, for cards last sold at $88 to $390 in the PSA file)
    const falling = priceStats([usd(day(0), 50), usd(day(1), 10), ...Array.from({ length: 8 }, (_, i) => usd(day(i + 2), 1))]);
    // (the line reads 10 and the 1s, without the 50 and a 1 the trimmed mean drops: -0.6 a day from 2 on day 5, -18.40 on day 39)
    expect(entry(falling, 'overall all')!.trend).toMatchObject({ forecast_30d: null, slope_per_day: -0.6 });
    // 100, 60, 20 twenty days apart: $2 a day down, 30 days after the $20 sale is -$40
    expect(entry(priceStats([usd(day(0), 100), usd(day(20), 60), usd(day(40), 20)]), 'overall all')!.trend).toMatchObject({ forecast_30d: null, slope_per_day: -2, r_squared: 1 });
    // a line that ends above a cent is read: 100, 80, 60 twenty days apart forecast 60 − 30 = 30
    expect(entry(priceStats([usd(day(0), 100), usd(day(20), 80), usd(day(40), 60)]), 'overall all')!.trend.forecast_30d).toBe(30);
  });

  it('reads a flat price as a perfect flat line, and a single day as no line', () => {
    const flat = entry(priceStats([usd(day(0), 0.1), usd(day(3), 0.1), usd(day(7), 0.1)]), 'overall all')!;
    expect(flat).toMatchObject({ std: 0, range: 0, mean: 0.1 });
    expect(flat.trend).toEqual({ r_squared: 1, volatility: 0, forecast_30d: 0.1, trimmed_mean: 0.1, slope_per_day: 0, slope_per_day_pct: 0 });
    // three sales on one day: spread yes (10, 20, 30: std 10), line no; two changes (1, 0.5) give a volatility of 0.3536
    const oneDay = entry(priceStats([usd(day(0), 10), usd(day(0), 20), usd(day(0), 30)]), 'overall all')!;
    expect(oneDay).toMatchObject({ std: 10, latest: 30, oldest: 10 });
    expect(oneDay.trend).toEqual({ r_squared: null, volatility: 0.3536, forecast_30d: null, trimmed_mean: 20, slope_per_day: null, slope_per_day_pct: null });
  });

  it('leaves out rows that are no price on no date', () => {
    const s = priceStats([usd('2024-01-01', 5), usd('2024-02-31', 1000), usd('not a date', 1000), usd('2024-01-02', Number.NaN), usd('2024-01-03', -4)]);
    expect(entry(s, 'overall all')).toMatchObject({ max: 5, latest_date: '2024-01-01' });
  });
});

describe('helpers', () => {
  it('interpolate quantiles between order statistics', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantile([7], 0.75)).toBe(7);
  });

  it('count days on the calendar and start an interval on its first day', () => {
    expect(dayOf('1970-01-02')).toBe(1);
    expect(dayOf('2024-02-29')).toBe(19782);
    expect(dayOf('2023-02-29')).toBeNull();
    expect(intervalStart('2024-01-31', 30)).toBe('2024-01-02');
    expect(intervalStart('2024-03-01', 365)).toBe('2023-03-03');
    expect(intervalStart('2024-03-01', null)).toBeNull();
  });
});

describe('a trend line over a few days', () => {
  it('is not read a month ahead (two days of prices forecast 2760 from 30, 34 and 120); a week or more is', () => {
    const short = priceStats([
      { date: '2025-06-01', price: 30, graded: false, currency: 'USD' },
      { date: '2025-06-01', price: 34, graded: false, currency: 'USD' },
      { date: '2025-06-02', price: 120, graded: false, currency: 'USD' },
    ]);
    const overall = short.find((e) => e.stats_type === 'overall' && e.interval === '30d')!;
    expect(overall.value.trend.slope_per_day).not.toBeNull();
    expect(overall.value.trend.forecast_30d).toBeNull();
    const week = priceStats([
      { date: '2025-06-01', price: 30, graded: false, currency: 'USD' },
      { date: '2025-06-04', price: 33, graded: false, currency: 'USD' },
      { date: '2025-06-08', price: 37, graded: false, currency: 'USD' },
    ]);
    expect(week.find((e) => e.stats_type === 'ungraded' && e.interval === '30d')!.value.trend.forecast_30d).toBe(67);
  });

  it('is not read ahead through two prices, which it fits whatever they are (h291: PSA sales of 154.99 and 650 forecast 1475.02)', () => {
    const two = priceStats([usd('2020-05-16', 154.99, true), usd('2020-06-03', 650, true)]);
    expect(entry(two, 'graded 30d')!.trend).toEqual({ r_squared: 1, volatility: null, forecast_30d: null, trimmed_mean: 402.5, slope_per_day: 27.5006, slope_per_day_pct: 6.8325 });
  });
});

describe('a wrong sale among many (h291)', () => {
  // twenty sales of a $5 card every third day (5, 5.25, 5.5 in turn), then one typed as $9,999 (or a lot of 50 sold as one)
  const fives = Array.from({ length: 20 }, (_, i) => usd(day(i * 3), 5 + (i % 3) * 0.25));

  it('moves the mean, the spread and the maximum, as it is a sale, but not the trend, which reads the trimmed prices', () => {
    const all = entry(priceStats([...fives, usd(day(61), 9999)]), 'overall all')!;
    // the figures of every sale say what was sold: `prices delete --price 9999` takes a wrong one out
    expect(all).toMatchObject({ max: 9999, mean: 481.13, std: 2180.82, median: 5.25, latest: 9999 });
    // 21 prices: ⌊2.1⌋ = 2 dropped at each end for the trimmed mean (5, 5 and 5.5, 9999): it keeps 5 to 5.5, and the
    // line reads every price from 5 to 5.5, the twenty sales (mean 5.2375, slope 0.000439 a day, forecast on day 91
    // 5.2649). It was 44.2477 $ a day with a forecast of 3178.13 and a volatility (5.25 to 9999 is a step of +190,357 %) of 425.65
    expect(all.trend).toEqual({ r_squared: 0.0014, volatility: 0.0668, forecast_30d: 5.26, trimmed_mean: 5.25, slope_per_day: 0.0004, slope_per_day_pct: 0.0084 });
    // in the middle of the series: a forecast of 713.03 for the $5 card before
    expect(entry(priceStats([...fives.slice(0, 10), usd(day(28), 9999), ...fives.slice(10)]), 'overall all')!.trend.forecast_30d).toBe(5.26);
    // a lot of 50 sold as one $250 sale: 82.97 before
    expect(entry(priceStats([...fives, usd(day(61), 250)]), 'overall all')!.trend.forecast_30d).toBe(5.26);
  });

  it('reads every price equal to one the trimmed mean keeps, whichever of them an engine ranked first', () => {
    // ten prices: the trimmed mean drops one 1 and the 9 (mean of 1, 1, 2 … 7: 3.63); the line keeps all three 1s,
    // days 0, 5 and 10: slope 0.3409, R² 0.7440 (without day 0's it would be 0.4808 and 0.8376)
    const s = entry(priceStats([usd(day(0), 1), usd(day(5), 1), usd(day(10), 1), ...[2, 3, 4, 5, 6, 9].map((p, i) => usd(day(11 + i), p)), usd(day(20), 7)]), 'overall all')!;
    expect(s.trend).toEqual({ r_squared: 0.744, volatility: 0.3254, forecast_30d: 16.59, trimmed_mean: 3.63, slope_per_day: 0.3409, slope_per_day_pct: 10.2273 });
  });
});

describe('a wrong sale among a few (h296)', () => {
  it('leaves a price five times the middle ones out of the line below 10 prices, where the trim keeps every one', () => {
    // $5, $5.50, $9,999 and $5 ten days apart: the line through all four forecast 7000.70 (99.94 $ a day, volatility
    // 1049.31); it reads 5, 5.5 and 5 (days 0, 10, 30: slope −0.0036, 5.17 − 0.0036 · (60 − 13.33) = 5.00), and the
    // steps 5 → 5.5 → 5 (+0.1, −0.0909: 0.135). What was sold stays: max 9999, mean 2503.63, median 5.25
    const four = entry(priceStats([5, 5.5, 9999, 5].map((p, i) => usd(day(i * 10), p))), 'overall all')!;
    expect(four).toMatchObject({ max: 9999, mean: 2503.63, median: 5.25, std: 4996.92, latest: 5 });
    expect(four.trend).toEqual({ r_squared: 0.0357, volatility: 0.135, forecast_30d: 5, trimmed_mean: 2503.63, slope_per_day: -0.0036, slope_per_day_pct: -0.0691 });
  });

  it('keeps a card genuinely doubling over weeks on its line, and keeps it there past a sale typed without its point', () => {
    // Mew ex (sv4pt5-232), TCGplayer's market price a week apart, July to August 2025 in the shared 3-day file: 298.24
    // to 677.59, 2.3 times in seven weeks; its two middle prices are 361.09 and 405.08, the fence 72.22 to 2025.40
    const mew: [string, number][] = [['2025-07-09', 298.24], ['2025-07-16', 333.03], ['2025-07-23', 348.44], ['2025-07-30', 361.09], ['2025-08-06', 405.08], ['2025-08-13', 523.54], ['2025-08-20', 571.6], ['2025-08-27', 677.59]];
    const rising = { r_squared: 0.9067, volatility: 0.0884, forecast_30d: 849.28, slope_per_day: 7.5129, slope_per_day_pct: 1.7082 };
    expect(entry(priceStats(mew.map(([d, p]) => usd(d, p))), 'overall all')!.trend).toEqual({ ...rising, trimmed_mean: 439.83 });
    // a $524 sale typed as 5.24 among them drew the line down to 5.96 $ a day and a forecast of 711.41, with a
    // volatility of 34.99 (the step back up from it is +9,891 %); one typed as 40508 forecast 12086
    const typo = (p: number) => entry(priceStats([...mew.slice(0, 5), ['2025-08-10', p] as [string, number], ...mew.slice(5)].map(([d, y]) => usd(d, y))), 'overall all')!;
    expect(typo(5.24)).toMatchObject({ min: 5.24, mean: 391.54, trend: { ...rising, trimmed_mean: 391.54 } });
    expect(typo(40508)).toMatchObject({ max: 40508, trend: { ...rising, trimmed_mean: 4891.85 } });
  });
});

describe('raw and graded sales together', () => {
  it("reads no line through raw and graded sales together: two markets (h270: $5 cards forecast $502 beside a PSA 10's $120)", () => {
    const stats = priceStats([
      { date: '2026-03-01', price: 4.5, graded: false, currency: 'USD' },
      { date: '2026-03-05', price: 5.5, graded: false, currency: 'USD' },
      { date: '2026-03-10', price: 120, graded: true, currency: 'USD', extra: { company: 'PSA', grade_value: 10 } },
    ]);
    const overall = stats.find((e) => e.stats_type === 'overall' && e.interval === '30d')!.value;
    expect(overall.trend).toEqual({ r_squared: null, volatility: null, forecast_30d: null, trimmed_mean: 43.33, slope_per_day: null, slope_per_day_pct: null });
    expect([overall.mean, overall.median, overall.latest]).toEqual([43.33, 5.5, 120]);
    // each market's own line is read
    expect(stats.find((e) => e.stats_type === 'ungraded' && e.interval === '30d')!.value.trend.slope_per_day).toBe(0.25);
  });
});
