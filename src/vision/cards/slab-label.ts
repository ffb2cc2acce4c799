import type { OcrLine, OcrReader } from '../models/ocr-reader.ts';
import { applyHomography, rectToQuad, sideLengths, type Point, type Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/**
 * A graded slab's label, found by reading it: the strip beyond each short side of a card is
 * sampled upright (the card below it) and read with the OCR models; a strip whose text reads as
 * a grading label (../shared/catalogs/slabs: a company's name, or a grade's words with a grade
 * number or a certificate number) makes the card a slab's. The first stage's label map never
 * fired on the real slabs (0 of 21 told from raw), since its slabs were drawn ones; words do
 * not depend on how a slab looks.
 */

/** How far beyond the card's short side the strip reaches, as a share of its long side (a PSA label and its margins span about 0.35). */
const BAND_DEPTH = 0.5;
/** How far the strip runs past each end of the side, as a share of the short side (the slab's shell is wider than the card). */
const BAND_OVERHANG = 0.12;
/** The strip's long side at most this many pixels (the OCR detector's own input limit). */
const BAND_MAX = 960;
/** The strip's side at least this many pixels along the card, so small slabs' labels are enlarged to legible text. */
const BAND_MIN = 480;

export interface SlabLabel {
  /** The grading company the text names, or null when only grade words and numbers say "label". */
  company: string | null;
  /** The label's text lines, upright, in reading order. */
  lines: OcrLine[];
  /** The label's text as a box in pixels of the image given: [x0, y0, x1, y1]. */
  box: [number, number, number, number];
}

const COMPANIES: [string, RegExp][] = [
  ['PSA', /\bPSA\b/],
  ['BGS', /\b(BGS|BVG|BCCG|BECKETT)\b/],
  ['CGC', /\bCGC\b/],
  ['SGC', /\bSGC\b/],
  ['TAG', /\bTAG\b/],
  ['ACE', /\bACE\s*GRADING\b/],
  ['HGA', /\bHGA\b/],
  ['CSG', /\bCSG\b/],
  ['ISA', /\bISA\s*GRADING\b/],
];
/** Grade words as the companies print them (catalogs/slabs/grading_scales.json), hyphens and spaces loose. */
const GRADE_WORDS = /\b(GEM\s*-?\s*MT|GEM\s*MINT|PRISTINE|BLACK\s*LABEL|PERFECT|NM\s*-?\s*MT\+?|NEAR\s*MINT\+?|EX\s*-?\s*MT\+?|VG\s*-?\s*EX\+?|MINT\+?|AUTHENTIC|FLAWLESS)\b/;
/** A grade's short word alone on its line (PSA prints "NM" above a 7). */
const GRADE_WORD_LINE = /^(NM|EX|VG|GOOD|FAIR|POOR|FR|PR|GEM|MT)$/;
/** A grade number alone on its line or after the words: 1–10 with an optional half. */
const GRADE_NUMBER = /(^|\s)(10|[1-9](\.5)?)(\s|$)/;
/** A certificate number: 7–10 digits in a row (PSA 7–9, BGS and CGC 10). */
const CERT = /(^|\D)\d{7,10}(\D|$)/;

/** Whether text lines read as a grading label, and the company they name. */
export function readAsSlabLabel(texts: readonly string[]): { company: string | null } | null {
  const all = texts.map((t) => t.toUpperCase()).join('\n');
  const company = COMPANIES.find(([, re]) => re.test(all))?.[0] ?? null;
  const words = GRADE_WORDS.test(all) || texts.some((t) => GRADE_WORD_LINE.test(t.trim().toUpperCase()));
  const number = texts.some((t) => GRADE_NUMBER.test(t.trim()));
  const cert = CERT.test(all);
  if (company && (words || number || cert)) return { company };
  if (words && (number || cert)) return { company };
  return null;
}

/**
 * The strip beyond one short side of a card, sampled upright: its bottom edge is the card's side,
 * so a label above the card reads left to right, and one below an upside-down slab does too.
 * `toImage` maps the strip's pixels back to the image.
 */
export function labelBand(img: RgbPixels, card: Quad, side: 0 | 1): { band: RgbPixels; toImage: (x: number, y: number) => Point } {
  const [w, h] = sideLengths(card);
  // The short sides: the top and bottom of an upright card, the left and right of one lying down.
  const m = rectToQuad(w, h, card);
  const upright = w <= h;
  const short = Math.min(w, h);
  const long = Math.max(w, h);
  // (s, t) in the strip: s along the side from its start, t outward from it; in card-rectangle units.
  const along = short * (1 + 2 * BAND_OVERHANG);
  const depth = long * BAND_DEPTH;
  const scale = Math.min(BAND_MAX / along, Math.max(1, BAND_MIN / along));
  const bw = Math.max(8, Math.round(along * scale));
  const bh = Math.max(8, Math.round(depth * scale));
  const toRect = (s: number, t: number): Point => {
    const a = s - short * BAND_OVERHANG;
    if (upright) return side === 0 ? [a, -t] : [w - a, h + t];
    return side === 0 ? [w + t, a] : [-t, h - a];
  };
  const toImage = (x: number, y: number): Point => {
    const [u, v] = toRect((x + 0.5) / scale, (bh - (y + 0.5)) / scale);
    return applyHomography(m, u, v);
  };
  const out = new Uint8Array(bw * bh * 3);
  const { data, width, height } = img;
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const [px, py] = toImage(x, y);
      const x0 = Math.floor(px);
      const y0 = Math.floor(py);
      if (x0 < 0 || y0 < 0 || x0 >= width - 1 || y0 >= height - 1) continue;
      const fx = px - x0;
      const fy = py - y0;
      const i = (y0 * width + x0) * 3;
      const o = (y * bw + x) * 3;
      for (let c = 0; c < 3; c++) {
        const top = data[i + c]! * (1 - fx) + data[i + 3 + c]! * fx;
        const bottom = data[i + width * 3 + c]! * (1 - fx) + data[i + width * 3 + 3 + c]! * fx;
        out[o + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return { band: { data: out, width: bw, height: bh }, toImage };
}

/** The grading label beside a card, read; null when neither strip reads as one. */
export async function findSlabLabel(ocr: OcrReader, img: RgbPixels, card: Quad): Promise<SlabLabel | null> {
  for (const side of [0, 1] as const) {
    const { band, toImage } = labelBand(img, card, side);
    const lines = await ocr.read(band, { language: 'en' });
    const found = readAsSlabLabel(lines.map((l) => l.text));
    if (!found) continue;
    const pts = lines.flatMap((l) => l.polygon.map(([x, y]) => toImage(x, y)));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const box: SlabLabel['box'] = [Math.round(Math.min(...xs)), Math.round(Math.min(...ys)), Math.round(Math.max(...xs)), Math.round(Math.max(...ys))];
    return { company: found.company, lines: lines.map((l) => ({ ...l, polygon: l.polygon.map(([x, y]) => toImage(x, y)) })), box };
  }
  return null;
}
