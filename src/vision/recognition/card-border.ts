import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { srgbToLab } from '../models/dominant-colors.ts';
import { median } from '../../util/median.ts';

/**
 * The colour of a card's printed border (docs/recognition.md "Border colour"). Printings of one
 * Pokémon name often differ in little else a small photo shows: a regular card before Scarlet &
 * Violet has a yellow border, its V, GX and full-art printings and every Scarlet & Violet card a
 * silver or dark one. On the 103 train-split photos the ring's CIELAB b* was 31–82 on every
 * yellow-bordered card whose border was not washed out (one, overexposed, 16) and −14 to 8 on
 * the silver and dark ones but one (20, a silver border on a warm wooden table), at full size and
 * with the photo shrunk to 400 px alike.
 */
export interface BorderLook {
  /** `yellow`, `neutral` (silver, grey, black, white), or null where the ring is neither surely. */
  colour: 'yellow' | 'neutral' | null;
  /**
   * A neutral ring's lightness: `dark` (a black border: Magic's usual one) to {@link DARK_TO} L*,
   * `light` (a white one: Magic's core-set reprints to 2004) from {@link LIGHT_FROM}; null between,
   * or for a colour.
   */
  tone: 'light' | 'dark' | null;
  /** The ring's median CIELAB L* (0–100), a* and b*. */
  lab: [number, number, number];
}

/**
 * b* from which a border is yellow (with |a*| at most half of it: a red is not), and up to which
 * (with |a*| as small) it is neutral.
 */
export const YELLOW_FROM = 25;
export const NEUTRAL_TO = 10;
/**
 * L* up to which a neutral ring is dark, and from which it is light. The 20 Magic reference scans
 * with a catalog entry here, all black-bordered, gave 0–12; a white border photographed under a
 * lamp stays well above 65 and a black one under glare below 35.
 */
export const DARK_TO = 35;
export const LIGHT_FROM = 65;

/**
 * Where the ring is sampled, as shares of the upright card's width from its edges: inside the
 * outline's own error and the rounded corners' cut, outside the printed frame (a Pokémon border is
 * about 4.5 % of the width). Only the middle 60 % of each side: corners are where outlines err.
 */
const RING = [0.012, 0.035] as const;
const SPAN = [0.2, 0.8] as const;

/** The median L*, a*, b* of the card's pixels in a rectangle (x0 ≤ x < x1, y0 ≤ y < y1). */
function stripLab(card: RgbPixels, x0: number, x1: number, y0: number, y1: number): [number, number, number] {
  const L: number[] = [];
  const A: number[] = [];
  const B: number[] = [];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * card.width + x) * 3;
      const [l, a, b] = srgbToLab(card.data[i]!, card.data[i + 1]!, card.data[i + 2]!);
      L.push(l);
      A.push(a);
      B.push(b);
    }
  }
  return [median(L), median(A), median(B)];
}

/** The border's colour on a card warped upright (card-geometry.ts `warpCard`), or null when the card is too small to have a ring. */
export function borderLook(card: RgbPixels): BorderLook | null {
  const { width: w, height: h } = card;
  const a = Math.round(w * RING[0]);
  const b = Math.round(w * RING[1]);
  if (b - a < 2) return null;
  const [s0, s1] = [Math.round(h * SPAN[0]), Math.round(h * SPAN[1])];
  const [t0, t1] = [Math.round(w * SPAN[0]), Math.round(w * SPAN[1])];
  const strips = [stripLab(card, a, b, s0, s1), stripLab(card, w - b, w - a, s0, s1), stripLab(card, t0, t1, a, b), stripLab(card, t0, t1, h - b, h - a)];
  const lab = [0, 1, 2].map((k) => median(strips.map((s) => s[k]!))) as [number, number, number];
  const colour = lab[2] >= YELLOW_FROM && Math.abs(lab[1]) <= lab[2] / 2 ? 'yellow' : lab[2] <= NEUTRAL_TO && Math.abs(lab[1]) <= NEUTRAL_TO ? 'neutral' : null;
  const tone = colour !== 'neutral' ? null : lab[0] <= DARK_TO ? 'dark' : lab[0] >= LIGHT_FROM ? 'light' : null;
  return { colour, tone, lab: lab.map((v) => Math.round(v * 10) / 10) as [number, number, number] };
}
