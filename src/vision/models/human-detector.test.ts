import { describe, expect, it } from 'vitest';
import { faceLike, framed, halvedTo, notBackgroundPerson, notNestedFace, withMargin } from './human-detector.ts';

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

describe('withMargin', () => {
  it('puts every pixel of the photo in the middle of a grey canvas twice its width and height', () => {
    const data = new Uint8Array(3 * 2 * 3);
    for (let i = 0; i < 6; i++) data.set([i * 10, 200, 50], i * 3);
    const { canvas, offsetX, offsetY } = withMargin({ data, width: 3, height: 2 });
    expect([canvas.width, canvas.height, offsetX, offsetY]).toEqual([6, 4, 1, 1]);
    const at = (x: number, y: number) => [...canvas.data.subarray((y * 6 + x) * 3, (y * 6 + x) * 3 + 3)];
    expect(at(0, 0)).toEqual([114, 114, 114]);
    expect(at(1, 1)).toEqual([0, 200, 50]);
    expect(at(3, 2)).toEqual([50, 200, 50]);
    expect(at(4, 2)).toEqual([114, 114, 114]);
    expect(at(1, 3)).toEqual([114, 114, 114]);
  });
});

describe('notBackgroundPerson', () => {
  const person = (prob: number, bound_box: [number, number, number, number]) => ({ name: 'person', prob, bound_box });
  it("drops boxes under 0.3 of the largest person's long side (linzaer_5's chairs and heads behind her), keeps a group's people", () => {
    // linzaer_5: her box, then boxes 22–87 px tall at the desks behind her
    const portrait = [person(0.5, [235, 64, 974, 763]), person(0.4, [969, 209, 1022, 296]), person(0.39, [785, 207, 808, 253]), person(0.37, [729, 208, 749, 230])];
    expect(portrait.filter(notBackgroundPerson).map((d) => d.prob)).toEqual([0.5]);
    // a back-row child 0.42 of the tallest stays; a tie 0.2 of the tallest goes, however sure
    const group = [person(0.67, [0, 240, 300, 670]), person(0.64, [370, 190, 395, 266]), person(0.33, [250, 57, 396, 268])];
    expect(group.filter(notBackgroundPerson).map((d) => d.prob)).toEqual([0.67, 0.33]);
    // a lying person counts by its long side
    expect([person(0.6, [0, 0, 400, 120]), person(0.4, [500, 0, 540, 130])].filter(notBackgroundPerson)).toHaveLength(2);
  });
});

describe('faceLike', () => {
  // BlazeFace's six points (right eye, left eye, nose, mouth, right ear, left ear) on amy1's face, box 103 px wide
  const amy: [number, number][] = [[52.0, 41.0], [99.4, 41.6], [69.5, 75.2], [71.6, 94.5], [34.1, 40.3], [131.0, 48.2]];
  const turned = (points: [number, number][], deg: number): [number, number][] => {
    const a = (deg * Math.PI) / 180;
    return points.map(([x, y]) => [75 + (x - 75) * Math.cos(a) - (y - 75) * Math.sin(a), 75 + (x - 75) * Math.sin(a) + (y - 75) * Math.cos(a)]);
  };
  it('passes a face, upright or tilted up to 45 degrees, and points with no opinion', () => {
    expect(faceLike(amy, 103)).toBe(true);
    expect(faceLike(turned(amy, 30), 103)).toBe(true);
    expect(faceLike(turned(amy, -40), 103)).toBe(true);
    expect(faceLike([], 103)).toBe(true);
  });
  it("refuses points no face has (h289's false faces: a stegosaurus, a watch, a dalmatian at 0.71)", () => {
    // eyes 0.01 of the box apart (stegosaurus/image_0011)
    expect(faceLike([[50, 40], [51, 40], [60, 70], [60, 90], [30, 40], [90, 40]], 103)).toBe(false);
    // the "nose" above the eyes (watch/image_0011)
    expect(faceLike([[40, 60], [80, 60], [60, 40], [60, 80], [20, 60], [100, 60]], 103)).toBe(false);
    // the mouth above the nose
    expect(faceLike([[40, 40], [80, 40], [60, 70], [60, 62], [20, 40], [100, 40]], 103)).toBe(false);
    // nose far off the middle, past half an eye distance (a profile-like muddle)
    expect(faceLike([[40, 40], [80, 40], [85, 60], [62, 80], [20, 40], [100, 40]], 103)).toBe(false);
    // an upright face turned on its side, 80 degrees (dalmatian/image_0013's)
    expect(faceLike(turned(amy, 80), 103)).toBe(false);
    // eyes too close for the box: under a quarter of its width
    expect(faceLike(amy, 200)).toBe(false);
  });
});

describe('halvedTo', () => {
  it('halves a photo by 2 x 2 means until its long side is at most the edge, and says the factor back', () => {
    const W = 8;
    const H = 4;
    const data = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data.set([x * 30, y * 60, 7], (y * W + x) * 3);
    const { image, scale } = halvedTo({ data, width: W, height: H }, 2);
    expect([image.width, image.height, scale]).toEqual([2, 1, 4]);
    // pixel (0, 0) is the mean of x 0..3, y 0..3: red (0 + 30 + 60 + 90) / 4 rounded, green (0 + 60 + 120 + 180) / 4
    expect([...image.data.subarray(0, 3)]).toEqual([45, 90, 7]);
    expect([...image.data.subarray(3, 6)]).toEqual([165, 90, 7]);
    // small enough already: the photo itself
    const same = { data, width: W, height: H };
    expect(halvedTo(same, 8)).toEqual({ image: same, scale: 1 });
  });
});
