import type * as OpenCv from '@techstark/opencv-js';
import { mergeSegments, quadsFromLines, sideSupport, type Segment } from './card-quad-search.ts';
import { clockwiseFromTopLeft, fitLine, insideConvex, intersect, polygonArea, sideLengths, type Point, type Quad } from '../geometry/plane-geometry.ts';
import { nodeRequire, type RgbPixels } from '../engine/tfjs-runtime.ts';

export type Cv = typeof OpenCv;
export type { Point, Quad } from '../geometry/plane-geometry.ts';
export { sideLengths } from '../geometry/plane-geometry.ts';

/** Card shape, width : height (ISO 7810 ID-1 trading cards are 63 × 88 mm). */
export const CARD_ASPECT = 63 / 88;
/** A standard card's corner radius (3 mm of 63 mm) as a share of its width. */
export const CORNER_RADIUS = 3 / 63;

/**
 * OpenCV (WebAssembly build from `@techstark/opencv-js`), loaded once per thread. The module is
 * a thenable Emscripten object: it is handed out inside a wrapper, because resolving a promise
 * with it directly makes the promise adopt it forever.
 */
let loading: Promise<{ cv: Cv }> | undefined;
export function loadCv(): Promise<{ cv: Cv }> {
  loading ??= new Promise((resolve) => {
    const mod = nodeRequire('@techstark/opencv-js') as Cv & { onRuntimeInitialized?: () => void };
    if (typeof mod.Mat === 'function') return resolve({ cv: mod });
    mod.onRuntimeInitialized = () => resolve({ cv: mod });
  });
  return loading;
}

export interface CardLocation {
  quad: Quad;
  /** How card-like the outline is: 63:88 aspect, filled like a quadrilateral, clear of the image frame; 0–1. */
  prob: number;
}

/** Long edge the outline is searched at: enough for sub-pixel line fits, cheap on 12-MP photos. */
const DETECT_EDGE = 800;
/** Corner evidence (of 4) above which the outline found is taken as the card without looking at others. */
const SURE_CORNERS = 3.9;
/** Most other outlines refined when the corners found are not sure. */
const ALTERNATE_OUTLINES = 2;
/** Corners between two outlines (share of the card's width) beyond which they are different outlines. */
const DISTINCT_OUTLINE = 0.05;

/**
 * Finds the card: the most card-like convex quadrilateral among the outlines of edges (Canny) and
 * of Otsu regions, then each side re-fitted as a straight line through its outline points away
 * from the rounded corners, the corners being the sides' intersections. Null when nothing
 * card-like covers at least 3 % of the image.
 */
export function locateCard(cv: Cv, img: RgbPixels): CardLocation | null {
  const scale = Math.min(1, DETECT_EDGE / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const mats: { delete(): void }[] = [];
  const keep = <T extends { delete(): void }>(m: T): T => (mats.push(m), m);
  try {
    const rgb = keep(new cv.Mat(img.height, img.width, cv.CV_8UC3));
    rgb.data.set(img.data);
    const small = keep(new cv.Mat());
    cv.resize(rgb, small, new cv.Size(w, h), 0, 0, cv.INTER_AREA);
    const gray = keep(new cv.Mat());
    cv.cvtColor(small, gray, cv.COLOR_RGB2GRAY);
    const blurred = keep(new cv.Mat());
    cv.GaussianBlur(gray, blurred, new cv.Size(5, 5), 0);

    const masks: OpenCv.Mat[] = [];
    // Edges in brightness and in the two colour-opponent channels (a yellow card on beige is
    // plain in grey and obvious in colour), thresholds from each channel's median, closed so a
    // card outline is one contour.
    const lab = keep(new cv.Mat());
    cv.cvtColor(small, lab, cv.COLOR_RGB2Lab);
    const channels = keep(new cv.MatVector());
    cv.split(lab, channels);
    const edges = keep(cv.Mat.zeros(h, w, cv.CV_8UC1));
    for (let c = 0; c < 3; c++) {
      const ch = channels.get(c);
      const e = new cv.Mat();
      cv.GaussianBlur(ch, ch, new cv.Size(5, 5), 0);
      const med = median(ch.data);
      // Colour channels sit near 128 with little spread: fixed thresholds suit them better.
      if (c === 0) cv.Canny(ch, e, Math.max(10, 0.5 * med), Math.min(255, Math.max(40, 1.2 * med)));
      else cv.Canny(ch, e, 12, 30);
      cv.bitwise_or(edges, e, edges);
      e.delete();
      ch.delete();
    }
    const thinEdges = keep(edges.clone());
    const kernel = keep(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(3, 3)));
    cv.dilate(edges, edges, kernel);
    masks.push(edges);
    // Regions: a card is usually brighter or darker than what it lies on.
    for (const type of [cv.THRESH_BINARY, cv.THRESH_BINARY_INV]) {
      const bin = keep(new cv.Mat());
      cv.threshold(blurred, bin, 0, 255, type + cv.THRESH_OTSU);
      cv.morphologyEx(bin, bin, cv.MORPH_OPEN, kernel);
      masks.push(bin);
    }

    interface Candidate {
      quad: Quad;
      score: number;
      shape: number;
      /** The contour's own points, for the line fits; null for a quad from straight lines (all edge points are used). */
      contour: Point[] | null;
    }
    let best: Candidate | null = null;
    const outlines: Candidate[] = [];
    const imageArea = w * h;
    for (const mask of masks) {
      const contours = keep(new cv.MatVector());
      const hierarchy = keep(new cv.Mat());
      cv.findContours(mask, contours, hierarchy, cv.RETR_LIST, cv.CHAIN_APPROX_NONE);
      for (let i = 0, n = contours.size() as unknown as number; i < n; i++) {
        const c = contours.get(i);
        try {
          const area = cv.contourArea(c);
          if (area < 0.03 * imageArea) continue;
          const hull = new cv.Mat();
          cv.convexHull(c, hull);
          const approx = new cv.Mat();
          cv.approxPolyDP(hull, approx, 0.02 * cv.arcLength(hull, true), true);
          const hullArea = cv.contourArea(hull);
          let quad: Point[] | null = approx.rows === 4 ? pointsOf(approx) : null;
          if (!quad) {
            const r = cv.minAreaRect(hull);
            quad = rectCorners(r.center.x, r.center.y, r.size.width, r.size.height, r.angle);
          }
          hull.delete();
          approx.delete();
          const quadArea = Math.abs(polygonArea(quad));
          if (quadArea <= 0) continue;
          // Filled outlines fit their quadrilateral; an edge contour is a thin loop around it.
          const solidity = Math.min(1, hullArea / quadArea);
          const [s1, s2] = sideLengths(quad);
          const ratio = Math.min(s1, s2) / Math.max(s1, s2);
          const aspect = Math.exp(-(((ratio - CARD_ASPECT) / 0.12) ** 2));
          // The image's own frame (an Otsu region covering the background) is not a card.
          const onFrame = quad.filter(([x, y]) => x < 2.5 || y < 2.5 || x > w - 3.5 || y > h - 3.5).length;
          if (onFrame >= 3) continue;
          const touches = onFrame > 0 ? 0.3 : 1;
          const shape = aspect * solidity ** 2 * touches;
          const score = Math.sqrt(quadArea / imageArea) * shape;
          const cand = { quad: order(quad), score, shape, contour: pointsOf(c) };
          outlines.push(cand);
          if (!best || score > best.score) best = cand;
        } finally {
          c.delete();
        }
      }
    }
    // Straight lines, for cards whose outline never closes into a contour of its own, and for
    // outlines that leaked: after fitting, a true card's sides lie on edges (≥ 73 % in the
    // grading bench), a leaked outline's do not (4–25 %).
    const fromLines = (): Candidate | null => {
      const segMat = keep(new cv.Mat());
      cv.HoughLinesP(thinEdges, segMat, 1, Math.PI / 180, 40, 0.12 * Math.min(w, h), 4);
      const d = segMat.data32S;
      const segments: Segment[] = [];
      for (let i = 0; i + 3 < d.length; i += 4) segments.push({ x1: d[i]!, y1: d[i + 1]!, x2: d[i + 2]!, y2: d[i + 3]! });
      let found: Candidate | null = null;
      for (const cand of quadsFromLines(mergeSegments(segments), edges.data, w, h)) {
        const quad = order(cand.corners);
        const onFrame = quad.filter(([x, y]) => x < 2.5 || y < 2.5 || x > w - 3.5 || y > h - 3.5).length;
        if (onFrame >= 3) continue;
        const aspect = Math.exp(-(((cand.ratio - CARD_ASPECT) / 0.12) ** 2));
        const shape = aspect * (onFrame > 0 ? 0.3 : 1) * supportFactor(cand.support);
        const score = Math.sqrt(cand.area / imageArea) * shape;
        if (!found || score > found.score) found = { quad, score, shape, contour: null };
      }
      return found && found.score >= 0.08 && found.shape >= 0.3 ? found : null;
    };
    let allEdgePoints: Point[] | undefined;
    const fitOf = (c: Candidate) => refine(c.quad, c.contour ?? (allEdgePoints ??= edgePoints(thinEdges.data, w, h)));
    const lineBest = fromLines();
    if (!best || best.score < 0.08 || best.shape < 0.3 || (lineBest && lineBest.score > best.score)) best = lineBest;
    if (!best) return null;
    // A card lying on something rectangular that fills the picture (a photo's own frame, a
    // vignette, a mat) can lose to that bigger outline. Only then, the largest card-shaped
    // outline well inside it, on edges all round, is the card. Not for any winner: inside a
    // real card, the art box is card-shaped too.
    const winner = best;
    let fitted: Quad | null | undefined;
    const span = (k: 0 | 1) => (Math.max(...winner.quad.map((p) => p[k])) - Math.min(...winner.quad.map((p) => p[k]))) / (k === 0 ? w : h);
    if (span(0) >= 0.8 && span(1) >= 0.8) {
      const inner = outlines
        .filter((c) => c !== winner && c.shape >= 0.5 && c.quad.every((p) => insideConvex(winner.quad, p[0], p[1])))
        .map((c) => ({ c, share: Math.abs(polygonArea(c.quad)) / Math.abs(polygonArea(winner.quad)) }))
        .filter(({ share }) => share >= 0.05 && share <= 0.6)
        .sort((a, b) => b.share - a.share);
      for (const { c } of inner) {
        const fit = fitOf(c);
        if (fit && Math.min(...sideSupport(fit, edges.data, w, h)) >= 0.6) {
          best = c;
          fitted = fit;
          break;
        }
      }
    }
    if (fitted === undefined) fitted = fitOf(best);
    if (best.contour && (!fitted || Math.min(...sideSupport(fitted, edges.data, w, h)) < 0.6)) {
      const alt = lineBest;
      const altFit = alt && fitOf(alt);
      if (alt && altFit && Math.min(...sideSupport(altFit, edges.data, w, h)) >= 0.6) {
        best = alt;
        fitted = altFit;
      }
    }
    const coarseOf = (q: Quad) => q.map(([x, y]) => [x / scale, y / scale] as Point) as Quad;
    let chosen = { cand: best, coarse: coarseOf(fitted ?? best.quad), found: null as { quad: Quad; evidence: number } | null };
    chosen.found = refineInRoi(cv, rgb, chosen.coarse);
    // The most card-like outline by shape can be the art box, or something else card-shaped on
    // the table, while the card's own outline scored lower. A card's corners are rounded: unless
    // the outline chosen shows four such corners, the next outlines are refined too, and each is
    // worth its corner evidence plus the log of its score (an e-fold of size and shape counts as
    // much as one corner). On the bench's four sets of photos this took 340 of 380 to 351.
    const worth = (evidence: number, score: number) => evidence + Math.log(score);
    if ((chosen.found?.evidence ?? -4) < SURE_CORNERS) {
      const tried = [winner.quad, best.quad];
      const distinct = (q: Quad) => tried.every((t) => Math.max(...q.map((p, k) => dist(p, t[k]!))) > DISTINCT_OUTLINE * cardWidthOf(t));
      const others = [lineBest, ...outlines.sort((a, b) => b.score - a.score)].filter((c): c is Candidate => !!c && c.score >= 0.08 && c.shape >= 0.3);
      let left = ALTERNATE_OUTLINES;
      for (const c of others) {
        if (left === 0) break;
        if (!distinct(c.quad)) continue;
        tried.push(c.quad);
        left--;
        const coarse = coarseOf(fitOf(c) ?? c.quad);
        const found = refineInRoi(cv, rgb, coarse);
        if (found && worth(found.evidence, c.score) > worth(chosen.found?.evidence ?? -4, chosen.cand.score)) chosen = { cand: c, coarse, found };
      }
    }
    return { quad: chosen.found?.quad ?? chosen.coarse, prob: Math.round(chosen.cand.shape * 1000) / 1000 };
  } finally {
    for (const m of mats) m.delete();
  }
}

/**
 * Second pass around the found card at up to full resolution: Canny edge pixels (gradient maxima,
 * so within a pixel of the true edge) near each side are fitted as lines again. A card that is
 * small in a large photo gains the most: the first pass saw it at the reduced size.
 */
function refineInRoi(cv: Cv, rgb: OpenCv.Mat, quad: Quad): { quad: Quad; evidence: number } | null {
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const pad = cardWidthOf(quad) * 0.15;
  const x0 = Math.max(0, Math.floor(Math.min(...xs) - pad));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) - pad));
  const x1 = Math.min(rgb.cols, Math.ceil(Math.max(...xs) + pad));
  const y1 = Math.min(rgb.rows, Math.ceil(Math.max(...ys) + pad));
  if (x1 - x0 < 16 || y1 - y0 < 16) return null;
  const s = Math.min(1, (DETECT_EDGE * 1.5) / Math.max(x1 - x0, y1 - y0));
  const roi = rgb.roi(new cv.Rect(x0, y0, x1 - x0, y1 - y0));
  const mats: { delete(): void }[] = [roi];
  try {
    const small = new cv.Mat();
    mats.push(small);
    cv.resize(roi, small, new cv.Size(Math.round((x1 - x0) * s), Math.round((y1 - y0) * s)), 0, 0, cv.INTER_AREA);
    const lab = new cv.Mat();
    mats.push(lab);
    cv.GaussianBlur(small, lab, new cv.Size(3, 3), 0);
    cv.cvtColor(lab, lab, cv.COLOR_RGB2Lab);
    const planes = new cv.MatVector();
    mats.push(planes);
    cv.split(lab, planes);
    const channels = [0, 1, 2].map((c) => {
      const m = planes.get(c);
      const data = Uint8Array.from(m.data);
      m.delete();
      return data;
    });
    const local = quad.map(([x, y]) => [(x - x0) * s, (y - y0) * s] as Point) as Quad;
    let refined = refineByProfiles(local, channels, small.cols, small.rows);
    // The outline found may be the art box inside the printed border: look for the card's edge.
    // Smoothed, so a faint edge (a white border on white paper) stands above the sensor noise.
    const smooth = new cv.Mat();
    mats.push(smooth);
    cv.GaussianBlur(small, smooth, new cv.Size(5, 5), 0);
    // The outline found may be a clear holder's (sleeve, top-loader): look for the card inside it.
    const inner = shrinkToCard(refined ?? local, smooth.data, small.cols, small.rows);
    if (inner) refined = refineByProfiles(inner.quad, channels, small.cols, small.rows, undefined, inner.shifts.map((x) => (x > 0 ? x / 2 : Infinity))) ?? inner.quad;
    const outer = inner ? null : expandToBorder(refined ?? local, smooth.data, small.cols, small.rows);
    // A side that moved out across the border must not be pulled back in to the art box's
    // edge, which is often the stronger one: look no further in than half the band.
    if (outer) refined = refineByProfiles(outer.quad, channels, small.cols, small.rows, outer.shifts.map((x) => (x > 0 ? x / 2 : Infinity))) ?? outer.quad;
    const moved = cornerCheck(refined ?? local, smooth.data, small.cols, small.rows);
    if (moved) {
      // The sides that moved are re-fitted close to the edge chosen; the others stay as they were.
      const near = moved.shifts.map((x) => (x === 0 ? 1 : 3));
      refined = refineByProfiles(moved.quad, channels, small.cols, small.rows, near, near) ?? moved.quad;
    }
    if (!refined) return null;
    return { quad: refined.map(([x, y]) => [x / s + x0, y / s + y0] as Point) as Quad, evidence: cornerEvidence(refined, smooth.data, small.cols, small.rows) };
  } finally {
    for (const m of mats) m.delete();
  }
}

/** Warps the card to an upright 63:88 image `width` pixels wide. */
export function warpCard(cv: Cv, img: RgbPixels, quad: Quad, width: number): RgbPixels {
  return warpCardParts(cv, img, quad, [{ width, y0: 0, y1: 1 }])[0]!;
}

/**
 * Rows `y0`–`y1` (shares of its height) of the card warped upright at `width` each, as
 * {@link warpCard} warps the whole card: a reader warps only what it reads or hashes (the whole
 * card at 1000 px took 40–70 ms of a recognition read).
 */
export function warpCardParts(cv: Cv, img: RgbPixels, quad: Quad, parts: readonly { width: number; y0: number; y1: number }[]): RgbPixels[] {
  const src = cv.matFromArray(4, 1, cv.CV_32FC2, quad.flat());
  const rgb = new cv.Mat(img.height, img.width, cv.CV_8UC3);
  try {
    rgb.data.set(img.data);
    return parts.map(({ width, y0, y1 }) => {
      const height = Math.round(width / CARD_ASPECT);
      const a = Math.round(y0 * height);
      const b = Math.round(y1 * height);
      // OpenCV puts pixel centres on integers: the card's outer edges go to the output's outer pixel edges, row `a` to the first
      const dst = cv.matFromArray(4, 1, cv.CV_32FC2, [-0.5, -0.5 - a, width - 0.5, -0.5 - a, width - 0.5, height - 0.5 - a, -0.5, height - 0.5 - a]);
      const m = cv.getPerspectiveTransform(src, dst);
      const out = new cv.Mat();
      try {
        cv.warpPerspective(rgb, out, m, new cv.Size(width, b - a), cv.INTER_LINEAR, cv.BORDER_REPLICATE);
        return { data: out.data.slice(), width, height: b - a };
      } finally {
        dst.delete();
        m.delete();
        out.delete();
      }
    });
  } finally {
    src.delete();
    rgb.delete();
  }
}

/** The card's width in source pixels (mean of the upper and lower sides). */
export function cardWidthOf(quad: Quad): number {
  return (dist(quad[0], quad[1]) + dist(quad[3], quad[2])) / 2;
}

// ---------------------------------------------------------------------------------------------

export type Rgb = [number, number, number];

/** Per-channel median of RGB colours. */
export function medianColor(cs: readonly (readonly number[])[]): Rgb {
  return [0, 1, 2].map((k) => {
    const v = cs.map((c) => c[k]!).sort((a, b) => a - b);
    return v[v.length >> 1]!;
  }) as Rgb;
}

/** Luma (Rec. 601) of an RGB colour, 0–255. */
export const lightness = (c: readonly number[]) => 0.299 * c[0]! + 0.587 * c[1]! + 0.114 * c[2]!;
/** Chroma as max − min channel: 0 for greys. */
export const chroma = (c: readonly number[]) => Math.max(c[0]!, c[1]!, c[2]!) - Math.min(c[0]!, c[1]!, c[2]!);

/** Euclidean distance between RGB colours. */
export function colorDistance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
}

/** 1 when every side lies on edges, falling with the worst side; never 0, so a faint card still ranks. */
function supportFactor(support: number[]): number {
  const mean = support.reduce((a, b) => a + b, 0) / support.length;
  return 0.2 + 0.8 * Math.sqrt(mean * Math.min(...support));
}

function edgePoints(edges: Uint8Array, w: number, h: number): Point[] {
  const out: Point[] = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (edges[y * w + x]) out.push([x, y]);
  return out;
}

function pointsOf(m: OpenCv.Mat): Point[] {
  const d = m.data32S;
  const out: Point[] = [];
  for (let i = 0; i + 1 < d.length; i += 2) out.push([d[i]!, d[i + 1]!]);
  return out;
}

function rectCorners(cx: number, cy: number, w: number, h: number, angleDeg: number): Point[] {
  const a = (angleDeg * Math.PI) / 180;
  const c = Math.cos(a);
  const s = Math.sin(a);
  return [
    [-w / 2, -h / 2],
    [w / 2, -h / 2],
    [w / 2, h / 2],
    [-w / 2, h / 2],
  ].map(([x, y]) => [cx + x! * c - y! * s, cy + x! * s + y! * c] as Point);
}

const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/**
 * Clockwise from the upper-left, with the upper side a short one (the card upright). A card lying
 * sideways is taken as turned counter-clockwise: its upper side is the image's left one.
 */
export function order(points: Point[]): Quad {
  return uprightOrder(clockwiseFromTopLeft(points));
}

/**
 * A clockwise outline started at the corner that makes its upper side a short one, as `order` does
 * (sideways: turned counter-clockwise). The detector's outlines start at the image's upper-left whatever
 * the card's orientation, and a card lying sideways warped from there came out squashed into an
 * upright card's shape (its text lines read as scratches: surface 9.2 → 3.7 on a photo turned 90°).
 */
export function uprightOrder(q: Quad): Quad {
  // opposite sides together: one side foreshortened by perspective does not decide alone
  return dist(q[0], q[1]) + dist(q[2], q[3]) > (dist(q[1], q[2]) + dist(q[3], q[0])) * 1.05 ? [q[3], q[0], q[1], q[2]] : q;
}

/**
 * Side `side` of a clockwise quad: its start, length, unit direction, and the unit normal
 * pointing out of the card ((d.y, −d.x) in image coordinates).
 */
function sideFrame(quad: Quad, side: number): { a: Point; len: number; d: Point; n: Point } {
  const a = quad[side]!;
  const b = quad[(side + 1) % 4]!;
  const len = dist(a, b);
  const d: Point = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
  return { a, len, d, n: [d[1], -d[0]] };
}

/** Side `side` of `quad` as a line moved `shift` along its outward normal. */
function shiftedSide(quad: Quad, side: number, shift: number): { p: Point; d: Point } {
  const { a, d, n } = sideFrame(quad, side);
  return { p: [a[0] + n[0] * shift, a[1] + n[1] * shift], d };
}

/** `quad` with each side moved out by its shift (in when negative), corners where the lines meet. */
function shiftSides(quad: Quad, shifts: readonly number[]): Quad | null {
  const out: Point[] = [];
  for (let k = 0; k < 4; k++) {
    const hit = intersect(shiftedSide(quad, (k + 3) % 4, shifts[(k + 3) % 4]!), shiftedSide(quad, k, shifts[k]!));
    if (!hit) return null;
    out.push(hit);
  }
  return out as Quad;
}

/** How far the shape's ratio of mean side lengths is from a card's 63:88. */
export function aspectError(q: readonly Point[]): number {
  const [s1, s2] = sideLengths(q);
  return Math.abs(Math.min(s1, s2) / Math.max(s1, s2) - CARD_ASPECT);
}

/** Median of 8-bit values. */
function median(data: Uint8Array): number {
  const hist = new Uint32Array(256);
  for (const v of data) hist[v]!++;
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += hist[v]!;
    if (seen >= data.length / 2) return v;
  }
  return 128;
}

/** Colour distance (RGB, on the smoothed image) at which a border band ends. */
const BAND_END = 30;
/** Colour distance within which two bands are the same printed border (lighting and metallic shading vary along a card). */
const SAME_BORDER = 45;
/** Median colour distance from the band's median colour above which it is not one printed border (metallic borders shade along their length). */
const BAND_SPREAD = 40;
/** Share of a side's lines that must end on one line for its move to count while other sides stay. */
const STRAIGHT_END = 0.5;
/** Below this share of lines ending together, a band's end is ragged: a background's edges, not a card's. */
const RAGGED_END = 0.3;
/** A share of lines ending on one line that only a card's straight edge gives. */
const CLEAN_END = 0.75;

/** Colour distance below which the two sides of an edge are one surface: a line, not a step. */
const LINE_STEP = 20;
/** Most a clear holder's film lightens what is behind it (share of the way to white): haze and soft glare. */
const MAX_HAZE = 0.35;
/** Mean colour step across a side (RGB distance both 2 px and 5 px either side) that makes a card's edge inside a holder. */
const STEP_EDGE = 25;
/** Stretches along a side whose colours are compared on either side of a holder's edge. */
const HOLDER_WINDOWS = 7;

/** The colour of the nearest pixel of an RGB image, clamped to its frame. */
function colorAt(rgb: Uint8Array, w: number, h: number): (x: number, y: number) => Rgb {
  return (x, y) => {
    const i = (Math.max(0, Math.min(h - 1, Math.round(y))) * w + Math.max(0, Math.min(w - 1, Math.round(x)))) * 3;
    return [rgb[i]!, rgb[i + 1]!, rgb[i + 2]!];
  };
}

/**
 * Whether `inside` is `outside` seen through clear plastic: the same colour, lightened by up to
 * MAX_HAZE of the way to white, within LINE_STEP.
 */
function seenThrough(inside: Rgb, outside: Rgb): boolean {
  let num = 0;
  let den = 0;
  for (let k = 0; k < 3; k++) {
    num += (inside[k]! - outside[k]!) * (255 - outside[k]!);
    den += (255 - outside[k]!) ** 2;
  }
  const haze = Math.max(0, Math.min(MAX_HAZE, den > 0 ? num / den : 0));
  return colorDistance(inside, outside.map((c) => c + haze * (255 - c))) < LINE_STEP;
}

/**
 * Mean colour step across a side at offsets `from`…`to` − 1 along `normal` (index 0 is `from`),
 * over the middle 70 % of its length. A step, not a line: the colours must differ both 2 px and
 * 5 px either side (a thin bright line of plastic differs close by only). A textured background
 * averages out.
 */
function stepProfile(color: (x: number, y: number) => Rgb, a: Point, len: number, d: Point, normal: Point, from: number, to: number): Float32Array {
  const profile = new Float32Array(Math.max(0, to - from));
  // Colours along the normal, read once per point of the side: from − 5 … to + 4.
  const span = profile.length + 10;
  const line = new Float32Array(span * 3);
  const step = (i: number, k: number) => {
    const q = (i + 5 + k) * 3;
    const r = (i + 5 - k) * 3;
    const dr = line[q]! - line[r]!;
    const dg = line[q + 1]! - line[r + 1]!;
    const db = line[q + 2]! - line[r + 2]!;
    return Math.sqrt(dr * dr + dg * dg + db * db);
  };
  let count = 0;
  for (let t = len * 0.15; t < len * 0.85; t += 3, count++) {
    const x0 = a[0] + d[0] * t;
    const y0 = a[1] + d[1] * t;
    for (let j = 0; j < span; j++) {
      const o = from - 5 + j;
      const c = color(x0 + normal[0] * o, y0 + normal[1] * o);
      line[j * 3] = c[0];
      line[j * 3 + 1] = c[1];
      line[j * 3 + 2] = c[2];
    }
    for (let i = 0; i < profile.length; i++) profile[i] = profile[i]! + Math.min(step(i, 2), step(i, 5));
  }
  for (let i = 0; i < profile.length; i++) profile[i] = profile[i]! / Math.max(1, count);
  return profile;
}

/**
 * Whether side `side` of `quad` lies on a clear holder's edge: over 60 % of its length, the colour
 * just inside (or past a thick rim) is the colour just outside seen through plastic. Colours are
 * compared per stretch of the side, so a textured background matches itself. Returns how far in
 * the holder's edge ends (where to look for the card's), or null.
 */
function holderEdge(quad: Quad, side: number, color: (x: number, y: number) => Rgb): number | null {
  const { a, len, d, n } = sideFrame(quad, side);
  const width = cardWidthOf(quad);
  let lines = 0;
  let lineLike = 0;
  const starts: number[] = [];
  for (let k = 0; k < HOLDER_WINDOWS; k++) {
    const ts: number[] = [];
    for (let t = len * (0.15 + (0.7 * k) / HOLDER_WINDOWS); t < len * (0.15 + (0.7 * (k + 1)) / HOLDER_WINDOWS); t += 3) ts.push(t);
    const at = (t: number, o: number) => color(a[0] + d[0] * t + n[0] * o, a[1] + d[1] * t + n[1] * o);
    const band = (o0: number) => medianColor(ts.flatMap((t) => [at(t, o0), at(t, o0 - 1), at(t, o0 - 2)]));
    lines += ts.length;
    const outside = band(6);
    // Just inside the line, or past a thick rim (a top-loader's edge is ~2 mm of denser plastic).
    let from = 4;
    let inside = band(-from);
    if (!seenThrough(inside, outside)) {
      from = Math.round(width * 0.045);
      inside = band(-from);
      if (!seenThrough(inside, outside)) continue;
    }
    lineLike += ts.length;
    starts.push(from + 3);
  }
  return lineLike >= lines * 0.6 ? Math.min(...starts) : null;
}

/**
 * A clear holder's edge (sleeve, top-loader) is a thin line with the same background on both
 * sides, where a card's edge is a step from card to background. Sides lying on such lines move
 * in to the first step edge that most of their length agrees on: the card inside the holder.
 */
function shrinkToCard(quad: Quad, rgb: Uint8Array, w: number, h: number): { quad: Quad; shifts: number[] } | null {
  const color = colorAt(rgb, w, h);
  const width = cardWidthOf(quad);
  const maxIn = width * 0.25;
  const shifts: number[] = [];
  let lineSides = 0;
  for (let side = 0; side < 4; side++) {
    const { a, len, d, n } = sideFrame(quad, side);
    const first = holderEdge(quad, side, color);
    if (first === null) {
      shifts.push(0);
      continue;
    }
    // The card's edge is straight and parallel to the holder's: the first strong step in the
    // mean colour change across the side, past the rim. A textured background averages out.
    const inward: Point = [-n[0], -n[1]];
    const steps = stepProfile(color, a, len, d, inward, first, Math.ceil(maxIn));
    const profile = (o: number) => steps[o - first]!;
    let peak = 0;
    for (let o = first; o < maxIn; o++) peak = Math.max(peak, profile(o));
    let edge = 0;
    for (let o = first + 1; o < maxIn - 1 && !edge; o++) {
      if (profile(o) >= Math.max(STEP_EDGE, 0.5 * peak) && profile(o) >= profile(o - 1) && profile(o) >= profile(o + 1)) edge = o;
    }
    lineSides++;
    shifts.push(edge);
  }
  if (lineSides < 2 || shifts.every((x) => x === 0)) return null;
  const out = shiftSides(quad, shifts.map((x) => -x));
  return out && { quad: out, shifts };
}

/**
 * When a side has, just outside it, a band of one uniform colour ending in a straight edge, it
 * was found on the art box and the band is the printed border: it moves out to that edge. A side
 * whose outside is background (varied, or ending ragged) stays. docs/grading.md, Localization
 * step 6, says when a move is kept.
 */
function expandToBorder(quad: Quad, rgb: Uint8Array, w: number, h: number): { quad: Quad; shifts: number[] } | null {
  const color = colorAt(rgb, w, h);
  const width = cardWidthOf(quad);
  const maxOut = width * 0.14;
  const shifts: number[] = [];
  /** Per side, the share of lines whose band ends at the shift: a card's edge is straight, a background's ends are ragged. */
  const agreement: number[] = [];
  // Per side: the colour of the band found outside it, and the colour just inside it.
  const bands: Rgb[] = [];
  const insideColours: Rgb[] = [];
  for (let side = 0; side < 4; side++) {
    const { a, len, d, n } = sideFrame(quad, side);
    const offsets: number[] = [];
    const refs: number[][] = [];
    const where: number[] = [];
    const insides: number[][] = [];
    let lines = 0;
    for (let t = len * 0.15; t < len * 0.85; t += 3) {
      lines++;
      const px = a[0] + d[0] * t;
      const py = a[1] + d[1] * t;
      insides.push(color(px - n[0] * 3, py - n[1] * 3));
      const ref = color(px + n[0] * 3, py + n[1] * 3);
      for (let o = 4; o < maxOut; o += 1) {
        if (colorDistance(color(px + n[0] * o, py + n[1] * o), ref) > BAND_END && colorDistance(color(px + n[0] * (o + 2), py + n[1] * (o + 2)), ref) > BAND_END) {
          // A thin line with the band's colour past it (print in the border, a clear holder's
          // edge) is not the card's edge: look on past it.
          if ([6, 12, 20].some((k) => colorDistance(ref, color(px + n[0] * (o + k), py + n[1] * (o + k))) < LINE_STEP)) continue;
          offsets.push(o);
          refs.push(ref);
          where.push(t);
          break;
        }
      }
    }
    const found = borderShift(offsets, refs, where, lines, width);
    shifts.push(found.shift);
    agreement.push(found.agree);
    bands.push(medianColor(refs));
    insideColours.push(medianColor(insides));
  }
  // While some sides stay, a move over a band that ends ragged is background, not border.
  if (shifts.some((x) => x === 0)) shifts.forEach((x, side) => (agreement[side]! < STRAIGHT_END ? (shifts[side] = 0) : 0));
  if (shifts.every((x) => x === 0)) return null;
  const out = shiftSides(quad, shifts);
  if (!out) return null;
  // Some sides stayed: they are on the card's edge, with the printed border just inside them.
  // A side that moves out across a band of that same colour was on the border's inner edge.
  const stayed = [0, 1, 2, 3].filter((side) => shifts[side] === 0);
  if (stayed.length >= 1) {
    const borderColour = medianColor(stayed.map((side) => insideColours[side]!));
    const sameBorder = shifts.every((shift, side) => shift === 0 || colorDistance(bands[side]!, borderColour) < SAME_BORDER);
    if (sameBorder && stayed.every((side) => colorDistance(insideColours[side]!, borderColour) < SAME_BORDER)) return { quad: out, shifts };
  } else {
    // Every side moved across a band of one colour and about one width: the printed border seen
    // all round the art box. (Perspective can take the shape either way from 63:88.)
    const bandColour = medianColor(bands);
    const widths = medianNumber(shifts);
    // Margins may differ a lot (off-centre printing): then every band must end in a straight edge.
    if (bands.every((b) => colorDistance(b, bandColour) < SAME_BORDER) && (shifts.every((x) => Math.abs(x - widths) <= 0.35 * widths) || Math.min(...agreement) >= RAGGED_END)) return { quad: out, shifts };
  }
  // (Sides that stayed leave only moves over straight ends.) Ends that are nearly all on one
  // line are a card's edge whatever perspective does to the shape, when the band is near the
  // border's colour (metallic borders shade beyond SAME_BORDER; a holder's margin shows the table).
  if (stayed.length > 0) {
    const borderColour = medianColor(stayed.map((side) => insideColours[side]!));
    if (shifts.every((shift, side) => shift === 0 || (agreement[side]! >= CLEAN_END && colorDistance(bands[side]!, borderColour) < 2 * SAME_BORDER))) return { quad: out, shifts };
  }
  // Moving out to the true edge brings the shape towards 63:88; moving a side that was right
  // out to some background edge takes it away.
  return aspectError(out) <= aspectError(quad) + 0.01 ? { quad: out, shifts } : null;
}

/** Colour distance between the two sides of a corner below which its shape cannot be read. */
const CORNER_CONTRAST = 15;
/** Most a side may move in (a card low in a top-loader) or out (the widest printed border) to make card corners. */
const CORNER_IN = 0.22;
const CORNER_OUT = 0.22;
/** Corner evidence a moved side must add, so that a chance fit of a few corners is not taken. */
const MOVE_COST = 0.3;
/** Mean colour step across a side that makes a candidate edge (the corners judge it). */
const CORNER_EDGE = 15;
/** Strongest candidate edges tried per side each way (and the two nearest). */
const CORNER_CANDIDATES = 4;

/**
 * How much the corner at `c`, with the card lying along unit directions `u` and `v`, looks like a
 * card's rounded corner of radius `r`: −1 … 1, 0 when the two sides of the outline do not differ.
 * Just inside the sides (past the rounding) is the card and just outside them the background; a
 * rounded corner leaves the tip, where the sides meet, the background's colour, and half a
 * radius in along the diagonal the card's. An outline on a printed frame inside the card has a
 * sharp corner (the tip has the inside's colour); one outside the card shows background deeper in.
 */
function cornerShape(color: (x: number, y: number) => Rgb, c: Point, u: Point, v: Point, r: number): Corner {
  const at = ([a, b]: readonly [number, number]) => color(c[0] + (a * u[0] + b * v[0]) * r, c[1] + (a * u[1] + b * v[1]) * r);
  const along = [1.2, 1.5, 1.8, 2.1];
  // Either side of each side of the corner, past the rounding, pairwise.
  const outside = [...along.map((a) => at([a, -0.5])), ...along.map((b) => at([-0.5, b]))];
  const inside = [...along.map((a) => at([a, 0.5])), ...along.map((b) => at([0.5, b]))];
  const contrast = medianNumber(outside.map((o, i) => colorDistance(o, inside[i]!)));
  const weight = Math.max(0, Math.min(1, (contrast - CORNER_CONTRAST) / 20));
  if (weight === 0) return { evidence: 0, wrong: false };
  outside.push(at([-0.4, -0.4]));
  // Each sample goes with the nearest reference colour: backgrounds and art are not one colour.
  const outsideShare = (pts: (readonly [number, number])[]) =>
    pts.filter((p) => {
      const x = at(p);
      return Math.min(...outside.map((o) => colorDistance(x, o))) < Math.min(...inside.map((o) => colorDistance(x, o)));
    }).length / pts.length;
  // Points 0.2–0.27 r outside the rounding, and well inside it.
  const tip = outsideShare([[0.1, 0.1], [0.05, 0.25], [0.25, 0.05], [0.15, 0.15], [0.2, 0.08], [0.08, 0.2]]);
  const deep = 1 - outsideShare([[0.5, 0.5], [0.45, 0.6], [0.6, 0.45], [0.55, 0.55], [0.7, 0.4], [0.4, 0.7]]);
  const clamp = (x: number) => Math.max(0, Math.min(1, x));
  const round = clamp((tip - 0.3) / 0.4) * clamp((deep - 0.3) / 0.4);
  // A tip of background with the card only partly further in is a side a little too far out.
  return { evidence: weight * (2 * round - 1), wrong: weight >= 0.5 && round < 0.6 };
}

/**
 * Reads corner `k` of `quad` (or of a quad with the same sides moved, its corner at `at`): corner
 * k joins side k − 1 (arriving) and side k (leaving), and the card lies along both.
 */
function cornerReader(quad: Quad, color: (x: number, y: number) => Rgb): (k: number, at: Point) => Corner {
  const r = CORNER_RADIUS * cardWidthOf(quad);
  const frames = [0, 1, 2, 3].map((side) => sideFrame(quad, side));
  return (k, at) => {
    const prev = frames[(k + 3) % 4]!.d;
    return cornerShape(color, at, frames[k]!.d, [-prev[0], -prev[1]], r);
  };
}

/** How much the four corners of `quad` look like a card's, −4 … 4. */
function cornerEvidence(quad: Quad, rgb: Uint8Array, w: number, h: number): number {
  const read = cornerReader(quad, colorAt(rgb, w, h));
  return quad.reduce((sum, p, k) => sum + read(k, p).evidence, 0);
}

interface Corner {
  /** −1 … 1: how much it looks like a card's rounded corner, weighed by the contrast across it. */
  evidence: number;
  /** Clearly not a card's corner (sharp, or background too deep in). */
  wrong: boolean;
}

/**
 * A card's corners are rounded; an outline on its printed frame, or on a holder around it, meets
 * in sharp corners or in background. When the corners found do not look like a card's, each side
 * may move to one of the strongest step edges across it; the combination whose four corners look
 * most like a card's wins, if clearly better than the outline as found.
 */
function cornerCheck(quad: Quad, rgb: Uint8Array, w: number, h: number): { quad: Quad; shifts: number[] } | null {
  const color = colorAt(rgb, w, h);
  const width = cardWidthOf(quad);
  const frames = [0, 1, 2, 3].map((side) => sideFrame(quad, side));
  const shapeAt = cornerReader(quad, color);
  const now = quad.map((p, k) => shapeAt(k, p));
  // Only corners that look wrong say anything: one with no contrast is no reason to move. A side
  // in the wrong place makes both its corners wrong; one wrong corner alone is more likely
  // damage (whitened, chipped), which must be measured where it is, not moved away from.
  // A side on a clear holder's edge with one wrong corner is misplaced too: a top-loader's own
  // corner is rounded like a card's.
  const wrong = now.map((c) => c.wrong);
  const misplaced = [0, 1, 2, 3].map((side) => (wrong[side]! && wrong[(side + 1) % 4]!) || ((wrong[side]! || wrong[(side + 1) % 4]!) && holderEdge(quad, side, color) !== null));
  if (!misplaced.some(Boolean)) return null;
  const from = -Math.round(CORNER_IN * width);
  const to = Math.round(CORNER_OUT * width);
  // Only misplaced sides move.
  const candidates = frames.map(({ a, len, d, n }, side) => {
    if (!misplaced[side]) return [0];
    const profile = stepProfile(color, a, len, d, n, from, to);
    const peaks: { o: number; s: number }[] = [];
    for (let i = 1; i < profile.length - 1; i++) {
      if (profile[i]! >= CORNER_EDGE && profile[i]! >= profile[i - 1]! && profile[i]! > profile[i + 1]!) peaks.push({ o: from + i, s: profile[i]! });
    }
    // The side as found stays a choice; edges within 2 px of it are the same edge. Each way, the
    // strongest (art has more edges than a border band) and the nearest (the card's edge is the
    // first step past a border band or inside a holder's edge).
    const picked = new Set<number>([0]);
    for (const way of [-1, 1]) {
      const these = peaks.filter((p) => p.o * way > 2);
      for (const p of [...these].sort((x, y) => y.s - x.s).slice(0, CORNER_CANDIDATES)) picked.add(p.o);
      for (const p of these.sort((x, y) => Math.abs(x.o) - Math.abs(y.o)).slice(0, 2)) picked.add(p.o);
    }
    return [...picked];
  });
  // Each corner, where and how card-like, per pair of choices for its two sides.
  const corners = [0, 1, 2, 3].map((k) => {
    const prev = (k + 3) % 4;
    return candidates[prev]!.map((sp) => candidates[k]!.map((sk) => {
      const at = intersect(shiftedSide(quad, prev, sp), shiftedSide(quad, k, sk));
      return { at, ...(at ? shapeAt(k, at) : { evidence: -1, wrong: true }) };
    }));
  });
  const base = now.reduce((x, y) => x + y.evidence, 0);
  let best = { score: base + 1, pick: [0, 0, 0, 0] };
  const pick = [0, 0, 0, 0];
  const visit = (side: number): void => {
    if (side === 4) {
      const chosen = [0, 1, 2, 3].map((k) => corners[k]![pick[(k + 3) % 4]!]![pick[k]!]!);
      // Every corner a card's or unreadable, and each side moved must pay for itself.
      const score = chosen.reduce((sum, c) => sum + c.evidence, 0) - MOVE_COST * pick.filter((i) => i > 0).length;
      if (score <= best.score || chosen.some((c) => !c.at || c.wrong)) return;
      // Still card-shaped, give or take perspective.
      if (aspectError(chosen.map((c) => c.at!)) <= 0.08) best = { score, pick: [...pick] };
      return;
    }
    for (let i = 0; i < candidates[side]!.length; i++) {
      pick[side] = i;
      visit(side + 1);
    }
  };
  visit(0);
  if (best.pick.every((i) => i === 0)) return null;
  const shifts = best.pick.map((i, side) => candidates[side]![i]!);
  const out = [0, 1, 2, 3].map((k) => corners[k]![best.pick[(k + 3) % 4]!]![best.pick[k]!]!.at!);
  return { quad: out as Quad, shifts };
}

/**
 * How far out a side's border band ends, or 0 when what lies outside is not a border: the
 * outermost offset a quarter of the lines agree on (within 1.5 px), over a band of one colour.
 */
function borderShift(offsets: number[], refs: number[][], where: number[], lines: number, width: number): { shift: number; agree: number } {
  const none = { shift: 0, agree: 0 };
  if (offsets.length < lines * 0.6) return none;
  // The outermost offset that a quarter of the lines agree on: small print in a border stops
  // some lines early, the card's edge is where the rest end.
  let mode = 0;
  for (const o of offsets) {
    if (o > mode && offsets.filter((x) => Math.abs(x - o) <= 1.5).length >= lines * 0.25) mode = o;
  }
  if (mode === 0) return none;
  const kept = offsets.map((o, k) => [o, k] as const).filter(([o]) => Math.abs(o - mode) <= 1.5);
  const keptRefs = kept.map(([, k]) => refs[k]!);
  const refMedian = medianColor(keptRefs);
  if (medianNumber(keptRefs.map((r) => colorDistance(r, refMedian))) > BAND_SPREAD) return none;
  const shift = medianNumber(kept.map(([o]) => o));
  if (shift < width * 0.012) return none;
  // How many lines end on one straight line: fitted to the ends near the mode, since the side
  // found need not be quite parallel to the card's edge.
  const near = offsets.map((o, k) => [where[k]!, o] as Point).filter(([, o]) => Math.abs(o - mode) <= 4);
  const { p, d } = fitLine(near);
  const onLine = near.filter(([t, o]) => Math.abs((t - p[0]) * d[1] - (o - p[1]) * d[0]) <= 1.5).length;
  return { shift, agree: onLine / lines };
}

/**
 * Sub-pixel edges: across each side, every ~2 px along it (away from the rounded corners), the
 * brightness profile along the outward normal is read with bilinear interpolation and the
 * outermost strong gradient peak is located by a parabola through its neighbours. Those points
 * go to the same robust line fit as outline points.
 */
function refineByProfiles(quad: Quad, channels: Uint8Array[], w: number, h: number, inward = [Infinity, Infinity, Infinity, Infinity], outward = [Infinity, Infinity, Infinity, Infinity]): Quad | null {
  const sample = (ch: Uint8Array, x: number, y: number): number => {
    const xi = Math.max(0, Math.min(w - 2, Math.floor(x)));
    const yi = Math.max(0, Math.min(h - 2, Math.floor(y)));
    const fx = Math.max(0, Math.min(1, x - xi));
    const fy = Math.max(0, Math.min(1, y - yi));
    const i = yi * w + xi;
    return (ch[i]! * (1 - fx) + ch[i + 1]! * fx) * (1 - fy) + (ch[i + w]! * (1 - fx) + ch[i + w + 1]! * fx) * fy;
  };
  const points: Point[] = [];
  for (let side = 0; side < 4; side++) {
    const { a, len, d, n } = sideFrame(quad, side);
    const reach = Math.max(4, len * 0.025);
    const back = Math.max(2, Math.min(reach, inward[side]!));
    const ahead = Math.max(2, Math.min(reach, outward[side]!));
    const step = 0.5;
    for (let t = len * 0.12; t < len * 0.88; t += 2) {
      const px = a[0] + d[0] * t;
      const py = a[1] + d[1] * t;
      // Gradient magnitude over the Lab channels: an edge in colour alone counts too.
      const count = Math.floor((ahead + back) / step) + 1;
      const [l, a2, b2] = channels as [Uint8Array, Uint8Array, Uint8Array];
      const pl = new Float32Array(count);
      const pa = new Float32Array(count);
      const pb = new Float32Array(count);
      for (let i = 0; i < count; i++) {
        const o = -back + i * step;
        const x = px + n[0] * o;
        const y = py + n[1] * o;
        pl[i] = sample(l, x, y);
        pa[i] = sample(a2, x, y);
        pb[i] = sample(b2, x, y);
      }
      const grad = new Float32Array(count);
      for (let i = 1; i < count - 1; i++) {
        const dl = pl[i + 1]! - pl[i - 1]!;
        const da = pa[i + 1]! - pa[i - 1]!;
        const db = pb[i + 1]! - pb[i - 1]!;
        grad[i] = Math.sqrt(dl * dl + da * da + db * db);
      }
      let peak = 0;
      for (let i = 0; i < count; i++) if (grad[i]! > peak) peak = grad[i]!;
      if (peak < 8) continue;
      // Outermost local maximum that is a real edge (the border's inner edge lies further in).
      for (let i = grad.length - 2; i > 0; i--) {
        if (grad[i]! >= peak * 0.45 && grad[i]! >= grad[i - 1]! && grad[i]! >= grad[i + 1]!) {
          const den = grad[i - 1]! - 2 * grad[i]! + grad[i + 1]!;
          const frac = den !== 0 ? (0.5 * (grad[i - 1]! - grad[i + 1]!)) / den : 0;
          const o = -back + (i + Math.max(-0.5, Math.min(0.5, frac))) * step;
          points.push([px + n[0] * o, py + n[1] * o]);
          break;
        }
      }
    }
  }
  return refine(quad, points);
}

/**
 * Each side as a line through the card's outer edge: of the edge points in a band around the
 * side, away from the rounded corners, the outermost per stretch of the side (the printed
 * border's inner edge runs parallel just inside and must not pull the line in), then those
 * within 2 px of their median offset, fitted by total least squares. Corners are where adjacent
 * lines meet. Null when a side has too few points to trust.
 */
function refine(quad: Quad, points: Point[]): Quad | null {
  const lines: { p: Point; d: Point }[] = [];
  for (let s = 0; s < 4; s++) {
    const { a, len, d, n } = sideFrame(quad, s);
    const tol = Math.max(3, len * 0.03);
    const bins = new Map<number, Point & { off?: number }>();
    const offs = new Map<number, number>();
    for (const p of points) {
      const t = (p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1];
      if (t <= len * 0.12 || t >= len * 0.88) continue;
      const off = (p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1];
      if (Math.abs(off) >= tol) continue;
      const bin = Math.round(t);
      if (!bins.has(bin) || off > offs.get(bin)!) {
        bins.set(bin, p);
        offs.set(bin, off);
      }
    }
    if (bins.size < 10) return null;
    const med = medianNumber([...offs.values()]);
    const kept = [...bins.keys()].filter((k) => Math.abs(offs.get(k)! - med) < 2).map((k) => bins.get(k)!);
    if (kept.length < 10) return null;
    lines.push(fitLine(kept));
  }
  const out: Point[] = [];
  for (let s = 0; s < 4; s++) {
    const hit = intersect(lines[(s + 3) % 4]!, lines[s]!);
    if (!hit || dist(hit, quad[s]!) > sideLengths(quad)[0] * 0.15) return null;
    out.push(hit);
  }
  return out as Quad;
}

function medianNumber(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[s.length >> 1]!;
}
