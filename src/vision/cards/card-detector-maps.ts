import { clockwiseFromTopLeft, convexHull, convexOverlapShare, insideConvex, quadFromSides, robustLine, sideLengths, type Line, type Point, type Quad } from '../geometry/plane-geometry.ts';

/**
 * Reading the card detector's maps (card-detector.ts) into cards: plain arithmetic on five
 * 128 x 128 probability maps, so it is tested without the model.
 */
export const MAP_SIZE = 128;
export const MAP_CHANNELS = 5;
const CARD = 0;
const CENTRE = 1;
const CORNER = 2;
const HOLDER = 3;
const LABEL = 4;

/** Centre probability a card's centre must reach: below it a blob is not taken as a card. */
export const MIN_CARD_PROB = 0.6;
/**
 * Least mean corner evidence (the corner map's peak near each of the outline's corners): a card
 * has four corners, a blob on a photo of something else does not. With the least fill below,
 * chosen on the real photos' train split (recall) against no-card photos never used in training
 * (faces_persons, UKBench): 85 % of the train split's cards kept, 5 false cards in 83 photos.
 */
const MIN_CORNERS = 0.4;
/** Least share of the outline that the card's pixels fill (intersection over union): a card is a filled quadrilateral. */
const MIN_FILL = 0.8;
/**
 * A card below those two but above these is still a candidate, a weak one: on close-ups the card
 * map runs into the table and the corner map is faint (25 of the 89 train-split 720 x 960 photos
 * of single cards had no card). The card verifier decides whether it is one (card-detector.ts).
 * 0.2 and 0.6 until 2026-11-25; these found one more train photo's card (a full-art trainer
 * whose corners read 0.19) and no false card (docs/card-detector.md "Thresholds").
 */
const WEAK_MIN_CORNERS = 0.1;
const WEAK_MIN_FILL = 0.5;
/** Fewest map pixels a card covers (a card 5 map pixels wide, 1/25 of the photo's long side). */
const MIN_CARD_PIXELS = 24;
/** Narrowest shape (short side over long) taken as a card; a card is 0.72, a slab label strip 0.3. */
const MIN_SHAPE = 0.45;

export interface MapCard {
  /** Corners in map pixels (pixel-centre coordinates), upper-left first, clockwise. */
  quad: Quad;
  prob: number;
  kind: 'raw' | 'holder' | 'slab';
  /** The slab label's box in map pixels, inclusive [x0, y0, x1, y1]. */
  labelBox?: [number, number, number, number];
  holderQuad?: Quad;
  /** The map pixels that are this card's (index y * MAP_SIZE + x). */
  pixels: Int32Array;
  /** Mean of the corner map's peak near each of the four corners, 0–1. */
  corners: number;
  /** How well the outline covers the card's pixels (intersection over union). */
  fill: number;
  /** Corners and fill both reach the first limits; a weak card only the lower ones. */
  strong: boolean;
  /**
   * The outline the centre map alone gives (its region is the card shrunk to half about its
   * centre): where the card map runs from the card into what lies behind it, the centre stays on
   * the card. Tried by the detector when `quad` is refused (card-detector.ts).
   */
  centre?: Quad;
}

export function decodeCardMaps(maps: Float32Array, validW = MAP_SIZE, validH = MAP_SIZE): MapCard[] {
  const N = MAP_SIZE;
  const at = (c: number, x: number, y: number) => maps[c * N * N + y * N + x]!;
  const inside = (x: number, y: number) => x >= 0 && y >= 0 && x < validW && y < validH;

  // Seeds: connected regions of the centre map.
  const seed = new Int32Array(N * N).fill(-1);
  const seedProb: number[] = [];
  const queue = new Int32Array(N * N);
  for (let y = 0; y < validH; y++) {
    for (let x = 0; x < validW; x++) {
      if (seed[y * N + x] !== -1 || at(CENTRE, x, y) < 0.5) continue;
      const id = seedProb.length;
      let head = 0;
      let tail = 0;
      let best = 0;
      queue[tail++] = y * N + x;
      seed[y * N + x] = id;
      while (head < tail) {
        const i = queue[head++]!;
        const px = i % N;
        const py = (i - px) / N;
        best = Math.max(best, at(CENTRE, px, py));
        for (const [dx, dy] of FOUR) {
          const qx = px + dx;
          const qy = py + dy;
          if (!inside(qx, qy) || seed[qy * N + qx] !== -1 || at(CENTRE, qx, qy) < 0.5) continue;
          seed[qy * N + qx] = id;
          queue[tail++] = qy * N + qx;
        }
      }
      seedProb.push(best);
    }
  }
  if (!seedProb.length) return [];

  // Each card pixel belongs to the seed it is nearest to within the card map (touching cards
  // share a mask but not a centre).
  const owner = new Int32Array(N * N).fill(-1);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < N * N; i++) {
    if (seed[i]! >= 0) {
      owner[i] = seed[i]!;
      queue[tail++] = i;
    }
  }
  while (head < tail) {
    const i = queue[head++]!;
    const px = i % N;
    const py = (i - px) / N;
    for (const [dx, dy] of EIGHT) {
      const qx = px + dx;
      const qy = py + dy;
      if (!inside(qx, qy) || owner[qy * N + qx] !== -1 || at(CARD, qx, qy) < 0.5) continue;
      owner[qy * N + qx] = owner[i]!;
      queue[tail++] = qy * N + qx;
    }
  }
  const pixels: Point[][] = seedProb.map(() => []);
  for (let i = 0; i < N * N; i++) if (owner[i]! >= 0) pixels[owner[i]!]!.push([i % N, Math.floor(i / N)]);
  const seedPixels: Point[][] = seedProb.map(() => []);
  for (let i = 0; i < N * N; i++) if (seed[i]! >= 0) seedPixels[seed[i]!]!.push([i % N, Math.floor(i / N)]);

  const cards: MapCard[] = [];
  pixels.forEach((px, id) => {
    if (seedProb[id]! < MIN_CARD_PROB || px.length < MIN_CARD_PIXELS) return;
    const own = (x: number, y: number) => inside(x, y) && owner[y * N + x] === id;
    const boundary = px.filter(([x, y]) => !own(x - 1, y) || !own(x + 1, y) || !own(x, y - 1) || !own(x, y + 1));
    const rect = minAreaRect(boundary.flatMap(([x, y]) => [[x - 0.5, y - 0.5], [x + 0.5, y - 0.5], [x + 0.5, y + 0.5], [x - 0.5, y + 0.5]] as Point[]));
    if (!rect) return;
    const [s, l] = sides(rect);
    if (s / l < MIN_SHAPE) return;
    let quad = rect;
    for (let pass = 0; pass < 2; pass++) quad = fitToMap((x, y) => bilinear(maps, CARD, x, y, validW, validH), quad) ?? quad;
    const pixelsOf = Int32Array.from(px, ([x, y]) => y * N + x);
    const corners = quad.reduce((sum, [qx, qy]) => {
      let peak = 0;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) peak = Math.max(peak, bilinear(maps, CORNER, qx + dx, qy + dy, validW, validH));
      return sum + peak / 4;
    }, 0);
    const fill = overlap(quad, pixelsOf);
    if (corners < WEAK_MIN_CORNERS || fill < WEAK_MIN_FILL) return;
    const strong = corners >= MIN_CORNERS && fill >= MIN_FILL;
    const centre = centreOutline(seedPixels[id]!, id, seed);
    const card: MapCard = { quad, prob: round3(seedProb[id]! * Math.min(1, corners / 0.5)), kind: 'raw', pixels: pixelsOf, corners: round3(corners), fill: round3(fill), strong, ...(centre ? { centre } : {}) };
    Object.assign(card, holderOf(maps, quad, validW, validH));
    cards.push(card);
  });
  return cards;
}

/**
 * The whole-number x from `x0` to `x1` at which row `y` lies inside a convex quadrilateral (its
 * edges included, as {@link insideConvex} says): an unbroken run, since the shape is convex. Each
 * side bounds it by a line; the bounds, rounded, are then checked against {@link insideConvex}
 * itself, so the run is exactly its points. Empty when `lo > hi`.
 */
export function rowSpan(quad: Quad, y: number, x0: number, x1: number): [number, number] {
  let lo = x0;
  let hi = x1;
  for (let i = 0; i < 4; i++) {
    const a = quad[i]!;
    const b = quad[(i + 1) % 4]!;
    const dy = b[1] - a[1];
    if (dy === 0) continue;
    const x = a[0] + ((b[0] - a[0]) * (y - a[1])) / dy;
    // clockwise corners (image coordinates): a side going down bounds the run on the right
    if (dy > 0) hi = Math.min(hi, Math.floor(x + 1e-9));
    else lo = Math.max(lo, Math.ceil(x - 1e-9));
  }
  while (lo <= hi && !insideConvex(quad, lo, y)) lo++;
  while (lo > x0 && insideConvex(quad, lo - 1, y)) lo--;
  while (hi >= lo && !insideConvex(quad, hi, y)) hi--;
  while (hi < x1 && insideConvex(quad, hi + 1, y)) hi++;
  return [lo, hi];
}

/** Least side of a centre region, in map pixels, for an outline to be taken from it (a card 8 map pixels wide). */
const MIN_CENTRE_SIDE = 4;

/**
 * The card's outline from its centre region alone: the region's smallest rectangle, twice its
 * size about its middle (the centre map learnt the card shrunk to half). Null for a region too
 * small or not card-shaped.
 */
function centreOutline(region: readonly Point[], id: number, seed: Int32Array): Quad | null {
  const N = MAP_SIZE;
  const own = (x: number, y: number) => x >= 0 && y >= 0 && x < N && y < N && seed[y * N + x] === id;
  const boundary = region.filter(([x, y]) => !own(x - 1, y) || !own(x + 1, y) || !own(x, y - 1) || !own(x, y + 1));
  const rect = minAreaRect(boundary.flatMap(([x, y]) => [[x - 0.5, y - 0.5], [x + 0.5, y - 0.5], [x + 0.5, y + 0.5], [x - 0.5, y + 0.5]] as Point[]));
  if (!rect) return null;
  const [s, l] = sides(rect);
  if (s < MIN_CENTRE_SIDE || s / l < MIN_SHAPE) return null;
  const cx = rect.reduce((a, p) => a + p[0], 0) / 4;
  const cy = rect.reduce((a, p) => a + p[1], 0) / 4;
  return rect.map(([x, y]) => [cx + (x - cx) * 2, cy + (y - cy) * 2]) as Quad;
}

/**
 * The second look's limits ({@link cornerQuads}), written in the prototype before the rule it was
 * kept by and not changed after (docs/card-detector.md "Second look"): peaks of 0.15 at least (weak
 * corners peak low), the 24 strongest (10,626 sets of four), 3 quadrilaterals (each costs a
 * refiner and a verifier pass), sides of 5 map pixels (a card 1/25 of the photo's long side, as
 * for the card map's blobs), opposite sides within 0.75 of each other (a card in perspective),
 * the detector's shape limit, and the card map's own 0.5 as the least mean over the quadrilateral.
 */
const CORNER_LOOK = { minPeak: 0.15, peaks: 24, quads: 3, minSide: 5, opposite: 0.75, shape: 0.15, minCard: 0.5 };
/** 63:88, the card's short side over its long one. */
const CARD_SHAPE = 63 / 88;

/**
 * Card-shaped quadrilaterals whose corners are the corner map's peaks, in map pixels, best first:
 * the detector's second look at a photo where the card map gave no card (docs/card-detector.md
 * "Second look"). The card map runs into a textured table (grass, wood, a patterned mat) and its
 * blob is then no card's shape, while the corner map still peaks at the card's four corners.
 * Four peaks make a candidate when their hull is a quadrilateral with opposite sides alike, the
 * card's shape within {@link CORNER_LOOK}.shape, and the card map over it on the mean; the score
 * is the mean peak times that mean. Candidates overlapping a better one are dropped.
 */
export function cornerQuads(maps: Float32Array, validW = MAP_SIZE, validH = MAP_SIZE): { quad: Quad; score: number }[] {
  const N = MAP_SIZE;
  const at = (c: number, x: number, y: number) => maps[c * N * N + y * N + x]!;
  const peaks: { p: Point; v: number }[] = [];
  // the outermost map pixels are left out, as in the figures measured (docs/card-detector.md "Second look")
  for (let y = 1; y < validH - 1; y++) {
    for (let x = 1; x < validW - 1; x++) {
      const v = at(CORNER, x, y);
      if (v < CORNER_LOOK.minPeak) continue;
      let peak = true;
      for (let dy = -2; dy <= 2 && peak; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const qx = x + dx;
          const qy = y + dy;
          if ((dx || dy) && qx >= 0 && qy >= 0 && qx < validW && qy < validH && at(CORNER, qx, qy) > v) {
            peak = false;
            break;
          }
        }
      }
      if (peak) peaks.push({ p: [x, y], v });
    }
  }
  peaks.sort((a, b) => b.v - a.v);
  const top = peaks.slice(0, CORNER_LOOK.peaks);
  // The card map's mean over each candidate, from its rows' running sums: a few hundred of the
  // 10,626 sets of four pass the shape tests, and scanning each one's box point by point took
  // 100-200 ms on a busy corner map.
  const rowSums = new Float64Array(N * (N + 1));
  for (let y = 0; y < validH; y++) for (let x = 0; x < validW; x++) rowSums[y * (N + 1) + x + 1] = rowSums[y * (N + 1) + x]! + at(CARD, x, y);
  const meanInside = (quad: Quad): number => {
    let sum = 0;
    let count = 0;
    const xs = quad.map((q) => q[0]);
    const ys = quad.map((q) => q[1]);
    const x0 = Math.ceil(Math.min(...xs));
    const x1 = Math.floor(Math.max(...xs));
    for (let y = Math.ceil(Math.min(...ys)); y <= Math.max(...ys); y++) {
      const [lo, hi] = rowSpan(quad, y, x0, x1);
      if (lo > hi) continue;
      count += hi - lo + 1;
      sum += rowSums[y * (N + 1) + hi + 1]! - rowSums[y * (N + 1) + lo]!;
    }
    return sum / Math.max(1, count);
  };
  const found: { quad: Quad; score: number }[] = [];
  const n = top.length;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      for (let c = b + 1; c < n; c++) {
        for (let d = c + 1; d < n; d++) {
          const four = [top[a]!, top[b]!, top[c]!, top[d]!];
          const hull = convexHull(four.map((q) => q.p));
          if (hull.length !== 4) continue;
          const quad = clockwiseFromTopLeft(hull);
          const len = [0, 1, 2, 3].map((i) => Math.hypot(quad[(i + 1) % 4]![0] - quad[i]![0], quad[(i + 1) % 4]![1] - quad[i]![1]));
          if (Math.min(...len) < CORNER_LOOK.minSide) continue;
          if (Math.min(len[0]!, len[2]!) / Math.max(len[0]!, len[2]!) < CORNER_LOOK.opposite || Math.min(len[1]!, len[3]!) / Math.max(len[1]!, len[3]!) < CORNER_LOOK.opposite) continue;
          const [s, l] = sides(quad);
          if (Math.abs(s / l - CARD_SHAPE) > CORNER_LOOK.shape) continue;
          const card = meanInside(quad);
          if (card < CORNER_LOOK.minCard) continue;
          found.push({ quad, score: (card * four.reduce((t, q) => t + q.v, 0)) / 4 });
        }
      }
    }
  }
  found.sort((p, q) => q.score - p.score);
  const kept: { quad: Quad; score: number }[] = [];
  for (const f of found) {
    if (kept.length >= CORNER_LOOK.quads) break;
    if (!kept.some((k) => convexOverlapShare(k.quad, f.quad) > 0.2)) kept.push(f);
  }
  return kept;
}

const FOUR = [[1, 0], [-1, 0], [0, 1], [0, -1]] as const;
const EIGHT = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]] as const;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

function bilinear(maps: Float32Array, c: number, x: number, y: number, w: number, h: number): number {
  if (x < 0 || y < 0 || x > w - 1 || y > h - 1) return 0;
  const N = MAP_SIZE;
  const x0 = Math.min(w - 2, Math.floor(x));
  const y0 = Math.min(h - 2, Math.floor(y));
  const fx = x - x0;
  const fy = y - y0;
  const i = c * N * N + y0 * N + x0;
  return (maps[i]! * (1 - fx) + maps[i + 1]! * fx) * (1 - fy) + (maps[i + N]! * (1 - fx) + maps[i + N + 1]! * fx) * fy;
}

/**
 * Each side moved to where the card map crosses 0.5 along the side's normal (the soft map puts
 * the crossing at the edge's sub-pixel position), fitted as a line; corners where lines meet.
 */
function fitToMap(prob: (x: number, y: number) => number, quad: Quad): Quad | null {
  const lines: Line[] = [];
  for (let s = 0; s < 4; s++) {
    const a = quad[s]!;
    const b = quad[(s + 1) % 4]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len < 2) return null;
    const d: Point = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
    const n: Point = [d[1], -d[0]]; // outward for clockwise corners in image coordinates
    const pts: Point[] = [];
    for (let t = len * 0.15; t <= len * 0.85; t += 0.5) {
      const px = a[0] + d[0] * t;
      const py = a[1] + d[1] * t;
      let hit: number | null = null;
      let prev = prob(px - n[0] * 4, py - n[1] * 4);
      for (let o = -3.75; o <= 4; o += 0.25) {
        const cur = prob(px + n[0] * o, py + n[1] * o);
        if (prev >= 0.5 && cur < 0.5) {
          const at = o - 0.25 + (0.25 * (prev - 0.5)) / (prev - cur);
          if (hit === null || Math.abs(at) < Math.abs(hit)) hit = at;
        }
        prev = cur;
      }
      if (hit !== null) pts.push([px + n[0] * hit, py + n[1] * hit]);
    }
    const line = pts.length >= 8 ? robustLine(pts) : null;
    lines.push(line && line.kept >= pts.length * 0.5 ? line.line : { p: a, d });
  }
  const fitted = quadFromSides(lines);
  // A side pulled off by a blob on the mask (a hand, a stand) makes far corners: keep the rectangle.
  const short = Math.min(...[0, 1, 2, 3].map((i) => Math.hypot(quad[(i + 1) % 4]![0] - quad[i]![0], quad[(i + 1) % 4]![1] - quad[i]![1])));
  if (!fitted || fitted.some((p, i) => Math.hypot(p[0] - quad[i]![0], p[1] - quad[i]![1]) > short * 0.12)) return null;
  return fitted;
}

/**
 * How well an outline (in map pixels) covers a card's map pixels: intersection over union, the
 * outline rasterised at the map's pixel centres.
 */
export function overlap(quad: readonly Point[], pixels: Int32Array): number {
  const N = MAP_SIZE;
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(N - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(N - 1, Math.ceil(Math.max(...ys)));
  const own = new Uint8Array(N * N);
  for (const i of pixels) own[i] = 1;
  let inter = 0;
  let inQuad = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!insideConvex(quad, x, y)) continue;
      inQuad++;
      if (own[y * N + x]) inter++;
    }
  }
  return inter / Math.max(1, inQuad + pixels.length - inter);
}

/** A quad's mean side lengths, shorter first. */
function sides(q: Quad): [number, number] {
  const [a, b] = sideLengths(q);
  return a < b ? [a, b] : [b, a];
}

/** Smallest rectangle around points (rotating calipers over the convex hull), corners clockwise from upper-left. */
export function minAreaRect(points: readonly Point[]): Quad | null {
  const hull = convexHull(points);
  if (hull.length < 3) return null;
  let best: { area: number; q: Point[] } | null = null;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const u: Point = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
    const v: Point = [-u[1], u[0]];
    let u0 = Infinity;
    let u1 = -Infinity;
    let v0 = Infinity;
    let v1 = -Infinity;
    for (const p of hull) {
      const pu = p[0] * u[0] + p[1] * u[1];
      const pv = p[0] * v[0] + p[1] * v[1];
      u0 = Math.min(u0, pu);
      u1 = Math.max(u1, pu);
      v0 = Math.min(v0, pv);
      v1 = Math.max(v1, pv);
    }
    const area = (u1 - u0) * (v1 - v0);
    if (!best || area < best.area) {
      const pt = (pu: number, pv: number): Point => [u[0] * pu + v[0] * pv, u[1] * pu + v[1] * pv];
      best = { area, q: [pt(u0, v0), pt(u1, v0), pt(u1, v1), pt(u0, v1)] };
    }
  }
  return best ? clockwiseFromTopLeft(best.q) : null;
}

/**
 * Holder and slab: a card whose surroundings are holder is in a sleeve, top-loader or slab;
 * a slab when a grading label lies in the same holder beside the card.
 */
function holderOf(maps: Float32Array, quad: Quad, w: number, h: number): Partial<MapCard> {
  const N = MAP_SIZE;
  const [short, long] = sides(quad);
  const cx = quad.reduce((s, p) => s + p[0], 0) / 4;
  const cy = quad.reduce((s, p) => s + p[1], 0) / 4;
  // mean holder probability on a ring just outside the card
  let sum = 0;
  let count = 0;
  for (const k of [1.06, 1.1]) {
    for (let i = 0; i < 4; i++) {
      const a = quad[i]!;
      const b = quad[(i + 1) % 4]!;
      for (let t = 0.1; t <= 0.9; t += 0.1) {
        const x = cx + (a[0] + (b[0] - a[0]) * t - cx) * k;
        const y = cy + (a[1] + (b[1] - a[1]) * t - cy) * k;
        if (x < 0 || y < 0 || x > w - 1 || y > h - 1) continue;
        sum += bilinear(maps, HOLDER, x, y, w, h);
        count++;
      }
    }
  }
  if (!count || sum / count < 0.5) return {};
  // The holder's own region: holder pixels connected to the ring.
  const holder = flood(maps, HOLDER, Math.round(cx), Math.round(cy), w, h, true);
  const holderQuad = holder.length >= 12 ? minAreaRect(holder.flatMap(([x, y]) => [[x - 0.5, y - 0.5], [x + 0.5, y + 0.5], [x + 0.5, y - 0.5], [x - 0.5, y + 0.5]] as Point[])) ?? undefined : undefined;
  // A label: label pixels within reach of the card (a slab's label is above or below it).
  const reach = long * 0.8;
  let best: Point[] = [];
  const seen = new Uint8Array(N * N);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (seen[y * N + x] || maps[LABEL * N * N + y * N + x]! < 0.5) continue;
      const region = flood(maps, LABEL, x, y, w, h, false, seen);
      const rx = region.reduce((s, p) => s + p[0], 0) / region.length;
      const ry = region.reduce((s, p) => s + p[1], 0) / region.length;
      if (Math.hypot(rx - cx, ry - cy) <= reach + short * 0.2 && region.length > best.length) best = region;
    }
  }
  if (best.length < Math.max(4, short * long * 0.04)) return { kind: 'holder', ...(holderQuad ? { holderQuad } : {}) };
  const xs = best.map((p) => p[0]);
  const ys = best.map((p) => p[1]);
  return { kind: 'slab', labelBox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)], ...(holderQuad ? { holderQuad } : {}) };
}

/** Pixels of channel c above 0.5 connected to (x, y); with `fromCentre` the seed may lie off the channel (inside a card) and the fill starts from the nearest holder pixels around it. */
function flood(maps: Float32Array, c: number, x: number, y: number, w: number, h: number, fromCentre: boolean, seen = new Uint8Array(MAP_SIZE * MAP_SIZE)): Point[] {
  const N = MAP_SIZE;
  const on = (px: number, py: number) => px >= 0 && py >= 0 && px < w && py < h && (fromCentre ? maps[c * N * N + py * N + px]! >= 0.5 || maps[py * N + px]! >= 0.5 : maps[c * N * N + py * N + px]! >= 0.5);
  const out: Point[] = [];
  if (!on(x, y)) return out;
  const queue: number[] = [y * N + x];
  seen[y * N + x] = 1;
  while (queue.length) {
    const i = queue.pop()!;
    const px = i % N;
    const py = (i - px) / N;
    out.push([px, py]);
    for (const [dx, dy] of FOUR) {
      const qx = px + dx;
      const qy = py + dy;
      if (!on(qx, qy) || seen[qy * N + qx]) continue;
      seen[qy * N + qx] = 1;
      queue.push(qy * N + qx);
    }
  }
  return out;
}
