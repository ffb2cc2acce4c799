import { chroma, colorDistance, CORNER_RADIUS, lightness, medianColor, type Rgb } from '../cards/card-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

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

/** Corner squares reach this share of the width along each side; edges run between them. */
export const CORNER_REACH = 0.08;
/** Depth of the band examined, as a share of the width. */
const BAND = 0.022;
/** A pixel reads as lost card only within this RGB distance of the table around the corner. */
const LOST_MATCH = 45;
/** Band pixels this close to the outline (px) start the damage that counts. */
const OUTLINE_RING = 3;
const NEIGHBOURS = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]] as const;

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

  // Median colour of the band's inner half over a box: the border as printed right there. A
  // metallic or shaded border changes tone along the card (SV151's silver is 195 mid-side and 150
  // at the corners), so each region is also compared with the border next to it.
  const localBorder = (boxes: [[number, number], [number, number]][]): Rgb | null => {
    const cs: Rgb[] = [];
    for (const [xs, ys] of boxes) {
      for (let y = Math.max(0, Math.floor(ys[0])); y < Math.min(H, Math.ceil(ys[1])); y++) {
        for (let x = Math.max(0, Math.floor(xs[0])); x < Math.min(W, Math.ceil(xs[1])); x++) {
          const d = inside(x + 0.5, y + 0.5);
          if (d >= band * 0.5 && d <= band) cs.push(px(x, y));
        }
      }
    }
    return cs.length >= 6 ? medianColor(cs) : null;
  };

  const classify = (xs: [number, number], ys: [number, number], background: Rgb | null, local: Rgb | null) => {
    const refs = local ? [border, local] : [border];
    const refLightness = Math.max(...refs.map(lightness));
    const refChroma = Math.max(...refs.map(chroma));
    const x0 = Math.max(0, Math.floor(xs[0]));
    const y0 = Math.max(0, Math.floor(ys[0]));
    const bw = Math.min(W, Math.ceil(xs[1])) - x0;
    const bh = Math.min(H, Math.ceil(ys[1])) - y0;
    if (bw <= 0 || bh <= 0) return { whitening: 0, loss: 0 };
    // 0 outside the band, 1 sound, 2 whitened, 3 lost.
    const kind = new Uint8Array(bw * bh);
    const seeds: number[] = [];
    let n = 0;
    for (let j = 0; j < bh; j++) {
      for (let i = 0; i < bw; i++) {
        const x = x0 + i;
        const y = y0 + j;
        const d = inside(x + 0.5, y + 0.5);
        // The outermost pixel blends card and background in any photo: skip it.
        if (d < 1 || d > band) continue;
        n++;
        const c = px(x, y);
        const toBorder = local ? Math.min(colorDistance(c, border), colorDistance(c, local)) : colorDistance(c, border);
        const toBackground = background ? colorDistance(c, background) : Infinity;
        // Light grey stock first: on a light table a chip and worn stock look alike, and the
        // milder reading is the one the photo supports.
        let k = 1;
        if (lightness(c) > 165 && lightness(c) - refLightness > 25 && chroma(c) < Math.max(25, refChroma * 0.6)) k = 2;
        // Lost: far from the border and plainly the table's colour, not merely nearer to it.
        else if (toBorder > 40 && toBackground < toBorder && toBackground < LOST_MATCH) k = 3;
        kind[j * bw + i] = k;
        if (k > 1 && d < OUTLINE_RING) seeds.push(j * bw + i);
      }
    }
    // Wear starts at the card's outline: only damage joined to it counts. White print inside a
    // border (SV151's copyright line, set symbols) is ringed by border colour and stays out.
    let white = 0;
    let lost = 0;
    const seen = new Uint8Array(bw * bh);
    for (const s of seeds) seen[s] = 1;
    while (seeds.length) {
      const p = seeds.pop()!;
      if (kind[p] === 2) white++;
      else lost++;
      const i = p % bw;
      const j = (p - i) / bw;
      for (const [di, dj] of NEIGHBOURS) {
        const a = i + di;
        const b = j + dj;
        if (a < 0 || b < 0 || a >= bw || b >= bh) continue;
        const q = b * bw + a;
        if (!seen[q] && kind[q]! > 1) {
          seen[q] = 1;
          seeds.push(q);
        }
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
  // A corner's own border: the two sides next to it, one corner-reach further along, clear of
  // corner damage.
  const nextToCorner = (i: number): [[number, number], [number, number]][] => {
    const [fx, fy] = [i === 1 || i === 2, i === 2 || i === 3];
    const span = (far: boolean, len: number): [number, number] => (far ? [len - 2 * reach, len - reach] : [reach, 2 * reach]);
    const edge = (far: boolean, len: number): [number, number] => (far ? [len - band - 1, len] : [0, band + 1]);
    return [
      [span(fx, W), edge(fy, H)],
      [edge(fx, W), span(fy, H)],
    ];
  };
  const corners = cornerBoxes.map(([xs, ys], i) => finish(classify(xs, ys, bgs[i] ?? bgAny, localBorder(nextToCorner(i))))) as CardWear['corners'];

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
    const windows = edgeWindows(side);
    // Each window's own border: it and its neighbours, so one nick cannot set its reference.
    const parts = windows.map(([xs, ys], k) => classify(xs, ys, bgAny, localBorder(windows.slice(Math.max(0, k - 1), k + 2))));
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

