import type { RgbPixels } from './tfjs-runtime.ts';

/** The rectangle `w` × `h` at (`x0`, `y0`) of an image, as its own pixels (the caller keeps it inside). */
export function cropRgb(img: RgbPixels, x0: number, y0: number, w: number, h: number): RgbPixels {
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) data.set(img.data.subarray(((y0 + y) * img.width + x0) * 3, ((y0 + y) * img.width + x0 + w) * 3), y * w * 3);
  return { data, width: w, height: h };
}
