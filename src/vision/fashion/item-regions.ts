/**
 * Fashion and home-decor items from the models that ship (plan §3.1): there is no garment
 * classifier, so a person's body pose gives garment regions (upper body, lower body, full body,
 * footwear), COCO accessories and furniture keep their detector boxes, and a photo with none of
 * them is one item, the whole image. Pure geometry: the worker runs the models.
 */
import type { Detection, PoseKeypoint } from '../models/human-detector.ts';

export type Box = [number, number, number, number];

export interface Item {
  /** `upper body`, `lower body`, `full body`, `footwear`, a COCO label, or `item` (the whole image). */
  name: string;
  prob: number;
  /** `[xmin, ymin, xmax, ymax]`, integer pixels of the image as stored. */
  box: Box;
}

export type ItemDomain = 'fashion' | 'homedecor';

export const garmentKinds = ['upper body', 'lower body', 'full body', 'footwear'] as const;
export const accessoryLabels = ['handbag', 'backpack', 'tie', 'umbrella', 'suitcase'] as const;
export const decorLabels = [
  'chair', 'couch', 'bed', 'dining table', 'bench', 'potted plant', 'vase', 'clock', 'book', 'tv', 'laptop', 'teddy bear',
  'refrigerator', 'oven', 'microwave', 'toaster', 'sink', 'toilet', 'bowl', 'cup', 'wine glass', 'bottle',
] as const;

/** Keypoints under this score are not used. */
const keypointMinProb = 0.3;
const detectionMinProb = 0.3;
/** Share of the photo an item must cover to be chosen when the record names no kind. */
const minShare = 0.02;

export const boxArea = (b: Box) => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);

function clip(b: [number, number, number, number], w: number, h: number): Box {
  const x0 = Math.max(0, Math.min(w, Math.round(b[0])));
  const y0 = Math.max(0, Math.min(h, Math.round(b[1])));
  return [x0, y0, Math.max(x0, Math.min(w, Math.round(b[2]))), Math.max(y0, Math.min(h, Math.round(b[3])))];
}

/**
 * A region garment-wide (0.3 of its height scale, `scale`) that the frame's side cut below it: what is left is no
 * garment. One narrow before the cut (a person seen side-on) is not made a sliver by a few pixels trimmed (h248).
 */
function cutToSliver(unclippedWidth: number, box: Box, scale: number): boolean {
  return box[2] - box[0] < 0.3 * scale && unclippedWidth >= 0.3 * scale;
}

function spanOf(points: { x: number; y: number }[], padX: number, padY = 0): [number, number, number, number] | undefined {
  if (!points.length) return undefined;
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  return [Math.min(...xs) - padX, Math.min(...ys) - padY, Math.max(...xs) + padX, Math.max(...ys) + padY];
}

/**
 * Garment regions of one person from their pose (keypoints in pixels of the stored image):
 * upper body from the shoulders to the hips across the arms, lower body from the hips to the
 * ankles (or knees), full body from the shoulders down, footwear around the ankles. Regions whose
 * keypoints are not seen are left out. The caller decides between full body and upper + lower.
 */
export function poseRegions(keypoints: readonly PoseKeypoint[], prob: number, width: number, height: number, personBox?: Box): Item[] {
  const at = (...parts: string[]) => keypoints.filter((k) => parts.includes(k.part) && k.prob >= keypointMinProb);
  const shoulders = at('leftShoulder', 'rightShoulder');
  const hips = at('leftHip', 'rightHip');
  const arms = at('leftElbow', 'rightElbow', 'leftWrist', 'rightWrist');
  const knees = at('leftKnee', 'rightKnee');
  const ankles = at('leftAnkle', 'rightAnkle');
  const items: Item[] = [];
  const meanY = (ps: PoseKeypoint[]) => ps.reduce((s, p) => s + p.y, 0) / ps.length;
  const torso = shoulders.length && hips.length ? Math.max(1, meanY(hips) - meanY(shoulders)) : 0;
  const widthOf = (ps: PoseKeypoint[]) => (ps.length > 1 ? Math.max(...ps.map((p) => p.x)) - Math.min(...ps.map((p) => p.x)) : torso * 0.5);
  const pad = (ps: PoseKeypoint[]) => 0.1 * Math.max(widthOf(ps), torso * 0.4);
  let upper: Box | undefined;
  let lower: Box | undefined;
  if (torso > 0) {
    const ps = [...shoulders, ...hips, ...arms];
    const s = spanOf(ps, pad(ps))!;
    const box = clip([s[0], meanY(shoulders) - 0.1 * torso, s[2], Math.max(...hips.map((p) => p.y))], width, height);
    // a person cut off by the frame's side leaves a sliver along it, not a garment (h242: 24 px of a 428 px dress,
    // coloured by the backdrop), as a leg cut off under the hips does below; a person seen side-on, narrow in full
    // view, is not cut (h247)
    if (!cutToSliver(s[2] - s[0], box, torso)) {
      upper = box;
      items.push({ name: 'upper body', prob, box: upper });
    }
  } else if (shoulders.length && personBox && personBox[3] > meanY(shoulders)) {
    // Waist-up photos: no hip in frame, so the top runs from the shoulders to the person's box
    // bottom (the frame's edge, usually), across the arms.
    const ps = [...shoulders, ...arms];
    const across = Math.max(widthOf(shoulders), (personBox[2] - personBox[0]) * 0.5);
    const s = spanOf(ps, 0.1 * across)!;
    const drop = personBox[3] - meanY(shoulders);
    const box = clip([s[0], meanY(shoulders) - 0.05 * drop, s[2], personBox[3]], width, height);
    if (!cutToSliver(s[2] - s[0], box, Math.min(drop, across * 2))) {
      upper = box;
      items.push({ name: 'upper body', prob, box: upper });
    }
  }
  const legEnd = ankles.length ? ankles : knees;
  if (hips.length && legEnd.length) {
    const ps = [...hips, ...knees, ...ankles];
    const s = spanOf(ps, pad(ps))!;
    const box = clip([s[0], Math.min(...hips.map((p) => p.y)), s[2], Math.max(...legEnd.map((p) => p.y)) + (ankles.length ? 0.05 * torso : 0)], width, height);
    // Legs cut off by the frame leave a sliver under the hips, not a garment; so do legs the frame's side cuts (h248)
    if ((!torso || box[3] - box[1] >= 0.3 * torso) && !(torso && cutToSliver(s[2] - s[0], box, torso))) {
      lower = box;
      items.push({ name: 'lower body', prob, box: lower });
    }
  }
  if (upper && lower) items.push({ name: 'full body', prob, box: [Math.min(upper[0], lower[0]), upper[1], Math.max(upper[2], lower[2]), lower[3]] });
  if (ankles.length) {
    const shin = knees.length ? Math.max(1, meanY(ankles) - meanY(knees)) : Math.max(1, torso * 0.6);
    const s = spanOf(ankles, 0.25 * shin)!;
    items.push({ name: 'footwear', prob, box: clip([s[0], s[1] - 0.1 * shin, s[2], s[3] + 0.35 * shin], width, height) });
  }
  return items.filter((i) => boxArea(i.box) > 0);
}

/**
 * Where a pose garment's colour is read: the middle of its region, kept whole. A garment box
 * from the skeleton holds arms, skin, hair and the neighbours at its edges, and the background
 * estimate from the band outside it (made for an object on a backdrop) reads those people too;
 * the middle of a torso or of the thighs is the garment. Other items: their box, as detected.
 */
export function colorRegion(item: Item): { box: Box; keepBackground: boolean } {
  const core = garmentCore[item.name];
  if (!core) return { box: item.box, keepBackground: false };
  const [x0, y0, x1, y1] = item.box;
  const w = x1 - x0;
  const h = y1 - y0;
  const [fx0, fy0, fx1, fy1] = core;
  return { box: [x0 + fx0 * w, y0 + fy0 * h, x0 + fx1 * w, y0 + fy1 * h], keepBackground: true };
}

const garmentCore: Record<string, Box> = {
  'upper body': [0.25, 0.15, 0.75, 0.85],
  'lower body': [0.2, 0.05, 0.8, 0.5],
  'full body': [0.3, 0.1, 0.7, 0.6],
};

/** The detector's own items of a domain: accessories for fashion, furniture and decor for home decor. */
export function detectedItems(objects: readonly Detection[], domain: ItemDomain): Item[] {
  const labels: readonly string[] = domain === 'fashion' ? accessoryLabels : decorLabels;
  return objects.filter((o) => o.prob >= detectionMinProb && labels.includes(o.name)).map((o) => ({ name: o.name, prob: o.prob, box: o.bound_box }));
}

/** Items largest first; the whole image as one item when nothing was found. */
export function withWholeImage(items: Item[], width: number, height: number): Item[] {
  const sorted = [...items].sort((a, b) => boxArea(b.box) - boxArea(a.box));
  return sorted.length ? sorted : [{ name: 'item', prob: 1, box: [0, 0, width, height] }];
}

/**
 * The item a record is stored or searched by (spec rule 2): the largest of the kinds its
 * categories name (none when they name no kind the server knows); the largest of all when it
 * names no category (`wanted` undefined; if it covers 2 % of the photo); undefined otherwise
 * (the caller then takes the whole image).
 */
export function chooseItem(items: readonly Item[], wanted: readonly string[] | undefined, imageArea?: number): Item | undefined {
  // Unasked, an item under 2 % of the photo (a tie in a group photo) does not stand for it.
  if (wanted === undefined) return items[0] && (!imageArea || boxArea(items[0].box) >= minShare * imageArea) ? items[0] : undefined;
  return items.find((i) => wanted.includes(i.name));
}
