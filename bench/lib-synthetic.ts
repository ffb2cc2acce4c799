import { seededRandom } from '../src/util/seeded-random.ts';

/** A seeded draw and the shapes the benches draw from it: uniform, normal, one of a list, one of a list Zipf-like. */
export function synthetic(seed: number) {
  const rand = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  /** Index 0 most often (person is most of what CenterNet sees in photos). */
  const zipf = <T>(xs: readonly T[]) => xs[Math.min(xs.length - 1, Math.floor(xs.length * rand() ** 3))]!;
  return { rand, gauss, pick, zipf };
}

/** `v` scaled in place to length 1. */
export function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** A card session row as a scanner app uploads it (document 1), numbered `i`; a bench adds its links, alternatives and price. */
export const sessionRow = (i: number, prefix: string) => ({
  event_id: `${prefix}-${i}`,
  seen: new Date(1_790_000_000_000 + i * 1000).toISOString(),
  calls: 1 + (i % 3),
  duration: 0.7 + (i % 5) / 10,
  id_type: 'tcg',
  name: `Card ${i % 700}`,
  full_name: `Card ${i % 700} ${i % 165}/165 Scarlet & Violet 151`,
  set_name: 'Scarlet & Violet 151',
  set_code: 'MEW',
  card_number: String(i % 165),
  series: 'Scarlet & Violet',
  year: '2023',
  subcategory: 'Pokemon',
  distance: 0.1 + (i % 10) / 100,
  confidence: 'high',
  price_stats: [{ source: 'tcgplayer', market: 1.25, low: 0.9, currency: 'USD' }],
});
