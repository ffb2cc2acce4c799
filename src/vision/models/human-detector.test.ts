import { describe, expect, it } from 'vitest';
import { framed, notNestedFace } from './human-detector.ts';

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

describe('notNestedFace', () => {
  const face = (prob: number, bound_box: [number, number, number, number]) => ({ name: 'face', prob, bound_box });
  it('drops a box lying mostly inside a surer face (a cheek and eye of a headshot, h189), and keeps faces side by side or overlapping a little', () => {
    // amy1's: the face, and a box 82 % inside it (their IoU 0.27, which BlazeFace's own suppression at 0.3 keeps)
    const found = [face(0.91, [27, 0, 136, 114]), face(0.56, [91, 21, 146, 102]), face(0.8, [150, 0, 250, 110]), face(0.6, [120, 10, 190, 100])];
    expect(found.filter(notNestedFace).map((d) => d.prob)).toEqual([0.91, 0.8, 0.6]);
    // a smaller box wholly inside is a part too; a surer box inside a less sure one is kept (the order decides)
    expect([face(0.9, [0, 0, 100, 100]), face(0.5, [40, 40, 60, 60])].filter(notNestedFace)).toHaveLength(1);
    expect([face(0.9, [40, 40, 60, 60]), face(0.5, [0, 0, 100, 100])].filter(notNestedFace)).toHaveLength(2);
  });
});
