import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { srgbToLab } from '../models/dominant-colors.ts';
import { median, medianInPlace } from '../../util/median.ts';

/**
 * Whether a card's lower half is a plain text box or artwork (docs/recognition.md "Full art").
 * A name's regular printing and its illustration-rare or full-art printing share name, HP and (in
 * Scarlet & Violet) the silver border; on a listing photo the collector line is unreadable, but
 * the text box shows at any size: a regular card prints its attacks on a plain panel, a full-art
 * one over the picture.
 */
export interface LayoutLook {
  /** `framed` (a plain text box), `full` (artwork under the text), or null where the box is neither surely. */
  layout: 'framed' | 'full' | null;
  /** The share of the text box's blocks whose colour is the box's own (its median block's). */
  plain: number;
}

/**
 * Thresholds on `plain`, set on the SV151 reference scans (shrunk to 200 px: 153 of 153 regular
 * cards framed, none full; 34 of 42 illustration and ultra rares full, one framed) and the 102
 * train-split photos (`scripts/card-layout-dev.ts`): there a reverse holo's foil under glare reads
 * as artwork (4 XY cards and one BW card of 45 regular ones), and regular ex and V cards, their
 * artwork behind the text, read full too; hence identification counts a layout only where it
 * contradicts a printing's.
 */
export const FRAMED_FROM = 0.7;
export const FULL_TO = 0.4;

/** The text box, as shares of the upright card's width and height: below the artwork window, above the weakness line. */
const BOX_X = [0.1, 0.9] as const;
const BOX_Y = [0.6, 0.85] as const;
/** A block's side, in shares of the card's width: about a line of attack text high, so its median is the panel behind the letters. */
const BLOCK = 0.03;
/** CIELAB distance within which a block's colour is the panel's (a type-coloured gradient moves less than this across a box). */
const SAME = 12;

/** The text box's layout on a card warped upright (card-geometry.ts `warpCard`), or null for an image under 100 px wide (the reader warps cards to 500). */
export function layoutLook(card: RgbPixels): LayoutLook | null {
  const { width: w, height: h } = card;
  const side = Math.round(w * BLOCK);
  if (side < 3) return null;
  const [x0, x1] = [Math.round(w * BOX_X[0]), Math.round(w * BOX_X[1])];
  const [y0, y1] = [Math.round(h * BOX_Y[0]), Math.round(h * BOX_Y[1])];
  const blocks: [number, number, number][] = [];
  // every second pixel of every second row: a block's median needs no more, and this runs per card read
  const per = Math.ceil(side / 2) ** 2;
  const L = new Float64Array(per);
  const A = new Float64Array(per);
  const B = new Float64Array(per);
  for (let by = y0; by + side <= y1; by += side) {
    for (let bx = x0; bx + side <= x1; bx += side) {
      let n = 0;
      for (let y = by; y < by + side; y += 2) {
        for (let x = bx; x < bx + side; x += 2) {
          const i = (y * w + x) * 3;
          const [l, a, b] = srgbToLab(card.data[i]!, card.data[i + 1]!, card.data[i + 2]!);
          L[n] = l;
          A[n] = a;
          B[n++] = b;
        }
      }
      blocks.push([medianInPlace(L.subarray(0, n)), medianInPlace(A.subarray(0, n)), medianInPlace(B.subarray(0, n))]);
    }
  }
  if (blocks.length === 0) return null;
  const centre = [0, 1, 2].map((k) => median(blocks.map((b) => b[k]!)));
  const near = blocks.filter((b) => Math.hypot(b[0] - centre[0]!, b[1] - centre[1]!, b[2] - centre[2]!) <= SAME).length;
  const plain = near / blocks.length;
  return { layout: plain >= FRAMED_FROM ? 'framed' : plain <= FULL_TO ? 'full' : null, plain: Math.round(plain * 100) / 100 };
}
