/**
 * Card outlines from straight lines, for photos where no closed outline exists: the card's edge
 * touches something of the same colour, or an edge of the background runs into it, and the
 * contour of the card leaks into the background's. Long segments (probabilistic Hough) are merged
 * into lines; two nearly parallel pairs of lines, roughly at right angles, make a quadrilateral;
 * each is checked against the edge map along its sides. Pure functions on plain arrays.
 */
import type { Point, Quad } from './card-geometry.ts';

export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A line in normal form: points p with nx·px + ny·py = rho; `angle` of its direction in [0, π). */
export interface Line {
  angle: number;
  nx: number;
  ny: number;
  rho: number;
  /** Summed length of the segments merged into it. */
  length: number;
}

const DEG = Math.PI / 180;

function angleGap(a: number, b: number): number {
  const d = Math.abs(a - b) % Math.PI;
  return Math.min(d, Math.PI - d);
}

function lineOf(s: Segment): Line {
  let angle = Math.atan2(s.y2 - s.y1, s.x2 - s.x1);
  if (angle < 0) angle += Math.PI;
  if (angle >= Math.PI) angle -= Math.PI;
  const nx = -Math.sin(angle);
  const ny = Math.cos(angle);
  return { angle, nx, ny, rho: nx * s.x1 + ny * s.y1, length: Math.hypot(s.x2 - s.x1, s.y2 - s.y1) };
}

/**
 * Collinear segments (direction within 2°, offset within 3 px) merged, longest first; each line
 * keeps its longest segment's geometry and the summed length. At most `limit` lines, longest first.
 */
export function mergeSegments(segments: Segment[], limit = 32): Line[] {
  const lines = segments.map(lineOf).sort((a, b) => b.length - a.length);
  const merged: Line[] = [];
  for (const l of lines) {
    const same = merged.find((m) => {
      if (angleGap(m.angle, l.angle) > 2 * DEG) return false;
      // Compare offsets in the merged line's own normal (flip when directions wrapped around π).
      const flip = m.nx * l.nx + m.ny * l.ny < 0 ? -1 : 1;
      return Math.abs(m.rho - flip * l.rho) < 3;
    });
    if (same) same.length += l.length;
    else merged.push({ ...l });
  }
  return merged.sort((a, b) => b.length - a.length).slice(0, limit);
}

function meet(a: Line, b: Line): Point | null {
  const det = a.nx * b.ny - a.ny * b.nx;
  if (Math.abs(det) < 1e-9) return null;
  return [(a.rho * b.ny - a.ny * b.rho) / det, (a.nx * b.rho - a.rho * b.nx) / det];
}

/**
 * Share of each side, between 12 % and 88 % of its length (rounded corners left out), that lies
 * on an edge pixel of `edges` (non-zero = edge; dilate it first for a pixel of tolerance).
 */
export function sideSupport(quad: Quad, edges: Uint8Array, w: number, h: number): [number, number, number, number] {
  const out = [0, 0, 0, 0] as [number, number, number, number];
  for (let s = 0; s < 4; s++) {
    const a = quad[s]!;
    const b = quad[(s + 1) % 4]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const samples = Math.max(8, Math.round(len / 2));
    let hit = 0;
    for (let k = 0; k < samples; k++) {
      const t = 0.12 + (0.76 * (k + 0.5)) / samples;
      const x = Math.round(a[0] + t * (b[0] - a[0]));
      const y = Math.round(a[1] + t * (b[1] - a[1]));
      if (x >= 0 && y >= 0 && x < w && y < h && edges[y * w + x]) hit++;
    }
    out[s] = hit / samples;
  }
  return out;
}

function isConvex(q: Point[]): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [ax, ay] = q[i]!;
    const [bx, by] = q[(i + 1) % 4]!;
    const [cx, cy] = q[(i + 2) % 4]!;
    const cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx);
    if (cross === 0) return false;
    if (sign === 0) sign = Math.sign(cross);
    else if (Math.sign(cross) !== sign) return false;
  }
  return true;
}

export interface QuadCandidate {
  /** Corners in the order the lines gave them (not yet ordered upper-left first). */
  corners: Point[];
  support: [number, number, number, number];
  area: number;
  /** Short side ÷ long side, averaged over the opposite pairs. */
  ratio: number;
}

/**
 * Quadrilaterals from two pairs of nearly parallel lines (within 10°: perspective tilts opposite
 * sides), the pairs 65–115° apart, corners inside the image (2 % slack), at least `minAreaShare`
 * of it, every side at least 70 % on edges.
 */
export function quadsFromLines(lines: Line[], edges: Uint8Array, w: number, h: number, minAreaShare = 0.03): QuadCandidate[] {
  const minGap = 0.08 * Math.min(w, h);
  const pairs: [Line, Line][] = [];
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i]!;
      const b = lines[j]!;
      if (angleGap(a.angle, b.angle) > 10 * DEG) continue;
      const flip = a.nx * b.nx + a.ny * b.ny < 0 ? -1 : 1;
      if (Math.abs(a.rho - flip * b.rho) < minGap) continue;
      pairs.push([a, b]);
    }
  }
  const slackX = 0.02 * w;
  const slackY = 0.02 * h;
  const out: QuadCandidate[] = [];
  for (let p = 0; p < pairs.length; p++) {
    for (let q = p + 1; q < pairs.length; q++) {
      const [a, b] = pairs[p]!;
      const [c, d] = pairs[q]!;
      const between = angleGap(a.angle, c.angle);
      if (between < 65 * DEG) continue;
      const corners = [meet(a, c), meet(c, b), meet(b, d), meet(d, a)];
      if (corners.some((k) => !k || k[0] < -slackX || k[1] < -slackY || k[0] > w + slackX || k[1] > h + slackY)) continue;
      const pts = corners as Point[];
      if (!isConvex(pts)) continue;
      let area = 0;
      for (let i = 0; i < 4; i++) area += pts[i]![0] * pts[(i + 1) % 4]![1] - pts[(i + 1) % 4]![0] * pts[i]![1];
      area = Math.abs(area) / 2;
      if (area < minAreaShare * w * h) continue;
      const side = (i: number) => Math.hypot(pts[(i + 1) % 4]![0] - pts[i]![0], pts[(i + 1) % 4]![1] - pts[i]![1]);
      const s1 = (side(0) + side(2)) / 2;
      const s2 = (side(1) + side(3)) / 2;
      const ratio = Math.min(s1, s2) / Math.max(s1, s2);
      if (ratio < 0.5 || ratio > 0.95) continue;
      const support = sideSupport(pts as Quad, edges, w, h);
      if (Math.min(...support) < 0.7) continue;
      out.push({ corners: pts, support, area, ratio });
    }
  }
  return out;
}
