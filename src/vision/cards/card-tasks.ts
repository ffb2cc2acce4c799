import sharp from 'sharp';
import { decodeRgb } from '../../media/decode-rgb.ts';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { isHeic } from '../../media/heic-decode.ts';
import { reduceJpeg, reducedJpegEdge } from '../../media/jpeg-reduce.ts';
import { sourceVersion } from '../../util/source-version.ts';
import { centeringGrade, measureCentering, type Centering } from '../grading/card-centering.ts';
import { CardDetector, type DetectedCard } from './card-detector.ts';
import { aspectError, cardWidthOf, loadCv, locateCard, order, sideLengths, uprightOrder, warpCard, type Point, type Quad } from './card-geometry.ts';
import { measureSurface } from '../grading/card-surface.ts';
import { CORNER_REACH, measureWear } from '../grading/card-wear.ts';
import { loadOcrReader, type OcrReader } from '../models/ocr-reader.ts';
import { findSlabLabel, labelBesideCard, labelUp, searchSlabLabel, type SlabLabel } from './slab-label.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';
import { readCard, readsUpsideDown } from '../recognition/card-reading.ts';
import { sharingReader, type SharingOcrReader } from '../engine/shared-reads.ts';
import { artworkHash } from '../recognition/card-artwork.ts';
import { portrait } from './card-verifier.ts';
import { MAX_READ_CARDS, MIN_READ_CARD_PIXELS, type CardResult, type CardTask, type ImageRefused } from '../engine/vision-tasks.ts';

/**
 * Long edge card photos are decoded to: a 12-MP phone photo shrinks on load (JPEG DCT scaling)
 * to about a fifth of its pixels, and a card spanning half of it is still ~1000 px wide, where a
 * corner error of 1 px is 0.1 % of its width.
 */
const CARD_DECODE_EDGE = 2400;
/**
 * Plain JPEGs decode faster through libjpeg's DCT scaling (media/jpeg-reduce.ts): a 4000-px
 * photo at 1/2, to 2000 px, in about half the time sharp takes to reach 2400 px.
 */
const CARD_FAST_EDGE = 1600;
/** Width a reference scan is warped upright to for its artwork hash (the hash is of cell means: any width above the art's detail gives the same bits). */
const ARTWORK_WIDTH = 500;
/** Width of the upright card images (height by the 63:88 shape). */
const UPRIGHT_WIDTH = 750;
/**
 * Width the upright card is brought to, up or down, before wear and surface are measured: their
 * findings depend on how many pixels a defect spans, so one scale makes the same card grade the
 * same from a 12-MP photo and a small scan (issue 17: a slab scanned twice graded 7.8 and 9.9).
 * 20 official SV151 scans on a dark page, graded at full and half resolution: final grades
 * within 0.3 of each other at 600 px; 1.9 apart at worst at the photo's own size, 0.7 at 400 px
 * (npm run bench -- card-detector).
 */
const GRADE_WIDTH = 600;
/**
 * Fewest pixels across the card (as stored) that centering and grading measure: at 120 px a
 * corner's rounding is under 6 px and a 1 % centering step 1 px; below it the numbers would be
 * noise dressed as grades.
 */
const MIN_CARD_PIXELS = 120;
/**
 * Least width of a card, in pixels of the decoded photo, whose text says which way up it is
 * measured (recognition's own least width for reading the foot again larger): below it the
 * collector line is a few pixels tall and reads neither way.
 */
const WAY_UP_MIN_CARD = 320;
/**
 * Most an outline the client gave (`skip-location`, `transparent`) may differ from 63:88 in its
 * ratio of side lengths for the card to be warped upright and measured (0.62–0.82: Japanese-size
 * cards, 59:86, are 0.69; a strip or a page is not a card).
 */
const MAX_GIVEN_SHAPE_ERROR = 0.1;

let versionsCache: Record<string, string> | undefined;
/**
 * Each algorithm's version: a hash of the modules its numbers come from (the shared colour
 * helpers and the line search live in card-geometry.ts and card-quad-search.ts).
 */
export function cardVersions(): Record<string, string> {
  const src = (f: string) => new URL(f, import.meta.url);
  // how a photo is decoded and the task run (card-tasks.ts, media/) moves every measurement: the size a photo is measured at changed once without a version moving
  const geometry = [src('./card-geometry.ts'), src('./card-quad-search.ts'), src('../geometry/plane-geometry.ts'), src('./card-tasks.ts'), src('../../media/decode-rgb.ts'), src('../../media/jpeg-reduce.ts'), src('../../media/heic-decode.ts'), src('../recognition/card-reading.ts')];
  const detector = [
    ...geometry,
    src('../../../models/card-detector.onnx'),
    src('../../../models/card-corners.onnx'),
    src('../../../models/card-verifier.onnx'),
    src('../../../models/card-holder.onnx'),
    src('./card-detector.ts'),
    src('./card-detector-maps.ts'),
    src('./card-corner-refiner.ts'),
    src('./card-verifier.ts'),
    src('./card-holder.ts'),
    src('./card-edge-fit.ts'),
    src('./slab-label.ts'),
  ];
  versionsCache ??= {
    detection: sourceVersion(...detector),
    points: sourceVersion(...detector),
    corners: sourceVersion(src('../grading/card-wear.ts'), ...geometry),
    edges: sourceVersion(src('../grading/card-wear.ts'), ...geometry),
    surface: sourceVersion(src('../grading/card-surface.ts'), ...geometry),
    centering: sourceVersion(src('../grading/card-centering.ts'), ...geometry),
  };
  return versionsCache;
}

/**
 * A card photo decoded as grading measures it: JPEG DCT scaling where it applies, and every other
 * file (a JPEG with an ICC profile or an EXIF rotation, as phones write them; PNG, WebP…) reduced to
 * the size that path gives a photo of its size, or `CARD_DECODE_EDGE` where that path would not
 * reduce it so far: the grades of one photo's files differed by up to 3.6 when they were measured
 * at 2000 and 2400 px.
 */
export async function decodeCardPhoto(bytes: Buffer, maxPixels: number) {
  return (await reduceJpeg(bytes, maxPixels, CARD_FAST_EDGE, CARD_DECODE_EDGE)) ?? (await decodeRgb(bytes, maxPixels, { maxEdge: cardPhotoEdge }));
}

/** The long edge a card photo of `longEdge` is measured at. */
export function cardPhotoEdge(longEdge: number): number {
  const fast = reducedJpegEdge(longEdge, CARD_FAST_EDGE);
  return fast <= CARD_DECODE_EDGE ? fast : CARD_DECODE_EDGE;
}

let detectorCache: Promise<CardDetector> | undefined;
/** The card detector, loaded once per worker; a failed load is tried again by the next task. */
export function cardDetector(): Promise<CardDetector> {
  if (!detectorCache) {
    detectorCache = CardDetector.load(1);
    detectorCache.catch(() => (detectorCache = undefined));
  }
  return detectorCache;
}

let ocrCache: Promise<OcrReader> | undefined;
/** The OCR models for reading a slab's label, when the caller has none to share (benches, tests). */
function ownOcr(): Promise<OcrReader> {
  if (!ocrCache) {
    ocrCache = loadOcrReader({ threads: 1 });
    ocrCache.catch(() => (ocrCache = undefined));
  }
  return ocrCache;
}

/** `ocr`: the worker's OCR models, shared with its OCR tasks (read here to tell a slab by its label). */
export async function runCardTask(task: CardTask, ocr: () => Promise<OcrReader> = ownOcr): Promise<CardResult | ImageRefused> {
  const bytes = Buffer.from(task.image);
  let img;
  try {
    img = await decodeCardPhoto(bytes, task.maxPixels);
  } catch (err) {
    if (err instanceof ImageLoadError && err.code !== 'invalid_base64') return { refused: { reason: err.reason, status: err.status, code: err.code } };
    throw err;
  }
  const pixels: RgbPixels = { data: img.data, width: img.width, height: img.height };
  // encoded on sharp's threads while the detector and the reader work here (nothing writes these pixels: every step
  // copies them into its own mats); a preview that fails is left out, never the answer (h365)
  const preview = task.options.preview ? previewOf(pixels, task.options.preview).catch(() => undefined) : undefined;
  const result = await measureCard(task, bytes, img, pixels, ocr);
  const made = await preview;
  return made && !('refused' in result) ? { ...result, preview: made } : result;
}

/**
 * A JPEG of `edge` px on its long side (never enlarged) of the photo as decoded for the card task (EXIF rotation applied,
 * alpha flattened): an asynchronous request's preview, kept with its result so the console can draw a photo sent as data
 * with its cards' boxes once the request's inputs are dropped (h365). Its pixels are the stored photo's scaled by
 * `width / _width` (and `height / _height`): the boxes, in the photo's own pixels, scale by the same. Quality 80, as
 * the collection records' thumbnails.
 */
export async function previewOf(pixels: RgbPixels, edge: number): Promise<NonNullable<CardResult['preview']>> {
  const { data, info } = await sharp(Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength), { raw: { width: pixels.width, height: pixels.height, channels: 3 } })
    .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
  return { jpeg: toArrayBuffer(data), width: info.width, height: info.height };
}

/** The card task's own work on the decoded photo. */
async function measureCard(task: CardTask, bytes: Buffer, img: Awaited<ReturnType<typeof decodeCardPhoto>>, pixels: RgbPixels, ocr: () => Promise<OcrReader>): Promise<CardResult | ImageRefused> {
  const { cv } = await loadCv();
  const sx = img.originalWidth / img.width;
  const sy = img.originalHeight / img.height;
  const size = { width: img.originalWidth, height: img.originalHeight };
  const versions = cardVersions();
  if (task.op === 'artwork') return artworkOf(cv, pixels, await cardDetector(), { ...size, versions }, [sx, sy]);

  let quad: Quad | null = null;
  let prob = 1;
  let found: DetectedCard[] = [];
  let slabLabel: SlabLabel | null = null;
  // the image's frame taken for the card (outlineIsFrame): reported as skip-location reports it, 0 to width and height
  let onFrame = false;
  let reading: Promise<CardResult> | undefined;
  if (task.options.skipLocation) {
    quad = frameOf(pixels);
  } else if (task.options.transparent) {
    const cut = await quadFromAlpha(bytes, img.width, img.height);
    // found on the mask's pixel edges (pixel i spans i to i + 1), and reported so; measured, as every outline here, with
    // pixel centres on whole numbers: the warp took it half a pixel down and right, and a centred cut-out read 49.1/50.9
    // where the same card found or sent with skip-location read 50.0/50.0 (h347)
    quad = cut.quad && (cut.quad.map(([x, y]) => [x - 0.5, y - 0.5]) as Quad);
    // No pixel transparent (a JPEG, an opaque PNG): not a cut-out, and the frame is no card's outline.
    if (quad && !cut.transparent) return { ...size, found: true, quad: [[0, 0], [size.width, 0], [size.width, size.height], [0, size.height]], prob: 1, versions, unfit: 'The image has no transparent pixels: `transparent` takes a cut-out (a PNG or WebP whose background is transparent). Send the photo without it to have the card found.' };
  } else {
    // LOUPE_CARD_LOCATOR is how grading finds its card; recognition, slab labels and references always
    // use the detector (with `classical` a helper's photo was read whole and named nothing)
    if (task.options.locator === 'classical' && !['read', 'label', 'artwork'].includes(task.op)) {
      const located = locateCard(cv, pixels);
      if (located) {
        quad = located.quad;
        prob = located.prob;
      }
    } else {
      // recognition reads the largest card: with the second look, and the tiles of a few-card photo only
      // where nothing else found a card (four more passes; docs/recognition.md, Figures, "Tiles where
      // nothing is found")
      found = await (await cardDetector()).detect(pixels, 'refine', task.op === 'read' ? { secondLook: true, fewTiles: 'when-none' } : {});
      // `read`: the cards' bands are read while the label is looked for, so that a band another
      // worker reads (shared-reads.ts) is read beside the label's strips, not after them
      if (task.op === 'read') {
        reading = readCards(cv, sharingReader(await ocr()), pixels, [...found], false, { ...size, versions }, [sx, sy], task.options.everyCard === true, task.options.names !== false);
        // awaited below; a label search that throws first must not leave it unhandled
        reading.catch(() => undefined);
      }
      // The measured card is a slab's when the strip beside it reads as a grading label: the
      // first stage's label map never fired on real slabs (docs/card-detector.md).
      // (read: recognition reports the label's text, so it is read on a slab the maps found too)
      let label = found[0] && (found[0].kind !== 'slab' || task.op === 'read' || task.op === 'label') ? await findSlabLabel(await ocr(), pixels, found[0].quad) : null;
      // `/slab_id`: a label the detector's card does not stand beside (a scan cropped to the holder, a holder's outline taken for the card)
      let beside = true;
      if (!label && (task.op === 'label' || task.options.labelSearch === true || (task.options.labelSearch === 'no-card' && !found[0]))) {
        label = await searchSlabLabel(await ocr(), pixels);
        // `/slab_id` answers with the label wherever it lies; a card has the label beside it or none
        beside = !label || !found[0] || labelBesideCard(label.box, found[0].quad, labelUp(label));
        if (!beside && task.op !== 'label') label = null;
      }
      if (label && found[0] && beside) found[0] = { ...found[0], kind: 'slab', labelBox: label.box };
      slabLabel = label;
      // a scan cropped to its card: the card's edges are the image's, which no step shows (the outline ran
      // past three sides and stopped 1.2 % short of the fourth, and centering read 65/35 on clean scans)
      if (found[0] && found[0].kind === 'raw' && task.op !== 'read' && task.op !== 'label' && outlineIsFrame(found[0].quad, pixels)) {
        found[0] = { ...found[0], quad: frameOf(pixels) };
        onFrame = true;
      }
      if (found[0]) {
        quad = found[0].quad;
        prob = found[0].prob;
      }
    }
  }
  if (task.op === 'label') return labelResult(found, slabLabel, { ...size, versions }, [sx, sy]);
  if (task.op === 'read') return withLabel(await (reading ?? readCards(cv, sharingReader(await ocr()), pixels, found, task.options.skipLocation === true, { ...size, versions }, [sx, sy], task.options.everyCard === true, task.options.names !== false)), slabLabel, [sx, sy]);
  // measured and reported upright, a card lying sideways taken as turned counter-clockwise (docs/grading.md): the
  // detector's outlines and the frame start at the image's upper-left whatever the card's orientation
  if (quad) quad = uprightOrder(quad);
  found = found.map(uprightCard);
  if (!quad) return { ...size, found: false, versions };

  // The whole image as the card: its corners are the image's own, 0 to width and height. A cut-out's on the opaque
  // region's outer pixel edges likewise (h211), half a pixel out from the centres it is measured on.
  const cutOut = task.options.transparent && !task.options.skipLocation;
  const reported = (q: Quad): Quad => (cutOut ? (inPhoto(q, sx, sy).map(([x, y]) => [round1(x + 0.5), round1(y + 0.5)]) as Quad) : inPhoto(q, sx, sy));
  const full = task.options.skipLocation || onFrame
    ? uprightOrder([[0, 0], [size.width, 0], [size.width, size.height], [0, size.height]])
    : reported(quad);
  const result: CardResult = { ...size, found: true, quad: full, prob, versions };
  if (found.length) {
    // Every card found, largest first: the first is the one measured.
    result.cards = found.map((c, i) => ({
      quad: i === 0 && onFrame ? full : inPhoto(c.quad, sx, sy),
      prob: c.prob,
      kind: c.kind,
      ...(c.labelBox ? { labelBox: boxInPhoto(c.labelBox, sx, sy) } : {}),
    }));
  }
  if (task.op === 'localize') return result;
  const given = task.options.skipLocation || task.options.transparent;
  const off = given || onFrame ? [] : edgesCrossed(quad, pixels.width, pixels.height);
  const stops = given || onFrame || off.length ? [] : edgesCutting(quad, pixels.width, pixels.height);
  const unfit = off.length
    ? `The card runs off the photo past its ${off.join(' and ')} edge${off.length > 1 ? 's' : ''}, so part of it cannot be measured: take the photo again with the whole card in it.`
    : stops.length
    ? `The card runs off the photo at its ${stops.join(' and ')} edge${stops.length > 1 ? 's' : ''} (the outline found stops there and is no card's shape: ${shapeOf(full)}, where a card is 63:88), so part of it cannot be measured: take the photo again with the whole card in it.`
    : given && aspectError(full) > MAX_GIVEN_SHAPE_ERROR
    ? `The ${task.options.skipLocation ? 'image' : 'opaque region'} is not card-shaped (${shapeOf(full)}; a card is 63:88), so it cannot be warped upright.`
    : task.op !== 'crop_level' && cardWidthOf(full) < MIN_CARD_PIXELS
      ? // what to do, as recognition says it (h347: a seller read only the number)
        `The card is ${Math.round(cardWidthOf(full))} px across; centering and grading need at least ${MIN_CARD_PIXELS}: send the photo larger, or take it closer with the card filling more of it.`
      : undefined;
  if (unfit) return { ...result, unfit };

  // Which way up: the outline's order only says which side is longer, so a photo turned over (or a
  // quarter the other way) was measured and cropped upside down, top and bottom centering swapped.
  // The card's text says, read as recognition reads it (its bands, the turned-over one when the
  // foot shows no number), on cards large enough for their small print.
  // (an outline within 5 % of square, which uprightOrder keeps as it is and the reading would turn a
  // quarter first, is left as it is: turned over from the reading's start it would come out a quarter turned)
  if (cardWidthOf(quad) >= WAY_UP_MIN_CARD && portrait(quad) === quad) {
    // a reading that fails (the text models not loaded) measures the card as the photo shows it, as before
    const upsideDown = await ocr()
      .then((reader) => readsUpsideDown(cv, sharingReader(reader), pixels, quad!))
      .catch(() => false);
    if (upsideDown) {
      quad = [quad[2], quad[3], quad[0], quad[1]];
      const turned = reported(quad);
      result.quad = onFrame || task.options.skipLocation ? ([full[2], full[3], full[0], full[1]] as Quad) : turned;
      if (result.cards?.[0]) result.cards[0].quad = result.quad;
      result.turnedOver = true;
    }
  }

  const upright = warpCard(cv, pixels, quad, Math.min(UPRIGHT_WIDTH, Math.max(300, Math.round(cardWidthOf(quad) * 1.1))));
  if (task.op === 'crop_level') {
    // `level: false` is the plain warp: no clipping and no sharpening (sharp's sharpen() with no
    // options is its own mild sharpen, not none).
    const plain = task.options.level === false;
    const leveled = plain ? upright : level(upright);
    let out = sharp(Buffer.from(leveled.data.buffer, leveled.data.byteOffset, leveled.data.byteLength), { raw: { width: leveled.width, height: leveled.height, channels: 3 } });
    if (!plain) out = out.sharpen({ sigma: 0.8 });
    const webp = await out.webp({ quality: 90 }).toBuffer();
    return { ...result, images: { crop: toArrayBuffer(webp) } };
  }

  // centering and grade
  const measured = measureCentering(upright);
  if ('measured' in measured) {
    result.centering = { ...measured.measured, grade: centeringGrade(measured.measured.worstShare, task.options.side ?? 'front'), uprightWidth: upright.width, uprightHeight: upright.height };
  } else {
    result.centeringUnmeasurable = measured.unmeasurable;
  }
  if (task.op === 'grade') {
    const k = GRADE_WIDTH / upright.width;
    const graded = k !== 1 ? resample(cv, upright, k) : upright;
    const margins = 'measured' in measured ? (measured.measured.pixels.map((m) => m * k) as typeof measured.measured.pixels) : undefined;
    result.wear = measureWear(graded, margins);
    // Inside the printed border when it was found, else a margin of 5 % of the width.
    const inset = 'measured' in measured ? Math.min(0.2, Math.max(0.03, Math.max(...measured.measured.offsets) + 0.01)) : 0.05;
    result.surface = measureSurface(cv, graded, inset, margins);
  }
  if (!task.options.noImageOutput) {
    const exact = await drawCentering(upright, 'measured' in measured ? measured.measured : undefined);
    result.images = { exact: toArrayBuffer(exact) };
    if (task.op === 'centering') result.images.clean = toArrayBuffer(await encodeJpeg(upright));
    if (task.op === 'grade') result.images.full = toArrayBuffer(await drawFull(pixels, quad, result));
  }
  return result;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** A detected card with its outline (and each corner's doubt) started where `uprightOrder` starts it. */
function uprightCard(c: DetectedCard): DetectedCard {
  const quad = uprightOrder(c.quad);
  if (quad === c.quad) return c;
  const s = c.spread;
  return { ...c, quad, spread: [s[3], s[0], s[1], s[2]] };
}

/**
 * Every card's text, largest card first. An image that is itself card-shaped is read whole when no
 * card is found in it, or when the one card found runs off it (a corner over 1 % of its short
 * side outside): clients send scans cropped to the card, where the card has no edge to find, and
 * an outline placed there runs past the frame.
 */
async function readCards(cv: Awaited<ReturnType<typeof loadCv>>['cv'], ocr: SharingOcrReader, pixels: RgbPixels, found: DetectedCard[], given: boolean, base: Pick<CardResult, 'width' | 'height' | 'versions'>, [sx, sy]: [number, number], everyCard = false, names = true): Promise<CardResult> {
  const frame = frameOf(pixels);
  const runsOff = (q: Quad) => {
    const reach = 0.01 * Math.min(...sideLengths(q));
    return q.some(([x, y]) => x < -reach || y < -reach || x > pixels.width - 1 + reach || y > pixels.height - 1 + reach);
  };
  // only a lone card: a binder page photographed 3:4, its near row past the photo's foot, is its nine cards (h108)
  const whole = given || ((!found.length || (found.length === 1 && runsOff(found[0]!.quad))) && aspectError(frame) <= MAX_GIVEN_SHAPE_ERROR);
  // A frame read whole that the client did not call a card: the verifier says whether it is one (a
  // scan cropped to its card) or a photo whose card, if any, was not found (a 3:4 phone photo).
  const frameCheck = whole && !given ? await (await cardDetector()).verifyOutline(pixels, frame) : { prob: 1, card: true };
  const cards: DetectedCard[] = whole ? [{ quad: frame, prob: frameCheck.prob, kind: 'raw', spread: [0, 0, 0, 0] }] : found;
  if (!cards.length) return { ...base, found: false };
  const readings: NonNullable<CardResult['readings']> = [];
  // a binder page's nine cards cost nine reads: only when every card is answered for
  for (const [index, card] of cards.slice(0, everyCard ? MAX_READ_CARDS : 1).entries()) {
    // too small to read: the collector number of a card 120 px across is 2 px tall
    if (cardWidthOf(card.quad) < MIN_READ_CARD_PIXELS) continue;
    const reading = await readCard(cv, ocr, pixels, card.quad, names);
    // a photo read whole that is no card's outline holds a card of unknown size: its small print is not read surely
    const cardWidth = whole && !frameCheck.card ? 0 : round1(Math.min(...sideLengths(card.quad)));
    readings.push({ index, cardWidth, rotation: reading.rotation, art: reading.art, border: reading.border, layout: reading.layout, lines: reading.lines.map((l) => ({ ...l, polygon: inPhoto(l.polygon as unknown as Quad, sx, sy) })) });
  }
  // a scan cropped to its card is reported as localize reports it, the image's frame (h270: /detect gave the frame and
  // /tcg_id the detector's outline, 12 px short of it); it is read along the outline found, as before
  const onFrame = !whole && cards[0]!.kind === 'raw' && outlineIsFrame(cards[0]!.quad, pixels);
  const reported = (c: DetectedCard, i: number) => (i === 0 && onFrame ? ([[0, 0], [base.width, 0], [base.width, base.height], [0, base.height]] as Quad) : inPhoto(c.quad, sx, sy));
  return {
    ...base,
    found: true,
    quad: reported(cards[0]!, 0),
    prob: cards[0]!.prob,
    cards: cards.map((c, i) => ({ quad: reported(c, i), prob: c.prob, kind: c.kind })),
    readings,
    minReadWidth: Math.round(MIN_READ_CARD_PIXELS * sx),
    ...(whole ? { whole: true, wholeIsCard: frameCheck.card } : {}),
  };
}

/** A `read` result with the grading label read beside its largest card, which makes that card a slab's. */
function withLabel(result: CardResult, label: SlabLabel | null, [sx, sy]: [number, number]): CardResult {
  if (!label) return result;
  return {
    ...result,
    ...(result.cards?.[0] && !result.whole ? { cards: [{ ...result.cards[0], kind: 'slab' as const }, ...result.cards.slice(1)] } : {}),
    label: {
      company: label.company,
      box: boxInPhoto(label.box, sx, sy),
      lines: label.lines.map((l) => ({ text: l.text, prob: l.prob, polygon: inPhoto(l.polygon as unknown as Quad, sx, sy) })),
    },
  };
}

/**
 * A reference scan's artwork hash (`loupe catalog images`): the image itself when it is
 * card-shaped (a scan cropped to the card), else the largest card found in it.
 */
async function artworkOf(cv: Awaited<ReturnType<typeof loadCv>>['cv'], pixels: RgbPixels, detector: CardDetector, base: Pick<CardResult, 'width' | 'height' | 'versions'>, [sx, sy]: [number, number]): Promise<CardResult> {
  const frame = frameOf(pixels);
  const whole = aspectError(frame) <= MAX_GIVEN_SHAPE_ERROR;
  // a reference scan's card is found as before the detector's extra looks: the references were hashed so
  const quad = whole ? frame : (await detector.detect(pixels, 'refine', { secondLook: false, centres: false }))[0]?.quad;
  if (!quad) return { ...base, found: false };
  // a card-shaped photo of anything else (a wrong folder) is no reference: the verifier on the frame, at a
  // threshold every official scan here passes (229; the lowest, a full-art Charizard, 0.39) and 218 of 233
  // card-shaped Caltech and portrait photos do not (docs/recognition.md "Artwork")
  if (whole) {
    const check = await detector.verifyOutline(pixels, frame);
    if (check.prob < MIN_REFERENCE_FRAME) return { ...base, found: true, unfit: `The image does not look like a card (${check.prob.toFixed(2)}): a reference is a scan or photo of the card, cropped to it.` };
  }
  if (cardWidthOf(quad) < MIN_CARD_PIXELS) return { ...base, found: true, unfit: `The card is ${Math.round(cardWidthOf(quad))} px across; a reference needs at least ${MIN_CARD_PIXELS}.` };
  const up = warpCard(cv, pixels, portrait(quad), ARTWORK_WIDTH);
  return { ...base, found: true, quad: inPhoto(quad, sx, sy), ...(whole ? { whole: true } : {}), artwork: artworkHash(up) };
}

/** `label`: the grading label found (in pixels of the image as stored) and the cards beside it. */
function labelResult(found: DetectedCard[], label: SlabLabel | null, base: Pick<CardResult, 'width' | 'height' | 'versions'>, [sx, sy]: [number, number]): CardResult {
  return {
    ...base,
    found: label !== null,
    cards: found.map((c) => ({ quad: inPhoto(c.quad, sx, sy), prob: c.prob, kind: c.kind, ...(c.labelBox ? { labelBox: boxInPhoto(c.labelBox, sx, sy) } : {}) })),
    ...(label ? { label: { company: label.company, box: boxInPhoto(label.box, sx, sy), lines: label.lines.map((l) => ({ text: l.text, prob: l.prob, polygon: inPhoto(l.polygon as unknown as Quad, sx, sy) })) } } : {}),
  };
}

/** The verifier's least for an image read whole as a reference scan (see artworkOf). */
const MIN_REFERENCE_FRAME = 0.2;

/** How near to 63:88 an image must be for its frame to be taken for the card it was cropped to (a 3:4 photo is 0.034 off). */
const FRAME_SHAPE_ERROR = 0.02;

/**
 * Whether a card's outline is the image's own frame: the image card-shaped, each of its corners within 3 % of
 * the short side of one of the outline's, and two of the outline's corners beyond the image (where a card
 * cropped with a margin of table around it has its outline inside on every side).
 */
export function outlineIsFrame(q: Quad, pixels: Pick<RgbPixels, 'width' | 'height'>): boolean {
  const frame = frameOf(pixels);
  if (aspectError(frame) > FRAME_SHAPE_ERROR) return false;
  const tolerance = 0.03 * Math.min(pixels.width, pixels.height);
  if (!frame.every(([fx, fy]) => q.some(([x, y]) => Math.hypot(x - fx, y - fy) <= tolerance))) return false;
  const beyond = q.filter(([x, y]) => x < -0.5 || y < -0.5 || x > pixels.width - 0.5 || y > pixels.height - 0.5).length;
  return beyond >= 2;
}

/** A quad of the decoded (possibly reduced) image in pixels of the photo as sent, to a tenth of a pixel. */
function inPhoto(q: Quad, sx: number, sy: number): Quad {
  return q.map(([x, y]) => [round1((x + 0.5) * sx - 0.5), round1((y + 0.5) * sy - 0.5)] as Point) as Quad;
}

/** A box `[x0, y0, x1, y1]` of the decoded image in whole pixels of the photo as sent. */
function boxInPhoto(b: readonly [number, number, number, number], sx: number, sy: number): [number, number, number, number] {
  return [Math.round(b[0] * sx), Math.round(b[1] * sy), Math.round(b[2] * sx), Math.round(b[3] * sy)];
}

/** The image's own outline, corners on its outer pixel edges: the card when the image is the card. */
function frameOf(pixels: Pick<RgbPixels, 'width' | 'height'>): Quad {
  return [[-0.5, -0.5], [pixels.width - 0.5, -0.5], [pixels.width - 0.5, pixels.height - 0.5], [-0.5, pixels.height - 0.5]];
}

/** The image scaled by k: area averaging down, bicubic up. */
function resample(cv: Awaited<ReturnType<typeof loadCv>>['cv'], img: RgbPixels, k: number): RgbPixels {
  const width = Math.round(img.width * k);
  const height = Math.round(img.height * k);
  const src = new cv.Mat(img.height, img.width, cv.CV_8UC3);
  const out = new cv.Mat();
  try {
    src.data.set(img.data);
    cv.resize(src, out, new cv.Size(width, height), 0, 0, k < 1 ? cv.INTER_AREA : cv.INTER_CUBIC);
    return { data: Uint8Array.from(out.data), width, height };
  } finally {
    src.delete();
    out.delete();
  }
}

function toArrayBuffer(b: Buffer): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

function encodeJpeg(img: RgbPixels): Promise<Buffer> {
  return sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** Histogram clipping: each channel stretched so 0.5 % of pixels clip at either end. */
function level(img: RgbPixels): RgbPixels {
  const out = new Uint8Array(img.data.length);
  const n = img.width * img.height;
  for (let c = 0; c < 3; c++) {
    const hist = new Uint32Array(256);
    for (let i = 0; i < n; i++) hist[img.data[i * 3 + c]!]!++;
    let lo = 0;
    let hi = 255;
    for (let acc = 0; lo < 255 && acc + hist[lo]! <= n * 0.005; lo++) acc += hist[lo]!;
    for (let acc = 0; hi > 0 && acc + hist[hi]! <= n * 0.005; hi--) acc += hist[hi]!;
    const span = Math.max(1, hi - lo);
    for (let i = 0; i < n; i++) out[i * 3 + c] = Math.max(0, Math.min(255, Math.round(((img.data[i * 3 + c]! - lo) * 255) / span)));
  }
  return { data: out, width: img.width, height: img.height };
}

/** The upright card with the inner frame and each margin's width drawn on it. */
async function drawCentering(img: RgbPixels, c: Centering | undefined): Promise<Buffer> {
  const { width: w, height: h } = img;
  const font = Math.round(w * 0.035);
  let overlay = `<rect x="1" y="1" width="${w - 2}" height="${h - 2}" fill="none" stroke="#00c2ff" stroke-width="2"/>`;
  if (c) {
    const [x0, y0, x1, y1] = c.boundBox;
    const [l, t, r, b] = c.pixels;
    const text = (x: number, y: number, body: string, size = font) =>
      `<text x="${x}" y="${y}" font-family="DejaVu Sans, sans-serif" font-size="${size}" font-weight="bold" fill="#fff" stroke="#000" stroke-width="${Math.max(3, size / 6)}" paint-order="stroke" text-anchor="middle">${body}</text>`;
    // Dark under-strokes keep the marks visible on any border color.
    const line = (xa: number, ya: number, xb: number, yb: number) =>
      `<line x1="${xa}" y1="${ya}" x2="${xb}" y2="${yb}" stroke="#000" stroke-width="7"/><line x1="${xa}" y1="${ya}" x2="${xb}" y2="${yb}" stroke="#ff2d95" stroke-width="3"/>`;
    overlay += `<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="none" stroke="#000" stroke-width="5"/><rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="none" stroke="#00e5ff" stroke-width="2"/>`;
    overlay += line(0, h / 2, l, h / 2) + line(w - r, h / 2, w, h / 2) + line(w / 2, 0, w / 2, t) + line(w / 2, h - b, w / 2, h);
    const small = Math.round(font * 0.8);
    const pct = (x: number, y: number) => `${((100 * x) / (x + y)).toFixed(1)}%`;
    overlay += text(l + small * 2.2, h / 2 - small * 0.6, pct(l, r), small) + text(w - r - small * 2.2, h / 2 - small * 0.6, pct(r, l), small);
    overlay += text(w / 2 + small * 2.6, t + small * 1.3, pct(t, b), small) + text(w / 2 + small * 2.6, h - b - small * 0.5, pct(b, t), small);
    overlay += `<rect x="${w * 0.2}" y="${h * 0.42 - font * 1.2}" width="${w * 0.6}" height="${font * 3}" rx="${font / 3}" fill="#000" fill-opacity="0.55"/>`;
    overlay += text(w / 2, h * 0.42, `L/R ${c.leftRight}`) + text(w / 2, h * 0.42 + font * 1.3, `T/B ${c.topBottom}`);
  } else {
    overlay += `<text x="${w / 2}" y="${h / 2}" font-family="DejaVu Sans, sans-serif" font-size="${font}" fill="#fff" stroke="#000" stroke-width="3" paint-order="stroke" text-anchor="middle">centering not measurable</text>`;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${overlay}</svg>`;
  return sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: w, height: h, channels: 3 } })
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * The photo with the card's outline, each corner's region and each edge coloured by its grade
 * (green 9–10, amber 6–9, red below) and the grade written beside it.
 */
async function drawFull(img: RgbPixels, quad: Quad, r: CardResult): Promise<Buffer> {
  const { width: w, height: h } = img;
  const cardW = cardWidthOf(quad);
  const font = Math.max(14, Math.round(cardW * 0.05));
  const stroke = Math.max(2, Math.round(cardW * 0.006));
  const color = (g: number) => (g >= 9 ? '#34c759' : g >= 6 ? '#ffb300' : '#ff3b30');
  const text = (x: number, y: number, body: string, fill = '#fff') =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans, sans-serif" font-size="${font}" font-weight="bold" fill="${fill}" stroke="#000" stroke-width="${Math.max(3, font / 6)}" paint-order="stroke" text-anchor="middle" dominant-baseline="middle">${body}</text>`;
  const pts = (ps: Point[]) => ps.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(' ');
  let svg = `<polygon points="${pts(quad)}" fill="none" stroke="#000" stroke-width="${stroke + 3}"/><polygon points="${pts(quad)}" fill="none" stroke="#00e5ff" stroke-width="${stroke}"/>`;
  const cx = quad.reduce((s, p) => s + p[0], 0) / 4;
  const cy = quad.reduce((s, p) => s + p[1], 0) / 4;
  quad.forEach((p, i) => {
    const g = r.wear?.corners[i]?.grade;
    if (g === undefined) return;
    const toward = (q: Point) => [p[0] + (q[0] - p[0]) * CORNER_REACH * 1.4, p[1] + (q[1] - p[1]) * CORNER_REACH * 1.4] as Point;
    const a = toward(quad[(i + 1) % 4]!);
    const b = toward(quad[(i + 3) % 4]!);
    svg += `<polyline points="${pts([a, p, b])}" fill="none" stroke="#000" stroke-width="${stroke * 3 + 3}"/><polyline points="${pts([a, p, b])}" fill="none" stroke="${color(g)}" stroke-width="${stroke * 3}"/>`;
    // Labels just outside the corner.
    const lx = p[0] + (p[0] - cx) * 0.12;
    const ly = p[1] + (p[1] - cy) * 0.12;
    svg += text(Math.min(w - font * 1.5, Math.max(font * 1.5, lx)), Math.min(h - font, Math.max(font, ly)), g.toFixed(1), color(g));
  });
  quad.forEach((p, i) => {
    const g = r.wear?.edges[i]?.grade;
    if (g === undefined) return;
    const q = quad[(i + 1) % 4]!;
    const mx = (p[0] + q[0]) / 2;
    const my = (p[1] + q[1]) / 2;
    svg += text(Math.min(w - font * 1.5, Math.max(font * 1.5, mx + (mx - cx) * 0.1)), Math.min(h - font, Math.max(font, my + (my - cy) * 0.1)), g.toFixed(1), color(g));
  });
  const lines = [r.surface ? `surface ${r.surface.grade.toFixed(1)}` : '', r.centering ? `centering ${r.centering.grade.toFixed(1)}` : 'centering n/a'].filter(Boolean);
  lines.forEach((line, k) => (svg += text(cx, cy + (k - (lines.length - 1) / 2) * font * 1.3, line)));
  return sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: w, height: h, channels: 3 } })
    .composite([{ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${svg}</svg>`) }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

/** A card on a transparent background: the corners of its opaque region. */
async function quadFromAlpha(bytes: Buffer, width: number, height: number): Promise<{ quad: Quad | null; transparent: boolean }> {
  // a HEIC (which sharp cannot decode; decodeRgb could) is a camera's photo: no cut-out
  const meta = await sharp(bytes).metadata();
  if (isHeic(meta)) return { quad: [[0, 0], [width, 0], [width, height], [0, height]], transparent: false };
  const alpha = await sharp(bytes).rotate().resize(width, height, { fit: 'fill' }).ensureAlpha().extractChannel(3).raw().toBuffer();
  let minSum = Infinity;
  let maxSum = -Infinity;
  let minDiff = Infinity;
  let maxDiff = -Infinity;
  const corner: Point[] = [[0, 0], [0, 0], [0, 0], [0, 0]];
  // Whether any pixel is less than half opaque: without one the image is no cut-out.
  let transparent = false;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (alpha[y * width + x]! < 128) {
        transparent = true;
        continue;
      }
      const s = x + y;
      const d = x - y;
      if (s < minSum) {
        minSum = s;
        corner[0] = [x, y];
      }
      // corners on the pixels' outer edges, as the other modes give them (x + 1 is the right edge of pixel x): the
      // outline was a pixel short on the right and bottom, the card measured 499 × 697 for 500 × 698 (h211)
      if (d > maxDiff) {
        maxDiff = d;
        corner[1] = [x + 1, y];
      }
      if (s > maxSum) {
        maxSum = s;
        corner[2] = [x + 1, y + 1];
      }
      if (d < minDiff) {
        minDiff = d;
        corner[3] = [x, y + 1];
      }
    }
  }
  if (!Number.isFinite(minSum)) return { quad: null, transparent };
  // The opaque region's extreme points sit on a rounded card's corner arcs, unevenly from corner to corner: the
  // outline was a trapezoid 7-13 px inside the card and centering read 59/41 for 51/49 (h266). Its four sides are
  // fitted to the mask's edge between the arcs and met at the sharp corners the other modes report.
  const rough = order(corner);
  return { quad: alphaSides(alpha, width, height, rough) ?? rough, transparent };
}

/**
 * A cut-out's outline from its alpha mask: each side a line through the mask's half-opaque edge, found across the
 * side's middle 60 % (away from the corners' rounding), and the corners where adjacent lines meet. Null when a side
 * has too few edge points or the corners land far from the rough ones (a mask that is no card-like quadrilateral).
 */
function alphaSides(alpha: Buffer, width: number, height: number, rough: Quad): Quad | null {
  // alpha between pixel centres (pixel i's centre at i + 0.5, edges on whole numbers as the corners above); outside the
  // image transparent, so a cut-out cropped to its card has its edge on the image's (h268: clamped, no edge was found
  // there, and the corners on the arcs came back)
  const at = (x: number, y: number) => {
    const [u, v] = [x - 0.5, y - 0.5];
    const [x0, y0] = [Math.floor(u), Math.floor(v)];
    const [fx, fy] = [u - x0, v - y0];
    const a = (xx: number, yy: number) => (xx < 0 || yy < 0 || xx >= width || yy >= height ? 0 : alpha[yy * width + xx]!);
    return (a(x0, y0) * (1 - fx) + a(x0 + 1, y0) * fx) * (1 - fy) + (a(x0, y0 + 1) * (1 - fx) + a(x0 + 1, y0 + 1) * fx) * fy;
  };
  const centre: Point = [rough.reduce((t, p) => t + p[0], 0) / 4, rough.reduce((t, p) => t + p[1], 0) / 4];
  const lines: { p: Point; d: Point }[] = [];
  for (let i = 0; i < 4; i++) {
    const [a, b] = [rough[i]!, rough[(i + 1) % 4]!];
    const length = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (length < 20) return null;
    const d: Point = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
    // the normal pointing out of the card
    let n: Point = [-d[1], d[0]];
    const mid: Point = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    if (n[0] * (mid[0] - centre[0]) + n[1] * (mid[1] - centre[1]) < 0) n = [-n[0], -n[1]];
    const reach = Math.max(8, 0.04 * length);
    const points: Point[] = [];
    for (let k = 0; k <= 40; k++) {
      const t = 0.2 + (0.6 * k) / 40;
      const base: Point = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
      // from inside outwards, the first step from opaque to transparent, placed where alpha crosses half
      let prev = at(base[0] - n[0] * reach, base[1] - n[1] * reach);
      for (let s = -reach + 0.5; s <= reach; s += 0.5) {
        const cur = at(base[0] + n[0] * s, base[1] + n[1] * s);
        if (prev >= 127.5 && cur < 127.5) {
          const f = (prev - 127.5) / (prev - cur);
          const off = s - 0.5 + 0.5 * f;
          points.push([base[0] + n[0] * off, base[1] + n[1] * off]);
          break;
        }
        prev = cur;
      }
    }
    if (points.length < 10) return null;
    // the line through them (principal direction)
    const m: Point = [points.reduce((t, p) => t + p[0], 0) / points.length, points.reduce((t, p) => t + p[1], 0) / points.length];
    let [sxx, sxy, syy] = [0, 0, 0];
    for (const [x, y] of points) [sxx, sxy, syy] = [sxx + (x - m[0]) ** 2, sxy + (x - m[0]) * (y - m[1]), syy + (y - m[1]) ** 2];
    const angle = 0.5 * Math.atan2(2 * sxy, sxx - syy);
    lines.push({ p: m, d: [Math.cos(angle), Math.sin(angle)] });
  }
  const quad: Point[] = [];
  for (let i = 0; i < 4; i++) {
    // corner i joins side i-1 (ending at it) and side i (starting at it)
    const [l1, l2] = [lines[(i + 3) % 4]!, lines[i]!];
    const det = l1.d[0] * l2.d[1] - l1.d[1] * l2.d[0];
    if (Math.abs(det) < 0.2) return null;
    const t = ((l2.p[0] - l1.p[0]) * l2.d[1] - (l2.p[1] - l1.p[1]) * l2.d[0]) / det;
    const c: Point = [l1.p[0] + l1.d[0] * t, l1.p[1] + l1.d[1] * t];
    const side = Math.min(...sideLengths(rough));
    if (Math.hypot(c[0] - rough[i]![0], c[1] - rough[i]![1]) > 0.15 * side) return null;
    quad.push(c);
  }
  return quad as Quad;
}

/** A quad's mean side lengths as `short:long`, for messages. */
function shapeOf(q: Quad): string {
  const sides = sideLengths(q);
  // short side to long, as a card's 63:88 is said (h280: "100:30000 px" of a 30000 × 100 image read as backwards)
  return `short side to long ${Math.round(Math.min(...sides))}:${Math.round(Math.max(...sides))} px`;
}

/**
 * The photo's edges a detector's outline runs past by more than 2 % of the card's short side (a rounded corner
 * touching the edge puts the outline's sharp corner about 1.4 % out). Graded, the missing rows were the image's edge
 * pixels smeared: a card cut off at its foot graded 9.9 Gem Mint, corners it had no picture of 10 (h266).
 */
export function edgesCrossed(q: Quad, width: number, height: number): string[] {
  const reach = 0.02 * Math.min(...sideLengths(q));
  const past = { top: q.some(([, y]) => y < -reach), right: q.some(([x]) => x > width - 1 + reach), bottom: q.some(([, y]) => y > height - 1 + reach), left: q.some(([x]) => x < -reach) };
  return Object.entries(past).filter(([, v]) => v).map(([k]) => k);
}

const CUT_SHAPE_ERROR = 0.05;

/**
 * The photo's edges an outline stops at or near (a corner within 5 % of the card's short side of one) where the
 * outline is not card-shaped: the detector often closes a card cut off by the frame along the frame, or on a line a
 * little inside it, and the shortened card was warped to 63:88 and graded (h347: a card missing 14 % of its height,
 * its outline 0.81 wide for tall, graded 7.4 "OK"). A whole card near an edge keeps its shape: on the 339 labelled
 * real photos with a card found, 39 outlines come that near an edge, with shape errors of at most 0.035 but one, a
 * binder page's card that the frame does cut off (0.075; docs/grading.md).
 */
export function edgesCutting(q: Quad, width: number, height: number): string[] {
  if (aspectError(q) <= CUT_SHAPE_ERROR) return [];
  const reach = 0.05 * Math.min(...sideLengths(q));
  const at = { top: q.some(([, y]) => y < reach), right: q.some(([x]) => x > width - 1 - reach), bottom: q.some(([, y]) => y > height - 1 - reach), left: q.some(([x]) => x < reach) };
  return Object.entries(at).filter(([, v]) => v).map(([k]) => k);
}
