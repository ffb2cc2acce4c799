import type { OcrLine, OcrReader } from '../models/ocr-reader.ts';
import { applyHomography, rectToQuad, sideLengths, type Point, type Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { companiesNamed, OTHER_GRADER_MARKS } from '../../catalog/grading-companies.ts';

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

/** A line that is another grader's mark alone (`KSA`, `ISA GRADING`): a label, company OTHER. */
const OTHER_GRADER_LINE = new RegExp(`^(${OTHER_GRADER_MARKS.join('|')})(\\s*GRADING)?$`);

/**
 * Grade words as the companies print them (catalogs/slabs/grading_scales.json), hyphens, slashes
 * and spaces loose, a PSA qualifier (`EX-MT PD`, read glued as `EX-MTPD`) allowed after them.
 */
const GRADE_WORDS = /\b(GEM\s*-?\s*MT|GEM\s*MINT|PRISTINE|BLACK\s*LABEL|PERFECT|NM\s*[-/]?\s*MT\+?|NM\s*\/\s*MINT\+?|NEAR\s*MINT\+?|EX\s*[-/]?\s*MT\+?|EX\s*\/\s*NM\+?|VG\s*[-/]?\s*EX\+?|MINT\+?|EXCELLENT\+?|VERY\s*GOOD\+?|AUTHENTIC|FLAWLESS)(\s*\(?(OC|ST|PD|OF|MK|MC)\)?)?(?![A-Z])|\b(NM\s*\/\s*M|VF\s*\/\s*NM|FN\s*\/\s*VF|VG\s*\/\s*FN|G\s*\/\s*VG|(NM|VF|FN)\s*[-+])(?![A-Z])|UNIVERSAL\s*GRADE/;
/** A grade's short word alone on its line (PSA prints "NM" above a 7). */
const GRADE_WORD_LINE = /^(NM|EX|VG|GOOD|FAIR|POOR|FR|PR|GEM|MT)$/;
/** A grade number alone on its line or after the words: 1–10 with an optional half, or a comic's tenth (CGC, CBCS, PGX: 9.8, 0.5). */
const GRADE_NUMBER = /(^|\s)(10(\.0)?|[1-9](\.5)?|[0-9]\.[0-9])(\s|$)/;
/** A certificate number: 7–10 digits in a row (PSA 7–9, BGS and CGC 10). */
const CERT = /(^|\D)\d{7,10}(\D|$)/;

/** Whether text lines read as a grading label, and the company they name. */
export function readAsSlabLabel(texts: readonly string[]): { company: string | null } | null {
  const all = texts.map((t) => t.toUpperCase()).join('\n');
  // the seven by the words the label reader knows them by (a raw card's TAG TEAM band is not TAG's label)
  const company = texts.map((t) => companiesNamed(t)[0]?.company).find((c) => c) ?? (texts.some((t) => OTHER_GRADER_LINE.test(t.trim().toUpperCase())) ? 'OTHER' : null);
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
  // toImage's arithmetic written out (two arrays and two calls a pixel made this a third of a small
  // photo's label look): keep the two the same, as slab-label.test.ts checks
  const overhang = short * BAND_OVERHANG;
  for (let y = 0; y < bh; y++) {
    const t = (bh - (y + 0.5)) / scale;
    for (let x = 0; x < bw; x++) {
      const a = (x + 0.5) / scale - overhang;
      const u = upright ? (side === 0 ? a : w - a) : side === 0 ? w + t : -t;
      const v = upright ? (side === 0 ? -t : h + t) : side === 0 ? a : h - a;
      const z = m.g * u + m.h * v + 1;
      const px = (m.a * u + m.b * v + m.c) / z;
      const py = (m.d * u + m.e * v + m.f) / z;
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

/**
 * Whether a label found by {@link searchSlabLabel} belongs to `card`: its text's middle past one of the card's short
 * sides by at most {@link BESIDE_REACH} of the card's length, and across from the card (within {@link BESIDE_ACROSS} of
 * its width from its middle line), or inside the outline (a holder's outline taken for the card). A label elsewhere in
 * the photo is another holder's (h250: a PSA 10 slab beside a raw card made the raw card a graded PSA 10, priced so).
 */
export function labelBesideCard(box: readonly [number, number, number, number], card: Quad, up?: readonly [number, number]): boolean {
  const [q0, q1, q2, q3] = card;
  const cx = (q0[0] + q1[0] + q2[0] + q3[0]) / 4;
  const cy = (q0[1] + q1[1] + q2[1] + q3[1]) / 4;
  // the outline's two directions, each the mean of its opposite sides
  const ax = (q1[0] - q0[0] + q2[0] - q3[0]) / 2;
  const ay = (q1[1] - q0[1] + q2[1] - q3[1]) / 2;
  const bx = (q3[0] - q0[0] + q2[0] - q1[0]) / 2;
  const by = (q3[1] - q0[1] + q2[1] - q1[1]) / 2;
  const a = Math.hypot(ax, ay);
  const b = Math.hypot(bx, by);
  if (!a || !b) return false;
  const [lx, ly, long, wide] = a >= b ? [ax / a, ay / a, a, b] : [bx / b, by / b, b, a];
  const dx = (box[0] + box[2]) / 2 - cx;
  const dy = (box[1] + box[3]) / 2 - cy;
  const along = Math.abs(dx * lx + dy * ly);
  const across = Math.abs(-dx * ly + dy * lx);
  if (!(along <= long * (0.5 + BESIDE_REACH) && across <= wide * BESIDE_ACROSS)) return false;
  // With the way its text stands up (its lines' upper sides): a holder's label reads across its card, above it as the
  // text stands; an upright slab's label beside a card lying down, or a slab's below a card, is no label of that card
  // (h255: both passed on distance alone)
  const u = up ? Math.hypot(up[0], up[1]) : 0;
  if (!up || !u) return true;
  const [ux, uy] = [up[0] / u, up[1] / u];
  return Math.abs(ux * lx + uy * ly) >= TEXT_ALONG_CARD && dx * ux + dy * uy > 0;
}

/**
 * Which way a label's text stands up in the image: the mean of its lines' left and right sides, bottom to top (each
 * line's polygon runs upper-left, upper-right, lower-right, lower-left of the strip it was read in, where a label's
 * lines lie across). A line taller than wide was turned to be read, its up another way: left out (h256). Undefined
 * without lines.
 */
export function labelUp(label: Pick<SlabLabel, 'lines'>): [number, number] | undefined {
  let x = 0;
  let y = 0;
  for (const { polygon: p } of label.lines) {
    if (p.length < 4) continue;
    if (Math.hypot(p[3]![0] - p[0]![0], p[3]![1] - p[0]![1]) >= 1.5 * Math.hypot(p[1]![0] - p[0]![0], p[1]![1] - p[0]![1])) continue;
    x += p[0]![0] - p[3]![0] + p[1]![0] - p[2]![0];
    y += p[0]![1] - p[3]![1] + p[1]![1] - p[2]![1];
  }
  return x || y ? [x, y] : undefined;
}

/** How nearly a label's up must lie along its card's long side (cos 35°): a slab photographed at a slant still reads so. */
const TEXT_ALONG_CARD = 0.8;

/** A slab's label text lies about a fifth of the card's length past its short side; twice that is still its own. */
const BESIDE_REACH = 0.5;
/** A label is centred over its card; its text may run a little past the card's sides. */
const BESIDE_ACROSS = 0.6;

/** Where {@link searchSlabLabel} looks, as a share of the image's long side from its edge (a holder's label and its margin span about a quarter of it). */
const FRAME_DEPTH = 0.34;
/** An image this much wider than tall (or taller than wide) may be a label alone, read whole. */
const LABEL_ALONE = 2.2;

/** The image inside `corners` (upper-left, upper-right, down-right, down-left of the upright output), sampled `bw` × `bh`. */
function sampleQuad(img: RgbPixels, corners: Quad, bw: number, bh: number): RgbPixels {
  const m = rectToQuad(bw, bh, corners);
  const out = new Uint8Array(bw * bh * 3);
  const { data, width, height } = img;
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const [px, py] = applyHomography(m, x + 0.5, y + 0.5);
      const x0 = Math.floor(px - 0.5);
      const y0 = Math.floor(py - 0.5);
      if (x0 < 0 || y0 < 0 || x0 >= width - 1 || y0 >= height - 1) continue;
      const fx = px - 0.5 - x0;
      const fy = py - 0.5 - y0;
      const i = (y0 * width + x0) * 3;
      const o = (y * bw + x) * 3;
      for (let c = 0; c < 3; c++) {
        const top = data[i + c]! * (1 - fx) + data[i + 3 + c]! * fx;
        const bottom = data[i + width * 3 + c]! * (1 - fx) + data[i + width * 3 + 3 + c]! * fx;
        out[o + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return { data: out, width: bw, height: bh };
}

/** Reads the region `corners` upright and keeps it when its text reads as a grading label. */
async function labelIn(ocr: OcrReader, img: RgbPixels, corners: Quad): Promise<SlabLabel | null> {
  const along = Math.hypot(corners[1][0] - corners[0][0], corners[1][1] - corners[0][1]);
  const depth = Math.hypot(corners[3][0] - corners[0][0], corners[3][1] - corners[0][1]);
  const scale = Math.min(BAND_MAX / Math.max(along, depth), Math.max(1, BAND_MIN / along));
  const bw = Math.max(8, Math.round(along * scale));
  const bh = Math.max(8, Math.round(depth * scale));
  const lines = await ocr.read(sampleQuad(img, corners, bw, bh), { language: 'en' });
  const found = readAsSlabLabel(lines.map((l) => l.text));
  if (!found) return null;
  const m = rectToQuad(bw, bh, corners);
  const toImage = (x: number, y: number): Point => applyHomography(m, x, y);
  return labelOf(found.company, lines, toImage);
}

function labelOf(company: string | null, lines: OcrLine[], toImage: (x: number, y: number) => Point): SlabLabel {
  const pts = lines.flatMap((l) => l.polygon.map(([x, y]) => toImage(x, y)));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const box: SlabLabel['box'] = [Math.round(Math.min(...xs)), Math.round(Math.min(...ys)), Math.round(Math.max(...xs)), Math.round(Math.max(...ys))];
  return { company, lines: lines.map((l) => ({ ...l, polygon: l.polygon.map(([x, y]) => toImage(x, y)) })), box };
}

/**
 * A grading label found without a card to stand beside: the image read as a holder photographed
 * whole (the label along the top, or along the bottom, left or right side when the photo is turned),
 * or as a label alone when it is that narrow. For `/slab_id`, where the detector may miss a slab's
 * card (4 of the 21 real slabs: a scan cropped to the holder has no table around it) or find the
 * holder's outline instead of the card's. Up to three OCR reads.
 */
export async function searchSlabLabel(ocr: OcrReader, img: RgbPixels): Promise<SlabLabel | null> {
  const { width: w, height: h } = img;
  const W = w - 0.5;
  const H = h - 0.5;
  const regions: Quad[] = [];
  if (Math.max(w, h) / Math.min(w, h) >= LABEL_ALONE) {
    // a label alone: read along its long side, both ways up
    regions.push(w >= h ? [[-0.5, -0.5], [W, -0.5], [W, H], [-0.5, H]] : [[-0.5, H], [-0.5, -0.5], [W, -0.5], [W, H]]);
  }
  if (h >= w) {
    const d = h * FRAME_DEPTH;
    regions.push([[-0.5, -0.5], [W, -0.5], [W, d], [-0.5, d]], [[W, H], [-0.5, H], [-0.5, H - d], [W, H - d]]);
  } else {
    const d = w * FRAME_DEPTH;
    regions.push([[-0.5, H], [-0.5, -0.5], [d, -0.5], [d, H]], [[W, -0.5], [W, H], [W - d, H], [W - d, -0.5]]);
  }
  for (const corners of regions) {
    const label = await labelIn(ocr, img, corners);
    if (label) return label;
  }
  return null;
}

/**
 * A strip is read only when the text detector alone, on the strip shrunk to this long side, finds
 * at least {@link LABEL_MIN_BOXES} pieces of text. The strips read as labels beside the cards
 * found in 17 of the 21 real slabs gave 7–11 there; the strips beside the 102 train-split raw
 * cards 0–2 (a price tag, a banner's word), whose full reads cost 29 ms a strip on average and
 * found nothing. The look costs about 11 ms.
 */
const LOOK_SIDE = 320;
/** A label prints the card's name or set, the grade and a certificate number: three pieces at least. */
const LABEL_MIN_BOXES = 3;

/** The grading label beside a card, read; null when neither strip reads as one. */
export async function findSlabLabel(ocr: OcrReader, img: RgbPixels, card: Quad): Promise<SlabLabel | null> {
  for (const side of [0, 1] as const) {
    const { band, toImage } = labelBand(img, card, side);
    if ((await ocr.countText(band, LOOK_SIDE)) < LABEL_MIN_BOXES) continue;
    const lines = await ocr.read(band, { language: 'en' });
    const found = readAsSlabLabel(lines.map((l) => l.text));
    if (!found) continue;
    return labelOf(found.company, lines, toImage);
  }
  return null;
}
