/**
 * Points, lines and polygons in image coordinates (x right, y down), shared by the card outline
 * search, the card detector and the OCR pipeline.
 */
export type Point = [number, number];
/** Corners in the order upper-left, upper-right, down-right, down-left (spec 3 §2). */
export type Quad = [Point, Point, Point, Point];

/** A line through `p` along the unit direction `d`. */
export interface Line {
  p: Point;
  d: Point;
}

/** Total least squares line through points (the principal direction of their scatter). */
export function fitLine(pts: readonly Point[]): Line {
  const n = pts.length;
  const mx = pts.reduce((s, p) => s + p[0], 0) / n;
  const my = pts.reduce((s, p) => s + p[1], 0) / n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const [x, y] of pts) {
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
    sxy += (x - mx) * (y - my);
  }
  const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy);
  return { p: [mx, my], d: [Math.cos(theta), Math.sin(theta)] };
}

/** A line through the points with those far from it (over 2.5 x the median distance, at least 0.75 px) dropped, three times; null when fewer than 8 remain. */
export function robustLine(pts: readonly Point[]): { line: Line; kept: number } | null {
  let kept = pts;
  let line = fitLine(kept);
  for (let pass = 0; pass < 3; pass++) {
    const res = kept.map((p) => Math.abs((p[0] - line.p[0]) * line.d[1] - (p[1] - line.p[1]) * line.d[0]));
    const sorted = [...res].sort((x, y) => x - y);
    const tol = Math.max(0.75, 2.5 * sorted[sorted.length >> 1]!);
    const next = kept.filter((_, i) => res[i]! <= tol);
    if (next.length < 8) return null;
    kept = next;
    line = fitLine(kept);
  }
  return { line, kept: kept.length };
}

/** Mean lengths of a quad's upper and lower sides, and of its right and left ones. */
export function sideLengths(q: readonly Point[]): [number, number] {
  const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  return [(dist(q[0]!, q[1]!) + dist(q[2]!, q[3]!)) / 2, (dist(q[1]!, q[2]!) + dist(q[3]!, q[0]!)) / 2];
}

/** Where two lines meet; null when they are parallel. */
export function intersect(l1: Line, l2: Line): Point | null {
  const den = l1.d[0] * l2.d[1] - l1.d[1] * l2.d[0];
  if (Math.abs(den) < 1e-6) return null;
  const t = ((l2.p[0] - l1.p[0]) * l2.d[1] - (l2.p[1] - l1.p[1]) * l2.d[0]) / den;
  return [l1.p[0] + t * l1.d[0], l1.p[1] + t * l1.d[1]];
}

/** The quad whose corner s is where side s-1 meets side s; null when two adjacent sides are parallel. */
export function quadFromSides(lines: readonly Line[]): Quad | null {
  const out: Point[] = [];
  for (let s = 0; s < 4; s++) {
    const hit = intersect(lines[(s + 3) % 4]!, lines[s]!);
    if (!hit) return null;
    out.push(hit);
  }
  return out as Quad;
}

/** Whether (x, y) lies inside the convex polygon (either winding; the border counts as inside). */
export function insideConvex(poly: readonly Point[], x: number, y: number): boolean {
  let sign = 0;
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % poly.length]!;
    const c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
    if (c === 0) continue;
    if (!sign) sign = Math.sign(c);
    else if (Math.sign(c) !== sign) return false;
  }
  return true;
}

/** Signed area (shoelace): positive for clockwise corners in image coordinates. */
export function polygonArea(p: readonly Point[]): number {
  let a = 0;
  for (let i = 0; i < p.length; i++) {
    const [x1, y1] = p[i]!;
    const [x2, y2] = p[(i + 1) % p.length]!;
    a += x1 * y2 - x2 * y1;
  }
  return a / 2;
}

/**
 * The area two convex polygons share, as a share of the smaller one's area (0–1): `b` clipped by
 * each side of `a` (Sutherland–Hodgman). Either winding.
 */
export function convexOverlapShare(a: readonly Point[], b: readonly Point[]): number {
  const areaA = Math.abs(polygonArea(a));
  const areaB = Math.abs(polygonArea(b));
  if (!areaA || !areaB) return 0;
  const sign = polygonArea(a) > 0 ? 1 : -1;
  let out: Point[] = [...b];
  for (let i = 0; i < a.length && out.length; i++) {
    const [x1, y1] = a[i]!;
    const [x2, y2] = a[(i + 1) % a.length]!;
    const side = (p: Point) => sign * ((x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1));
    const input = out;
    out = [];
    for (let j = 0; j < input.length; j++) {
      const c = input[j]!;
      const d = input[(j + 1) % input.length]!;
      const sc = side(c);
      const sd = side(d);
      if (sc >= 0) out.push(c);
      if (sc >= 0 !== sd >= 0) {
        const t = sc / (sc - sd);
        out.push([c[0] + t * (d[0] - c[0]), c[1] + t * (d[1] - c[1])]);
      }
    }
  }
  return out.length < 3 ? 0 : Math.abs(polygonArea(out)) / Math.min(areaA, areaB);
}

/** Convex hull (Andrew's monotone chain), collinear points dropped. */
export function convexHull(points: readonly Point[]): Point[] {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, q) <= 0) lower.pop();
    lower.push(q);
  }
  const upper: Point[] = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, q) <= 0) upper.pop();
    upper.push(q);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** Four points clockwise (in image coordinates) from the one nearest the top-left. */
export function clockwiseFromTopLeft(pts: readonly Point[]): Quad {
  const cx = pts.reduce((s, p) => s + p[0], 0) / pts.length;
  const cy = pts.reduce((s, p) => s + p[1], 0) / pts.length;
  const sorted = [...pts].sort((p, q) => Math.atan2(p[1] - cy, p[0] - cx) - Math.atan2(q[1] - cy, q[0] - cx));
  let start = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i]![0] + sorted[i]![1] < sorted[start]![0] + sorted[start]![1]) start = i;
  return [0, 1, 2, 3].map((k) => sorted[(start + k) % 4]!) as Quad;
}

/** A plane-to-plane projective map: x = (a u + b v + c) / (g u + h v + 1), y likewise with d, e, f. */
export interface Homography {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
  g: number;
  h: number;
}

/**
 * The homography that takes the upright w × h rectangle ((0,0), (w,0), (w,h), (0,h)) onto a
 * quad, in that corner order (Heckbert's square-to-quad map, scaled to the rectangle).
 */
export function rectToQuad(w: number, h: number, q: readonly Point[]): Homography {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q as Quad;
  const dx1 = x1 - x2;
  const dx2 = x3 - x2;
  const dx3 = x0 - x1 + x2 - x3;
  const dy1 = y1 - y2;
  const dy2 = y3 - y2;
  const dy3 = y0 - y1 + y2 - y3;
  let g = 0;
  let h2 = 0;
  const den = dx1 * dy2 - dx2 * dy1;
  if ((dx3 !== 0 || dy3 !== 0) && den !== 0) {
    g = (dx3 * dy2 - dx2 * dy3) / den;
    h2 = (dx1 * dy3 - dx3 * dy1) / den;
  }
  // unit square (s, t) -> quad; s = u / w, t = v / h
  return {
    a: (x1 - x0 + g * x1) / w,
    b: (x3 - x0 + h2 * x3) / h,
    c: x0,
    d: (y1 - y0 + g * y1) / w,
    e: (y3 - y0 + h2 * y3) / h,
    f: y0,
    g: g / w,
    h: h2 / h,
  };
}

export function applyHomography(m: Homography, u: number, v: number): Point {
  const z = m.g * u + m.h * v + 1;
  return [(m.a * u + m.b * v + m.c) / z, (m.d * u + m.e * v + m.f) / z];
}
