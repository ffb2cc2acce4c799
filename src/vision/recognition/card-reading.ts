import type { Cv } from '../cards/card-geometry.ts';
import { warpCard, type Quad } from '../cards/card-geometry.ts';
import { portrait } from '../cards/card-verifier.ts';
import { applyHomography, rectToQuad, type Point } from '../geometry/plane-geometry.ts';
import type { OcrReader } from '../models/ocr-reader.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { artworkHash, turnedOver } from './card-artwork.ts';

/**
 * The text recognition reads on a card (docs/recognition.md "Reading a card"): the card warped
 * upright, and only its top and bottom bands read. The name, HP and stage sit in the top band;
 * the collector number, set total, copyright year and regulation mark in the bottom one. Reading
 * the whole card took 0.4–1.2 s per card on real photos, the two bands 0.1–0.35 s.
 */
/**
 * Width of the upright card the bands are cut from. On the 118 labelled train-split photos,
 * cards identified (none wrongly): 40 at 630 px, 47 at 1000, 43 at 1200 (the recogniser's
 * text detector likes small print about this size).
 */
export const READ_WIDTH = 1000;
/** The share of the card's height each band takes. */
export const BAND = 0.14;

export interface ReadLine {
  text: string;
  prob: number;
  /** The line's box on the upright card, as shares of its width and height (0–1). */
  box: { x0: number; y0: number; x1: number; y1: number };
  /** The box's corners in pixels of the image read (upper-left first, clockwise as the text runs). */
  polygon: [Point, Point, Point, Point];
}

export interface CardReading {
  lines: ReadLine[];
  /** 0 when the card was read as the photo shows it, 180 when turned over. */
  rotation: 0 | 180;
  /**
   * Artwork hashes (card-artwork.ts): the card the way up it was read, then turned over, since
   * a card whose text could not be read may lie either way.
   */
  art: [string, string];
}

/** A collector number or promo code as the bottom band shows it: what tells which way up the card is. */
const NUMBER_LIKE = /\d{1,3}\s?\/\s?[A-Z]{0,2}\d{2,3}|\b[A-Z]{2,4}\s?\d{2,3}\b|\b[A-Z]{2,4}-[A-Z]{0,2}\d{3}\b/;

/**
 * Words printed along a card's foot (Pokémon's weakness, resistance and retreat line and the
 * illustrator credit, in the languages of the international prints; MTG's credit): read there,
 * they say the card is the right way up, so it is not read turned over.
 */
const FOOT_WORDS = /weakness|resistance|retreat|faiblesse|r[eé]sistance|retraite|schw[aä]che|r[uü]ckzug|debilidad|retirada|debolezza|resistenza|ritirata|fraqueza|recuo|illus/i;

function band(img: RgbPixels, y0: number, y1: number): RgbPixels {
  const a = Math.round(y0 * img.height);
  const b = Math.round(y1 * img.height);
  return { data: img.data.subarray(a * img.width * 3, b * img.width * 3), width: img.width, height: b - a };
}

async function readBands(ocr: OcrReader, up: RgbPixels): Promise<Omit<ReadLine, 'polygon'>[]> {
  const out: Omit<ReadLine, 'polygon'>[] = [];
  for (const [y0, y1] of [[0, BAND], [1 - BAND, 1]] as const) {
    const part = band(up, y0, y1);
    for (const l of await ocr.read(part)) {
      const xs = l.polygon.map((p) => p[0]);
      const ys = l.polygon.map((p) => p[1]);
      out.push({
        text: l.text,
        prob: l.prob,
        box: {
          x0: Math.max(0, Math.min(...xs) / up.width),
          x1: Math.min(1, Math.max(...xs) / up.width),
          y0: y0 + (Math.max(0, Math.min(...ys)) / part.height) * (y1 - y0),
          y1: y0 + (Math.min(part.height, Math.max(...ys)) / part.height) * (y1 - y0),
        },
      });
    }
  }
  return out;
}

/**
 * Reads a card's bands, upright as the photo shows it (its longer side upright); when the
 * bottom band shows nothing like a collector number, the card may be upside down, and the
 * bands are read turned over too: the reading with more number-like lines wins.
 */
export async function readCard(cv: Cv, ocr: OcrReader, img: RgbPixels, quad: Quad): Promise<CardReading> {
  const upright = portrait(quad);
  const up = warpCard(cv, img, upright, READ_WIDTH);
  // from the upright card's shares (0–1) back to the photo; turned over, the shares run from the far corner
  const m = rectToQuad(1, 1, upright);
  const placed = (lines: Omit<ReadLine, 'polygon'>[], rotation: 0 | 180): ReadLine[] =>
    lines.map((l) => {
      const at = (u: number, v: number): Point => {
        const [x, y] = rotation === 0 ? applyHomography(m, u, v) : applyHomography(m, 1 - u, 1 - v);
        return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
      };
      const { x0, y0, x1, y1 } = l.box;
      return { ...l, polygon: [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)] };
    });
  const first = placed(await readBands(ocr, up), 0);
  const foot = (lines: ReadLine[]) => lines.filter((l) => l.box.y0 >= 1 - BAND - 0.01);
  const numberish = (lines: ReadLine[]) => foot(lines).filter((l) => NUMBER_LIKE.test(l.text)).length;
  // the turned-over hash from the art box alone: the whole card is turned only to be read so
  const art: [string, string] = [artworkHash(up), artworkHash(up, true)];
  if (numberish(first) > 0 || foot(first).some((l) => FOOT_WORDS.test(l.text))) return { lines: first, rotation: 0, art };
  const second = placed(await readBands(ocr, turnedOver(up)), 180);
  return numberish(second) > numberish(first) ? { lines: second, rotation: 180, art: [art[1], art[0]] } : { lines: first, rotation: 0, art };
}
