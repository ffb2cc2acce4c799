import { cardWidthOf, warpCardParts, type Cv, type Quad } from '../cards/card-geometry.ts';
import { portrait } from '../cards/card-verifier.ts';
import { applyHomography, rectToQuad, type Point } from '../geometry/plane-geometry.ts';
import type { OcrLine, OcrReader, SpotLexicon } from '../models/ocr-reader.ts';
import { installedSpeciesLexicon } from './name-lexicon.ts';
import type { SharingOcrReader } from '../engine/shared-reads.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { cropRgb } from '../engine/rgb-crop.ts';
import { artworkHash, turnedOver } from './card-artwork.ts';
import { borderLook, type BorderLook } from './card-border.ts';
import { layoutLook, type LayoutLook } from './card-layout.ts';

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
  /** A name line's reading with the species name it most likely shows put in, where it shows none as read (name-lexicon.ts). */
  spotted?: { text: string; word: string; outside: number };
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
  /** The printed border's colour (card-border.ts), the same either way up; null on a card too small to show it. */
  border: BorderLook | null;
  /**
   * Whether the text box is plain or artwork (card-layout.ts), the way up the card was read; where
   * that is not known, as both ways up agree ({@link eitherWayUp}).
   */
  layout: LayoutLook | null;
}

/** A collector number or promo code as the bottom band shows it: what tells which way up the card is. */
const NUMBER_LIKE = /\d{1,3}\s?\/\s?[A-Z]{0,2}\d{2,3}|\b[A-Z]{2,4}\s?\d{2,3}\b|\b[A-Z]{2,4}-[A-Z]{0,2}\d{3}\b/;

/**
 * Words printed along a card's foot (Pokémon's weakness, resistance and retreat line and the
 * illustrator credit, in the languages of the international prints; MTG's credit): read there,
 * they say the card is the right way up, so it is not read turned over.
 */
const FOOT_WORDS = /weakness|resistance|retreat|faiblesse|r[eé]sistance|retraite|schw[aä]che|r[uü]ckzug|debilidad|retirada|debolezza|resistenza|ritirata|fraqueza|recuo|illus/i;

/**
 * A word the recogniser is this sure of, read in the top band, says the card is the right way up:
 * text upside down reads as low-confidence fragments. On the 118 train-split photos, the top band
 * of each card turned over gave no line of four letters or more above 0.89; the right way up, 74
 * cards gave one at 0.97 or more (19 of the 38 whose foot showed no number or foot word, which
 * were all read turned over for nothing: none of the 118 is upside down).
 */
const SURE_WORD = 0.97;
const WORD = /[A-Za-zÀ-ÿ]{4,}/;

/** The top (`0`) and bottom (`1`) bands' shares of the card's height. */
const BANDS = [[0, BAND], [1 - BAND, 1]] as const;
/**
 * Width of the upright card the artwork is hashed at: the references' (card-tasks.ts), and a
 * quarter of the pixels of the card at {@link READ_WIDTH}, which only the bands need.
 */
const ART_WIDTH = 500;

/**
 * Each part's lines: at once where the reader can share work with an idle worker
 * (engine/shared-reads.ts), else one after the other.
 */
async function readParts(ocr: OcrReader | SharingOcrReader, parts: { img: RgbPixels; band: readonly [number, number] }[], lexicon?: SpotLexicon): Promise<Omit<ReadLine, 'polygon'>[][]> {
  let lines: OcrLine[][] = [];
  // the lexicon is for the first part (the top band, where names are)
  if ('readAll' in ocr) lines = await ocr.readAll(parts.map((p) => p.img), lexicon ? { lexicon } : undefined);
  else for (const [k, p] of parts.entries()) lines.push(await ocr.read(p.img, k === 0 && lexicon ? { lexicon } : {}));
  return parts.map((p, k) => bandLines(lines[k]!, p.img, p.band));
}

/** A band's lines, boxes as shares of the whole card (`y0`–`y1`: the band's share of its height). */
async function readBand(ocr: OcrReader, part: RgbPixels, band: readonly [number, number], lexicon?: SpotLexicon): Promise<Omit<ReadLine, 'polygon'>[]> {
  return bandLines(await ocr.read(part, lexicon ? { lexicon } : {}), part, band);
}

function bandLines(lines: OcrLine[], part: RgbPixels, [y0, y1]: readonly [number, number]): Omit<ReadLine, 'polygon'>[] {
  return lines.map((l) => {
    const xs = l.polygon.map((p) => p[0]);
    const ys = l.polygon.map((p) => p[1]);
    return {
      text: l.text,
      prob: l.prob,
      ...(l.spotted ? { spotted: { text: l.spotted.text, word: l.spotted.word, outside: l.spotted.outside } } : {}),
      box: {
        x0: Math.max(0, Math.min(...xs) / part.width),
        x1: Math.min(1, Math.max(...xs) / part.width),
        y0: y0 + (Math.max(0, Math.min(...ys)) / part.height) * (y1 - y0),
        y1: y0 + (Math.min(part.height, Math.max(...ys)) / part.height) * (y1 - y0),
      },
    };
  });
}

/**
 * Reads a card's bands, upright as the photo shows it (its longer side upright); when the
 * bottom band shows nothing like a collector number, the card may be upside down, and the
 * bands are read turned over too: the reading with more number-like lines wins. A card kept the
 * right way up whose number was not read has its bottom band's halves read again larger.
 */
export async function readCard(cv: Cv, ocr: OcrReader, img: RgbPixels, quad: Quad, names = true): Promise<CardReading> {
  const reading = await readEnds(cv, ocr, img, quad, names ? installedSpeciesLexicon() : undefined);
  if (!reading.lines.some((l) => l.box.y0 >= 1 - BAND - 0.01 && YUGIOH_FOOT.test(l.text))) return reading;
  return { ...reading, lines: [...reading.lines, ...(await readPrintCodeStrip(cv, ocr, img, quad, reading.rotation))] };
}

/**
 * What a Yu-Gi-Oh! card prints along its foot: `ATK/3000 DEF/2500`, Konami's copyright, the
 * eight-digit passcode. Such a card's print code (`LOB-EN001`, the printing: set, region, number)
 * stands under the artwork, in neither band.
 */
const YUGIOH_FOOT = /\b(?:ATK|DEF)\s?\/|\bKONAMI\b|^\s*\d{8}\s*$/i;
/**
 * Where the print code stands, as shares of the upright card's height: right under the artwork
 * (at 0.72–0.76 on a normal monster, spell or trap), with some room for an outline a little off
 * and for pendulum cards; across the card's width (a pendulum card prints it on the left).
 */
const PRINT_CODE_STRIP = [0.68, 0.8] as const;

/** The print-code strip of a Yu-Gi-Oh! card, read the way up its bands were read. */
async function readPrintCodeStrip(cv: Cv, ocr: OcrReader, img: RgbPixels, quad: Quad, rotation: 0 | 180): Promise<ReadLine[]> {
  const upright = portrait(quad);
  const [y0, y1] = rotation === 0 ? PRINT_CODE_STRIP : ([1 - PRINT_CODE_STRIP[1], 1 - PRINT_CODE_STRIP[0]] as const);
  const [strip] = warpCardParts(cv, img, upright, [{ width: READ_WIDTH, y0, y1 }]) as [RgbPixels];
  return placer(upright)(await readBand(ocr, rotation === 0 ? strip : turnedOver(strip), PRINT_CODE_STRIP), rotation);
}

/** From the upright card's shares (0–1) back to the photo; turned over, the shares run from the far corner. */
function placer(upright: Quad): (lines: Omit<ReadLine, 'polygon'>[], rotation: 0 | 180) => ReadLine[] {
  const m = rectToQuad(1, 1, upright);
  return (lines, rotation) =>
    lines.map((l) => {
      const at = (u: number, v: number): Point => {
        const [x, y] = rotation === 0 ? applyHomography(m, u, v) : applyHomography(m, 1 - u, 1 - v);
        return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
      };
      const { x0, y0, x1, y1 } = l.box;
      return { ...l, polygon: [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)] };
    });
}

/** The card's two bands, the way up they read best (readCard). */
async function readEnds(cv: Cv, ocr: OcrReader, img: RgbPixels, quad: Quad, lexicon: SpotLexicon | undefined): Promise<CardReading> {
  const upright = portrait(quad);
  const [top, bottom, card] = warpCardParts(cv, img, upright, [...BANDS.map(([y0, y1]) => ({ width: READ_WIDTH, y0, y1 })), { width: ART_WIDTH, y0: 0, y1: 1 }]) as [RgbPixels, RgbPixels, RgbPixels];
  const placed = placer(upright);
  const [topLines, bottomLines] = await readParts(
    ocr,
    [
      { img: top, band: BANDS[0] },
      { img: bottom, band: BANDS[1] },
    ],
    lexicon,
  );
  const first = placed([...topLines!, ...bottomLines!], 0);
  const foot = (lines: ReadLine[]) => lines.filter((l) => l.box.y0 >= 1 - BAND - 0.01);
  const numberish = (lines: ReadLine[]) => foot(lines).filter((l) => NUMBER_LIKE.test(l.text)).length;
  const art: [string, string] = [artworkHash(card), artworkHash(card, true)];
  const border = borderLook(card);
  const layout = layoutLook(card);
  if (numberish(first) > 0) return { lines: first, rotation: 0, art, border, layout };
  // the card is the right way up but its number was not read: its two ends, read larger, often show it
  const zoomed = async () => (cardWidthOf(upright) >= FOOT_ZOOM_MIN_CARD ? [...first, ...(await readFootCorners(cv, ocr, img, upright, placed))] : first);
  if (foot(first).some((l) => FOOT_WORDS.test(l.text))) return { lines: await zoomed(), rotation: 0, art, border, layout };
  if (first.some((l) => l.box.y1 <= BAND + 0.01 && l.prob >= SURE_WORD && WORD.test(l.text))) return { lines: await zoomed(), rotation: 0, art, border, layout };
  // Which way up is told by the bottom band alone: the turned-over card's top band is read only
  // when its bottom band (the top band turned over) wins; most cards read so show no number
  // either way (small photos).
  const turnedFoot = placed(await readBand(ocr, turnedOver(top), BANDS[1]), 180);
  // neither way showed a number: the card may lie upside down, its text box then where the artwork is read
  if (numberish(turnedFoot) <= numberish(first)) return { lines: await zoomed(), rotation: 0, art, border, layout: eitherWayUp(layout, layoutLook(turnedOver(card))) };
  return { lines: [...placed(await readBand(ocr, turnedOver(bottom), BANDS[0], lexicon), 180), ...turnedFoot], rotation: 180, art: [art[1], art[0]], border, layout: layoutLook(turnedOver(card)) };
}

/**
 * Whether a card reads upside down in the photo (`quad` as `portrait` orders it): the decision of
 * `readEnds` alone, its band reads made only as far as they are needed (the bottom band; the top
 * band; the top band turned over) and warped `width` px wide, without what identification reads
 * beside it, so grading can measure a card the way it reads at a fraction of a reading's cost.
 */
export async function readsUpsideDown(cv: Cv, ocr: OcrReader, img: RgbPixels, quad: Quad, width = WAY_UP_WIDTH): Promise<boolean> {
  const upright = portrait(quad);
  const [top, bottom] = warpCardParts(cv, img, upright, BANDS.map(([y0, y1]) => ({ width, y0, y1 }))) as [RgbPixels, RgbPixels];
  const placed = placer(upright);
  const foot = (lines: ReadLine[]) => lines.filter((l) => l.box.y0 >= 1 - BAND - 0.01);
  const numberish = (lines: ReadLine[]) => foot(lines).filter((l) => NUMBER_LIKE.test(l.text)).length;
  const shown = placed(await readBand(ocr, bottom, BANDS[1]), 0);
  if (numberish(shown) > 0 || foot(shown).some((l) => FOOT_WORDS.test(l.text))) return false;
  const head = placed(await readBand(ocr, top, BANDS[0]), 0);
  if (head.some((l) => l.box.y1 <= BAND + 0.01 && l.prob >= SURE_WORD && WORD.test(l.text))) return false;
  return numberish(placed(await readBand(ocr, turnedOver(top), BANDS[1]), 180)) > numberish(shown);
}

/** The width of the bands `readsUpsideDown` reads (docs/grading.md "Which way up": 400 px turned back 44 of 83 train photos turned over, 600 px 58, for 250 and 390 ms a centering). */
export const WAY_UP_WIDTH = 400;

/**
 * The layout of a card whose way up is not known: an upside-down regular card reads as artwork
 * (its artwork window is where the text box would be: 150 of 165 SV151 scans turned over), so a
 * plain box either way up is a framed card, and artwork only both ways up is a full art.
 */
export function eitherWayUp(asShown: LayoutLook | null, turned: LayoutLook | null): LayoutLook | null {
  if (!asShown || !turned) return asShown ?? turned;
  if (asShown.layout === 'framed' || turned.layout === 'framed') return asShown.layout === 'framed' ? asShown : turned;
  return asShown.layout === 'full' && turned.layout === 'full' ? asShown : { ...asShown, layout: null };
}

/**
 * Width of the upright card the bottom band's halves are read again at, when the band read whole
 * showed no number. On the 103 train-split photos of catalog cards, numbers read this way made
 * 2 more cards right at 1600 px, none at 1300 and 1 at 2000 (the recogniser's text detector finds
 * small print at some sizes and not others).
 */
export const FOOT_ZOOM_WIDTH = 1600;
/**
 * Least width of the card in the photo, in pixels, for that second reading: a collector number is
 * about 1.5 % of the card's height, 5 px tall on a card 250 px wide (the 310 x 430 listing photos),
 * which no enlarging makes legible. The second reading cost those photos 60 ms at the median.
 */
export const FOOT_ZOOM_MIN_CARD = 320;

/** The bottom band's two halves, where collector numbers are printed, read again larger: their number-like lines. */
async function readFootCorners(cv: Cv, ocr: OcrReader, img: RgbPixels, upright: Quad, placed: (lines: Omit<ReadLine, 'polygon'>[], rotation: 0 | 180) => ReadLine[]): Promise<ReadLine[]> {
  const [band] = warpCardParts(cv, img, upright, [{ width: FOOT_ZOOM_WIDTH, y0: BANDS[1][0], y1: 1 }]) as [RgbPixels];
  const halves = [[0, 0.5], [0.5, 1]] as const;
  const read = await readParts(
    ocr,
    halves.map(([u0, u1]) => {
      const x0 = Math.round(u0 * band.width);
      return { img: cropRgb(band, x0, 0, Math.round(u1 * band.width) - x0, band.height), band: BANDS[1] };
    }),
  );
  const out: Omit<ReadLine, 'polygon'>[] = [];
  halves.forEach(([u0, u1], k) => {
    for (const l of read[k]!) {
      if (NUMBER_LIKE.test(l.text)) out.push({ ...l, box: { ...l.box, x0: u0 + l.box.x0 * (u1 - u0), x1: u0 + l.box.x1 * (u1 - u0) } });
    }
  });
  return placed(out, 0);
}
