import { describe, expect, it } from 'vitest';
import { framed } from './human-detector.ts';

describe('framed', () => {
  it('puts the photo at half size, 2 x 2 means, in the middle of a grey canvas of its size', () => {
    const W = 6;
    const H = 4;
    const data = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.set([x * 40, y * 60, 200], (y * W + x) * 3);
    const { canvas, offsetX, offsetY } = framed({ data, width: W, height: H });
    expect([canvas.width, canvas.height, offsetX, offsetY]).toEqual([6, 4, 1, 1]);
    const at = (x: number, y: number) => [...canvas.data.subarray((y * W + x) * 3, (y * W + x) * 3 + 3)];
    expect(at(0, 0)).toEqual([114, 114, 114]);
    expect(at(5, 3)).toEqual([114, 114, 114]);
    // Canvas (1, 1) is the mean of photo pixels (0..1, 0..1): red (0 + 40) / 2, green (0 + 60) / 2.
    expect(at(1, 1)).toEqual([20, 30, 200]);
    expect(at(3, 2)).toEqual([180, 150, 200]);
    expect(at(4, 1)).toEqual([114, 114, 114]);
  });
});
