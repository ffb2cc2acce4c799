import { describe, expect, it } from 'vitest';
import { cropRgb, fromTurnedClockwise, turnRgbClockwise } from './rgb-crop.ts';

describe('cropRgb', () => {
  it('copies the rectangle row by row', () => {
    // a 4 × 3 image whose red is x + 10 y
    const data = new Uint8Array(4 * 3 * 3);
    for (let y = 0; y < 3; y++) for (let x = 0; x < 4; x++) data[(y * 4 + x) * 3] = x + 10 * y;
    const c = cropRgb({ data, width: 4, height: 3 }, 1, 1, 2, 2);
    expect([c.width, c.height]).toEqual([2, 2]);
    expect([0, 1, 2, 3].map((i) => c.data[i * 3])).toEqual([11, 12, 21, 22]);
  });
});

describe('turnRgbClockwise and fromTurnedClockwise', () => {
  it('turns clockwise, and each turned pixel maps back to the pixel it came from', () => {
    // a 5 × 3 image whose red is x + 10 y: every pixel told apart
    const data = new Uint8Array(5 * 3 * 3);
    for (let y = 0; y < 3; y++) for (let x = 0; x < 5; x++) data[(y * 5 + x) * 3] = x + 10 * y;
    const t = turnRgbClockwise({ data, width: 5, height: 3 });
    expect([t.width, t.height]).toEqual([3, 5]);
    // clockwise: the old bottom-left pixel (0, 2) is the new top-left
    expect(t.data[0]).toBe(20);
    for (let y = 0; y < 5; y++) {
      for (let x = 0; x < 3; x++) {
        const [ox, oy] = fromTurnedClockwise([x, y], 3);
        expect(t.data[(y * 3 + x) * 3], `${x},${y}`).toBe(ox + 10 * oy);
      }
    }
  });
});
