import type { Point, Quad } from '../src/vision/geometry/plane-geometry.ts';

/**
 * How the card-detector bench and its dev scripts (scripts/card-detector-dev.ts, card-detector-enlarged-dev.ts) judge an
 * outline against a labelled card: one definition, so that a dev figure counts as the bench counts.
 */
const side = (a: Point, b: Point) => Math.hypot(b[0] - a[0], b[1] - a[1]);

/** The mean width of two opposite sides, the top and bottom. */
export const widthOf = (q: Quad) => (side(q[0], q[1]) + side(q[3], q[2])) / 2;

/** The shorter of the outline's mean widths: a card's width whichever way up it lies. */
export const shortSide = (q: Quad) => Math.min(widthOf(q), (side(q[0], q[3]) + side(q[1], q[2])) / 2);

export const centre = (q: readonly Point[]): Point => [q.reduce((s, p) => s + p[0], 0) / q.length, q.reduce((s, p) => s + p[1], 0) / q.length];

export const area = (q: Quad) => Math.abs(q.reduce((s, p, i) => s + p[0] * q[(i + 1) % 4]![1] - q[(i + 1) % 4]![0] * p[1], 0) / 2);

/** A card found: the outline's centre within a quarter of the card's width of the label's, its width within a quarter. */
export const sameCard = (found: Quad, truth: Quad) => side(centre(found), centre(truth)) < 0.25 * shortSide(truth) && Math.abs(shortSide(found) / shortSide(truth) - 1) < 0.25;

/** Each corner's distance from the truth, % of the card's width (its short side), in the cyclic order that fits best. */
export function cornerErrors(found: readonly Point[], truth: Quad): number[] {
  const w = shortSide(truth);
  let best: number[] = [];
  for (let r = 0; r < 4; r++) {
    const errs = truth.map((t, k) => (100 * side(found[(k + r) % 4]!, t)) / w);
    if (!best.length || Math.max(...errs) < Math.max(...best)) best = errs;
  }
  return best;
}

/**
 * The photo's region of a labelled card's bounding box widened on each side by `margin` of the card's short side (a
 * shop's tight crop); null where that leaves a `width` × `height` photo.
 */
export function cutAround(card: Quad, margin: number, width: number, height: number): { left: number; top: number; width: number; height: number } | null {
  const grow = margin * shortSide(card);
  const left = Math.floor(Math.min(...card.map((c) => c[0])) - grow);
  const top = Math.floor(Math.min(...card.map((c) => c[1])) - grow);
  const right = Math.ceil(Math.max(...card.map((c) => c[0])) + grow);
  const bottom = Math.ceil(Math.max(...card.map((c) => c[1])) + grow);
  return left < 0 || top < 0 || right > width || bottom > height ? null : { left, top, width: right - left, height: bottom - top };
}
