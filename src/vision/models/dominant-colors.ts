/**
 * Dominant colours of an object: k-means in CIE L*u*v* over the object's pixels, each cluster
 * named from `color-palette.ts`. docs/colors.md has the maths, the background rule and how the
 * number of colours is chosen; the constants below are the ones it quotes.
 */
import { colorPalette } from './color-palette.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { seededRandom } from '../../util/seeded-random.ts';

export type Luv = [number, number, number];

export interface DominantColor {
  /** The cluster's mean colour as sRGB `#rrggbb` (the L*u*v* mean, converted back and clipped to the gamut). */
  color: string;
  /** Nearest palette colour by ΔE*uv. */
  name: string;
  /** Share of the object's pixels, one decimal; the list sums to 100. */
  percentage: number;
  luv: Luv;
}

export interface DominantColorOptions {
  /** `[xmin, ymin, xmax, ymax]` in pixels, max edges exclusive (as detectors report boxes); clipped to the image. */
  boundBox?: [number, number, number, number];
  /** One byte per image pixel, row-major; non-zero marks the object. When given, no background is estimated. */
  mask?: Uint8Array;
  /** Without a mask, drop the background found from the region's border (default true). */
  excludeBackground?: boolean;
  /**
   * With the background excluded, the share of its pixels kept all the same (0–1, default 0): a
   * backdrop then counts at that weight beside the object (text search's whole-image colours, where
   * "white" should find a small object on white, after the photos whose object is white).
   */
  backgroundKept?: number;
  /**
   * With the background excluded, the least share of the region that must be left for the drop to hold (default 0.01):
   * below it the "background" was the object itself and nothing is dropped. A box a client draws may lie inside the
   * object (a box on a shirt's chest around its logo): its border is the object's own colour, and a drop leaving
   * little but the logo lost the shirt's colour (h281); such boxes ask for {@link DRAWN_BOX_MIN_OBJECT}.
   */
  minObjectShare?: number;
  /** At most this many colours (default 5, 1..8); smaller clusters merge into their nearest. */
  maxColors?: number;
}

/** Pixels sampled per region, on a regular grid: shares to about ±1 %, under 12 ms for 256×256 here. */
const maxSamples = 8192;
/** k-means starts with this many clusters; merging brings it down (docs/colors.md). */
const kStart = 8;
/** Clusters closer than this ΔE*uv are one colour. */
const mergeDeltaE = 10;
/** Clusters under this share of the object merge into their nearest. */
const minShare = 0.01;
const kmeansSeed = 0x10c0_4e;
const kmeansMaxIterations = 30;
/** Border clusters holding at least this share of the border are background colours. */
const backgroundMinShare = 0.1;
/** A pixel is background-coloured within this ΔE*uv of a background colour: 2.5 × the colour's RMS spread on the border, clamped. */
const backgroundSpread = 2.5;
const backgroundMinDeltaE = 10;
const backgroundMaxDeltaE = 25;
/** If less than this share of the region is left, the "background" was the object: nothing is dropped. */
const backgroundMinObject = 0.01;
/**
 * The least share a drop must leave of a box a client drew ({@link DominantColorOptions.minObjectShare}): a loose box
 * drawn around a garment leaves the garment, most of the box; a box drawn inside one leaves its print or logo.
 */
export const DRAWN_BOX_MIN_OBJECT = 0.25;

// ---------------------------------------------------------------- colour space

// IEC 61966-2-1 sRGB primaries; their white is D65 (rows sum to Xn, Yn, Zn).
const [xr, xg, xb] = [0.4124564, 0.3575761, 0.1804375];
const [yr, yg, yb] = [0.2126729, 0.7151522, 0.072175];
const [zr, zg, zb] = [0.0193339, 0.119192, 0.9503041];
const whiteX = xr + xg + xb;
const whiteY = yr + yg + yb;
const whiteZ = zr + zg + zb;
const whiteDen = whiteX + 15 * whiteY + 3 * whiteZ;
const whiteU = (4 * whiteX) / whiteDen;
const whiteV = (9 * whiteY) / whiteDen;
const epsilon = 216 / 24389;
const kappa = 24389 / 27;

const linearLut = Float64Array.from({ length: 256 }, (_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

function linearToLuv(r: number, g: number, b: number, out: Float64Array | number[], at: number): void {
  const x = xr * r + xg * g + xb * b;
  const y = yr * r + yg * g + yb * b;
  const z = zr * r + zg * g + zb * b;
  const yn = y / whiteY;
  const l = yn > epsilon ? 116 * Math.cbrt(yn) - 16 : kappa * yn;
  const den = x + 15 * y + 3 * z;
  out[at] = l;
  out[at + 1] = den > 0 ? 13 * l * ((4 * x) / den - whiteU) : 0;
  out[at + 2] = den > 0 ? 13 * l * ((9 * y) / den - whiteV) : 0;
}

/** CIE 1976 L*u*v* (D65 white) of an 8-bit sRGB colour. */
export function srgbToLuv(r: number, g: number, b: number): Luv {
  const out: number[] = [0, 0, 0];
  linearToLuv(linearLut[clamp8(r)]!, linearLut[clamp8(g)]!, linearLut[clamp8(b)]!, out, 0);
  return out as Luv;
}

/**
 * CIE 1976 L*a*b* (D65 white) of an 8-bit sRGB colour: its b* is what tells a yellow from a
 * silver card border (recognition/card-border.ts), where u*v* spreads yellows along u* as well.
 */
export function srgbToLab(r: number, g: number, b: number): [number, number, number] {
  const [lr, lg, lb] = [linearLut[clamp8(r)]!, linearLut[clamp8(g)]!, linearLut[clamp8(b)]!];
  const fx = labF((xr * lr + xg * lg + xb * lb) / whiteX);
  const fy = labF((yr * lr + yg * lg + yb * lb) / whiteY);
  const fz = labF((zr * lr + zg * lg + zb * lb) / whiteZ);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

// module level, not a closure per colour: tsx names every closure it creates (`__name`), a cost per pixel here
function labF(t: number): number {
  return t > epsilon ? Math.cbrt(t) : (kappa * t + 16) / 116;
}

/** 8-bit sRGB of an L*u*v* colour, clipped to the gamut. */
export function luvToSrgb([l, u, v]: Luv): [number, number, number] {
  if (l <= 0) return [0, 0, 0];
  const up = u / (13 * l) + whiteU;
  const vp = v / (13 * l) + whiteV;
  const y = whiteY * (l > kappa * epsilon ? ((l + 16) / 116) ** 3 : l / kappa);
  const x = vp > 0 ? (y * 9 * up) / (4 * vp) : 0;
  const z = vp > 0 ? (y * (12 - 3 * up - 20 * vp)) / (4 * vp) : 0;
  const lin = [
    3.2404542 * x - 1.5371385 * y - 0.4985314 * z,
    -0.969266 * x + 1.8760108 * y + 0.041556 * z,
    0.0556434 * x - 0.2040259 * y + 1.0572252 * z,
  ];
  return lin.map((c) => {
    const s = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.max(0, c) ** (1 / 2.4) - 0.055;
    return clamp8(Math.round(s * 255));
  }) as [number, number, number];
}

/** ΔE*uv: Euclidean distance in L*u*v*. */
export function deltaE(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
}

const clamp8 = (n: number) => Math.min(255, Math.max(0, Math.round(n)));
const hex = (rgb: number[]) => '#' + rgb.map((c) => c.toString(16).padStart(2, '0')).join('');

let paletteLuv: { name: string; luv: Luv }[] | undefined;

/** The palette name nearest to a colour by ΔE*uv. */
export function nameColor(luv: ArrayLike<number>): string {
  paletteLuv ??= colorPalette.map((c) => {
    const n = Number.parseInt(c.hex.slice(1), 16);
    return { name: c.name, luv: srgbToLuv(n >> 16, (n >> 8) & 255, n & 255) };
  });
  let best = paletteLuv[0]!;
  let bestD = Infinity;
  for (const p of paletteLuv) {
    const d = deltaE(luv, p.luv);
    if (d < bestD) {
      bestD = d;
      best = p;
    }
  }
  return best.name;
}

// ---------------------------------------------------------------- k-means


interface Cluster {
  luv: Luv;
  count: number;
  /** Sum of squared distances of the members to the centre. */
  sse: number;
}

/** Lloyd's k-means with k-means++ seeding over n points (L*u*v* triples in `pts`). */
function kmeans(pts: Float64Array, n: number, k: number): Cluster[] {
  if (n === 0) return [];
  const random = seededRandom(kmeansSeed);
  const centres: number[] = [];
  const d2 = new Float64Array(n).fill(Infinity);
  let pick = Math.floor(random() * n);
  while (centres.length < 3 * k) {
    centres.push(pts[pick * 3]!, pts[pick * 3 + 1]!, pts[pick * 3 + 2]!);
    const c = centres.length - 3;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const dl = pts[i * 3]! - centres[c]!;
      const du = pts[i * 3 + 1]! - centres[c + 1]!;
      const dv = pts[i * 3 + 2]! - centres[c + 2]!;
      d2[i] = Math.min(d2[i]!, dl * dl + du * du + dv * dv);
      total += d2[i]!;
    }
    // Fewer distinct colours than k: stop rather than seed duplicates.
    if (total === 0) break;
    let r = random() * total;
    pick = n - 1;
    for (let i = 0; i < n; i++) {
      r -= d2[i]!;
      if (r < 0) {
        pick = i;
        break;
      }
    }
  }
  const kk = centres.length / 3;
  const assign = new Int32Array(n).fill(-1);
  const sums = new Float64Array(kk * 3);
  const counts = new Float64Array(kk);
  for (let iter = 0; iter < kmeansMaxIterations; iter++) {
    let changed = 0;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < kk; c++) {
        const dl = pts[i * 3]! - centres[c * 3]!;
        const du = pts[i * 3 + 1]! - centres[c * 3 + 1]!;
        const dv = pts[i * 3 + 2]! - centres[c * 3 + 2]!;
        const d = dl * dl + du * du + dv * dv;
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      if (assign[i] !== best) {
        assign[i] = best;
        changed++;
      }
    }
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const c = assign[i]!;
      sums[c * 3]! += pts[i * 3]!;
      sums[c * 3 + 1]! += pts[i * 3 + 1]!;
      sums[c * 3 + 2]! += pts[i * 3 + 2]!;
      counts[c]!++;
    }
    for (let c = 0; c < kk; c++) {
      if (counts[c]! > 0) for (let j = 0; j < 3; j++) centres[c * 3 + j] = sums[c * 3 + j]! / counts[c]!;
    }
    if (changed <= n / 1000) break;
  }
  const sse = new Float64Array(kk);
  for (let i = 0; i < n; i++) {
    const c = assign[i]!;
    const dl = pts[i * 3]! - centres[c * 3]!;
    const du = pts[i * 3 + 1]! - centres[c * 3 + 1]!;
    const dv = pts[i * 3 + 2]! - centres[c * 3 + 2]!;
    sse[c]! += dl * dl + du * du + dv * dv;
  }
  const out: Cluster[] = [];
  for (let c = 0; c < kk; c++) {
    if (counts[c]! > 0) out.push({ luv: [centres[c * 3]!, centres[c * 3 + 1]!, centres[c * 3 + 2]!], count: counts[c]!, sse: sse[c]! });
  }
  return out;
}

function mergeInto(into: Cluster, from: Cluster): void {
  const n = into.count + from.count;
  const luv = into.luv.map((v, j) => (v * into.count + from.luv[j]! * from.count) / n) as Luv;
  // Parallel-axis rule: each part's spread plus its offset from the joint centre.
  into.sse += from.sse + into.count * deltaE(into.luv, luv) ** 2 + from.count * deltaE(from.luv, luv) ** 2;
  into.luv = luv;
  into.count = n;
}

function nearestPair(clusters: Cluster[], accept: (a: Cluster, b: Cluster, d: number) => boolean): [number, number] | undefined {
  let best: [number, number] | undefined;
  let bestD = Infinity;
  for (let i = 0; i < clusters.length; i++) {
    for (let j = i + 1; j < clusters.length; j++) {
      const d = deltaE(clusters[i]!.luv, clusters[j]!.luv);
      if (d < bestD && accept(clusters[i]!, clusters[j]!, d)) {
        bestD = d;
        best = [i, j];
      }
    }
  }
  return best;
}

/**
 * Near clusters (ΔE*uv < 10) or clusters with the same palette name become one; then, smallest
 * first, clusters under 1 % and those beyond `maxColors` join their nearest neighbour.
 */
function mergeClusters(clusters: Cluster[], maxColors: number): Cluster[] {
  const list = clusters.map((c) => ({ ...c, luv: [...c.luv] as Luv }));
  const total = list.reduce((s, c) => s + c.count, 0);
  for (;;) {
    const near = nearestPair(list, (a, b, d) => d < mergeDeltaE || nameColor(a.luv) === nameColor(b.luv));
    if (near) {
      mergeInto(list[near[0]]!, list[near[1]]!);
      list.splice(near[1], 1);
      continue;
    }
    if (list.length <= 1) break;
    list.sort((a, b) => b.count - a.count);
    const smallest = list[list.length - 1]!;
    if (smallest.count >= minShare * total && list.length <= maxColors) break;
    list.pop();
    let target = list[0]!;
    for (const c of list) if (deltaE(c.luv, smallest.luv) < deltaE(target.luv, smallest.luv)) target = c;
    mergeInto(target, smallest);
  }
  return list.sort((a, b) => b.count - a.count);
}

// ---------------------------------------------------------------- sampling and background

interface Samples {
  /** Grid size; cell (i, j) samples the pixel at the centre of its stride×stride block. */
  gw: number;
  gh: number;
  stride: number;
  luv: Float64Array;
  /** Per cell: 1 when the cell is part of the object. */
  object: Uint8Array;
}

type Box = [number, number, number, number];

function pixelLuv(img: RgbPixels, x: number, y: number, out: Float64Array, at: number): void {
  const p = (y * img.width + x) * 3;
  linearToLuv(linearLut[img.data[p]!]!, linearLut[img.data[p + 1]!]!, linearLut[img.data[p + 2]!]!, out, at);
}

function sampleRegion(img: RgbPixels, box: Box, mask: Uint8Array | undefined): Samples {
  const [x0, y0, x1, y1] = box;
  const stride = Math.max(1, Math.ceil(Math.sqrt(((x1 - x0) * (y1 - y0)) / maxSamples)));
  const gw = Math.ceil((x1 - x0) / stride);
  const gh = Math.ceil((y1 - y0) / stride);
  const luv = new Float64Array(gw * gh * 3);
  const object = new Uint8Array(gw * gh);
  for (let j = 0; j < gh; j++) {
    const y = Math.min(y1 - 1, y0 + j * stride + (stride >> 1));
    for (let i = 0; i < gw; i++) {
      const x = Math.min(x1 - 1, x0 + i * stride + (stride >> 1));
      const cell = j * gw + i;
      pixelLuv(img, x, y, luv, cell * 3);
      object[cell] = mask ? (mask[y * img.width + x] ? 1 : 0) : 1;
    }
  }
  return { gw, gh, stride, luv, object };
}

/**
 * Where the background colours are read. For a box inside the image: a band around it, outside
 * it (5 % of the box's longer side deep), because a detector's box is tight and the object
 * touches all four of its edges. For the whole image, or when that band is too thin to sample:
 * a ring inside the region's edge, 2 % of its shorter side deep.
 */
function borderSamples(img: RgbPixels, box: Box, s: Samples): Float64Array {
  const [x0, y0, x1, y1] = box;
  const margin = Math.max(2, Math.round(0.05 * Math.max(x1 - x0, y1 - y0)));
  const ox0 = Math.max(0, x0 - margin);
  const oy0 = Math.max(0, y0 - margin);
  const ox1 = Math.min(img.width, x1 + margin);
  const oy1 = Math.min(img.height, y1 + margin);
  const outside: number[] = [];
  const step = s.stride;
  for (let y = oy0 + (step >> 1); y < oy1; y += step) {
    for (let x = ox0 + (step >> 1); x < ox1; x += step) if (x < x0 || x >= x1 || y < y0 || y >= y1) outside.push(x, y);
  }
  const inside = 2 * (s.gw + s.gh);
  if (outside.length / 2 >= inside) {
    const out = new Float64Array((outside.length / 2) * 3);
    for (let k = 0; k < outside.length; k += 2) pixelLuv(img, outside[k]!, outside[k + 1]!, out, (k / 2) * 3);
    return out;
  }
  const { gw, gh, luv } = s;
  const depth = Math.max(1, Math.round(0.02 * Math.min(gw, gh)));
  const ring: number[] = [];
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) if (i < depth || j < depth || i >= gw - depth || j >= gh - depth) ring.push(j * gw + i);
  }
  const out = new Float64Array(ring.length * 3);
  ring.forEach((cell, r) => out.set(luv.subarray(cell * 3, cell * 3 + 3), r * 3));
  return out;
}

/**
 * Background colours are the border's own dominant colours: k-means (k = 4) over the border
 * samples, each merged cluster holding at least 10 % of the border. The background is what has
 * one of those colours (within 2.5 × that colour's RMS spread on the border, clamped to 10..25
 * ΔE*uv) and is connected to the region's edge through such pixels, so a white logo enclosed by
 * a navy shirt stays with the shirt. If that would leave under 1 % of the region, the
 * "background" was the object itself (a plain image, a close-up) and nothing is dropped.
 */
function dropBackground(s: Samples, border: Float64Array, kept = 0, minObject = backgroundMinObject): void {
  const { gw, gh, luv, object } = s;
  const n = border.length / 3;
  const clusters = mergeClusters(kmeans(border, n, 4), 4);
  const background = clusters.filter((c) => c.count >= backgroundMinShare * n);
  const tolerance = background.map((c) => Math.min(backgroundMaxDeltaE, Math.max(backgroundMinDeltaE, backgroundSpread * Math.sqrt(c.sse / c.count))));
  const near = new Uint8Array(gw * gh);
  for (let cell = 0; cell < near.length; cell++) {
    const at = luv.subarray(cell * 3, cell * 3 + 3);
    near[cell] = background.some((c, b) => deltaE(c.luv, at) <= tolerance[b]!) ? 1 : 0;
  }
  const dropped = new Uint8Array(gw * gh);
  const queue: number[] = [];
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) {
      const cell = j * gw + i;
      if ((i === 0 || j === 0 || i === gw - 1 || j === gh - 1) && near[cell]) {
        dropped[cell] = 1;
        queue.push(cell);
      }
    }
  }
  for (let q = 0; q < queue.length; q++) {
    const cell = queue[q]!;
    const i = cell % gw;
    for (const next of [i > 0 ? cell - 1 : -1, i < gw - 1 ? cell + 1 : -1, cell - gw, cell + gw]) {
      if (next < 0 || next >= gw * gh || dropped[next] || !near[next]) continue;
      dropped[next] = 1;
      queue.push(next);
    }
  }
  const left = object.reduce((k, o, cell) => k + (o && !dropped[cell] ? 1 : 0), 0);
  if (left < minObject * gw * gh) return;
  // kept: that share of the background cells stays, spread evenly by index (the n-th stays when
  // ⌊n·kept⌋ passes ⌊(n − 1)·kept⌋: the first, then every 1/kept-th), so equal pixels give equal colours
  const share = Math.min(1, Math.max(0, kept));
  let seen = 0;
  for (let cell = 0; cell < object.length; cell++) {
    if (!dropped[cell]) continue;
    if (share === 0 || Math.floor(seen * share) === Math.floor((seen - 1) * share)) object[cell] = 0;
    seen++;
  }
}

/** Shares to one decimal that add up to exactly 100 (largest remainder). */
function percentages(counts: number[]): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  const raw = counts.map((c) => (c / total) * 1000);
  const floor = raw.map(Math.floor);
  let rest = 1000 - floor.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - floor[i]!, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (rest-- <= 0) break;
    floor[i]!++;
  }
  return floor.map((f) => f / 10);
}

/** Dominant colours of the object in `img`, most common first. Empty when the region holds no object pixel. */
export function dominantColors(img: RgbPixels, options: DominantColorOptions = {}): DominantColor[] {
  const { width, height, data } = img;
  if (data.length !== width * height * 3) throw new RangeError(`expected ${width * height * 3} bytes of RGB for ${width}×${height}, got ${data.length}`);
  if (options.mask && options.mask.length !== width * height) throw new RangeError(`mask has ${options.mask.length} bytes, expected ${width * height}`);
  const maxColors = Math.min(kStart, Math.max(1, Math.floor(options.maxColors ?? 5)));
  const [bx0, by0, bx1, by1] = options.boundBox ?? [0, 0, width, height];
  const box: Box = [
    Math.max(0, Math.min(width, Math.round(bx0))),
    Math.max(0, Math.min(height, Math.round(by0))),
    Math.max(0, Math.min(width, Math.round(bx1))),
    Math.max(0, Math.min(height, Math.round(by1))),
  ];
  if (box[2] <= box[0] || box[3] <= box[1]) return [];

  const s = sampleRegion(img, box, options.mask);
  if (!options.mask && options.excludeBackground !== false) dropBackground(s, borderSamples(img, box, s), options.backgroundKept ?? 0, options.minObjectShare ?? backgroundMinObject);
  let n = 0;
  const pts = new Float64Array(s.object.length * 3);
  for (let cell = 0; cell < s.object.length; cell++) {
    if (!s.object[cell]) continue;
    pts.set(s.luv.subarray(cell * 3, cell * 3 + 3), n * 3);
    n++;
  }
  const clusters = mergeClusters(kmeans(pts, n, kStart), maxColors);
  const shares = percentages(clusters.map((c) => c.count));
  return clusters.map((c, i) => ({
    color: hex(luvToSrgb(c.luv)),
    name: nameColor(c.luv),
    percentage: shares[i]!,
    luv: c.luv.map((v) => Math.round(v * 100) / 100) as Luv,
  }));
}
