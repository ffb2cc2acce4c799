import fs from 'node:fs';
import path from 'node:path';
import type { LayersModel, Tensor, Tensor4D } from '@tensorflow/tfjs';
import { modelArtifacts, packageDir, packageVersion, tfjs, type ModelJson, type RgbPixels } from '../engine/tfjs-runtime.ts';

export const upscaleFactors = [2, 3, 4, 8] as const;
export type UpscaleFactor = (typeof upscaleFactors)[number];

/**
 * Tiles are this many input pixels square (the size the slim ESRGAN was trained on), each read
 * with a margin of context that is cut away again, so seams do not show and memory stays
 * bounded by one tile whatever the image size.
 */
const TILE = 128;
const MARGIN = 8;

export interface Upscaler {
  factor: UpscaleFactor;
  /** `esrgan-slim-1.0.0/x2`: package, version and scale of the weights. */
  model: string;
  upscale(img: RgbPixels): Promise<RgbPixels>;
  dispose(): void;
}

/**
 * `@upscalerjs/esrgan-slim`'s RDN super-resolution network (Keras layers model, pixels 0–255 in
 * and out), loaded from the installed package into this thread's tfjs-wasm.
 */
export async function loadUpscaler(factor: UpscaleFactor): Promise<Upscaler> {
  const tf = await tfjs();
  const pkg = '@upscalerjs/esrgan-slim';
  const dir = packageDir(pkg);
  const modelDir = path.join(dir, 'models', `x${factor}`);
  const artifacts = modelArtifacts({
    json: () => JSON.parse(fs.readFileSync(path.join(modelDir, 'model.json'), 'utf8')) as ModelJson,
    shard: (p) => fs.readFileSync(path.join(modelDir, p)),
  });
  const model: LayersModel = await tf.loadLayersModel({ load: () => Promise.resolve(artifacts) });
  const name = `esrgan-slim-${packageVersion(dir)}/x${factor}`;

  const upscale = async (img: RgbPixels): Promise<RgbPixels> => {
    const { width: w, height: h } = img;
    const W = w * factor;
    const out = new Uint8Array(W * h * factor * 3);
    for (let ty = 0; ty < h; ty += TILE) {
      for (let tx = 0; tx < w; tx += TILE) {
        const x0 = Math.max(0, tx - MARGIN);
        const y0 = Math.max(0, ty - MARGIN);
        const x1 = Math.min(w, tx + TILE + MARGIN);
        const y1 = Math.min(h, ty + TILE + MARGIN);
        const tw = x1 - x0;
        const th = y1 - y0;
        const tile = new Float32Array(tw * th * 3);
        for (let y = 0; y < th; y++) {
          const src = ((y0 + y) * w + x0) * 3;
          for (let i = 0; i < tw * 3; i++) tile[y * tw * 3 + i] = img.data[src + i]!;
        }
        const result = tf.tidy(() => {
          const x = tf.tensor4d(tile, [1, th, tw, 3]) as Tensor4D;
          return (model.predict(x) as Tensor).clipByValue(0, 255).round();
        });
        const up = (await result.data()) as Float32Array;
        result.dispose();
        // Copy back only the tile's own area, without its margin.
        const ox = (tx - x0) * factor;
        const oy = (ty - y0) * factor;
        const cw = (Math.min(tx + TILE, w) - tx) * factor;
        const ch = (Math.min(ty + TILE, h) - ty) * factor;
        const rowLen = tw * factor * 3;
        for (let y = 0; y < ch; y++) {
          const src = (oy + y) * rowLen + ox * 3;
          const dst = ((ty * factor + y) * W + tx * factor) * 3;
          for (let i = 0; i < cw * 3; i++) out[dst + i] = up[src + i]!;
        }
      }
    }
    return { data: out, width: W, height: h * factor };
  };

  return { factor, model: name, upscale, dispose: () => model.dispose() };
}
