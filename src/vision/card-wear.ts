import { colorDistance, medianColor, type Rgb } from './card-geometry.ts';
import type { RgbPixels } from './tfjs-runtime.ts';

/**
 * Corner and edge wear on an upright card (docs/grading.md): along the card's outline, a band of
 * the card's own border is compared with the border colour measured on the same card. A pixel of
 * the band is *whitened* when it is much lighter and greyer than the border (worn print shows the
 * white card stock), and *lost* when it looks like what the card lies on (a chip or a bent-off
 * corner: the ideal rounded outline is no longer card).
 */
export interface Wear {
  /** Share of the band whitened, 0–1. */
  whitening: number;
  /** Share of the band that is not card any more, 0–1. */
  loss: number;
  grade: number;
}

export interface CardWear {
  corners: [Wear, Wear, Wear, Wear];
  /** Upper, right, down, left. */
  edges: [Wear, Wear, Wear, Wear];
}


/** Corner radius of a standard card (3 mm of 63 mm), as a share of its width. */
export const CORNER_RADIUS = 3 / 63;
/** Corner squares reach this share of the width along each side; edges run between them. */
export const CORNER_REACH = 0.08;
/** Depth of the band examined, as a share of the width. */
const BAND = 0.022;

/**
 * 1–10 from the damage shares: 1 + 9·e^(−2.5·(whitening + 1.5·loss)). Strictly lower with more
 * damage, never clipped: 10 % whitened is 8.0, 30 % 5.3, 60 % 3.0; lost shape weighs 1.5×.
 */
export function wearGrade(whitening: number, loss: number): number {
  return Math.round((1 + 9 * Math.exp(-2.5 * (whitening + 1.5 * loss))) * 10) / 10;
}

/**
 * `margins`: the printed border's width on each side [left, top, right, bottom] in the card's
 * pixels, when centering measured it. The band then stays inside the border, and the border
 * colour is read along the middle of each side's border: on a card with a thin border the fixed
 * depths would reach into the art, whose colour is not the border's.
 */
export function measureWear(card: RgbPixels, margins?: readonly [number, number, number, number]): CardWear {
  const { width: W, height: H, data } = card;
  const R = W * CORNER_RADIUS;
  const band = Math.max(2, Math.min(W * BAND, margins ? 0.75 * Math.min(...margins) : Infinity));
  const reach = W * CORNER_REACH;
  const px = (x: number, y: number): Rgb => {
    const i = (y * W + x) * 3;
    return [data[i]!, data[i + 1]!, data[i + 2]!];
  };
  // Distance from a point inside the rounded rectangle to its outline (negative outside).
  const inside = (x: number, y: number): number => {
    const cx = Math.min(Math.max(x, R), W - R);
    const cy = Math.min(Math.max(y, R), H - R);
    if (cx !== x && cy !== y) return R - Math.hypot(x - cx, y - cy);
    return Math.min(x, y, W - x, H - y);
  };

  // The border colour: median of a strip inside each side's middle, deeper than the band.
  const strip: Rgb[] = [];
  const [il, it, ir, ib] = (margins ?? [band * 3, band * 3, band * 3, band * 3]).map((m) => Math.max(1, Math.round(m / 2)));
  for (let t = 0.3; t <= 0.7; t += 0.01) {
    strip.push(px(il!, Math.round(H * t)), px(W - 1 - ir!, Math.round(H * t)), px(Math.round(W * t), it!), px(Math.round(W * t), H - 1 - ib!));
  }
  const border = medianColor(strip);

  const classify = (xs: [number, number], ys: [number, number], background: Rgb | null) => {
    let n = 0;
    let white = 0;
    let lost = 0;
    for (let y = Math.max(0, Math.floor(ys[0])); y < Math.min(H, Math.ceil(ys[1])); y++) {
      for (let x = Math.max(0, Math.floor(xs[0])); x < Math.min(W, Math.ceil(xs[1])); x++) {
        const d = inside(x + 0.5, y + 0.5);
        // The outermost pixel blends card and background in any photo: skip it.
        if (d < 1 || d > band) continue;
        n++;
        const c = px(x, y);
        const toBorder = colorDistance(c, border);
        // Light grey stock first: on a light table a chip and worn stock look alike, and the
        // milder reading is the one the photo supports.
        if (lightness(c) > 165 && lightness(c) - lightness(border) > 25 && chroma(c) < Math.max(25, chroma(border) * 0.6)) white++;
        else if (background && toBorder > 40 && colorDistance(c, background) < toBorder) lost++;
      }
    }
    return n ? { whitening: white / n, loss: lost / n } : { whitening: 0, loss: 0 };
  };

  // What lies outside the card near each corner: the pixels outside its rounded outline.
  const backgroundNear = (x0: number, y0: number): Rgb | null => {
    const out: Rgb[] = [];
    for (let y = y0; y < y0 + Math.ceil(R); y++) {
      for (let x = x0; x < x0 + Math.ceil(R); x++) if (x >= 0 && y >= 0 && x < W && y < H && inside(x + 0.5, y + 0.5) < -1) out.push(px(x, y));
    }
    return out.length >= 6 ? medianColor(out) : null;
  };
  const bgs = [backgroundNear(0, 0), backgroundNear(W - Math.ceil(R), 0), backgroundNear(W - Math.ceil(R), H - Math.ceil(R)), backgroundNear(0, H - Math.ceil(R))];
  const bgAny = bgs.find((b) => b) ?? null;

  const cornerBoxes: [[number, number], [number, number]][] = [
    [[0, reach], [0, reach]],
    [[W - reach, W], [0, reach]],
    [[W - reach, W], [H - reach, H]],
    [[0, reach], [H - reach, H]],
  ];
  const corners = cornerBoxes.map(([xs, ys], i) => finish(classify(xs, ys, bgs[i] ?? bgAny))) as CardWear['corners'];

  // Edges: windows of one corner-reach along each side; the worst window counts as much as the mean.
  const edgeWindows = (side: number): [[number, number], [number, number]][] => {
    const len = side % 2 === 0 ? W : H;
    const out: [[number, number], [number, number]][] = [];
    for (let t = reach; t + reach <= len - reach + 1e-6; t += reach) {
      const along: [number, number] = [t, t + reach];
      if (side === 0) out.push([along, [0, band + 1]]);
      else if (side === 1) out.push([[W - band - 1, W], along]);
      else if (side === 2) out.push([along, [H - band - 1, H]]);
      else out.push([[0, band + 1], along]);
    }
    return out;
  };
  const edges = [0, 1, 2, 3].map((side) => {
    const parts = edgeWindows(side).map(([xs, ys]) => classify(xs, ys, bgAny));
    const mean = (f: (p: { whitening: number; loss: number }) => number) => parts.reduce((s, p) => s + f(p), 0) / Math.max(1, parts.length);
    const worst = (f: (p: { whitening: number; loss: number }) => number) => Math.max(0, ...parts.map(f));
    return finish({ whitening: (mean((p) => p.whitening) + worst((p) => p.whitening)) / 2, loss: (mean((p) => p.loss) + worst((p) => p.loss)) / 2 });
  }) as CardWear['edges'];
  return { corners, edges };
}

function finish(m: { whitening: number; loss: number }): Wear {
  const r = (x: number) => Math.round(x * 10000) / 10000;
  return { whitening: r(m.whitening), loss: r(m.loss), grade: wearGrade(m.whitening, m.loss) };
}

const lightness = (c: Rgb) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
const chroma = (c: Rgb) => Math.max(...c) - Math.min(...c);
