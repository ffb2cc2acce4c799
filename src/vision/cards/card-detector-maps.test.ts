import { describe, expect, it } from 'vitest';
import { cornerQuads, decodeCardMaps, MAP_CHANNELS, MAP_SIZE, minAreaRect, rowSpan } from './card-detector-maps.ts';
import { clockwiseFromTopLeft, convexOverlapShare, insideConvex, type Point, type Quad } from '../geometry/plane-geometry.ts';

const N = MAP_SIZE;

/** Maps with each card drawn as the network would: soft edges (area coverage), a centre at half size. */
function mapsOf(cards: { quad: Quad; holder?: Quad; label?: [number, number, number, number] }[]): Float32Array {
  const maps = new Float32Array(MAP_CHANNELS * N * N);
  const fill = (c: number, q: readonly Point[]) => {
    for (let y = 0; y < N; y++) {
      for (let x = 0; x < N; x++) {
        // 4x4 supersampling: the share of the pixel inside the quad
        let hit = 0;
        for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if (insideConvex(q, x - 0.375 + sx * 0.25, y - 0.375 + sy * 0.25)) hit++;
        const i = c * N * N + y * N + x;
        maps[i] = Math.max(maps[i]!, hit / 16);
      }
    }
  };
  for (const card of cards) {
    if (card.holder) fill(3, card.holder);
    if (card.label) {
      const [x0, y0, x1, y1] = card.label;
      fill(4, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
    }
    fill(0, card.quad);
    const cx = card.quad.reduce((s, p) => s + p[0], 0) / 4;
    const cy = card.quad.reduce((s, p) => s + p[1], 0) / 4;
    fill(1, card.quad.map(([x, y]) => [cx + (x - cx) * 0.5, cy + (y - cy) * 0.5] as Point));
    for (const [qx, qy] of card.quad) {
      for (let y = 0; y < N; y++) {
        for (let x = 0; x < N; x++) {
          const i = 2 * N * N + y * N + x;
          maps[i] = Math.max(maps[i]!, Math.exp(-((x - qx) ** 2 + (y - qy) ** 2) / (2 * 1.2 ** 2)));
        }
      }
    }
  }
  return maps;
}

const maxCornerError = (a: Quad, b: Quad) => Math.max(...a.map((p, i) => Math.hypot(p[0] - b[i]![0], p[1] - b[i]![1])));

describe('card detector maps', () => {
  it('reads a tilted card to a fraction of a map pixel', () => {
    const quad: Quad = [[40.3, 20.6], [90.2, 24.1], [85.7, 94.4], [35.1, 90.8]];
    const [card, ...rest] = decodeCardMaps(mapsOf([{ quad }]));
    expect(rest).toHaveLength(0);
    expect(card!.kind).toBe('raw');
    expect(maxCornerError(card!.quad, quad)).toBeLessThan(0.35);
  });

  it("gives the outline the centre map alone says, as the alternative of a card whose card map ran into the background", () => {
    const quad: Quad = [[40, 30], [76, 30], [76, 80], [40, 80]];
    const maps = mapsOf([{ quad }]);
    // the card map runs on to the right and down, over what lies behind the card
    for (let y = 30; y < 110; y++) for (let x = 40; x < 115; x++) maps[y * N + x] = 1;
    const [bled, ...rest] = decodeCardMaps(maps);
    expect(rest).toHaveLength(0);
    expect(maxCornerError(bled!.quad, quad)).toBeGreaterThan(20);
    expect(maxCornerError(bled!.centre!, quad)).toBeLessThan(1.5);
    // a centre region too narrow for a card's outline gives none
    const narrow = mapsOf([{ quad }]);
    narrow.fill(0, N * N, 2 * N * N);
    for (let y = 40; y < 70; y++) for (let x = 56; x < 59; x++) narrow[N * N + y * N + x] = 1;
    const [thin] = decodeCardMaps(narrow);
    expect(thin!.centre).toBeUndefined();
  });

  it('keeps touching cards apart and finds no card in empty maps', () => {
    const a: Quad = [[10, 10], [46, 10], [46, 60], [10, 60]];
    const b: Quad = [[46, 10], [82, 10], [82, 60], [46, 60]];
    const found = decodeCardMaps(mapsOf([{ quad: a }, { quad: b }]));
    expect(found).toHaveLength(2);
    expect(decodeCardMaps(new Float32Array(MAP_CHANNELS * N * N))).toEqual([]);
  });

  it('takes no blob without four corners, nor an outline its pixels do not fill', () => {
    const quad: Quad = [[40, 20], [90, 20], [90, 90], [40, 90]];
    const maps = mapsOf([{ quad }]);
    maps.fill(0, 2 * N * N, 3 * N * N);
    expect(decodeCardMaps(maps)).toEqual([]);
    // a cross-shaped blob with corners at its arms' ends: its rectangle is mostly empty
    const cross = mapsOf([{ quad: [[60, 10], [70, 10], [70, 110], [60, 110]] }, { quad: [[20, 55], [110, 55], [110, 65], [20, 65]] }]);
    expect(decodeCardMaps(cross)).toEqual([]);
  });

  it('keeps a card with faint corners as a weak one, for the refiner to confirm', () => {
    const quad: Quad = [[40, 20], [90, 20], [90, 90], [40, 90]];
    const maps = mapsOf([{ quad }]);
    const strong = decodeCardMaps(maps);
    expect(strong.map((c) => c.strong)).toEqual([true]);
    for (let i = 2 * N * N; i < 3 * N * N; i++) maps[i]! *= 0.3;
    const [weak] = decodeCardMaps(maps);
    expect(weak).toMatchObject({ strong: false });
    expect(weak!.corners).toBeLessThan(0.4);
    expect(weak!.quad.flat().map(Math.round)).toEqual(strong[0]!.quad.flat().map(Math.round));
  });

  it('calls a card with a label beside it in one holder a slab, and gives the label box', () => {
    const quad: Quad = [[40, 50], [80, 50], [80, 106], [40, 106]];
    const [card] = decodeCardMaps(mapsOf([{ quad, holder: [[34, 20], [86, 20], [86, 112], [34, 112]], label: [37, 24, 83, 43] }]));
    expect(card!.kind).toBe('slab');
    expect(card!.labelBox).toEqual([37, 24, 83, 43]);
    const [sleeved] = decodeCardMaps(mapsOf([{ quad, holder: [[36, 44], [84, 44], [84, 109], [36, 109]] }]));
    expect(sleeved!.kind).toBe('holder');
  });

  it('ignores what lies in the padding beyond the photo', () => {
    const quad: Quad = [[100, 20], [126, 20], [126, 56], [100, 56]];
    expect(decodeCardMaps(mapsOf([{ quad }]), 90, 128)).toEqual([]);
  });

  it('orders corners clockwise from the upper-left and fits the smallest rectangle', () => {
    expect(clockwiseFromTopLeft([[10, 10], [0, 10], [0, 0], [10, 0]])).toEqual([[0, 0], [10, 0], [10, 10], [0, 10]]);
    const r = minAreaRect([[0, 0], [4, 0], [4, 2], [0, 2], [2, 1]])!;
    expect(r.map((p) => p.map((v) => Math.round(v * 1000) / 1000))).toEqual([[0, 0], [4, 0], [4, 2], [0, 2]]);
  });

  it('finds a card by its corners where the card map runs into the table (the second look)', () => {
    const quad: Quad = [[40.4, 30.2], [76.1, 32.3], [73.2, 81.6], [37.6, 79.7]];
    const maps = mapsOf([{ quad }]);
    // the card map spreads over a textured table around the card: its blob is no card's shape
    for (let y = 10; y < 110; y++) for (let x = 10; x < 120; x++) maps[y * N + x] = Math.max(maps[y * N + x]!, 0.9);
    expect(decodeCardMaps(maps).filter((c) => c.strong)).toHaveLength(0);
    const [best] = cornerQuads(maps);
    expect(maxCornerError(best!.quad, quad)).toBeLessThan(1);
  });

  it('returns the best quadrilaterals of several cards, none overlapping a better one by more than a fifth', () => {
    const a: Quad = [[10, 10], [46, 10], [46, 60], [10, 60]];
    const b: Quad = [[60, 12], [96, 12], [96, 62], [60, 62]];
    const c: Quad = [[20, 70], [56, 70], [56, 120], [20, 120]];
    const found = cornerQuads(mapsOf([{ quad: a }, { quad: b }, { quad: c }]));
    expect(found).toHaveLength(3);
    for (const card of [a, b, c]) expect(found.some((f) => maxCornerError(f.quad, card) < 1)).toBe(true);
    for (let i = 0; i < found.length; i++) {
      for (let j = 0; j < i; j++) {
        expect(found[j]!.score).toBeGreaterThanOrEqual(found[i]!.score);
        expect(convexOverlapShare(found[j]!.quad, found[i]!.quad)).toBeLessThanOrEqual(0.2);
      }
    }
  });

  it("gives a convex quadrilateral's rows exactly as insideConvex does, edges included", () => {
    const quads: Quad[] = [
      [[40, 30], [76, 32], [73, 81], [37, 79]],
      [[10, 10], [46, 10], [46, 60], [10, 60]],
      [[50, 5], [90, 40], [55, 90], [15, 50]],
    ];
    for (const q of quads) {
      for (let y = 0; y < 100; y++) {
        const [lo, hi] = rowSpan(q, y, 0, 120);
        for (let x = 0; x <= 120; x++) expect(x >= lo && x <= hi, `${JSON.stringify(q)} ${x},${y}`).toBe(insideConvex(q, x, y));
      }
    }
  });

  it('takes no corners that make no card: a square, a strip, empty maps', () => {
    const square = mapsOf([{ quad: [[20, 20], [70, 20], [70, 70], [20, 70]] }]);
    expect(cornerQuads(square)).toEqual([]);
    const strip = mapsOf([{ quad: [[20, 20], [100, 20], [100, 40], [20, 40]] }]);
    expect(cornerQuads(strip)).toEqual([]);
    expect(cornerQuads(new Float32Array(MAP_CHANNELS * N * N))).toEqual([]);
  });

  it('takes no card-shaped corners over an empty card map', () => {
    const maps = mapsOf([{ quad: [[40, 30], [76, 30], [76, 80], [40, 80]] }]);
    maps.fill(0, 0, N * N);
    expect(cornerQuads(maps)).toEqual([]);
  });
});
