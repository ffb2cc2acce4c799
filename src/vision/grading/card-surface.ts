import { chroma, colorDistance, lightness, medianColor, type Cv, type Rgb } from '../cards/card-geometry.ts';
import type * as OpenCv from '@techstark/opencv-js';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/**
 * Surface defects on an upright card (docs/grading.md "Surface"). Three measurements, glare kept
 * apart from all of them:
 *  - scratches and print lines: thin *light* straight lines in the art (what a scratch in the
 *    gloss shows), not the light rim beside a printed dark outline (JPEG's halved colour
 *    resolution gives a thin line its surroundings' colour, so colour cannot tell them apart);
 *  - creases: a straight line (a fold's highlight, its shadow or both) that runs on to the card's
 *    edge (a fold crosses the card and its plain border; a printed frame stops inside it);
 *  - stains: the printed border's colour changed over an area (a plain border is the one place a
 *    blot can be told from the design; stains on the art are not measured).
 */
export interface Surface {
  /** Length of scratches and print lines over the card's width (0.5 = half a width). */
  lines: number;
  segments: number;
  /** Length of creases over the card's width. */
  creases: number;
  /** Share of the printed border stained, 0–1; null when the border was not found. */
  stains: number | null;
  /** Share of the card under glare, left out of the measurement. */
  glare: number;
  grade: number;
}

/** Creases weigh 1.5× a scratch of the same length; a 1 % stained border weighs as 0.1 width of scratch. */
const CREASE_WEIGHT = 1.5;
const STAIN_WEIGHT = 10;

/**
 * 1 + 9·e^(−(lines + 1.5·creases + 10·stains)): a scratch of a third of the width grades 7.4,
 * a crease across the card (one width) 3.0, 5 % of the border stained 6.5.
 */
export function surfaceGrade(lines: number, creases = 0, stains = 0): number {
  return Math.round((1 + 9 * Math.exp(-(lines + CREASE_WEIGHT * creases + STAIN_WEIGHT * stains))) * 10) / 10;
}

/** Grey-minus-median threshold for a thin-line pixel. */
const LINE_CONTRAST = 22;
/** Perpendicular reach (px) looked at beside a light line for the dark outline it may rim. */
const BESIDE = 4;
/** A border pixel is stained when, brought to the border's lightness, its colour is this far off. */
const STAIN_SHIFT = 25;
/** Shortest scratch counted, a share of the width. */
const SCRATCH_MIN = 0.08;
/** A line within about 3° of the card's axes is axis-parallel. */
const AXIAL_SLOPE = 0.05;
/**
 * Share of the art's span an axis-parallel line must cross to count: a print line from the press
 * crosses the whole card, a printed rule stops short. At 0.9, a Pokémon card's attack rules (0.92 of
 * the span in a slab photo at half size) counted as two scratches (docs/grading.md, "Surface").
 */
const PRINT_LINE_SPAN = 0.97;
/** Grey-minus-median contrast of a faint line, followed from a crease's segments to the edge. */
const FAINT_LINE = 8;
/** A crease's ends lie this close to the card's edge (share of the width): printed rules and frames stop at the border, 3 % or more in. */
const CREASE_EDGE_REACH = 0.02;

export function measureSurface(cv: Cv, card: RgbPixels, inset = 0.05, margins?: readonly [number, number, number, number]): Surface {
  const { width: W, height: H, data: d } = card;
  const mats: { delete(): void }[] = [];
  const keep = <T extends { delete(): void }>(m: T): T => (mats.push(m), m);
  try {
    const rgb = keep(new cv.Mat(H, W, cv.CV_8UC3));
    rgb.data.set(card.data);
    const gray = keep(new cv.Mat());
    cv.cvtColor(rgb, gray, cv.COLOR_RGB2GRAY);
    const med = keep(new cv.Mat());
    cv.medianBlur(gray, med, 5);
    const g = gray.data;
    const md = med.data;

    // Light (1) and dark (2) thin-line pixels; glare (near-white, colourless) is neither.
    const lineKind = new Uint8Array(W * H);
    const glareMask = new Uint8Array(W * H);
    const x0 = Math.round(W * inset);
    const y0 = Math.round(H * inset);
    let glare = 0;
    let area = 0;
    for (let i = 0; i < W * H; i++) {
      const r = d[i * 3]!;
      const gg = d[i * 3 + 1]!;
      const b = d[i * 3 + 2]!;
      const lo = Math.min(r, gg, b);
      if (lo > 235 && Math.max(r, gg, b) - lo < 12) glareMask[i] = 1;
      const x = i % W;
      const y = (i - x) / W;
      if (x >= x0 && y >= y0 && x < W - x0 && y < H - y0) {
        area++;
        if (glareMask[i]) glare++;
      }
      if (glareMask[i]) continue;
      const diff = g[i]! - md[i]!;
      if (diff > LINE_CONTRAST) lineKind[i] = 1;
      else if (diff < -LINE_CONTRAST) lineKind[i] = 2;
    }
    const at = (x: number, y: number) => (x < 0 || y < 0 || x >= W || y >= H ? 0 : lineKind[Math.round(y) * W + Math.round(x)]!);

    /**
     * Along segment a→b, the share of points with a dark line beside at least as strong as the
     * light one: a printed outline's rim. A scratch's own JPEG ringing is fainter than it.
     */
    const darkBeside = (ax: number, ay: number, bx: number, by: number) => {
      const len = Math.hypot(bx - ax, by - ay) || 1;
      const [nx, ny] = [-(by - ay) / len, (bx - ax) / len];
      const steps = Math.max(1, Math.round(len));
      const signed = (x: number, y: number) => {
        const xi = Math.round(x);
        const yi = Math.round(y);
        return xi < 0 || yi < 0 || xi >= W || yi >= H ? 0 : g[yi * W + xi]! - md[yi * W + xi]!;
      };
      let rimmed = 0;
      for (let t = 0; t <= steps; t++) {
        const x = ax + ((bx - ax) * t) / steps;
        const y = ay + ((by - ay) * t) / steps;
        let light = 0;
        for (let o = -1; o <= 1; o++) light = Math.max(light, signed(x + nx * o, y + ny * o));
        let dark = 0;
        for (let o = -BESIDE; o <= BESIDE; o++) if (at(x + nx * o, y + ny * o) === 2) dark = Math.max(dark, -signed(x + nx * o, y + ny * o));
        if (dark >= light) rimmed++;
      }
      return rimmed / (steps + 1);
    };

    const creaseLines = findCreases(cv, keep, lineKind, g, md, W, H, !!margins);
    // Scratches: Hough segments on light line pixels inside the art.
    const scratchMask = keep(new cv.Mat(H, W, cv.CV_8UC1, new cv.Scalar(0)));
    const sm = scratchMask.data;
    for (let y = y0; y < H - y0; y++) for (let x = x0; x < W - x0; x++) if (lineKind[y * W + x] === 1) sm[y * W + x] = 255;
    // A thin line split between pixel rows shows as dashes: weaker light pixels (over half the
    // threshold) next to a marked one join it.
    for (let y = Math.max(1, y0); y < H - Math.max(1, y0); y++) {
      for (let x = Math.max(1, x0); x < W - Math.max(1, x0); x++) {
        const i = y * W + x;
        if (sm[i] || glareMask[i] || g[i]! - md[i]! <= LINE_CONTRAST / 2) continue;
        if (lineKind[i - 1] === 1 || lineKind[i + 1] === 1 || lineKind[i - W] === 1 || lineKind[i + W] === 1 || lineKind[i - W - 1] === 1 || lineKind[i - W + 1] === 1 || lineKind[i + W - 1] === 1 || lineKind[i + W + 1] === 1) sm[i] = 255;
      }
    }
    const segments = keep(new cv.Mat());
    const minLength = W * SCRATCH_MIN;
    cv.HoughLinesP(scratchMask, segments, 1, Math.PI / 360, Math.round(minLength * 0.6), minLength, 3);
    const s = segments.data32S;
    // Overlapping detections of one line are merged by counting each stretch once.
    const counted = new Uint8Array(W * H);
    let length = 0;
    let count = 0;
    for (let k = 0; k + 3 < s.length; k += 4) {
      const [ax, ay, bx, by] = [s[k]!, s[k + 1]!, s[k + 2]!, s[k + 3]!];
      // The light rim a printed dark outline leaves after sharpening or JPEG is not a scratch.
      if (darkBeside(ax, ay, bx, by) > 0.5) continue;
      // Counted once, as the crease it lies on.
      if (creaseLines.some((l) => offLine(l, ax, ay) < 6 && offLine(l, bx, by) < 6)) continue;
      // Printed frames, rules and text lines run along the card's axes and stop inside it; an
      // axis-parallel line counts only when it crosses the whole art (a print line does).
      const axial = Math.min(Math.abs(bx - ax), Math.abs(by - ay)) < AXIAL_SLOPE * Math.hypot(bx - ax, by - ay);
      if (axial && Math.hypot(bx - ax, by - ay) < (Math.abs(bx - ax) > Math.abs(by - ay) ? W - 2 * x0 : H - 2 * y0) * PRINT_LINE_SPAN) continue;
      const steps = Math.max(Math.abs(bx - ax), Math.abs(by - ay));
      let fresh = 0;
      const pixels: number[] = [];
      for (let t = 0; t <= steps; t++) {
        const x = Math.round(ax + ((bx - ax) * t) / Math.max(1, steps));
        const y = Math.round(ay + ((by - ay) * t) / Math.max(1, steps));
        pixels.push(y * W + x);
        if (!counted[y * W + x]) fresh++;
      }
      // A line a few pixels wide comes back as parallel segments: its 5×5 neighbourhood is
      // marked once the segment is counted, so each stretch of defect counts once.
      for (const i of pixels) {
        const x = i % W;
        const y = (i - x) / W;
        for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) if (y + dy >= 0 && y + dy < H && x + dx >= 0 && x + dx < W) counted[(y + dy) * W + x + dx] = 1;
      }
      if (fresh > minLength / 2) count++;
      length += fresh * (Math.hypot(bx - ax, by - ay) / Math.max(1, steps));
    }

    const creases = Math.round((creaseLines.reduce((sum, l) => sum + l.length, 0) / W) * 1000) / 1000;
    const stains = margins ? measureStains(cv, keep, rgb, W, H, margins) : null;
    const lines = Math.round((length / W) * 1000) / 1000;
    return {
      lines,
      segments: count,
      creases,
      stains,
      glare: Math.round((glare / Math.max(1, area)) * 1000) / 1000,
      grade: surfaceGrade(lines, creases, stains ?? 0),
    };
  } finally {
    for (const x of mats) x.delete();
  }
}

type Keep = <T extends { delete(): void }>(m: T) => T;

interface CreaseLine {
  theta: number;
  rho: number;
  length: number;
}

/**
 * Creases: Hough segments on all thin-line pixels, light or dark, over the whole card (a fold
 * runs into the border); collinear ones join into one line, which is a crease when its segments
 * cover half of it and it runs on to the card's edge, followed faintly across the plain border
 * where the segments stop: at both ends, or at one end and a quarter of the width long. Printed
 * frames, rules and text stop at the border, 3 % of the width or more in; a straight line that
 * crosses the plain border does not belong to the design. Where the
 * fold's shadow or highlight does not show (light or dark art), the half that shows is enough.
 * Without a border found (full art, or the card's outline missed) printed rules may reach the
 * edge: lines along the card's sides are then not counted.
 */
function findCreases(cv: Cv, keep: Keep, lineKind: Uint8Array, g: Uint8Array, md: Uint8Array, W: number, H: number, bordered: boolean): CreaseLine[] {
  const mask = keep(new cv.Mat(H, W, cv.CV_8UC1, new cv.Scalar(0)));
  const edge = Math.max(2, Math.round(W * 0.008));
  for (let y = edge; y < H - edge; y++) for (let x = edge; x < W - edge; x++) if (lineKind[y * W + x]) mask.data[y * W + x] = 255;
  const segs = keep(new cv.Mat());
  const minLength = W * 0.08;
  cv.HoughLinesP(mask, segs, 1, Math.PI / 360, Math.round(minLength * 0.6), minLength, 6);
  const s = segs.data32S;
  // Segments longest first: the longest of a line sets its direction (short Hough segments'
  // angles wander), the others join it when both their ends lie on it.
  const found: [number, number, number, number][] = [];
  for (let k = 0; k + 3 < s.length; k += 4) found.push([s[k]!, s[k + 1]!, s[k + 2]!, s[k + 3]!]);
  found.sort((a, b) => Math.hypot(b[2] - b[0], b[3] - b[1]) - Math.hypot(a[2] - a[0], a[3] - a[1]));
  const lines: { theta: number; rho: number; lo: number; hi: number; covered: number }[] = [];
  for (const [ax, ay, bx, by] of found) {
    let theta = Math.atan2(by - ay, bx - ax);
    if (theta < 0) theta += Math.PI;
    if (theta >= Math.PI) theta -= Math.PI;
    const line = lines.find((l) => angleDiff(l.theta, theta) < 0.05 && offLine(l, ax, ay) < 6 && offLine(l, bx, by) < 6);
    const [ux, uy] = line ? [Math.cos(line.theta), Math.sin(line.theta)] : [Math.cos(theta), Math.sin(theta)];
    const [ta, tb] = [ax * ux + ay * uy, bx * ux + by * uy];
    if (line) {
      line.lo = Math.min(line.lo, ta, tb);
      line.hi = Math.max(line.hi, ta, tb);
      line.covered += Math.abs(tb - ta);
    } else lines.push({ theta, rho: -ax * uy + ay * ux, lo: Math.min(ta, tb), hi: Math.max(ta, tb), covered: Math.abs(tb - ta) });
  }
  const reach = W * CREASE_EDGE_REACH;
  const creases: CreaseLine[] = [];
  for (const l of lines) {
    const [ux, uy] = [Math.cos(l.theta), Math.sin(l.theta)];
    const axial = Math.min(Math.abs(ux), Math.abs(uy)) < AXIAL_SLOPE;
    const len = l.hi - l.lo;
    if (l.covered < len * 0.5) continue;
    // Where the line enters and leaves the card: an end reaches the edge when it is near there
    // (print running along an edge, a copyright line, never does).
    const [px0, py0] = [-l.rho * uy, l.rho * ux];
    let tIn = -Infinity;
    let tOut = Infinity;
    for (const [p, u, size] of [[px0, ux, W], [py0, uy, H]] as const) {
      if (Math.abs(u) < 1e-9) continue;
      const [t1, t2] = [(0 - p) / u, (size - p) / u];
      tIn = Math.max(tIn, Math.min(t1, t2));
      tOut = Math.min(tOut, Math.max(t1, t2));
    }
    // Between a segment's end and the edge, a plain border shows even a faint fold: the line
    // runs on when, at most points there, it stands out from the border beside it.
    const runsOn = (from: number, to: number) => {
      const gap = Math.abs(to - from);
      if (gap < reach) return true;
      // Not for lines along the card's sides: printed bars end at the border, and a textured
      // (metallic) border shows faint lines everywhere along them.
      if (gap > W * 0.25 || axial) return false;
      const dir = Math.sign(to - from);
      let seen = 0;
      let n = 0;
      for (let t = from; Math.abs(to - t) > 2; t += dir) {
        const [x, y] = [px0 + t * ux, py0 + t * uy];
        const contrast = (o: number) => {
          const xi = Math.round(x - uy * o);
          const yi = Math.round(y + ux * o);
          return xi < 0 || yi < 0 || xi >= W || yi >= H ? 0 : Math.abs(g[yi * W + xi]! - md[yi * W + xi]!);
        };
        const on = Math.max(contrast(-1), contrast(0), contrast(1));
        const off = Math.max(contrast(-6), contrast(6), contrast(-8), contrast(8), contrast(-10), contrast(10));
        n++;
        if (on > FAINT_LINE && on > off + FAINT_LINE / 2) seen++;
      }
      return n > 0 && seen >= n * 0.6;
    };
    const ends = Number(runsOn(l.lo, tIn)) + Number(runsOn(l.hi, tOut));
    if (!(ends === 2 || (ends === 1 && len >= W * 0.25))) continue;
    if (!bordered && axial) continue;
    // A fold's highlight and shadow, a few pixels apart, are one crease.
    const mid = [px0 + ((l.lo + l.hi) / 2) * ux, py0 + ((l.lo + l.hi) / 2) * uy] as const;
    const twin = creases.find((c) => angleDiff(c.theta, l.theta) < 0.05 && offLine(c, mid[0], mid[1]) < 10);
    if (twin) twin.length = Math.max(twin.length, len);
    else creases.push({ theta: l.theta, rho: l.rho, length: len });
  }
  return creases;
}

/** A point's distance from the line at angle theta, offset rho from the origin. */
const offLine = (l: { theta: number; rho: number }, x: number, y: number) => Math.abs(-x * Math.sin(l.theta) + y * Math.cos(l.theta) - l.rho);

const angleDiff = (a: number, b: number) => {
  const d = Math.abs(a - b) % Math.PI;
  return Math.min(d, Math.PI - d);
};

/**
 * Stains in the printed border: each side's border, clear of the outline's wear band and of the
 * inner frame, median-filtered (7×7: small print in the border goes), against the border colour
 * of that side around it. A pixel is stained when its colour, brought to the border's lightness,
 * is over 25 off, unless it is lighter and near grey (glare or worn stock, measured elsewhere). A blot
 * that only darkens a border of its own hue (brown on orange) reads as shading and is missed.
 * Returns the stained share.
 */
function measureStains(cv: Cv, keep: Keep, rgb: OpenCv.Mat, W: number, H: number, margins: readonly [number, number, number, number]): number | null {
  // Only the four border strips are median-filtered (the whole card took 100 ms).
  const strips = margins.map((m, side) => {
    const depth = Math.min(side % 2 === 0 ? W : H, Math.ceil(m) + 4);
    const rect = side === 0 ? new cv.Rect(0, 0, depth, H) : side === 1 ? new cv.Rect(0, 0, W, depth) : side === 2 ? new cv.Rect(W - depth, 0, depth, H) : new cv.Rect(0, H - depth, W, depth);
    const roi = keep(rgb.roi(rect));
    const out = keep(new cv.Mat());
    cv.medianBlur(roi, out, 7);
    return { x0: rect.x, y0: rect.y, w: rect.width, data: out.data };
  });
  let strip = strips[0]!;
  const px = (x: number, y: number): Rgb => {
    const i = ((y - strip.y0) * strip.w + (x - strip.x0)) * 3;
    return [strip.data[i]!, strip.data[i + 1]!, strip.data[i + 2]!];
  };
  const from = Math.max(3, Math.round(W * 0.025));
  const reach = Math.round(W * 0.08);
  const step = Math.round(W * 0.04);
  let ring = 0;
  let stained = 0;
  margins.forEach((m, side) => {
    const to = Math.floor(m) - 2;
    if (to - from < 2) return;
    const len = side % 2 === 0 ? H : W;
    strip = strips[side]!;
    // (along, depth) → pixel of this side.
    const at = (a: number, dep: number): Rgb => (side === 0 ? px(dep, a) : side === 1 ? px(a, dep) : side === 2 ? px(W - 1 - dep, a) : px(a, H - 1 - dep));
    const windows: Rgb[][] = [];
    for (let a0 = reach; a0 + step <= len - reach; a0 += step) {
      const cs: Rgb[] = [];
      for (let a = a0; a < a0 + step; a += 2) for (let dep = from; dep < to; dep += 2) cs.push(at(a, dep));
      windows.push(cs);
    }
    const medians = windows.map((cs) => medianColor(cs));
    windows.forEach((cs, k) => {
      // The border's colour around this stretch: the median of the windows within three of it.
      const ref = medianColor(medians.slice(Math.max(0, k - 3), k + 4));
      const refLight = Math.max(1, lightness(ref));
      for (const c of cs) {
        ring++;
        const light = lightness(c);
        // Brought to the border's lightness first: shading (a metallic border's sheen, the
        // light across the photo) changes lightness, a stain changes the colour.
        const scaled = c.map((v) => (v * refLight) / Math.max(1, light));
        if (!(light > refLight + 25 && chroma(c) < 30) && colorDistance(scaled, ref) > STAIN_SHIFT) stained++;
      }
    });
  });
  return ring ? Math.round((stained / ring) * 1000) / 1000 : null;
}

