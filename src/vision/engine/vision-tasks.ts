import type { MessagePort } from 'node:worker_threads';
import type { visionModels } from '../../config/config.ts';
import type { Centering } from '../grading/card-centering.ts';
import type { Surface } from '../grading/card-surface.ts';
import type { CardWear } from '../grading/card-wear.ts';
import type { DominantColor } from '../models/dominant-colors.ts';
import type { Detection, Pose } from '../models/human-detector.ts';
import type { OcrLine } from '../models/ocr-reader.ts';
import type { Observed, SeenPart } from '../../text-search/seen-tokens.ts';
import type { Item, ItemDomain } from '../fashion/item-regions.ts';
import type { BorderLook } from '../recognition/card-border.ts';
import type { LayoutLook } from '../recognition/card-layout.ts';

/** What runs in the vision workers. Shared by the worker and the engine that posts to it. */
export type ModelName = (typeof visionModels)[number];
/**
 * `colors` needs no model, but its pixel work belongs off the event loop too. `index` is what a
 * collection insert runs: the descriptor (as `embed`) and what text search indexes (plan §2.2).
 */
export type ImageTaskKind = ModelName | 'colors' | 'index' | 'item';

export interface ImageTaskOptions {
  /** OCR language hint (`auto`, `en`, `zh`; see ocr-language.ts). */
  language?: string;
  /** Dominant colors of this region only (`colors`), or the item drawn by the client (`item`); `[xmin, ymin, xmax, ymax]` in pixels of the image as stored. */
  boundBox?: [number, number, number, number];
  /**
   * `item`: the box was drawn by the client, not copied from the server's own answer (a detector's box, tight): it may
   * lie inside the item, so its colours' background drop must leave a quarter of it (dominant-colors.ts, h281).
   */
  drawn?: boolean;
  maxColors?: number;
  /** `index` and `item`: what to look for besides the descriptor (all when absent). */
  seen?: SeenPart[];
  /** `item`: the collection's kind of items (default fashion). */
  domain?: ItemDomain;
  /** `item`: the item names the record's categories ask for (the largest of them is chosen). */
  wanted?: string[];
  /** `faces`: look in tiles too, for faces small in a large photo (HumanDetector.facesInTiles). */
  tiles?: boolean;
  /** `objects`: the people `/identity/v2/person` answers, and nothing else (HumanDetector.persons). */
  persons?: boolean;
  /**
   * `embed`, `index` and `item`: also a JPEG thumbnail of this long edge (px), made from the pixels the descriptor was
   * decoded to (a collection record's picture in the console, LOUPE_RECORD_THUMBNAILS).
   */
  thumbnail?: number;
}

export interface ImageTask {
  kind: ImageTaskKind;
  /** The encoded image (JPEG, PNG…), transferred to the worker, which decodes it. */
  image: ArrayBuffer;
  maxPixels: number;
  options?: ImageTaskOptions;
}

/** Super-resolution of a whole image (the upscaler); runs in the engine's long-task pool. */
export interface UpscaleTask {
  kind: 'upscale';
  image: ArrayBuffer;
  maxPixels: number;
  factor: 2 | 3 | 4 | 8;
  /** Pixels of the upscaled image at most; a larger result is refused (413) before any work. */
  maxOutputPixels: number;
}

export interface UpscaleResult extends ImageSize {
  upscaledWidth: number;
  upscaledHeight: number;
  model: string;
  /** The encoded result: PNG when the input was PNG or had transparency, else JPEG. */
  image: ArrayBuffer;
  format: 'png' | 'jpg';
  /** The input's frames when it was animated: only the first is upscaled, which the record's status says. */
  frames?: number;
}

export type CardOp = 'localize' | 'crop_level' | 'centering' | 'grade' | 'read' | 'artwork' | 'label';

/** Card grading (card-tasks.ts): localize, crop_level, centering or the full measurement of one photo; or `read`: every card's text, for recognition. */
export interface CardTask {
  kind: 'card';
  image: ArrayBuffer;
  maxPixels: number;
  op: CardOp;
  /**
   * `labelSearch` (`read`): when no grading label stands beside the largest card, look for one in
   * the whole image as `label` does (recognition's slab options); `no-card`: only when no card was
   * found (`/card_ocr_id`, which answers for the largest slab label too, pays nothing more on a card).
   */
  /**
   * `everyCard` (`read`): every card's text is read (up to {@link MAX_READ_CARDS}), for `analyze_all`;
   * without it only the largest card's, the others listed unread: what every other recognition answers for.
   */
  /**
   * `names` (`read`, default true): a misread name line is looked at for the Pokémon species' names
   * (name-lexicon.ts); false where no Pokémon catalog is searched, whose reading the look would only slow
   * (a Magic name line of 16–23 letters read in about 40 ms, looked at in about 60 more).
   */
  /**
   * `preview`: also a JPEG of this long edge (px) of the photo as decoded, whatever the op and whether a card is found
   * (an asynchronous request's preview, LOUPE_REQUEST_PREVIEWS).
   */
  options: { transparent?: boolean; skipLocation?: boolean; noImageOutput?: boolean; level?: boolean; side?: 'front' | 'back'; locator?: 'detector' | 'classical'; labelSearch?: boolean | 'no-card'; everyCard?: boolean; names?: boolean; preview?: number };
}

export interface CardResult extends ImageSize {
  found: boolean;
  /**
   * Why the card found cannot be measured (too few pixels across it, or a given outline that is
   * not card-shaped): the record's 422, with this sentence. Only set when `found`.
   */
  unfit?: string;
  /** Corners in pixels of the image as stored: upper-left, upper-right, down-right, down-left. */
  quad?: [[number, number], [number, number], [number, number], [number, number]];
  /** The card was measured turned over: its text read upside down as the photo shows it (measuring ops only). */
  turnedOver?: boolean;
  prob?: number;
  /**
   * Every card the detector found, largest first (the first is `quad`, the one measured): its
   * corners in pixels of the image as stored, confidence, kind (`raw`, `holder` for a sleeve or
   * top-loader, `slab`) and a slab's label box. Absent when the client gave the outline.
   */
  cards?: { quad: [[number, number], [number, number], [number, number], [number, number]]; prob: number; kind: 'raw' | 'holder' | 'slab'; labelBox?: [number, number, number, number] }[];
  versions: Record<string, string>;
  centering?: Centering & { grade: number; uprightWidth: number; uprightHeight: number };
  centeringUnmeasurable?: string;
  /**
   * `read`: the text of each card read (card-reading.ts), in the order of `cards`, at most
   * {@link MAX_READ_CARDS}; `whole` when no card was found and the image itself, card-shaped, was
   * read as the card (a scan cropped to the card).
   */
  readings?: { index: number; cardWidth: number; rotation: 0 | 180; art: [string, string]; border: BorderLook | null; layout: LayoutLook | null; lines: { text: string; prob: number; box: { x0: number; y0: number; x1: number; y1: number }; spotted?: { text: string; word: string; outside: number }; polygon: [number, number][] }[] }[];
  whole?: boolean;
  /** The narrowest card read, in the stored image's pixels ({@link MIN_READ_CARD_PIXELS} where it was read, scaled). */
  minReadWidth?: number;
  /**
   * With `whole` (not asked for by the client): whether the verifier takes the image's frame for a
   * card's outline. When not, the image was read whole only because it is card-shaped and no card
   * was found in it, and the services report no card unless its text identified one.
   */
  wholeIsCard?: boolean;
  /** `artwork`: the artwork hash of the card (recognition/card-artwork.ts), a reference scan's. */
  artwork?: string;
  /**
   * `read` and `label`: the grading label read beside the largest card (a slab's), in pixels of the
   * image as stored; `label` (and `read` with `labelSearch`) also finds one with no card beside it
   * (slab-label.ts `searchSlabLabel`). `label` returns `found` (a label was read), `cards` and this.
   */
  label?: { company: string | null; box: [number, number, number, number]; lines: { text: string; prob: number; polygon: [number, number][] }[] };
  /** `grade`: corner (UL, UR, DR, DL) and edge (upper, right, down, left) wear, and the surface. */
  wear?: CardWear;
  surface?: Surface;
  /** Encoded pictures: `crop` WebP (crop_level); `clean`, `exact` and `full` JPEG. */
  images?: { crop?: ArrayBuffer; clean?: ArrayBuffer; exact?: ArrayBuffer; full?: ArrayBuffer };
  /** With the `preview` option: the whole photo as a JPEG of `width` × `height` px (the stored photo's pixels scaled). */
  preview?: { jpeg: ArrayBuffer; width: number; height: number };
}

/** Most cards of one photo whose text is read (a binder page holds 9). */
export const MAX_READ_CARDS = 12;
/** The narrowest card (px across) read for recognition: a collector number on a card 120 px across is 2 px tall. */
export const MIN_READ_CARD_PIXELS = 120;

export type VisionTask =
  | ImageTask
  | UpscaleTask
  | CardTask
  /** Loads the given models (all when omitted) and runs each once, so the first request is not slow. */
  | { kind: 'warm'; models: readonly string[] }
  /** The text tower of the active CLIP-family pack (text-to-image search). */
  | { kind: 'text'; text: string }
  | OcrShareTask;

/**
 * OCR of one picture another worker's task would otherwise read itself, run by an idle worker
 * (shared-reads.ts). `claim` is one Int32 both workers race for with a compare-and-swap: 0
 * unclaimed, 1 taken here, 2 taken back by the asking worker (which then reads it itself).
 */
export interface OcrShareTask {
  kind: 'ocr-share';
  pixels: ArrayBuffer;
  width: number;
  height: number;
  language?: string;
  claim: SharedArrayBuffer;
}

/**
 * Posted by a worker whose task has a picture to read that an idle worker could read meanwhile;
 * the engine answers on `port` with `{ lines }` or `{ error }` if it runs the task, or closes
 * the port when no worker is idle.
 */
export interface ShareRequest {
  loupeShare: Omit<OcrShareTask, 'kind'>;
  port: MessagePort;
}

export interface TextEmbedding {
  vector: number[];
  model: string;
}

/**
 * Test hook, honoured only when the pool runs with `testHooks`: a worker given image bytes that end
 * with this marker exits mid-task, as a worker killed by a native crash or the OOM killer would.
 */
export const crashMarker = 'LOUPE-TEST-CRASH';

/**
 * Test hook, honoured only with `testHooks`: image bytes that end with `busyMarker(ms)` hold the
 * worker for `ms` (its thread blocked, as in a long model run) and then give an empty result,
 * without decoding anything.
 */
export const busyMarker = (ms: number): string => `LOUPE-TEST-BUSY-${String(Math.round(ms)).padStart(6, '0')}`;

/**
 * A task as posted to the pool: `taskId` names it in the progress messages the worker posts, so
 * the engine times only the worker's work, never the queue (see vision-engine.ts).
 */
export type PostedTask = VisionTask & { taskId?: number };

/** Posted by a worker (piscina relays it as a pool 'message'): task `loupeTask` entered `phase`. */
export interface TaskProgress {
  loupeTask: number;
  /** `load`: the worker took the task and loads the models it needs; `work`: they are ready. */
  phase: 'load' | 'work';
}

/** What a worker answers: the task's result and the time its work took, model loading excluded. */
export interface TaskDone {
  value: unknown;
  workMs: number;
}

/** Size of the image as stored (EXIF orientation applied); results are in these pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/** `thumbnail`: the JPEG asked for with the `thumbnail` option. */
interface Thumbnailed {
  thumbnail?: ArrayBuffer;
}

export interface ImageTaskResults {
  /** `hash`: the `bmh1` visual hash of the pixels the descriptor describes. */
  embed: ImageSize & Thumbnailed & { descriptor: number[]; model: string; hash?: string };
  faces: ImageSize & { objects: Detection[] };
  objects: ImageSize & { objects: Detection[] };
  pose: ImageSize & { poses: Pose[] };
  ocr: ImageSize & { lines: OcrLine[] };
  colors: ImageSize & { colors: DominantColor[] };
  index: ImageSize & Thumbnailed & { descriptor: number[]; model: string; hash?: string; observed: Observed };
  /** `chosen` is described by `descriptor` and `colors`; `whole`: the categories named no item found, so the whole image stands in. */
  item: ImageSize & Thumbnailed & { descriptor: number[]; model: string; hash?: string; items: Item[]; chosen: Item; whole: boolean; colors: DominantColor[]; observed: Observed };
}

/**
 * An image the worker could not decode comes back as a value, not a thrown error: errors lose
 * their class crossing threads, and this one must stay the record's own 400/413.
 */
export interface ImageRefused {
  refused: { reason: string; status: 400 | 413; code: 'invalid_image' | 'unsupported_image_format' | 'image_too_large' | 'too_large_to_process' };
}

export type TaskOutcome<K extends ImageTaskKind> = ImageTaskResults[K] | ImageRefused;
