import { describe, expect, it } from 'vitest';
import { cropRgb } from './rgb-crop.ts';

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
