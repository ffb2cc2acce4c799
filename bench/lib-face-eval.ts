import fs from 'node:fs';
import path from 'node:path';

/** The hand annotations of test/fixtures/face-annotations.json, resolved to files on this machine. */
export interface AnnotatedImage {
  file: string;
  faces: { box: [number, number, number, number]; difficult: boolean }[];
  /** People visible, counted by eye (not boxed). */
  persons: number;
}

export function annotatedFaces(): { images: AnnotatedImage[]; missing: string[] } {
  const root = path.resolve(import.meta.dirname, '..');
  const spec = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/face-annotations.json'), 'utf8')) as { images: { path: string; root: string; faces: AnnotatedImage['faces']; persons: number }[] };
  const images: AnnotatedImage[] = [];
  const missing: string[] = [];
  for (const img of spec.images) {
    const file = img.root === 'shared-datasets' ? path.resolve(root, '../shared/datasets', img.path) : img.root === 'node_modules' ? path.join(root, 'node_modules', img.path) : img.path;
    if (fs.existsSync(file)) images.push({ file, faces: img.faces, persons: img.persons });
    else missing.push(file);
  }
  return { images, missing };
}

function iou(a: number[], b: number[]): number {
  const w = Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!);
  const h = Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter);
}

/**
 * Greedy matching, most confident detection first, at IoU ≥ `minIou` (the annotations are
 * tighter than BlazeFace's square boxes; 0.4 is the usual loose face criterion). A detection on a
 * face marked difficult (tiny, from behind, mostly hidden) counts neither way.
 */
export function scoreFaces(truth: AnnotatedImage['faces'], found: { prob: number; bound_box: number[] }[], minProb: number, minIou = 0.4) {
  const dets = found.filter((d) => d.prob >= minProb).sort((a, b) => b.prob - a.prob);
  const taken = new Set<number>();
  let tp = 0;
  let fp = 0;
  for (const d of dets) {
    let best = -1;
    let bestIou = minIou;
    truth.forEach((t, i) => {
      if (taken.has(i)) return;
      const v = iou(d.bound_box, t.box);
      if (v >= bestIou) {
        best = i;
        bestIou = v;
      }
    });
    if (best < 0) fp++;
    else {
      taken.add(best);
      if (!truth[best]!.difficult) tp++;
    }
  }
  const positives = truth.filter((t) => !t.difficult).length;
  return { tp, fp, fn: positives - tp };
}
