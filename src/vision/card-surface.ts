import type { Cv } from './card-geometry.ts';
import type { RgbPixels } from './tfjs-runtime.ts';

/**
 * Surface defects on an upright card (docs/grading.md). Scratches, creases and print lines are
 * thin straight lines: a 5×5 median filter removes structures up to two pixels wide but keeps
 * the artwork's edges, so what differs from the median-filtered card by more than a threshold,
 * outside glare, and lines up into straight segments at least 6 % of the width long, is a line
 * defect. Glare (large near-white, colourless areas) is measured apart and left out.
 */
export interface Surface {
  /** Total length of line defects over the card's width (0.5 = half a width of scratches). */
  lines: number;
  segments: number;
  /** Share of the card under glare, left out of the measurement. */
  glare: number;
  grade: number;
}

/** 1 + 9·e^(−lines): a scratch of a third of the width grades 7.4, one full width 4.3. */
export function surfaceGrade(lines: number): number {
  return Math.round((1 + 9 * Math.exp(-lines)) * 10) / 10;
}

export function measureSurface(cv: Cv, card: RgbPixels, inset = 0.05): Surface {
  const { width: W, height: H } = card;
  const mats: { delete(): void }[] = [];
  const keep = <T extends { delete(): void }>(m: T): T => (mats.push(m), m);
  try {
    const rgb = keep(new cv.Mat(H, W, cv.CV_8UC3));
    rgb.data.set(card.data);
    const gray = keep(new cv.Mat());
    cv.cvtColor(rgb, gray, cv.COLOR_RGB2GRAY);
    const med = keep(new cv.Mat());
    cv.medianBlur(gray, med, 5);
    const diff = keep(new cv.Mat());
    cv.absdiff(gray, med, diff);
    const mask = keep(new cv.Mat());
    cv.threshold(diff, mask, 22, 255, cv.THRESH_BINARY);

    // Glare: near-white, colourless pixels; they and their surroundings are left out.
    const d = card.data;
    let glare = 0;
    const m = mask.data;
    const x0 = Math.round(W * inset);
    const y0 = Math.round(H * inset);
    const glareMask = new Uint8Array(W * H);
    for (let i = 0; i < W * H; i++) {
      const r = d[i * 3]!;
      const g = d[i * 3 + 1]!;
      const b = d[i * 3 + 2]!;
      if (Math.min(r, g, b) > 235 && Math.max(r, g, b) - Math.min(r, g, b) < 12) glareMask[i] = 1;
    }
    let area = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        const inside = x >= x0 && y >= y0 && x < W - x0 && y < H - y0;
        if (!inside) {
          m[i] = 0;
          continue;
        }
        area++;
        if (glareMask[i]) {
          glare++;
          m[i] = 0;
        }
      }
    }
    const segments = keep(new cv.Mat());
    const minLength = W * 0.06;
    cv.HoughLinesP(mask, segments, 1, Math.PI / 360, Math.round(minLength * 0.6), minLength, 3);
    const s = segments.data32S;
    // Overlapping detections of one line are merged by counting each stretch once.
    const counted = new Uint8Array(W * H);
    let length = 0;
    let count = 0;
    for (let k = 0; k + 3 < s.length; k += 4) {
      const [ax, ay, bx, by] = [s[k]!, s[k + 1]!, s[k + 2]!, s[k + 3]!];
      const steps = Math.max(Math.abs(bx - ax), Math.abs(by - ay));
      let fresh = 0;
      const pixels: number[] = [];
      for (let t = 0; t <= steps; t++) {
        const x = Math.round(ax + ((bx - ax) * t) / Math.max(1, steps));
        const y = Math.round(ay + ((by - ay) * t) / Math.max(1, steps));
        pixels.push(y * W + x);
        if (!counted[y * W + x]) fresh++;
      }
      // A line a few pixels wide comes back as parallel segments: its 5×5 neighbourhood is
      // marked once the segment is counted, so each stretch of defect counts once.
      for (const i of pixels) {
        const x = i % W;
        const y = (i - x) / W;
        for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) if (y + dy >= 0 && y + dy < H && x + dx >= 0 && x + dx < W) counted[(y + dy) * W + x + dx] = 1;
      }
      if (fresh > minLength / 2) count++;
      length += fresh * (Math.hypot(bx - ax, by - ay) / Math.max(1, steps));
    }
    const lines = Math.round((length / W) * 1000) / 1000;
    return { lines, segments: count, glare: Math.round((glare / Math.max(1, area)) * 1000) / 1000, grade: surfaceGrade(lines) };
  } finally {
    for (const x of mats) x.delete();
  }
}
