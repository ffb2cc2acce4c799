import { quadFromSides, robustLine, type Line, type Point, type Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/** Least colour step (RGB distance per pixel, after light smoothing) that is an edge. */
const MIN_STEP = 10;
/** Share of a side's samples that must agree on one line for the photo's edge to replace the network's. */
const MIN_AGREE = 0.35;

/**
 * The network's outline moved onto the photo's own edges: across each side, at its decoded
 * resolution, the colour step nearest the network's line (within 2 % of the card's width,
 * preferring near over strong, so a slab's inner well or a printed frame a few per cent away is
 * not taken), located to a fraction of a pixel; the points of a side fitted as one line with
 * outliers dropped; corners where lines meet. A side whose edge is not clear keeps the
 * network's line.
 */
export function fitCardEdges(img: RgbPixels, rough: Quad): { quad: Quad; fitted: [boolean, boolean, boolean, boolean] } {
  const width = (dist(rough[0], rough[1]) + dist(rough[3], rough[2])) / 2;
  const height = (dist(rough[0], rough[3]) + dist(rough[1], rough[2])) / 2;
  const short = Math.min(width, height);
  const reach = Math.max(3, short * 0.02);
  const sigma = Math.max(1.5, short * 0.008);
  const lines: Line[] = [];
  const fitted: boolean[] = [];
  for (let s = 0; s < 4; s++) {
    const a = rough[s]!;
    const b = rough[(s + 1) % 4]!;
    const len = dist(a, b);
    const d: Point = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
    const n: Point = [d[1], -d[0]];
    const pts: Point[] = [];
    let samples = 0;
    const stride = Math.max(1, len / 160);
    for (let t = len * 0.12; t <= len * 0.88; t += stride) {
      samples++;
      const px = a[0] + d[0] * t;
      const py = a[1] + d[1] * t;
      const hit = stepAlong(img, px, py, d, n, reach, sigma);
      if (hit !== null) pts.push([px + n[0] * hit, py + n[1] * hit]);
    }
    const line = pts.length >= 8 ? robustLine(pts) : null;
    if (line && line.kept >= samples * MIN_AGREE) {
      lines.push(line.line);
      fitted.push(true);
    } else {
      lines.push({ p: a, d });
      fitted.push(false);
    }
  }
  if (!fitted.some(Boolean)) return { quad: rough, fitted: [false, false, false, false] };
  const quad = quadFromSides(lines);
  // Lines that meet far from the network's corners are a fit gone wrong: keep the network's outline.
  if (!quad || quad.some((p, i) => dist(p, rough[i]!) > short * 0.05)) return { quad: rough, fitted: [false, false, false, false] };
  return { quad, fitted: fitted as [boolean, boolean, boolean, boolean] };
}

const dist = (a: Point, b: Point) => Math.hypot(b[0] - a[0], b[1] - a[1]);

/** Offset along n of the colour step nearest 0 (weighed by strength), or null. */
function stepAlong(img: RgbPixels, px: number, py: number, d: Point, n: Point, reach: number, sigma: number): number | null {
  const step = 0.5;
  const count = Math.floor((2 * reach) / step) + 1;
  const r = new Float32Array(count);
  const g = new Float32Array(count);
  const b = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const o = -reach + i * step;
    // three samples along the side smooth out print texture and noise
    let sr = 0;
    let sg = 0;
    let sb = 0;
    for (const k of [-1, 0, 1]) {
      const [cr, cg, cb] = sample(img, px + n[0] * o + d[0] * k, py + n[1] * o + d[1] * k);
      sr += cr;
      sg += cg;
      sb += cb;
    }
    r[i] = sr / 3;
    g[i] = sg / 3;
    b[i] = sb / 3;
  }
  let best = -1;
  let bestScore = 0;
  const grads = new Float32Array(count);
  for (let i = 1; i < count - 1; i++) grads[i] = Math.hypot(r[i + 1]! - r[i - 1]!, g[i + 1]! - g[i - 1]!, b[i + 1]! - b[i - 1]!);
  for (let i = 2; i < count - 2; i++) {
    const v = grads[i]!;
    if (v < MIN_STEP || v < grads[i - 1]! || v < grads[i + 1]!) continue;
    const o = -reach + i * step;
    const score = v * Math.exp(-0.5 * (o / sigma) ** 2);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  if (best < 0) return null;
  const den = grads[best - 1]! - 2 * grads[best]! + grads[best + 1]!;
  const frac = den !== 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (grads[best - 1]! - grads[best + 1]!)) / den)) : 0;
  return -reach + (best + frac) * step;
}

function sample(img: RgbPixels, x: number, y: number): [number, number, number] {
  const w = img.width;
  const h = img.height;
  const xi = Math.max(0, Math.min(w - 2, Math.floor(x)));
  const yi = Math.max(0, Math.min(h - 2, Math.floor(y)));
  const fx = Math.max(0, Math.min(1, x - xi));
  const fy = Math.max(0, Math.min(1, y - yi));
  const i = (yi * w + xi) * 3;
  const j = i + w * 3;
  const d = img.data;
  return [bilinear(d, i, j, 0, fx, fy), bilinear(d, i, j, 1, fx, fy), bilinear(d, i, j, 2, fx, fy)];
}

// module level, not a closure per sample: tsx names every closure it creates (`__name`), a cost per call here
function bilinear(d: Uint8Array, i: number, j: number, c: number, fx: number, fy: number): number {
  return (d[i + c]! * (1 - fx) + d[i + 3 + c]! * fx) * (1 - fy) + (d[j + c]! * (1 - fx) + d[j + 3 + c]! * fx) * fy;
}
