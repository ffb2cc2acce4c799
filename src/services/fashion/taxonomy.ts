/**
 * Fashion and home-decor categories (docs/api-decisions.md, "Text search, fashion and home
 * decor"): `Category` is the path `<top>/<sub>` and `Top Category` its first part, named for what
 * the shipped models can tell apart. A record's own categories, in any words and language, are
 * mapped to item names through the lexicon to choose its item.
 */
import { cocoLabels, itemCode, itemKinds, objectCode, type CocoLabel } from '../../text-search/lexicon/concepts.ts';
import { conceptCodesIn } from '../../text-search/query.ts';
import { foldText } from '../../text-search/text-fold.ts';
import type { ItemDomain } from '../../vision/fashion/item-regions.ts';

const fashion: Record<string, string> = {
  'upper body': 'Clothing/Upper body',
  'lower body': 'Clothing/Lower body',
  'full body': 'Clothing/Full body',
  footwear: 'Footwear/Shoes',
  handbag: 'Bags/Handbag',
  backpack: 'Bags/Backpack',
  suitcase: 'Bags/Suitcase',
  tie: 'Accessories/Tie',
  umbrella: 'Accessories/Umbrella',
};

const homedecor: Record<string, string> = {
  chair: 'Furniture/Chair',
  couch: 'Furniture/Sofa',
  bed: 'Furniture/Bed',
  'dining table': 'Furniture/Table',
  bench: 'Furniture/Bench',
  'potted plant': 'Decor/Plant',
  vase: 'Decor/Vase',
  clock: 'Decor/Clock',
  book: 'Decor/Books',
  'teddy bear': 'Decor/Soft toy',
  tv: 'Electronics/TV',
  laptop: 'Electronics/Laptop',
  refrigerator: 'Kitchen/Refrigerator',
  oven: 'Kitchen/Oven',
  microwave: 'Kitchen/Microwave',
  toaster: 'Kitchen/Toaster',
  sink: 'Kitchen/Sink',
  bowl: 'Kitchen/Tableware',
  cup: 'Kitchen/Tableware',
  'wine glass': 'Kitchen/Tableware',
  bottle: 'Kitchen/Tableware',
  toilet: 'Bathroom/Toilet',
};

const taxonomyOf = (domain: ItemDomain) => (domain === 'fashion' ? fashion : homedecor);

/** The categories the server gives an item it found; the whole image has none of its own. */
export function categoriesOf(domain: ItemDomain, itemName: string): { top: string; category: string } | undefined {
  const path = taxonomyOf(domain)[itemName];
  return path ? { top: path.split('/')[0]!, category: path } : undefined;
}

/**
 * The item names a record's `Top Category` and `Category` ask for: taxonomy paths and names as
 * the server gives them, and any words the lexicon knows ("Sneakers", "Vestidos", "Sofás").
 * Undefined when the record names no category (the largest item is then taken); empty when
 * they name nothing the server can find, so no item matches and the whole image is the item
 * (spec rule 2: "If none matches, the whole image is treated as the item").
 */
export function wantedItems(domain: ItemDomain, top: unknown, category: unknown): string[] | undefined {
  const words = [top, category].filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (!words.length) return undefined;
  const taxonomy = taxonomyOf(domain);
  const out = new Set<string>();
  const folded = words.map((w) => foldText(w));
  for (const [name, path] of Object.entries(taxonomy)) {
    const p = foldText(path);
    const sub = p.split('/')[1]!;
    if (folded.some((w) => w === p || w === sub || w === name)) out.add(name);
  }
  if (out.size) return [...out];
  const codes = new Set(words.flatMap((w) => conceptCodesIn(w)));
  for (const kind of itemKinds) if (codes.has(itemCode(kind)) && kind in taxonomy) out.add(kind);
  for (const label of cocoLabels) if (codes.has(objectCode(label as CocoLabel)) && label in taxonomy) out.add(label);
  // A top category alone ("Clothing", "Furniture") asks for every item under it; one beside a category the server cannot
  // map does not (h281: `Decor/Statue` took any decor in the photo, a teddy bear, for a statue): that is the whole image
  const cat = typeof category === 'string' && category.trim() !== '' ? foldText(category) : undefined;
  const tops = new Set(Object.values(taxonomy).map((path) => foldText(path.split('/')[0]!)));
  if (!out.size && (cat === undefined || tops.has(cat))) {
    for (const [name, path] of Object.entries(taxonomy)) if (folded.includes(foldText(path.split('/')[0]!))) out.add(name);
  }
  return [...out];
}
