import { describe, expect, it } from 'vitest';
import { fitCardEdges } from './card-edge-fit.ts';
import type { Quad } from './card-geometry.ts';

/** A light card with a darker printed frame 4 % inside its edge, on a dark table, anti-aliased. */
function scene(w: number, h: number, card: Quad): { data: Uint8Array; width: number; height: number } {
  const data = new Uint8Array(w * h * 3);
  const [x0, y0] = card[0];
  const [x1, y1] = card[2];
  const inset = (x1 - x0) * 0.04;
  const cover = (x: number, y: number, a0: number, b0: number, a1: number, b1: number) =>
    Math.max(0, Math.min(x + 0.5, a1) - Math.max(x - 0.5, a0)) * Math.max(0, Math.min(y + 0.5, b1) - Math.max(y - 0.5, b0));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = cover(x, y, x0, y0, x1, y1);
      const frame = cover(x, y, x0 + inset, y0 + inset, x1 - inset, y1 - inset);
      const v = 40 * (1 - c) + 230 * (c - frame) + 150 * frame;
      data.set([v, v, v * 0.9], (y * w + x) * 3);
    }
  }
  return { data, width: w, height: h };
}

describe('edge fit', () => {
  const truth: Quad = [[100.3, 80.6], [400.7, 80.6], [400.7, 500.2], [100.3, 500.2]];
  const img = scene(520, 600, truth);

  it('moves a rough outline 1 % off onto the card edge, to a fraction of a pixel', () => {
    const rough = truth.map(([x, y], i) => [x + (i === 1 || i === 2 ? 3 : -2), y + (i >= 2 ? -3 : 2)]) as Quad;
    const { quad, fitted } = fitCardEdges(img, rough);
    expect(fitted).toEqual([true, true, true, true]);
    quad.forEach((p, i) => expect(Math.hypot(p[0] - truth[i]![0], p[1] - truth[i]![1])).toBeLessThan(0.5));
  });

  it('does not jump to the printed frame inside the card, and keeps the outline where no edge is near', () => {
    const rough = truth.map(([x, y]) => [x, y]) as Quad;
    const { quad } = fitCardEdges(img, rough);
    quad.forEach((p, i) => expect(Math.hypot(p[0] - truth[i]![0], p[1] - truth[i]![1])).toBeLessThan(0.5));
    const flat = { data: new Uint8Array(520 * 600 * 3).fill(90), width: 520, height: 600 };
    const kept = fitCardEdges(flat, rough);
    expect(kept.fitted).toEqual([false, false, false, false]);
    expect(kept.quad).toEqual(rough);
  });
});
