import { InferenceSession } from 'onnxruntime-node';
import { fileURLToPath } from 'node:url';
import { workerSessionOptions } from '../engine/onnx-session.ts';
import { scoreViews } from './card-verifier.ts';
import type { Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/**
 * The card detector's fourth network (training/card-detector/train_holder.py,
 * docs/card-detector.md "Sleeves and top-loaders"): is this card in a sleeve, a top-loader or a
 * slab, or bare? The first stage's holder map learnt holders from drawn scenes only and never
 * fires on real photos; this one learnt from the hand-labelled train photos too. It sees the
 * card's outline warped upright with a wider margin than the verifier's (a film's edge a few
 * millimetres out, a top-loader's rim), sampled exactly as the training script's `holder_view`.
 */
export const CARD_HOLDER_FILE = fileURLToPath(new URL('../../../models/card-holder.onnx', import.meta.url));
export const HOLDER_VIEW = { width: 96, height: 128, margin: 0.12 } as const;

export class CardHolderClassifier {
  private constructor(private readonly session: InferenceSession) {}

  static async load(threads = 1, file = CARD_HOLDER_FILE): Promise<CardHolderClassifier> {
    return new CardHolderClassifier(await InferenceSession.create(file, workerSessionOptions(threads)));
  }

  /** The probability that each card is held (sleeve, top-loader, slab), 0–1. */
  held(img: RgbPixels, quads: readonly Quad[]): Promise<number[]> {
    return scoreViews(this.session, img, quads, HOLDER_VIEW, 'held');
  }
}
