/**
 * The language-neutral concepts text search understands: what the server itself can see in an
 * image. Queries in any lexicon language are turned into these concepts' codes, and so are the
 * detections stored at insert, so "avión", "飞机" and "airplane" meet on one token.
 *
 * The lists are copied, not imported, from the models that produce them, because the worker,
 * the backfill and the query parser must agree on them even when a model changes: the tests in
 * `lexicon.test.ts` fail when the detector's labels or the colour palette drift from these.
 */

/** CenterNet's COCO-80 labels exactly as `@vladmandic/human` 3.3.6 names them (`src/object/labels.ts`). */
export const cocoLabels = [
  'person', 'bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat', 'traffic light',
  'fire hydrant', 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog', 'horse', 'sheep', 'cow',
  'elephant', 'bear', 'zebra', 'giraffe', 'backpack', 'umbrella', 'handbag', 'tie', 'suitcase', 'frisbee',
  'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove', 'skateboard', 'surfboard',
  'tennis racket', 'bottle', 'wine glass', 'cup', 'fork', 'knife', 'spoon', 'bowl', 'banana', 'apple',
  'sandwich', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'chair', 'couch',
  'potted plant', 'bed', 'dining table', 'toilet', 'tv', 'laptop', 'mouse', 'remote', 'keyboard', 'cell phone',
  'microwave', 'oven', 'toaster', 'sink', 'refrigerator', 'book', 'clock', 'vase', 'scissors', 'teddy bear',
  'hair drier', 'toothbrush',
] as const;
export type CocoLabel = (typeof cocoLabels)[number];

/** The palette names of `src/vision/models/color-palette.ts`, in its order. */
export const colorNames = [
  'black', 'charcoal', 'dark grey', 'grey', 'light grey', 'white', 'ivory', 'beige', 'taupe',
  'camel', 'khaki', 'brown', 'dark brown', 'rust',
  'red', 'burgundy', 'coral', 'rose', 'pink', 'hot pink', 'magenta', 'peach',
  'orange', 'mustard', 'gold', 'yellow', 'cream',
  'olive', 'lime green', 'green', 'dark green', 'sage', 'mint', 'teal', 'turquoise',
  'light blue', 'sky blue', 'blue', 'denim', 'navy blue',
  'purple', 'lavender', 'plum', 'mauve',
] as const;
export type ColorName = (typeof colorNames)[number];

/** The twelve colour families; each is also a palette name, so a family word is that shade's word. */
export const colorFamilies = [
  'black', 'grey', 'white', 'beige', 'brown', 'red', 'pink', 'orange', 'yellow', 'green', 'blue', 'purple',
] as const;
export type ColorFamily = (typeof colorFamilies)[number];

/**
 * The family of each shade: what a shopper would call it with the basic colour words, so a
 * search for "blue" also finds navy. Borderline shades follow the everyday word, not the hue
 * angle: teal and turquoise are sold as blue-greens but asked for as blue; khaki and camel as
 * beige and brown as they are in clothing shops.
 */
export const familyOf: Readonly<Record<ColorName, ColorFamily>> = {
  black: 'black', charcoal: 'grey', 'dark grey': 'grey', grey: 'grey', 'light grey': 'grey',
  white: 'white', ivory: 'white', beige: 'beige', taupe: 'beige',
  camel: 'brown', khaki: 'beige', brown: 'brown', 'dark brown': 'brown', rust: 'orange',
  red: 'red', burgundy: 'red', coral: 'orange', rose: 'pink', pink: 'pink', 'hot pink': 'pink', magenta: 'pink',
  peach: 'orange',
  orange: 'orange', mustard: 'yellow', gold: 'yellow', yellow: 'yellow', cream: 'white',
  olive: 'green', 'lime green': 'green', green: 'green', 'dark green': 'green', sage: 'green', mint: 'green',
  teal: 'blue', turquoise: 'blue',
  'light blue': 'blue', 'sky blue': 'blue', blue: 'blue', denim: 'blue', 'navy blue': 'blue',
  purple: 'purple', lavender: 'purple', plum: 'purple', mauve: 'purple',
};

/**
 * Garment regions the fashion pipeline can tell apart (from body pose, plan §3.1). There is no
 * garment classifier, so "shirt" and "sweater" are one kind: the words still find the region.
 */
export const itemKinds = ['upper body', 'lower body', 'full body', 'footwear'] as const;
export type ItemKind = (typeof itemKinds)[number];

/**
 * What the server sees of people beyond the `person` label: a face (BlazeFace). Counts of people
 * are indexed too (seen-tokens.ts) but no query word reaches them yet.
 */
export const peopleKinds = ['face'] as const;
export type PeopleKind = (typeof peopleKinds)[number];

/** One language's words for every concept. Forms are written as people type them; matching folds case and Latin accents. */
export interface LanguageWords {
  objects: Readonly<Record<CocoLabel, readonly string[]>>;
  colors: Readonly<Record<ColorName, readonly string[]>>;
  items: Readonly<Record<ItemKind, readonly string[]>>;
  people: Readonly<Record<PeopleKind, readonly string[]>>;
}

export type ConceptKind = 'object' | 'color' | 'item' | 'people';

/** A concept as the parser and the indexer name it. */
export interface Concept {
  kind: ConceptKind;
  /** The detector label, palette name or item kind. */
  name: string;
}

const letters = (s: string) => s.replace(/[^a-z]/g, '');

/**
 * Concept codes are ASCII letters only, so every tokenizer (FTS5 unicode61 or porter, PostgreSQL
 * `simple`) keeps one as a single token. The `x` prefixes keep them apart from real words; a
 * client who types a code itself only finds what the concept's own words find.
 */
export const objectCode = (label: CocoLabel) => `xo${letters(label)}`;
export const colorCode = (name: ColorName) => `xc${letters(name)}`;
export const familyCode = (family: ColorFamily) => `xk${family}`;
export const itemCode = (kind: ItemKind) => `xi${letters(kind)}`;
/** `xface`: the code seen-tokens.ts writes for a face seen. */
export const peopleCode = (kind: PeopleKind) => `x${letters(kind)}`;

/**
 * An object or garment seen in a colour's family ("red car"): `xpo` + label + family or `xpi` +
 * kind + family. Families, not shades, because a detector box's colour is rarely one shade.
 */
export const pairCode = (thing: Concept, family: ColorFamily) =>
  `xp${thing.kind === 'item' ? 'i' : 'o'}${letters(thing.name)}${family}`;

/** People counts as codes: one, two, a few (3–5), a group (6 or more); the index and queries share them. */
export function personCountCode(n: number): string | undefined {
  if (n <= 0) return undefined;
  return n === 1 ? 'xnone' : n === 2 ? 'xntwo' : n <= 5 ? 'xnfew' : 'xngroup';
}

/** Every code the lexicon can produce, for the collision checks. */
export function allCodes(): string[] {
  const things: Concept[] = [
    ...cocoLabels.map((name): Concept => ({ kind: 'object', name })),
    ...itemKinds.map((name): Concept => ({ kind: 'item', name })),
  ];
  return [
    ...cocoLabels.map(objectCode),
    ...colorNames.map(colorCode),
    ...colorFamilies.map(familyCode),
    ...itemKinds.map(itemCode),
    ...peopleKinds.map(peopleCode),
    ...things.flatMap((t) => colorFamilies.map((f) => pairCode(t, f))),
  ];
}
