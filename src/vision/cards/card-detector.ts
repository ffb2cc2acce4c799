import { InferenceSession, Tensor } from 'onnxruntime-node';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { cornerQuads, decodeCardMaps, MAP_CHANNELS, MAP_SIZE, overlap, type MapCard } from './card-detector-maps.ts';
import { CARD_CORNERS_FILE, CardCornerRefiner } from './card-corner-refiner.ts';
import { CARD_VERIFIER_FILE, CardVerifier } from './card-verifier.ts';
import { CARD_HOLDER_FILE, CardHolderClassifier } from './card-holder.ts';
import { fitCardEdges } from './card-edge-fit.ts';
import { aspectError, CARD_ASPECT, loadCv, locateCard } from './card-geometry.ts';
import { workerSessionOptions } from '../engine/onnx-session.ts';
import { cropRgb, fromTurnedClockwise, turnRgbClockwise } from '../engine/rgb-crop.ts';
import { clockwiseFromTopLeft, convexOverlapShare, polygonArea, sideLengths, type Point, type Quad } from '../geometry/plane-geometry.ts';
import type { RgbPixels } from '../engine/tfjs-runtime.ts';

/**
 * The card detector trained in this repository (training/card-detector/, docs/card-detector.md):
 * a small U-Net that maps a 256-px letterboxed photo to five maps at 128 px: card surface,
 * card centre, corners, holder (slab shell, top-loader, sleeve) and slab label. The maps give
 * each card's rough outline and kind; the outline is then fitted to the photo's own edges at
 * the decoded resolution (card-edge-fit.ts).
 */
export const CARD_DETECTOR_FILE = fileURLToPath(new URL('../../../models/card-detector.onnx', import.meta.url));
export const DETECTOR_INPUT = 256;

export type CardKind = 'raw' | 'holder' | 'slab';

export interface DetectedCard {
  /** Corners in pixels of the image given, upper-left first, clockwise. */
  quad: Quad;
  /** The detector's confidence that this is a card, 0–1. */
  prob: number;
  kind: CardKind;
  /** A slab's grading label, [x0, y0, x1, y1] in pixels of the image given. */
  labelBox?: [number, number, number, number];
  /** A slab's or holder's outline. */
  holderQuad?: Quad;
  /** The corner refiner's doubt per corner, as a share of the card's short side (low is sure). */
  spread: [number, number, number, number];
  /** The verifier's probability that the outline holds a card (absent where it did not look: the first version). */
  verified?: number;
  /** The holder classifier's probability that the card is in a sleeve, top-loader or slab (absent where it did not look). */
  held?: number;
}

/** How the corners are placed: 'refine' (the corner network; the default), or 'search' (issue 17's first version: the network's outline fitted to the photo's edges, or the classical outline search, whichever covers the card's map; kept for the bench's comparison). */
export type CornerMethod = 'refine' | 'search';

/**
 * The most doubt a card may have: the mean spread of its four corners in the refiner, as a share
 * of its short side. Chosen on the hand-labelled train photos against 83 no-card photos never
 * trained on (faces_persons, UKBench); see docs/card-detector.md "Thresholds".
 */
const MAX_SPREAD = 0.032;
/**
 * Least the verifier must give an outline for it to be a card: the lowest threshold, in steps of
 * 0.05, at which the verifier E (the mean of v5 and v6) took no card in the 89 plain no-card
 * threshold photos and at most 4 in the 417 of set C (it takes 1), chosen by a rule written before
 * the bench; docs/card-detector.md "Thresholds", "Verifier E".
 */
const MIN_VERIFIED = 0.85;
/**
 * Most a card's outline may differ from 63:88 in its ratio of side lengths: a card is
 * card-shaped, a window or a book is not. Of the 255 hand-labelled train-split cards, one is
 * further off than 0.1 (0.148, steep perspective). With the verifier (v3) judging what the
 * outline holds, 0.15 keeps 3 more train-split cards than 0.1 (grading's limit for an outline a
 * client gives) and no false card on the no-card threshold photos; 0.25 made one there.
 */
const MAX_SHAPE_ERROR = 0.15;
/** A kept card further than this from 63:88 is placed again from each side (`restarted`). */
const RESTART_SHAPE_ERROR = 0.05;

/**
 * Least the holder classifier must give a card the maps call bare for it to be `holder`: 0.5, set
 * before its figures were seen (docs/card-detector.md "Sleeves and top-loaders").
 */
const MIN_HELD = 0.5;

/**
 * Least the verifier must give a card whose outline the card map did not give: the corner map's
 * ({@link CardDetector.secondLook}), the centre map's, or one only a tile of a photo with few cards
 * found. Chosen for the second look on the no-card threshold photos (set C) by a rule written
 * first (docs/card-detector.md "Second look").
 */
const MIN_SECOND_LOOK = 0.998;

export interface DetectorOptions {
  detector?: string;
  corners?: string;
  verifier?: string;
  holder?: string;
  maxSpread?: number;
  minVerified?: number;
  minHeld?: number;
  minSecondLook?: number;
}
const SHIPPED: Required<DetectorOptions> = {
  detector: CARD_DETECTOR_FILE,
  corners: CARD_CORNERS_FILE,
  verifier: CARD_VERIFIER_FILE,
  holder: CARD_HOLDER_FILE,
  maxSpread: MAX_SPREAD,
  minVerified: MIN_VERIFIED,
  minHeld: MIN_HELD,
  minSecondLook: MIN_SECOND_LOOK,
};
/** Overlap with the card's map pixels by which the outline search's candidate may trail the network's and still win. */
const NEAR_TIE = 0.03;

/**
 * A photo in which this many cards are found is looked at again in four tiles, each this share of
 * its sides, at its corners: on the train photos 215 of 228 cards found against 192, the
 * 18-card binder page 14 against 5 (docs/card-detector.md "Tiles"). A photo with fewer is tiled
 * only with the second look, its tiles' own cards then at {@link MIN_SECOND_LOOK}: at the usual
 * threshold, tiles of small no-card photos make false cards.
 */
const TILE_WHEN = 2;
const TILE = 0.6;
/** Two outlines sharing more than this share of the smaller one are the same card (or a half of it, or two pockets taken for one). */
const SAME_CARD_OVERLAP = 0.2;

interface Candidate {
  card: DetectedCard;
  strong: boolean;
  /** The card placed from the centre map's outline instead, tried when the verifier refuses this one (`MapCard.centre`). */
  alternate?: () => Promise<DetectedCard | null>;
  /** Its outline is the centre map's. */
  fromCentre?: boolean;
}

const largestFirst = (a: DetectedCard, b: DetectedCard) => Math.abs(polygonArea(b.quad)) - Math.abs(polygonArea(a.quad));
const surestFirst = (a: Candidate, b: Candidate) => Number(b.strong) - Number(a.strong) || (b.card.verified ?? 1) - (a.card.verified ?? 1);

export class CardDetector {
  private constructor(
    private readonly session: InferenceSession,
    private readonly refiner: CardCornerRefiner,
    private readonly verifier: CardVerifier,
    private readonly holder: CardHolderClassifier,
    private readonly limits: Required<DetectorOptions>,
  ) {}

  /** Other models and limits, for the scripts that choose them (scripts/card-detector-dev.ts); the shipped ones by default. */
  static async load(threads = 1, options: DetectorOptions = {}): Promise<CardDetector> {
    const o = { ...SHIPPED, ...options };
    const session = await InferenceSession.create(o.detector, workerSessionOptions(threads));
    return new CardDetector(session, await CardCornerRefiner.load(threads, o.corners), await CardVerifier.load(threads, o.verifier), await CardHolderClassifier.load(threads, o.holder), o);
  }

  /** The five maps for an image, and the share of the map the photo covers (the rest is padding). */
  async maps(img: RgbPixels): Promise<{ maps: Float32Array; scaleX: number; scaleY: number; validW: number; validH: number }> {
    const k = DETECTOR_INPUT / Math.max(img.width, img.height);
    const nw = Math.max(1, Math.round(img.width * k));
    const nh = Math.max(1, Math.round(img.height * k));
    const small = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: 3 } })
      .resize(nw, nh, { fit: 'fill', kernel: 'linear' })
      .raw()
      .toBuffer();
    const plane = DETECTOR_INPUT * DETECTOR_INPUT;
    const input = new Float32Array(3 * plane);
    for (let y = 0; y < nh; y++) {
      for (let x = 0; x < nw; x++) {
        const s = (y * nw + x) * 3;
        const d = y * DETECTOR_INPUT + x;
        input[d] = small[s]! / 255;
        input[plane + d] = small[s + 1]! / 255;
        input[2 * plane + d] = small[s + 2]! / 255;
      }
    }
    const out = await this.session.run({ image: new Tensor('float32', input, [1, 3, DETECTOR_INPUT, DETECTOR_INPUT]) });
    const maps = out.maps!.data as Float32Array;
    if (maps.length !== MAP_CHANNELS * MAP_SIZE * MAP_SIZE) throw new Error(`card detector: unexpected output size ${maps.length}`);
    // map pixel j covers input pixels 2j..2j+1; the photo spans nw x nh input pixels
    return { maps, scaleX: (nw / img.width) * (MAP_SIZE / DETECTOR_INPUT), scaleY: (nh / img.height) * (MAP_SIZE / DETECTOR_INPUT), validW: Math.ceil(nw / 2), validH: Math.ceil(nh / 2) };
  }

  /** The verifier's bar for an outline the card map did not give ({@link MIN_SECOND_LOOK}), never below the usual one. */
  private get strict(): number {
    return Math.max(this.limits.minVerified, this.limits.minSecondLook);
  }

  /**
   * Every card in the photo, largest first; empty when there is none. Unless switched off: the
   * centre map's outline in place of a card the card map gave that is refused (`centres`); and
   * (`secondLook`) the corner map's outlines where the photo gives no card ({@link secondLook}),
   * and the tiles of a photo that gives fewer than {@link TILE_WHEN} cards, whose own cards are
   * then kept at {@link MIN_SECOND_LOOK} (`fewTiles`, as `secondLook` unless given; `when-none`: only
   * when nothing else found a card). Recognition reads with the second look and `when-none`: it reads
   * the largest card, and the tiles cost four more passes (docs/card-detector.md "Second look",
   * "Centre outlines", "Tiles of a photo with few cards"; docs/recognition.md).
   */
  async detect(img: RgbPixels, method: CornerMethod = 'refine', options: { secondLook?: boolean; fewTiles?: boolean | 'when-none'; centres?: boolean; turned?: boolean } = {}): Promise<DetectedCard[]> {
    const cards = await this.detectUpright(img, method, options);
    // Nothing found anywhere, the photo is looked at once more turned a quarter: an official scan on its side (a
    // flatbed's landscape scan) gave no card where the same scan upright was found (h95). Its cards are kept at the
    // second look's bar, as those of every other extra pass; not in recognition's read (`when-none`), which reads
    // the largest card of most photos and would pay the pass on every photo with none (rule s39 (a)).
    if (cards.length || method !== 'refine' || options.secondLook === false || options.fewTiles === 'when-none' || options.turned === false) return cards;
    const turned = await this.detectUpright(turnRgbClockwise(img), method, { ...options, fewTiles: false });
    const back = (p: Point): Point => fromTurnedClockwise(p, img.height);
    return turned
      .filter((c) => (c.verified ?? 0) >= this.strict)
      .map((c) => {
        const mapped = c.quad.map(back);
        const quad = clockwiseFromTopLeft(mapped) as Quad;
        // each corner's doubt goes with it
        const spread = quad.map((q) => c.spread[mapped.findIndex((m) => m[0] === q[0] && m[1] === q[1])] ?? 0) as DetectedCard['spread'];
        const out: DetectedCard = { ...c, quad, spread };
        if (c.holderQuad) out.holderQuad = clockwiseFromTopLeft(c.holderQuad.map(back)) as Quad;
        if (c.labelBox) {
          const [a, b] = [back([c.labelBox[0], c.labelBox[3]]), back([c.labelBox[2], c.labelBox[1]])];
          out.labelBox = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
        }
        return out;
      })
      .sort(largestFirst);
  }

  private async detectUpright(img: RgbPixels, method: CornerMethod, options: { secondLook?: boolean; fewTiles?: boolean | 'when-none'; centres?: boolean }): Promise<DetectedCard[]> {
    const maps = await this.maps(img);
    const centres = method === 'refine' && options.centres !== false;
    const whole = await this.candidates(img, maps, [0, 0], method, [], centres);
    if (method !== 'refine') return whole.map((c) => c.card).sort(largestFirst);
    let kept = await this.verified(img, whole);
    const look = options.secondLook !== false;
    if (!kept.length && look) kept = await this.secondLook(img, maps);
    // a card found twice keeps its surest outline, and counts once towards `few`
    const found = kept.sort(surestFirst);
    kept = [];
    const keep = (c: Candidate) => {
      if (!kept.some((k) => convexOverlapShare(k.card.quad, c.card.quad) > SAME_CARD_OVERLAP)) kept.push(c);
    };
    found.forEach(keep);
    const few = kept.length < TILE_WHEN;
    if (!few || (options.fewTiles === 'when-none' ? kept.length === 0 : (options.fewTiles ?? look))) {
      // Small cards were lost at 256 px (a binder page, a table of cards, a game still), so the
      // photo's four corner tiles are looked at too; a card found twice keeps its whole-photo
      // outline (docs/card-detector.md "Tiles").
      for (const [fx, fy] of [[0, 0], [1 - TILE, 0], [0, 1 - TILE], [1 - TILE, 1 - TILE]] as const) {
        const x0 = Math.round(fx * img.width);
        const y0 = Math.round(fy * img.height);
        const tile = cropRgb(img, x0, y0, Math.round(TILE * img.width), Math.round(TILE * img.height));
        const known = kept.map((c) => c.card.quad);
        (await this.verified(img, await this.candidates(img, await this.maps(tile), [x0, y0], method, known, centres)))
          .filter((c) => !few || c.card.verified! >= this.strict)
          .sort(surestFirst)
          .forEach(keep);
      }
    }
    const cards = kept.map((c) => c.card).sort(largestFirst);
    // the largest card is the one grading measures and recognition reads first: its outline, when
    // off the card's shape, is placed again (two refiner runs: only for it, as binder pages hold
    // many small outlines off the shape)
    if (cards[0] && aspectError(cards[0].quad) > RESTART_SHAPE_ERROR) {
      cards[0] = await this.restarted(img, cards[0]);
      cards.sort(largestFirst);
    }
    // the maps' holder channel learnt holders from drawn scenes only and stays quiet on real photos
    const bare = cards.filter((c) => c.kind === 'raw');
    const held = await this.holder.held(img, bare.map((c) => c.quad));
    bare.forEach((c, k) => {
      c.held = held[k]!;
      if (c.held >= this.limits.minHeld) c.kind = 'holder';
    });
    return cards;
  }

  /** The cards of one map set (the whole photo's, or a tile's at `offset`), in pixels of the photo. */
  private async candidates(img: RgbPixels, m: Awaited<ReturnType<CardDetector['maps']>>, offset: Point, method: CornerMethod, known: Quad[] = [], centres = false): Promise<Candidate[]> {
    const found = decodeCardMaps(m.maps, m.validW, m.validH);
    const toImage = toPhoto(m, offset);
    const toMap = (p: Point): Point => [(p[0] + 0.5) * m.scaleX - 0.5, (p[1] + 0.5) * m.scaleY - 0.5];
    const whole = method === 'search' && found.length ? locateCard((await loadCv()).cv, img)?.quad ?? null : null;
    const cards: Candidate[] = [];
    for (const c of found) {
      // Weak cards (faint corners: close-ups whose card runs into the table) are taken too: the
      // verifier, since it learnt small photos taken whole (v3), keeps them out of no-card photos
      // (docs/card-detector.md "The verifier"). The first version has no verifier: strong cards only.
      if (!c.strong && method !== 'refine') continue;
      const rough = c.quad.map(toImage) as Quad;
      // a card a tile finds again is not placed twice
      if (known.some((q) => convexOverlapShare(q, rough) > SAME_CARD_OVERLAP)) continue;
      // the centre map's outline, when the card map's is refused (docs/card-detector.md "Centre outlines")
      const centre = centres && c.centre ? (c.centre.map(toImage) as Quad) : null;
      const alternate = centre
        ? async (): Promise<DetectedCard | null> => {
            const p = await this.placed(img, centre);
            return p && aspectError(p.quad) <= MAX_SHAPE_ERROR ? { quad: p.quad, prob: c.prob, kind: c.kind, spread: p.spread } : null;
          }
        : undefined;
      let quad: Quad;
      let spread: DetectedCard['spread'] = [0, 0, 0, 0];
      if (method === 'refine') {
        // The corner network brings the outline within a percent or so; the photo's own colour
        // steps, searched within 2 % of that, place each side to a fraction of a pixel. On the
        // dev photos the fit raised corners within 1 % from 74 % to 76 %, the median 0.33 % to 0.12 %.
        const placed = await this.placed(img, rough);
        if (!placed || aspectError(placed.quad) > MAX_SHAPE_ERROR) {
          const alt = await alternate?.();
          if (alt) cards.push({ card: alt, strong: false, fromCentre: true });
          continue;
        }
        ({ quad, spread } = placed);
      } else quad = await this.searched(img, rough, whole, c, toMap);
      const out: DetectedCard = { quad, prob: c.prob, kind: c.kind, spread };
      if (c.labelBox) {
        const [x0, y0] = toImage([c.labelBox[0] - 0.5, c.labelBox[1] - 0.5]);
        const [x1, y1] = toImage([c.labelBox[2] + 0.5, c.labelBox[3] + 0.5]);
        out.labelBox = [clamp(x0, img.width), clamp(y0, img.height), clamp(x1, img.width), clamp(y1, img.height)];
      }
      if (c.holderQuad) out.holderQuad = c.holderQuad.map(toImage) as Quad;
      cards.push({ card: out, strong: c.strong, ...(alternate ? { alternate } : {}) });
    }
    return cards;
  }

  /**
   * Whether an outline the detector did not place holds a card, by the verifier's probability and
   * the threshold every detected card must pass: a whole image read as a card (a scan cropped to it).
   */
  async verifyOutline(img: RgbPixels, quad: Quad): Promise<{ prob: number; card: boolean }> {
    const [prob] = await this.verifier.verify(img, [quad]);
    return { prob: prob!, card: prob! >= this.limits.minVerified };
  }

  /**
   * Where the photo gave no card (none from the card map, or every one refused), its corner map's
   * card-shaped quadrilaterals (card-detector-maps.ts `cornerQuads`), each placed and
   * shape-checked as any card; the best the verifier gives {@link MIN_SECOND_LOOK} or more is the
   * card. Its `prob` is the quadrilateral's score (mean corner peak times the card map's mean over
   * it), as a map card's is its centre and corner evidence. The card map runs into a
   * textured table (grass, wood grain, a product box) while the corners still show. At the
   * detector's own 0.85 it found 2 more false cards in 450 Caltech photos, hence the stricter
   * threshold (docs/card-detector.md "Second look").
   */
  private async secondLook(img: RgbPixels, m: Awaited<ReturnType<CardDetector['maps']>>): Promise<Candidate[]> {
    const toImage = toPhoto(m, [0, 0]);
    const placed: Candidate[] = [];
    for (const { quad, score } of cornerQuads(m.maps, m.validW, m.validH)) {
      const p = await this.placed(img, quad.map(toImage) as Quad);
      if (p && aspectError(p.quad) <= MAX_SHAPE_ERROR) placed.push({ card: { quad: p.quad, prob: Math.round(score * 1000) / 1000, kind: 'raw', spread: p.spread }, strong: false });
    }
    const p = await this.verifier.verify(img, placed.map((c) => c.card.quad));
    return placed
      .map((c, k) => ({ ...c, card: { ...c.card, verified: p[k]! } }))
      .filter((c) => c.card.verified! >= this.strict)
      .sort(surestFirst)
      .slice(0, 1);
  }

  /**
   * The verifier looks again at each card: an art box or a card with the table around it is not
   * one. A card it refuses that has a centre outline is replaced by that one when it gives it
   * {@link MIN_SECOND_LOOK} or more, as for any outline the card map did not give.
   */
  private async verified(img: RgbPixels, cards: Candidate[]): Promise<Candidate[]> {
    const least = (c: Candidate) => (c.fromCentre ? this.strict : this.limits.minVerified);
    const p = await this.verifier.verify(img, cards.map((c) => c.card.quad));
    const judged = cards.map((c, k) => ({ ...c, card: { ...c.card, verified: p[k]! } }));
    const retried: { k: number; card: DetectedCard }[] = [];
    for (const [k, c] of judged.entries()) {
      const alt = c.card.verified < least(c) && c.alternate ? await c.alternate() : null;
      if (alt) retried.push({ k, card: alt });
    }
    if (retried.length) {
      const q = await this.verifier.verify(img, retried.map((r) => r.card.quad));
      retried.forEach((r, i) => (judged[r.k] = { card: { ...r.card, verified: q[i]! }, strong: false, fromCentre: true }));
    }
    return judged.filter((c) => c.card.verified >= least(c));
  }

  /**
   * A rough outline's corners placed by the refiner, then each side fitted to the photo's colour
   * steps; null when the refiner doubts the corners more than the limit.
   */
  private async placed(img: RgbPixels, rough: Quad): Promise<{ quad: Quad; spread: DetectedCard['spread'] } | null> {
    const r = await this.refiner.refine(img, rough);
    if (r.spread.reduce((a, b) => a + b, 0) / 4 > this.limits.maxSpread) return null;
    return { quad: fitCardEdges(img, r.quad).quad, spread: r.spread };
  }

  /**
   * A card whose outline is off the card's shape has mostly run past the card on one side
   * (its map ran into the table; the refiner, reaching 14 % either way, was sure of a corner
   * there). It is placed again from each side in turn: the side kept, the opposite one where a
   * card as wide ends, then refined and fitted. The verifier's best of those more card-shaped
   * replaces the first when it scores at least as much, so no card is kept that was not
   * (docs/card-detector.md "Restarts").
   */
  private async restarted(img: RgbPixels, first: DetectedCard): Promise<DetectedCard> {
    const tries: { quad: Quad; spread: DetectedCard['spread'] }[] = [];
    for (const start of cardShapedFromEachSide(first.quad)) {
      const placed = await this.placed(img, start);
      if (placed && aspectError(placed.quad) < aspectError(first.quad)) tries.push(placed);
    }
    if (!tries.length) return first;
    const p = await this.verifier.verify(img, tries.map((t) => t.quad));
    let best = -1;
    p.forEach((v, k) => {
      if (v >= first.verified! && (best < 0 || v > p[best]!)) best = k;
    });
    return best < 0 ? first : { ...first, quad: tries[best]!.quad, spread: tries[best]!.spread, verified: p[best]! };
  }

  /**
   * Issue 17's first way of placing corners: the network's outline fitted to the photo's edges,
   * the classical outline search in the card's region, or over the whole photo, whichever
   * outline best covers the card's map pixels (the search's winning near-ties).
   */
  private async searched(img: RgbPixels, rough: Quad, whole: Quad | null, c: MapCard, toMap: (p: Point) => Point): Promise<Quad> {
    const { cv } = await loadCv();
    const candidates: { quad: Quad; bonus: number }[] = [{ quad: fitCardEdges(img, rough).quad, bonus: 0 }];
    const searched = searchAround(cv, img, rough);
    if (searched) candidates.push({ quad: searched, bonus: NEAR_TIE });
    if (whole) candidates.push({ quad: whole, bonus: NEAR_TIE });
    let best = candidates[0]!;
    let bestScore = -1;
    for (const k of candidates) {
      const score = overlap(k.quad.map(toMap), c.pixels) + k.bonus;
      if (score > bestScore) {
        bestScore = score;
        best = k;
      }
    }
    return best.quad;
  }
}

/**
 * The classical outline search (card-geometry.ts) run on the card's own region only: it places
 * edges to a fraction of a pixel where it finds the card, and the region keeps it from choosing
 * another rectangle in the photo.
 */
function searchAround(cv: Awaited<ReturnType<typeof loadCv>>['cv'], img: RgbPixels, rough: Quad): Quad | null {
  const xs = rough.map((p) => p[0]);
  const ys = rough.map((p) => p[1]);
  const pad = Math.min(...sideLengths(rough)) * 0.12;
  const x0 = Math.max(0, Math.floor(Math.min(...xs) - pad));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) - pad));
  const x1 = Math.min(img.width, Math.ceil(Math.max(...xs) + pad));
  const y1 = Math.min(img.height, Math.ceil(Math.max(...ys) + pad));
  if (x1 - x0 < 32 || y1 - y0 < 32) return null;
  const found = locateCard(cv, cropRgb(img, x0, y0, x1 - x0, y1 - y0));
  return found ? (found.quad.map(([x, y]) => [x + x0, y + y0] as Point) as Quad) : null;
}

/** From pixels of a map set (the whole photo's, or a tile's at `offset`) to pixels of the photo. */
function toPhoto(m: { scaleX: number; scaleY: number }, offset: Point): (p: Point) => Point {
  return (p) => [(p[0] + 0.5) / m.scaleX - 0.5 + offset[0], (p[1] + 0.5) / m.scaleY - 0.5 + offset[1]];
}

const clamp = (v: number, max: number) => Math.round(Math.max(0, Math.min(max, v)));

/**
 * Two card-shaped starts for an outline off the card's shape: each side it cannot have run past
 * kept in turn (both short sides of an outline too long, both long sides of one too square), the
 * opposite side placed along the two adjacent sides' directions where a 63:88 card as long as the
 * kept side ends. Corners stay in the outline's order.
 */
export function cardShapedFromEachSide(q: Quad): Quad[] {
  const [across, along] = sideLengths(q);
  // which pair of sides is the card's short one
  const shortAcross = across <= along;
  // an outline too long for a card ran on past a short side: each short side is kept in turn;
  // one too square ran on past a long side: each long side is
  const tooLong = Math.min(across, along) / Math.max(across, along) < CARD_ASPECT;
  const out: Quad[] = [];
  for (let k = 0; k < 4; k++) {
    // sides 0 and 2 run across (upper, lower), 1 and 3 along
    const keptIsShort = (k % 2 === 0) === shortAcross;
    if (keptIsShort !== tooLong) continue;
    const a = q[k]!;
    const b = q[(k + 1) % 4]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const depth = keptIsShort ? len / CARD_ASPECT : len * CARD_ASPECT;
    // the adjacent sides leave a and b towards the far side: b -> q[k+2], a -> q[k+3]
    const c = q[(k + 2) % 4]!;
    const d = q[(k + 3) % 4]!;
    const unit = (from: Point, to: Point): Point => {
      const n = Math.hypot(to[0] - from[0], to[1] - from[1]) || 1;
      return [(to[0] - from[0]) / n, (to[1] - from[1]) / n];
    };
    const ub = unit(b, c);
    const ua = unit(a, d);
    const quad = [...q] as Quad;
    quad[(k + 2) % 4] = [b[0] + ub[0] * depth, b[1] + ub[1] * depth];
    quad[(k + 3) % 4] = [a[0] + ua[0] * depth, a[1] + ua[1] * depth];
    out.push(quad);
  }
  return out;
}
