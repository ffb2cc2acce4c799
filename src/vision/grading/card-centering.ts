import { colorDistance, type Rgb } from '../cards/card-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { median } from '../../util/median.ts';

/**
 * Centering of an upright card (docs/grading.md): the printed border is found on each side as
 * the band of the side's own border color between the card's edge and the first lasting color
 * change, measured on many scanlines across the middle 60 % of the side.
 */
export interface Centering {
  /** Margins in pixels of the upright card: left, top, right, bottom. */
  pixels: [number, number, number, number];
  /** Each margin as a fraction of the card's width (left, right) or height (top, bottom). */
  offsets: [number, number, number, number];
  /** `55.0/45.0`: the left (top) margin's share of the two. */
  leftRight: string;
  topBottom: string;
  /** The inner frame (the art box), [xmin, ymin, xmax, ymax] in upright-card pixels. */
  boundBox: [number, number, number, number];
  /** The larger share of the worse axis, 50–100. */
  worstShare: number;
}

export type CenteringOutcome = { measured: Centering } | { unmeasurable: string };

/** Skipped at the card's edge: the cut, the rounded corners' shadow and the warp's blur. */
const EDGE_INSET = 0.006;
/** A border is at most this share of the card's width or height. */
const MAX_BORDER = 0.22;
/** Share of lines on which the inner edge must be found. */
const MIN_LINES = 0.6;
/** Share of lines that must agree on an edge deeper than most lines' first change for it to be the edge (print on the border stops the rest). */
const MIN_DEEPER = 0.25;
/** How tightly they must agree: their quartiles within this share of the card's width. */
const DEEPER_IQR = 0.005;
/** How far past the first changes (their lower quartile) such an edge lies: print is 1–2 % of a card's width tall. */
const PRINT_MIN = 0.01;
const PRINT_MAX = 0.025;

export function measureCentering(card: RgbPixels): CenteringOutcome {
  const { width: W, height: H } = card;
  const px = (x: number, y: number): Rgb => {
    const i = (Math.round(y) * W + Math.round(x)) * 3;
    return [card.data[i]!, card.data[i + 1]!, card.data[i + 2]!];
  };
  const inset = Math.max(2, Math.round(W * EDGE_INSET));
  // Walk inward from each side along lines across the middle 60 % of that side.
  const sides = [
    { name: 'left', len: H, depth: W, at: (along: number, d: number) => px(d, along) },
    { name: 'top', len: W, depth: H, at: (along: number, d: number) => px(along, d) },
    { name: 'right', len: H, depth: W, at: (along: number, d: number) => px(W - 1 - d, along) },
    { name: 'bottom', len: W, depth: H, at: (along: number, d: number) => px(along, H - 1 - d) },
  ];
  const margins: number[] = [];
  for (const side of sides) {
    const strip = Math.max(3, Math.round(W * 0.012));
    const lines: number[] = [];
    for (let a = side.len * 0.2; a <= side.len * 0.8; a += Math.max(1, side.len / 200)) lines.push(Math.round(a));
    // The side's border color: median over a thin strip just inside the edge.
    // Each line's own border colour (median of its strip): a border printed as a gradient along
    // the side (the metallic frames of recent cards) is uniform across its depth, not along it.
    const locals = lines.map((a) => {
      const strip_: Rgb[] = [];
      for (let d = inset; d < inset + strip; d++) strip_.push(side.at(a, d));
      const color: Rgb = [0, 1, 2].map((c) => median(strip_.map((x) => x[c]!))) as Rgb;
      return { color, spread: median(strip_.map((x) => colorDistance(x, color))) };
    });
    const spread = median(locals.map((l) => l.spread));
    if (spread > 18) return { unmeasurable: `no uniform printed border along the ${side.name} edge (full-art or borderless card): centering is not measured` };
    const threshold = Math.max(28, spread * 5);
    const maxDepth = Math.round(side.depth * MAX_BORDER);
    const isBorder = (li: number, d: number) => colorDistance(side.at(lines[li]!, d), locals[li]!.color) <= threshold;
    const changeAt = (li: number, d: number) => !isBorder(li, d) && !isBorder(li, d + 2) && !isBorder(li, d + 4);
    // Each line's first lasting change (a speck is not one: the next pixels differ too).
    const scan = (): number[] => {
      const found: number[] = [];
      for (const [li, a] of lines.entries()) {
        for (let d = inset + strip; d < maxDepth; d++) {
          if (!changeAt(li, d)) continue;
          found.push(subPixel(side.at, a, d, locals[li]!.color));
          break;
        }
      }
      return found;
    };
    // Print on the border (the copyright line along a Pokémon card's bottom, an artist's name)
    // stops the lines it crosses early, at one depth; the rest run on to the inner edge just past
    // it. When a quarter of the lines or more agree tightly on such an edge, that is the edge.
    // Not further in: a card body of the border's colour (an Electric card's yellow, a silver
    // frame on a silver body) lets lines run on to the art box, which is straight too.
    const found = scan();
    const sorted = [...found].sort((x, y) => x - y);
    const first = sorted[Math.floor(sorted.length * 0.25)] ?? 0;
    const deeper = sorted.filter((f) => f > first + W * PRINT_MIN && f <= first + W * PRINT_MAX);
    const tight = deeper.length >= lines.length * MIN_DEEPER && deeper[Math.floor(deeper.length * 0.75)]! - deeper[Math.floor(deeper.length * 0.25)]! <= W * DEEPER_IQR;
    const edge = tight ? { depth: median(deeper) } : innerEdge(found, lines.length, W);
    if (edge === 'too few') return { unmeasurable: `the inner edge of the ${side.name} border was not found on enough of the card: centering is not measured` };
    if (edge === 'not straight') return { unmeasurable: `the ${side.name} border's inner edge is not straight (art or text reaches into it): centering is not measured` };
    const m = edge.depth;
    margins.push(m);
  }
  const [l, t, r, b] = margins as [number, number, number, number];
  const share = (a: number, c: number) => (100 * a) / (a + c);
  const lr = share(l, r);
  const tb = share(t, b);
  const fmt = (x: number) => `${x.toFixed(1)}/${(100 - x).toFixed(1)}`;
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return {
    measured: {
      pixels: [round2(l), round2(t), round2(r), round2(b)],
      offsets: [l / W, t / H, r / W, b / H].map((x) => Math.round(x * 10000) / 10000) as [number, number, number, number],
      leftRight: fmt(lr),
      topBottom: fmt(tb),
      boundBox: [round2(l), round2(t), round2(W - r), round2(H - b)],
      worstShare: Math.max(lr, 100 - lr, tb, 100 - tb),
    },
  };
}

/**
 * Centering grade from the worse axis' larger share (docs/grading.md): linear between the
 * table's points, so a card further off-centre always grades lower. The front table follows the
 * grading companies' published tolerances (55/45 for a 10); backs are allowed more (75/25).
 */
const frontTable: [number, number][] = [[55, 10], [60, 9], [65, 8], [70, 7], [75, 6], [80, 5], [85, 4], [90, 3], [95, 2], [100, 1]];
const backTable: [number, number][] = [[75, 10], [90, 9], [95, 6], [100, 1]];

export function centeringGrade(worstShare: number, side: 'front' | 'back'): number {
  const table = side === 'front' ? frontTable : backTable;
  if (worstShare <= table[0]![0]) return 10;
  for (let i = 1; i < table.length; i++) {
    const [x0, g0] = table[i - 1]!;
    const [x1, g1] = table[i]!;
    if (worstShare <= x1) return Math.round((g0 + ((worstShare - x0) / (x1 - x0)) * (g1 - g0)) * 10) / 10;
  }
  return 1;
}

/** The inner edge's depth from each line's change: their median where they agree. */
function innerEdge(found: number[], lines: number, W: number): { depth: number } | 'too few' | 'not straight' {
  if (found.length < lines * MIN_LINES) return 'too few';
  const sorted = [...found].sort((x, y) => x - y);
  const iqr = sorted[Math.floor(sorted.length * 0.75)]! - sorted[Math.floor(sorted.length * 0.25)]!;
  if (iqr > W * 0.02) return 'not straight';
  return { depth: median(found) };
}

/** Sub-pixel: where the colour is halfway between the border and what follows the change at d. */
function subPixel(at: (along: number, d: number) => Rgb, a: number, d: number, border: Rgb): number {
  const half = colorDistance(at(a, d + 3), border) / 2;
  for (let k = d - 2; k <= d + 1; k++) {
    const d0 = colorDistance(at(a, k), border);
    const d1 = colorDistance(at(a, k + 1), border);
    if (d0 <= half && d1 > half) return k + (half - d0) / (d1 - d0) + 0.5;
  }
  return d;
}
