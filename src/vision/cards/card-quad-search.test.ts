import { describe, expect, it } from 'vitest';
import type { Quad } from './card-geometry.ts';
import { mergeSegments, quadsFromLines, sideSupport, type Segment } from './card-quad-search.ts';

const W = 400;
const H = 300;

function draw(edges: Uint8Array, s: Segment, thick = 1): void {
  const n = Math.ceil(Math.hypot(s.x2 - s.x1, s.y2 - s.y1) * 2);
  for (let k = 0; k <= n; k++) {
    const x = s.x1 + ((s.x2 - s.x1) * k) / n;
    const y = s.y1 + ((s.y2 - s.y1) * k) / n;
    for (let dy = -thick + 1; dy < thick; dy++) {
      for (let dx = -thick + 1; dx < thick; dx++) {
        const xi = Math.round(x) + dx;
        const yi = Math.round(y) + dy;
        if (xi >= 0 && yi >= 0 && xi < W && yi < H) edges[yi * W + xi] = 255;
      }
    }
  }
}

const card: Quad = [
  [150, 60],
  [250, 62],
  [248, 200],
  [148, 198],
];
const sides: Segment[] = card.map((p, i) => ({ x1: p[0], y1: p[1], x2: card[(i + 1) % 4]![0], y2: card[(i + 1) % 4]![1] }));

describe('mergeSegments', () => {
  it('joins collinear pieces of one side and keeps other lines apart', () => {
    const pieces: Segment[] = [
      { x1: 150, y1: 60, x2: 200, y2: 61 },
      { x1: 200, y1: 61, x2: 250, y2: 62 },
      { x1: 150, y1: 90, x2: 250, y2: 92 },
    ];
    const lines = mergeSegments(pieces);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.length).toBeCloseTo(100, 0);
  });

  it('treats directions θ and θ + π as the same line', () => {
    const lines = mergeSegments([
      { x1: 0, y1: 10, x2: 100, y2: 10 },
      { x1: 200, y1: 10, x2: 120, y2: 10 },
    ]);
    expect(lines).toHaveLength(1);
  });
});

describe('sideSupport', () => {
  it('is 1 on a drawn outline and 0 where a side crosses open ground', () => {
    const edges = new Uint8Array(W * H);
    for (const s of sides.slice(0, 3)) draw(edges, s);
    const support = sideSupport(card, edges, W, H);
    expect(support.slice(0, 3).every((x) => x > 0.9)).toBe(true);
    expect(support[3]).toBe(0);
  });
});

describe('quadsFromLines', () => {
  it('finds the card among clutter: long background lines, a frame, a diagonal', () => {
    const edges = new Uint8Array(W * H);
    const clutter: Segment[] = [
      { x1: 0, y1: 250, x2: 399, y2: 255 },
      { x1: 20, y1: 0, x2: 25, y2: 299 },
      { x1: 0, y1: 0, x2: 399, y2: 299 },
    ];
    for (const s of [...sides, ...clutter]) draw(edges, s, 2);
    const found = quadsFromLines(mergeSegments([...sides, ...clutter]), edges, W, H);
    const best = found.sort((a, b) => Math.abs(a.ratio - 63 / 88) - Math.abs(b.ratio - 63 / 88))[0]!;
    for (const p of card) expect(Math.min(...best.corners.map((c) => Math.hypot(c[0] - p[0], c[1] - p[1])))).toBeLessThan(1.5);
    // Quads that borrow a background line as a side need that line to lie on edges along the
    // whole side, so every candidate is made of drawn lines only.
    expect(found.every((c) => Math.min(...c.support) >= 0.7)).toBe(true);
  });

  it('gives nothing for a shape far from a card (a long thin strip)', () => {
    const strip: Segment[] = [
      { x1: 50, y1: 100, x2: 350, y2: 100 },
      { x1: 350, y1: 100, x2: 350, y2: 140 },
      { x1: 350, y1: 140, x2: 50, y2: 140 },
      { x1: 50, y1: 140, x2: 50, y2: 100 },
    ];
    const edges = new Uint8Array(W * H);
    for (const s of strip) draw(edges, s);
    expect(quadsFromLines(mergeSegments(strip), edges, W, H)).toEqual([]);
  });
});
