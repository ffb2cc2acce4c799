/**
 * A shop's collection records as year-of-data writes them (h348): titles from a Zipf vocabulary with some lexicon words,
 * what the server "saw" (COCO objects and colours), the record's text row, and 1792-d vectors in clusters of 100 with
 * visual hashes near their cluster's. One generator for the benches that fill such a collection (year-of-data, pg-knn,
 * text-search-event-loop), so their records are the same for the same seed and draw order.
 */
import { cocoLabels, colorNames } from '../src/text-search/lexicon/concepts.ts';
import { recordText } from '../src/text-search/record-text.ts';
import { seenText, TOKENS_VERSION, type Observed } from '../src/text-search/seen-tokens.ts';
import { synthetic, unit } from './lib-synthetic.ts';

const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x${(i * 7919) % 997}`);
const lexiconWords = ['red', 'blue', 'dress', 'shoes', 'chair', 'vintage', 'leather', 'summer', 'wooden', 'table', 'lamp', 'cotton'];

export type ShopData = ReturnType<typeof shopData>;

/** The generator's draws (`rand`, `gauss`, …: a caller drawing its own numbers between records shares the sequence). */
export function shopData(seed = 20261207) {
  const random = synthetic(seed);
  const { rand, gauss, pick, zipf } = random;
  function observed(): Observed {
    const objects = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({ name: zipf(cocoLabels), prob: 0.3 + rand() * 0.7, box: [0, 0, 100 + rand() * 800, 100 + rand() * 800] as [number, number, number, number], colors: [{ luv: [50, 0, 0] as [number, number, number], share: 0.3 + rand() * 0.6, name: pick(colorNames) }] }));
    const colors = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => ({ luv: [20 + rand() * 70, gauss() * 30, gauss() * 30] as [number, number, number], share: 0.05 + rand() * 0.5, name: pick(colorNames) }));
    return { width: 1000, height: 1000, parts: ['objects', 'colors'], objects, faces: [], colors, ocr: [] };
  }
  const title = () => Array.from({ length: 3 + Math.floor(rand() * 6) }, () => (rand() < 0.15 ? pick(lexiconWords) : zipf(vocabulary))).join(' ');
  function textRow(data: Record<string, unknown>) {
    const o = observed();
    const t = seenText(o);
    const { body, lang } = recordText(data);
    return { seen: t.seen, body, ocr: t.ocr, lang, colors: t.colors, observed: o, seenVersion: TOKENS_VERSION, seenState: 'done' as const };
  }
  return {
    ...random,
    /**
     * year-of-data's records: a unique SKU (selective), a category of 20 (5 %), in stock for 70 % (unselective), a
     * price, a brand of 300 (skewed); vectors in clusters of 100. The clusters are drawn here, when called.
     */
    clustered(records: number, dims: number) {
      const clusters = Math.max(1, Math.round(records / 100));
      const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: dims }, gauss)));
      const hashCentres = Array.from({ length: clusters }, () => Array.from({ length: 256 }, () => (rand() < 0.5 ? '1' : '0')).join(''));
      return (i: number) => {
        const data = { _id: `r${i}`, title: title(), sku: `SKU-${i}`, category: `c${i % 20}`, in_stock: rand() < 0.7, price: Math.round(rand() * 50_000) / 100, brand: `b${Math.floor(rand() ** 2 * 300)}` };
        const text = textRow(data);
        const c = i % clusters;
        const vector = unit(Float32Array.from({ length: dims }, (_, d) => centres[c]![d]! + gauss() / Math.sqrt(dims)));
        const hash = [...hashCentres[c]!].map((b) => (rand() < 0.25 ? (b === '1' ? '0' : '1') : b)).join('');
        return { recordId: data._id, data, vector, hash, text };
      };
    },
    /** The same attributes but the brand, and a random vector: text search's records (text-search-event-loop). */
    plain(dims: number) {
      return (i: number) => {
        const data = { _id: `r${i}`, title: title(), sku: `SKU-${i}`, category: `c${i % 20}`, in_stock: rand() < 0.7, price: Math.round(rand() * 50_000) / 100 };
        const text = textRow(data);
        return { recordId: data._id, data, vector: unit(Float32Array.from({ length: dims }, gauss)), text };
      };
    },
  };
}
