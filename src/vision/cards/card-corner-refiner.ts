import { InferenceSession, Tensor } from 'onnxruntime-node';
import { fileURLToPath } from 'node:url';
import { workerSessionOptions } from '../engine/onnx-session.ts';
import { applyHomography, rectToQuad, sideLengths, type Point, type Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/**
 * The card detector's second stage (training/card-detector/train_corners.py, docs/card-detector.md):
 * a small network that looks at each corner of a rough outline up close and says where the card's
 * corner is. Each corner's patch is sampled through the outline's homography, mirrored so that
 * every corner looks like an upper-left one, and spans a share of the card's short side either
 * way; two passes, the second on a narrower patch around the first's answer. The sampling must
 * match training/card-detector/corners.py exactly.
 */
/**
 * The photo's RGB at (x, y), bilinear and black outside the photo, as OpenCV's remap with a
 * constant border samples it in the training scripts: channel c, 0–1, goes to out[o + c × plane].
 */
export function sampleRgb(img: RgbPixels, x: number, y: number, out: Float32Array, o: number, plane: number): void {
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  for (let c = 0; c < 3; c++) {
    const top = pixelAt(img, x0, y0, c) * (1 - fx) + pixelAt(img, x0 + 1, y0, c) * fx;
    const bottom = pixelAt(img, x0, y0 + 1, c) * (1 - fx) + pixelAt(img, x0 + 1, y0 + 1, c) * fx;
    out[o + c * plane] = (top * (1 - fy) + bottom * fy) / 255;
  }
}

// module level, not a closure per sample: tsx names every closure it creates (`__name`), a cost per call in this loop
function pixelAt({ data, width, height }: RgbPixels, px: number, py: number, c: number): number {
  return px < 0 || py < 0 || px >= width || py >= height ? 0 : data[(py * width + px) * 3 + c]!;
}

export const CARD_CORNERS_FILE = fileURLToPath(new URL('../../../models/card-corners.onnx', import.meta.url));
export const PATCH = 64;
/** Half the patch's width as a share of the card's short side, per pass. */
export const REFINE_SPANS = [0.14, 0.07] as const;
/** Mirror per corner (upper-left, upper-right, lower-right, lower-left): the card to the lower right. */
const MIRROR: readonly Point[] = [
  [1, 1],
  [-1, 1],
  [-1, -1],
  [1, -1],
];

/** Corner patches of a quad as the network takes them (4 × RGB × PATCH × PATCH, 0–1), and the map back from patch units. */
export function cornerPatches(img: RgbPixels, quad: Quad, span: number): { input: Float32Array; toImage: (k: number, u: number, v: number) => Point } {
  const [w, h] = sideLengths(quad);
  const m = rectToQuad(w, h, quad);
  const s = span * Math.min(w, h);
  const rect: Point[] = [
    [0, 0],
    [w, 0],
    [w, h],
    [0, h],
  ];
  const plane = PATCH * PATCH;
  const input = new Float32Array(4 * 3 * plane);
  for (let k = 0; k < 4; k++) {
    const [cx, cy] = rect[k]!;
    const [sx, sy] = MIRROR[k]!;
    const base = k * 3 * plane;
    for (let j = 0; j < PATCH; j++) {
      const v = -s + ((j + 0.5) * 2 * s) / PATCH;
      for (let i = 0; i < PATCH; i++) {
        const u = -s + ((i + 0.5) * 2 * s) / PATCH;
        const [x, y] = applyHomography(m, cx + sx * u, cy + sy * v);
        sampleRgb(img, x, y, input, base + j * PATCH + i, plane);
      }
    }
  }
  const toImage = (k: number, pu: number, pv: number): Point => {
    const [cx, cy] = rect[k]!;
    const [sx, sy] = MIRROR[k]!;
    return applyHomography(m, cx + sx * pu * s, cy + sy * pv * s);
  };
  return { input, toImage };
}

export class CardCornerRefiner {
  private constructor(private readonly session: InferenceSession) {}

  static async load(threads = 1, file = CARD_CORNERS_FILE): Promise<CardCornerRefiner> {
    return new CardCornerRefiner(await InferenceSession.create(file, workerSessionOptions(threads)));
  }

  /**
   * The outline's corners placed by the network, pass by pass; `spread` is the last pass's doubt
   * per corner (the soft arg-max's standard deviation, as a share of the card's short side).
   */
  async refine(img: RgbPixels, rough: Quad, spans: readonly number[] = REFINE_SPANS): Promise<{ quad: Quad; spread: [number, number, number, number] }> {
    let quad = rough;
    let spread: [number, number, number, number] = [1, 1, 1, 1];
    for (const span of spans) {
      const { input, toImage } = cornerPatches(img, quad, span);
      const out = await this.session.run({ patches: new Tensor('float32', input, [4, 3, PATCH, PATCH]) });
      const r = out.corners!.data as Float32Array;
      quad = [0, 1, 2, 3].map((k) => toImage(k, r[k * 3]!, r[k * 3 + 1]!)) as Quad;
      spread = [0, 1, 2, 3].map((k) => r[k * 3 + 2]! * span) as [number, number, number, number];
    }
    return { quad, spread };
  }
}
