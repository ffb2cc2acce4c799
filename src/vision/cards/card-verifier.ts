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
  const q = portrait(quad);
  const [w, h] = sideLengths(q);
  const m = rectToQuad(w, h, q);
  const plane = VIEW_W * VIEW_H;
  for (let j = 0; j < VIEW_H; j++) {
    const v = (-VIEW_MARGIN + ((j + 0.5) * (1 + 2 * VIEW_MARGIN)) / VIEW_H) * h;
    for (let i = 0; i < VIEW_W; i++) {
      const u = (-VIEW_MARGIN + ((i + 0.5) * (1 + 2 * VIEW_MARGIN)) / VIEW_W) * w;
      const [x, y] = applyHomography(m, u, v);
      sampleRgb(img, x, y, out, offset + j * VIEW_W + i, plane);
    }
  }
  return out;
}

export class CardVerifier {
  private constructor(private readonly session: InferenceSession) {}

  static async load(threads = 1, file = CARD_VERIFIER_FILE): Promise<CardVerifier> {
    return new CardVerifier(await InferenceSession.create(file, workerSessionOptions(threads)));
  }

  /** The probability that each outline is a card's, 0–1. */
  async verify(img: RgbPixels, quads: readonly Quad[]): Promise<number[]> {
    if (!quads.length) return [];
    const size = 3 * VIEW_W * VIEW_H;
    const input = new Float32Array(quads.length * size);
    quads.forEach((q, k) => cardView(img, q, input, k * size));
    const out = await this.session.run({ views: new Tensor('float32', input, [quads.length, 3, VIEW_H, VIEW_W]) });
    return Array.from(out.card!.data as Float32Array);
  }
}
