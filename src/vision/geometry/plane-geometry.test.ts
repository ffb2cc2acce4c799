import { describe, expect, it } from 'vitest';
import { applyHomography, convexOverlapShare, rectToQuad, type Quad } from './plane-geometry.ts';

describe('rectangle to quad homography', () => {
  it('takes the rectangle corners onto the quad corners, and its centre onto the diagonals crossing', () => {
    const q: Quad = [[40.3, 50.2], [250.7, 60.1], [240.2, 380.9], [30.5, 370.3]];
    const m = rectToQuad(210, 320, q);
    const rect = [[0, 0], [210, 0], [210, 320], [0, 320]];
    rect.forEach(([u, v], k) => {
      const [x, y] = applyHomography(m, u!, v!);
      expect(x).toBeCloseTo(q[k]![0], 9);
      expect(y).toBeCloseTo(q[k]![1], 9);
    });
    // a projective map keeps straight lines: the rectangle's centre lands where the quad's diagonals cross
    const [cx, cy] = applyHomography(m, 105, 160);
    const cross = (a: number[], b: number[], c: number[], d: number[]) => {
      const den = (a[0]! - b[0]!) * (c[1]! - d[1]!) - (a[1]! - b[1]!) * (c[0]! - d[0]!);
      const t = ((a[0]! - c[0]!) * (c[1]! - d[1]!) - (a[1]! - c[1]!) * (c[0]! - d[0]!)) / den;
      return [a[0]! + t * (b[0]! - a[0]!), a[1]! + t * (b[1]! - a[1]!)];
    };
    const [ex, ey] = cross(q[0], q[2], q[1], q[3]);
    expect(cx).toBeCloseTo(ex!, 9);
    expect(cy).toBeCloseTo(ey!, 9);
  });

  it('is the plain scaling for a rectangle onto an axis-aligned rectangle', () => {
    const m = rectToQuad(10, 20, [[5, 5], [25, 5], [25, 45], [5, 45]]);
    expect(applyHomography(m, 5, 10)).toEqual([15, 25]);
    expect(m.g).toBe(0);
    expect(m.h).toBe(0);
  });
});

describe('convex overlap', () => {
  const square = (x: number, y: number, s: number): Quad => [[x, y], [x + s, y], [x + s, y + s], [x, y + s]];

  it('gives the shared area over the smaller polygon, in either winding', () => {
    expect(convexOverlapShare(square(0, 0, 10), square(5, 0, 10))).toBeCloseTo(0.5, 6);
    expect(convexOverlapShare(square(0, 0, 10), [...square(5, 0, 10)].reverse())).toBeCloseTo(0.5, 6);
    expect(convexOverlapShare([...square(0, 0, 10)].reverse(), square(5, 5, 10))).toBeCloseTo(0.25, 6);
    // half a card lies wholly inside the card: its whole area is shared
    expect(convexOverlapShare(square(0, 0, 10), [[0, 5], [10, 5], [10, 10], [0, 10]])).toBeCloseTo(1, 6);
  });

  it('is 0 for polygons apart or touching along a side', () => {
    expect(convexOverlapShare(square(0, 0, 10), square(20, 0, 10))).toBe(0);
    expect(convexOverlapShare(square(0, 0, 10), square(10, 0, 10))).toBeCloseTo(0, 6);
  });

  it('handles a turned quad', () => {
    const diamond: Quad = [[5, 0], [10, 5], [5, 10], [0, 5]];
    expect(convexOverlapShare(square(0, 0, 10), diamond)).toBeCloseTo(1, 6);
    expect(convexOverlapShare(square(5, 0, 10), diamond)).toBeCloseTo(0.5, 6);
  });
});
