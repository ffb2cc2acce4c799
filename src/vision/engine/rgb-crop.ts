import type { RgbPixels } from './tfjs-runtime.ts';

/** The rectangle `w` × `h` at (`x0`, `y0`) of an image, as its own pixels (the caller keeps it inside). */
export function cropRgb(img: RgbPixels, x0: number, y0: number, w: number, h: number): RgbPixels {
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) data.set(img.data.subarray(((y0 + y) * img.width + x0) * 3, ((y0 + y) * img.width + x0 + w) * 3), y * w * 3);
  return { data, width: w, height: h };
}

/** The image turned a quarter clockwise: its pixel (x, y) is the turned image's (height − 1 − y, x). */
export function turnRgbClockwise(img: RgbPixels): RgbPixels {
  const { width: w, height: h } = img;
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = (y * w + x) * 3;
      const d = (x * h + (h - 1 - y)) * 3;
      data[d] = img.data[s]!;
      data[d + 1] = img.data[s + 1]!;
      data[d + 2] = img.data[s + 2]!;
    }
  }
  return { data, width: h, height: w };
}

/**
 * Where a point of the image {@link turnRgbClockwise} made lies in the image it was made from (`height`:
 * that image's height). Pixel centres map to pixel centres, so outlines found on the turned image come back.
 */
export function fromTurnedClockwise(p: readonly [number, number], height: number): [number, number] {
  return [p[1], height - 1 - p[0]];
}
