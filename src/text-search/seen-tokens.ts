/**
 * What the server saw in an image (plan §2.2), as the vision worker reports it, and the index
 * text made from it: language-neutral concept codes for objects, colours and people, and the OCR
 * text. Pure, so the worker, the insert path and the backfill make the same text from the same
 * observation, and a lexicon change re-tokenises stored observations without running a model.
 */
import { cocoLabels, colorCode, colorNames, familyCode, familyOf, objectCode, pairCode, personCountCode, type CocoLabel, type ColorName } from './lexicon/concepts.ts';
import { indexWords } from './query.ts';

/** Bumped when this file, or record-text.ts, makes other text from the same observation or record (the backfill re-tokenises). */
// 12 (2026-12-02): the it, nl, pl, tr and sv lexicons read records' own words into concepts ("cane nero" a black dog); rows
// stored before had none of them (h201)
// 13 (2026-12-02): a two-letter katakana lexicon word is read only as a whole katakana word (トリプル was a bird)
// 14 (2026-12-04): a nested object's keys are no words of the record unless their value is `true` (h261: `en`, `es`,
// `qty`, `dims` were found, and a title map's language codes made an English record Spanish on PostgreSQL)
// 15 (2026-12-04): PostgreSQL stems a record's Latin words as English beside its own language (h261: an English word in a
// Spanish record got Spanish stems, and "guitar" missed "guitars" there); German `handy` is a phone only in German text (h269)
// 16 (2026-12-04): PostgreSQL stems a record of no told language by the European languages too (h269: "chitarre" did not
// find "Chitarra classica" there, where SQLite's prefix did); "Taza de café" is no brown and "Lámpara de mesa" no dining table (h269)
// 17 (2026-12-05): a record's language is told by the shop's own fields, not by the English the spec and the server fill
// (`_tags`, `Top Category`, `Category`; h281: with extract_tags a Spanish record was stemmed as English on PostgreSQL);
// English "watch" is a clock as Uhr and reloj are (h281: a 422 where they found the wristwatch)
// 18 (2026-12-07): a record's own `_dominant_colors`, sent without palette names, gives the colour codes extracted ones
// give (h331: a client's colours are kept as sent, and colour words did not find them)
// 19 (2026-12-07): a glued run of words is also indexed as one word ("Wi-Fi" → `wifi`, "A-1234" → `a1234`), so a query
// writing it joined finds the record writing it apart and the other way (s73 noticed; seventy-fourth session)
export const TOKENS_VERSION = 19;

/**
 * What the index task looks for (LOUPE_SEEN), so an operator can leave out the costly parts.
 * `framed`: objects are also looked for in the photo shrunk onto a canvas, which finds objects
 * that fill the frame and costs a second CenterNet pass; it needs `objects`.
 */
export const seenParts = ['objects', 'framed', 'faces', 'colors', 'ocr'] as const;
export type SeenPart = (typeof seenParts)[number];

export interface SeenColor {
  /** CIE L*u*v*. */
  luv: [number, number, number];
  /** Share of the region's pixels, 0–1. */
  share: number;
  /** Palette name (color-palette.ts). */
  name: string;
}

export interface SeenObject {
  name: string;
  prob: number;
  /** `[xmin, ymin, xmax, ymax]` in pixels of the image as stored. */
  box: [number, number, number, number];
  /** Dominant colours of the box (the largest few objects only). */
  colors?: SeenColor[];
}

export interface Observed {
  width: number;
  height: number;
  /** The parts that were looked for: an absent part is unknown, not "none seen". */
  parts: SeenPart[];
  objects: SeenObject[];
  faces: { prob: number; box: [number, number, number, number] }[];
  /** Dominant colours of the whole image, background dropped. */
  colors: SeenColor[];
  /**
   * Dominant colours of the whole image with its background at half weight (since 2026-11-28;
   * absent before): what colour words are ranked by.
   */
  scene?: SeenColor[];
  ocr: { text: string; prob: number }[];
}

/** Detections under these are not indexed (the detectKNN threshold for objects). */
export const objectMinProb = 0.3;
export const faceMinProb = 0.5;
export const ocrMinProb = 0.6;

const isLabel = (name: string): name is CocoLabel => (cocoLabels as readonly string[]).includes(name);
const isColor = (name: string): name is ColorName => (colorNames as readonly string[]).includes(name);

/** 1–3 repeats by prominence, so BM25's term frequency counts how much of the image a thing is. */
function objectRepeats(o: SeenObject, area: number): number {
  const share = ((o.box[2] - o.box[0]) * (o.box[3] - o.box[1])) / Math.max(1, area);
  return 1 + (share >= 0.05 ? 1 : 0) + (share >= 0.25 && o.prob >= 0.5 ? 1 : 0);
}
const colorRepeats = (share: number) => (share >= 0.6 ? 3 : share >= 0.3 ? 2 : share >= 0.1 ? 1 : 0);

export interface SeenText {
  /** Concept codes, repeated by prominence, space-separated. */
  seen: string;
  /** OCR text, folded and segmented as the index wants it. */
  ocr: string;
  /**
   * The whole image's colours: `[L, u, v, share]` with the background dropped (the `_dominant_colors`
   * boost), then, where seen, `[L, u, v, share, 1]` with the backdrop at half weight (colour words).
   */
  colors: number[][];
}

export function seenText(o: Observed): SeenText {
  const area = o.width * o.height;
  const codes: string[] = [];
  const push = (code: string, times: number) => {
    for (let i = 0; i < times; i++) codes.push(code);
  };
  const objects = o.objects.filter((x) => x.prob >= objectMinProb && isLabel(x.name));
  for (const x of objects) push(objectCode(x.name as CocoLabel), objectRepeats(x, area));
  for (const c of o.colors) {
    if (!isColor(c.name)) continue;
    const family = familyOf[c.name];
    const times = colorRepeats(c.share);
    push(familyCode(family), times);
    if (family !== c.name) push(colorCode(c.name), times);
  }
  // A family only the backdrop shows (a small object on white) is findable, once: its rank comes from
  // the stored colours; more repeats would lengthen the text and cost other words' BM25 (docs/text-search.md).
  const families = new Set(o.colors.filter((c) => isColor(c.name) && colorRepeats(c.share) > 0).map((c) => familyOf[c.name as ColorName]));
  for (const c of o.scene ?? []) {
    if (!isColor(c.name) || c.share < 0.1 || families.has(familyOf[c.name])) continue;
    families.add(familyOf[c.name]);
    push(familyCode(familyOf[c.name]), 1);
  }
  // "red car": a colour covering a quarter of an object's box names the pair.
  for (const x of objects) {
    for (const c of x.colors ?? []) {
      if (c.share >= 0.25 && isColor(c.name)) push(pairCode({ kind: 'object', name: x.name }, familyOf[c.name]), 1);
    }
  }
  const persons = objects.filter((x) => x.name === 'person').length;
  const count = personCountCode(persons);
  if (count) push(count, 1);
  const faces = o.faces.filter((f) => f.prob >= faceMinProb);
  // As objects: the larger the largest face, the more the photo is of a face.
  if (faces.length) push('xface', Math.max(...faces.map((f) => objectRepeats({ name: 'face', prob: f.prob, box: f.box }, area))));
  // One face over 15 % of the image: a portrait.
  if (faces.length === 1 && ((faces[0]!.box[2] - faces[0]!.box[0]) * (faces[0]!.box[3] - faces[0]!.box[1])) / Math.max(1, area) > 0.15) push('xportrait', 1);
  return {
    seen: codes.join(' '),
    ocr: indexWords(o.ocr.filter((l) => l.prob >= ocrMinProb).map((l) => l.text).join('\n')),
    // both lists, the scene's marked (services/text-search/color-match.ts SCENE): words rank by it, _dominant_colors compares the other
    colors: [...o.colors.map((c) => [round2(c.luv[0]), round2(c.luv[1]), round2(c.luv[2]), round2(c.share)]), ...(o.scene ?? []).map((c) => [round2(c.luv[0]), round2(c.luv[1]), round2(c.luv[2]), round2(c.share), 1])],
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
