import { InferenceSession, Tensor } from 'onnxruntime-node';
import { fileURLToPath } from 'node:url';
import { workerSessionOptions } from '../engine/onnx-session.ts';
import { sampleRgb } from './card-corner-refiner.ts';
import { applyHomography, rectToQuad, sideLengths, type Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/**
 * The card detector's third network (training/card-detector/train_verifier.py,
 * docs/card-detector.md "The verifier"): is this outline a card? It sees the outline warped
 * upright with a margin around it, and says card or not: an art box, a card with the table
 * around it, a booster pack or a patch of leopard is not. The sampling must match the training
 * script's `card_view` exactly.
 */
export const CARD_VERIFIER_FILE = fileURLToPath(new URL('../../../models/card-verifier.onnx', import.meta.url));
export const VIEW_W = 64;
export const VIEW_H = 88;
/** The view reaches this share of the outline's width and height beyond each side. */
export const VIEW_MARGIN = 0.08;

/** The outline turned so its left side is the longer (portrait), as the training turns it. */
export function portrait(quad: Quad): Quad {
  const [w, h] = sideLengths(quad);
  return w > h ? ([quad[1], quad[2], quad[3], quad[0]] as Quad) : quad;
}

/** The upright view of an outline (3 × VIEW_H × VIEW_W, RGB 0–1), written into `out` at `offset`. */
export function cardView(img: RgbPixels, quad: Quad, out = new Float32Array(3 * VIEW_W * VIEW_H), offset = 0): Float32Array {
  return uprightView(img, quad, { width: VIEW_W, height: VIEW_H, margin: VIEW_MARGIN }, out, offset);
}

/**
 * An outline warped upright (portrait) into `size.width` × `size.height` pixels reaching
 * `size.margin` of its width and height beyond each side: view pixel (i, j) is the rectangle point
 * ((−M + (i + 0.5)(1 + 2M)/W)·w, (−M + (j + 0.5)(1 + 2M)/H)·h) through the outline's homography,
 * bilinear, black outside the photo, as the training scripts' `cv2.remap` samples it.
 */
export function uprightView(img: RgbPixels, quad: Quad, size: { width: number; height: number; margin: number }, out = new Float32Array(3 * size.width * size.height), offset = 0): Float32Array {
  const q = portrait(quad);
  const [w, h] = sideLengths(q);
  const m = rectToQuad(w, h, q);
  const { width: W, height: H, margin: M } = size;
  const plane = W * H;
  for (let j = 0; j < H; j++) {
    const v = (-M + ((j + 0.5) * (1 + 2 * M)) / H) * h;
    for (let i = 0; i < W; i++) {
      const u = (-M + ((i + 0.5) * (1 + 2 * M)) / W) * w;
      const [x, y] = applyHomography(m, u, v);
      sampleRgb(img, x, y, out, offset + j * W + i, plane);
    }
  }
  return out;
}

/**
 * One probability per outline from a network that looks at outlines warped upright (the verifier,
 * the holder classifier): the views of every outline in one batch, `output` read back.
 */
export async function scoreViews(session: InferenceSession, img: RgbPixels, quads: readonly Quad[], size: { width: number; height: number; margin: number }, output: string): Promise<number[]> {
  if (!quads.length) return [];
  const one = 3 * size.width * size.height;
  const input = new Float32Array(quads.length * one);
  quads.forEach((q, k) => uprightView(img, q, size, input, k * one));
  const out = await session.run({ views: new Tensor('float32', input, [quads.length, 3, size.height, size.width]) });
  return Array.from(out[output]!.data as Float32Array);
}

export class CardVerifier {
  private constructor(private readonly session: InferenceSession) {}

  static async load(threads = 1, file = CARD_VERIFIER_FILE): Promise<CardVerifier> {
    return new CardVerifier(await InferenceSession.create(file, workerSessionOptions(threads)));
  }

  /** The probability that each outline is a card's, 0–1. */
  verify(img: RgbPixels, quads: readonly Quad[]): Promise<number[]> {
    return scoreViews(this.session, img, quads, { width: VIEW_W, height: VIEW_H, margin: VIEW_MARGIN }, 'card');
  }
}
