import { parentPort, workerData } from 'node:worker_threads';
import sharp from 'sharp';
import { decodeRgb, type RgbImage } from '../../media/decode-rgb.ts';
import { isHeic } from '../../media/heic-decode.ts';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { embedderNames, loadEmbedder, type Embedder, type EmbedderName } from '../models/embedding-models.ts';
import { ClipModel } from '../clip/clip-model.ts';
import { deltaE, dominantColors, DRAWN_BOX_MIN_OBJECT, type DominantColor } from '../models/dominant-colors.ts';
import { boxArea, chooseItem, colorRegion, detectedItems, poseRegions, withWholeImage, type Item } from '../fashion/item-regions.ts';
import { faceMinProb, objectMinProb, ocrMinProb, seenParts, type Observed, type SeenColor, type SeenPart } from '../../text-search/seen-tokens.ts';
import { HumanDetector, type Detection } from '../models/human-detector.ts';
import { loadOcrReader } from '../models/ocr-reader.ts';
import { cardDetector, runCardTask } from '../cards/card-tasks.ts';
import { readShared } from './shared-reads.ts';
import { loadCv } from '../cards/card-geometry.ts';
import { installedSpeciesLexicon } from '../recognition/name-lexicon.ts';
import { loadUpscaler, type UpscaleFactor, type Upscaler } from '../models/super-resolution.ts';
import { cropRgb } from './rgb-crop.ts';
import { visualHashes } from '../models/visual-hash.ts';
import type { RgbPixels } from './tfjs-runtime.ts';
import { busyMarker, crashMarker, type ImageRefused, type ImageTask, type ImageTaskKind, type ImageTaskResults, type ModelName, type PostedTask, type TaskDone, type TaskOutcome, type TaskProgress, type UpscaleResult, type UpscaleTask, type VisionTask } from './vision-tasks.ts';

// One worker per core: libvips must not start its own threads on top.
sharp.concurrency(1);

export interface WorkerOptions {
  embedder: string;
  /** Folder of the active CLIP-family pack: when set, its image tower makes the descriptors. */
  clipPack: string | undefined;
  testHooks: boolean;
  /** Models loaded and run once before the worker takes its first task (LOUPE_VISION_WARM). */
  warm: readonly string[];
}
const options: WorkerOptions = { embedder: '', clipPack: undefined, testHooks: false, warm: [], ...(workerData as Partial<WorkerOptions> | undefined) };

/** The one interface descriptors need, whichever model is behind it. */
interface ImageEmbedder {
  name: string;
  embed(img: RgbPixels): Promise<Float32Array>;
}

/** Each model loads once per worker, on first use or at warm-up. */
const models = new Map<string, Promise<unknown>>();
function model<T>(name: ModelName | 'clip' | `upscale-x${UpscaleFactor}`, load: () => Promise<T>): Promise<T> {
  let m = models.get(name) as Promise<T> | undefined;
  if (!m) {
    m = load();
    // A failed load is retried by the next task rather than cached as a permanent failure.
    m.catch(() => models.delete(name));
    models.set(name, m);
  }
  return m;
}
const clip = () => model('clip', () => ClipModel.load(options.clipPack!));
const embedder = () =>
  model<ImageEmbedder>('embed', async () => {
    if (options.clipPack) {
      const pack = await clip();
      // The fingerprint names the vector space: two packs with one name are still told apart.
      return { name: `clip:${pack.name}:${pack.fingerprint.slice(0, 12)}`, embed: (img) => pack.embedImage(img) };
    }
    if (options.embedder && !(embedderNames as readonly string[]).includes(options.embedder)) throw new Error(`unknown embedder "${options.embedder}"; known: ${embedderNames.join(', ')}`);
    return loadEmbedder((options.embedder || undefined) as EmbedderName | undefined) satisfies Promise<Embedder>;
  });
const faces = () => model('faces', () => HumanDetector.load('faces'));
const objects = () => model('objects', () => HumanDetector.load('objects'));
const pose = () => model('pose', () => HumanDetector.load('pose'));
const ocr = () => model('ocr', () => loadOcrReader({ threads: 1 }));

/**
 * The long edge each task decodes to. The detectors resize to their own input (BlazeFace 256,
 * CenterNet 512, MoveNet 192) anyway; decoding at 1024 keeps small faces and costs far less than
 * a 12-MP decode. The embedders' inputs are 224–336 px squares. OCR finds lines at 960 px but
 * reads each from the decoded image, so small print needs more; colors need few pixels.
 */
const decodeEdge: Record<Exclude<ImageTaskKind, 'index' | 'item'>, number> = { embed: 640, faces: 1024, objects: 1024, pose: 1024, ocr: 2048, colors: 320 };
/** Faces looked for in tiles are decoded larger: a photo of 1,500 px and more is then seen in 3 × 3 tiles (HumanDetector.facesInTiles). */
const tiledFacesEdge = 2048;

function scaleBoxes(found: Detection[], img: RgbImage): Detection[] {
  const sx = img.originalWidth / img.width;
  const sy = img.originalHeight / img.height;
  if (sx === 1 && sy === 1) return found;
  return found.map((d) => ({
    ...d,
    bound_box: [Math.round(d.bound_box[0] * sx), Math.round(d.bound_box[1] * sy), Math.round(d.bound_box[2] * sx), Math.round(d.bound_box[3] * sy)],
  }));
}

/** The region `box` (pixels of the stored image) of the decoded pixels; at least 1×1. */
function crop(pixels: RgbPixels, img: RgbImage, box: [number, number, number, number]): RgbPixels {
  const sx = img.width / img.originalWidth;
  const sy = img.height / img.originalHeight;
  const x0 = Math.max(0, Math.min(img.width - 1, Math.floor(box[0] * sx)));
  const y0 = Math.max(0, Math.min(img.height - 1, Math.floor(box[1] * sy)));
  const x1 = Math.max(x0 + 1, Math.min(img.width, Math.ceil(box[2] * sx)));
  const y1 = Math.max(y0 + 1, Math.min(img.height, Math.ceil(box[3] * sy)));
  return cropRgb({ data: pixels.data, width: img.width, height: img.height }, x0, y0, x1 - x0, y1 - y0);
}

const scalePoint = (img: RgbImage, [x, y]: [number, number]): [number, number] => [Math.round((x * img.originalWidth) / img.width), Math.round((y * img.originalHeight) / img.height)];

const busyPrefix = busyMarker(0).slice(0, -6);

async function runImageTask(task: ImageTask): Promise<TaskOutcome<ImageTaskKind>> {
  if (options.testHooks) {
    const tail = Buffer.from(task.image).subarray(-busyMarker(0).length).toString('latin1');
    if (tail.endsWith(crashMarker)) process.exit(70);
    if (tail.startsWith(busyPrefix)) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(tail.slice(busyPrefix.length)));
      return { width: 0, height: 0, objects: [], poses: [], lines: [], colors: [], descriptor: [], model: 'busy' } as TaskOutcome<ImageTaskKind>;
    }
  }
  let img: RgbImage;
  try {
    if (task.kind === 'index') return await runIndexTask(task);
    if (task.kind === 'item') return await runItemTask(task);
    img = await decodeRgb(Buffer.from(task.image), task.maxPixels, { maxEdge: task.kind === 'faces' && task.options?.tiles ? tiledFacesEdge : decodeEdge[task.kind] });
  } catch (err) {
    if (err instanceof ImageLoadError && err.code !== 'invalid_base64') return { refused: { reason: err.reason, status: err.status, code: err.code } } satisfies ImageRefused;
    throw err;
  }
  const pixels: RgbPixels = { data: img.data, width: img.width, height: img.height };
  const size = { width: img.originalWidth, height: img.originalHeight };
  switch (task.kind) {
    case 'embed': {
      const e = await embedder();
      const box = task.options?.boundBox;
      const seen = box ? crop(pixels, img, box) : pixels;
      return { ...size, descriptor: Array.from(await e.embed(seen)), model: e.name, hash: hashOf(seen), ...(await thumbnailOf(img, task.options?.thumbnail)) };
    }
    case 'faces': {
      const detector = await faces();
      return { ...size, objects: scaleBoxes(await (task.options?.tiles ? detector.facesInTiles(pixels) : detector.facesFound(pixels)), img) };
    }
    case 'objects': {
      const detector = await objects();
      return { ...size, objects: scaleBoxes(await (task.options?.persons ? detector.persons(pixels) : detector.objects(pixels)), img) };
    }
    case 'ocr': {
      const lines = await (await ocr()).read(pixels, { language: task.options?.language });
      return { ...size, lines: lines.map((l) => ({ ...l, polygon: l.polygon.map((p) => scalePoint(img, p)) })) };
    }
    case 'colors': {
      const box = task.options?.boundBox;
      const boundBox = box ? regionOf(img, box) : undefined;
      return { ...size, colors: dominantColors(pixels, { ...(boundBox ? { boundBox, minObjectShare: DRAWN_BOX_MIN_OBJECT } : {}), ...(task.options?.maxColors ? { maxColors: task.options.maxColors } : {}) }) };
    }
    case 'pose': {
      const found = await (await pose()).pose(pixels);
      const sx = img.originalWidth / img.width;
      const sy = img.originalHeight / img.height;
      return {
        ...size,
        poses: found.map((p) => ({
          ...p,
          bound_box: scaleBoxes([{ name: 'person', prob: p.prob, bound_box: p.bound_box }], img)[0]!.bound_box,
          keypoints: p.keypoints.map((k) => ({ ...k, x: Math.round(k.x * sx), y: Math.round(k.y * sy) })),
        })),
      };
    }
  }
}

/** Pixels of a region given in pixels of the stored image, as `dominantColors` takes it. */
function regionOf(img: RgbImage, box: [number, number, number, number]): [number, number, number, number] {
  const sx = img.width / img.originalWidth;
  const sy = img.height / img.originalHeight;
  return [Math.floor(box[0] * sx), Math.floor(box[1] * sy), Math.ceil(box[2] * sx), Math.ceil(box[3] * sy)];
}

/**
 * Text search ranks colour words by the whole image's colours with a backdrop at half weight
 * (docs/text-search.md): dropped whole, a small object on white was never "white"; kept whole,
 * every product shot would be.
 */
const WHOLE_IMAGE_BACKGROUND_KEPT = 0.5;
const seenColor = (c: DominantColor): SeenColor => ({ luv: c.luv, share: c.percentage / 100, name: c.name });
const rgbOf = (img: RgbImage): RgbPixels => ({ data: img.data, width: img.width, height: img.height });

/**
 * A collection insert's work on one image: the descriptor exactly as `embed` makes it (same
 * decode), and what text search indexes: objects, faces where a person was seen (BlazeFace costs
 * about 80 ms, wasted on product shots), the colours of the image and of its three largest
 * objects, and OCR text. Each part decodes at the size its own task kind uses, so its results
 * equal that task's.
 */
async function runIndexTask(task: ImageTask): Promise<ImageTaskResults['index']> {
  const bytes = Buffer.from(task.image);
  const small = await decodeRgb(bytes, task.maxPixels, { maxEdge: decodeEdge.embed });
  const e = await embedder();
  const descriptor = Array.from(await e.embed(rgbOf(small)));
  const { observed } = await observe(bytes, task.maxPixels, new Set<SeenPart>(task.options?.seen ?? seenParts), small);
  return { width: small.originalWidth, height: small.originalHeight, descriptor, model: e.name, hash: hashOf(rgbOf(small)), observed, ...(await thumbnailOf(small, task.options?.thumbnail)) };
}

/**
 * A JPEG of `edge` px on its long side (never enlarged) from pixels already decoded for the descriptor (640 px, EXIF
 * rotation applied, alpha flattened), so the thumbnail costs a resize and an encode, no second decode: the stored
 * record's picture (h357). Quality 80, as a card session's thumbnail (card-image.ts).
 */
async function thumbnailOf(img: RgbImage, edge: number | undefined): Promise<{ thumbnail?: ArrayBuffer }> {
  if (!edge) return {};
  const jpeg = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 80 })
    .toBuffer();
  return { thumbnail: ownBuffer(jpeg) };
}

/** What text search records of an image (the `index` task's parts); the decoded images are kept for the item task. */
async function observe(bytes: Buffer, maxPixels: number, parts: Set<SeenPart>, small: RgbImage): Promise<{ observed: Observed; plainObjects: Observed['objects']; detectImg?: RgbImage; colorImg?: RgbImage }> {
  const decode = (edge: number) => decodeRgb(bytes, maxPixels, { maxEdge: edge });
  const observed: Observed = { width: small.originalWidth, height: small.originalHeight, parts: [...parts], objects: [], faces: [], colors: [], ocr: [] };
  let detectImg: RgbImage | undefined;
  let colorImg: RgbImage | undefined;
  let plainObjects: Observed['objects'] = [];
  if (parts.has('objects') || parts.has('faces')) {
    const img = (detectImg = await decode(decodeEdge.objects));
    if (parts.has('objects')) {
      const detector = await objects();
      const plain = await detector.objects(rgbOf(img));
      const seen = (ds: Detection[]) => scaleBoxes(ds, img).filter((d) => d.prob >= objectMinProb).map((d) => ({ name: d.name, prob: d.prob, box: d.bound_box }));
      // Text search gets the framed view too; fashion garments come from the plain view's persons.
      observed.objects = seen(parts.has('framed') ? await detector.objectsFramed(rgbOf(img), plain) : plain);
      plainObjects = seen(plain);
    }
    const person = observed.objects.some((o) => o.name === 'person');
    if (parts.has('faces') && (person || !parts.has('objects'))) {
      const found = scaleBoxes(await (await faces()).faces(rgbOf(img)), img);
      observed.faces = found.filter((d) => d.prob >= faceMinProb).map((d) => ({ prob: d.prob, box: d.bound_box }));
    }
  }
  if (parts.has('colors')) {
    const img = (colorImg = await decode(decodeEdge.colors));
    observed.colors = dominantColors(rgbOf(img)).map(seenColor);
    observed.scene = dominantColors(rgbOf(img), { backgroundKept: WHOLE_IMAGE_BACKGROUND_KEPT }).map(seenColor);
    const area = (b: [number, number, number, number]) => (b[2] - b[0]) * (b[3] - b[1]);
    const largest = [...observed.objects].sort((a, b) => area(b.box) - area(a.box)).slice(0, 3);
    for (const o of largest) o.colors = dominantColors(rgbOf(img), { boundBox: regionOf(img, o.box), maxColors: 3 }).map(seenColor);
  }
  if (parts.has('ocr')) {
    const img = await decode(decodeEdge.ocr);
    observed.ocr = (await (await ocr()).read(rgbOf(img))).filter((l) => l.prob >= ocrMinProb).map((l) => ({ text: l.text, prob: l.prob }));
  }
  return { observed, plainObjects, ...(detectImg ? { detectImg } : {}), ...(colorImg ? { colorImg } : {}) };
}

/** Colours of two regions name the same garment when their main colours are this close (ΔE*uv). */
const sameGarmentDelta = 15;
const maxPersons = 3;

/**
 * Fashion and home-decor collections (plan §3): the items of the image (garment regions from
 * the pose of the three largest persons, accessories or furniture from CenterNet, else the whole
 * image), the one chosen (a drawn box, the largest of the wanted kinds, or the largest), its
 * descriptor and colours, and what text search records. A person whose upper and lower body share
 * their main colour wears one garment (dress, jumpsuit): full body; otherwise upper and lower.
 */
async function runItemTask(task: ImageTask): Promise<ImageTaskResults['item']> {
  const bytes = Buffer.from(task.image);
  const o = task.options ?? {};
  const domain = o.domain ?? 'fashion';
  const small = await decodeRgb(bytes, task.maxPixels, { maxEdge: decodeEdge.embed });
  // Items come from both views whatever text search records (LOUPE_SEEN): a query, which records
  // nothing, found other items in a photo than its insert did (h141: a potted plant filling the
  // frame was stored as one, and the same photo as a query searched a vase).
  const parts = new Set<SeenPart>([...(o.seen ?? seenParts), 'objects', 'framed', 'colors']);
  const seen = await observe(bytes, task.maxPixels, parts, small);
  const detectImg = seen.detectImg!;
  const colorImg = seen.colorImg!;
  const W = small.originalWidth;
  const H = small.originalHeight;
  const asDetections = (xs: Observed['objects']) => xs.map((x) => ({ name: x.name, prob: x.prob, bound_box: x.box }));
  // Accessories and furniture from both views (a product photo fills the frame); persons, whose
  // pose gives the garments, from the plain view only (docs/models.md, "Framed view").
  const detections = asDetections(seen.plainObjects);
  const found: Item[] = detectedItems(asDetections(seen.observed.objects), domain);
  if (domain === 'fashion') {
    const persons = detections.filter((d) => d.name === 'person').sort((a, b) => boxArea(b.bound_box) - boxArea(a.bound_box)).slice(0, maxPersons);
    for (const p of persons) {
      const crop0 = crop(rgbOf(detectImg), detectImg, p.bound_box);
      const poses = await (await pose()).pose(crop0);
      const best = poses[0];
      if (!best) continue;
      const sx = detectImg.originalWidth / detectImg.width;
      const sy = detectImg.originalHeight / detectImg.height;
      const ox = Math.floor(p.bound_box[0] * (detectImg.width / detectImg.originalWidth));
      const oy = Math.floor(p.bound_box[1] * (detectImg.height / detectImg.originalHeight));
      const keypoints = best.keypoints.map((k) => ({ ...k, x: (k.x + ox) * sx, y: (k.y + oy) * sy }));
      const regions = poseRegions(keypoints, round3(Math.min(best.prob, p.prob)), W, H, p.bound_box);
      const upper = regions.find((r) => r.name === 'upper body');
      const lower = regions.find((r) => r.name === 'lower body');
      let oneGarment = false;
      if (upper && lower) {
        const a = dominantColors(rgbOf(colorImg), { boundBox: regionOf(colorImg, upper.box), maxColors: 3 })[0];
        const b = dominantColors(rgbOf(colorImg), { boundBox: regionOf(colorImg, lower.box), maxColors: 3 })[0];
        oneGarment = Boolean(a && b && deltaE(a.luv, b.luv) < sameGarmentDelta);
      }
      found.push(...regions.filter((r) => (r.name === 'full body' ? oneGarment : r.name === 'upper body' || r.name === 'lower body' ? !oneGarment : true)));
    }
  }
  const items = withWholeImage(found, W, H);
  let chosen: Item;
  let whole = false;
  if (o.boundBox) chosen = { name: 'item', prob: 1, box: o.boundBox };
  else {
    const pick = chooseItem(items, o.wanted, W * H);
    whole = !pick;
    chosen = pick ?? { name: 'item', prob: 1, box: [0, 0, W, H] };
  }
  const e = await embedder();
  const itemPixels = crop(rgbOf(small), small, chosen.box);
  const descriptor = Array.from(await e.embed(itemPixels));
  const region = o.boundBox ? { box: chosen.box, keepBackground: false } : colorRegion(chosen);
  // a box the client drew (not a copy of a detector's) may lie inside the garment: a drop must leave a quarter of it (h281)
  const colors = dominantColors(rgbOf(colorImg), { boundBox: regionOf(colorImg, region.box), excludeBackground: !region.keepBackground, ...(o.boundBox && o.drawn ? { minObjectShare: DRAWN_BOX_MIN_OBJECT } : {}) });
  const observed = { ...seen.observed, parts: [...(o.seen ?? seenParts)] };
  return { width: W, height: H, descriptor, model: e.name, hash: hashOf(itemPixels), items, chosen, whole, colors, observed, ...(await thumbnailOf(small, o.thumbnail)) };
}

/** The `bmh1` visual hash of what the descriptor describes: near duplicates are told by either (docs/api-decisions.md `nearDuplicates`). */
function hashOf(pixels: RgbPixels): string {
  return visualHashes(pixels.data, pixels.width, pixels.height, 3, ['bmh1']).bmh1!;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

async function runUpscale(task: UpscaleTask): Promise<UpscaleResult | ImageRefused> {
  let img: RgbImage;
  try {
    img = await decodeRgb(Buffer.from(task.image), task.maxPixels);
  } catch (err) {
    if (err instanceof ImageLoadError && err.code !== 'invalid_base64') return { refused: { reason: err.reason, status: err.status, code: err.code } };
    throw err;
  }
  const f = task.factor;
  if (img.width * f * img.height * f > task.maxOutputPixels) {
    const limit = Math.floor(Math.sqrt(task.maxOutputPixels / (f * f)));
    return { refused: { reason: `the image is ${img.width}x${img.height}; upscaling it ${f}x would pass ${task.maxOutputPixels} pixels (about ${limit}x${limit} is the largest input)`, status: 413, code: 'too_large_to_process' } };
  }
  const up = await model<Upscaler>(`upscale-x${f}`, () => loadUpscaler(f));
  const out = await up.upscale({ data: img.data, width: img.width, height: img.height });
  const meta = await sharp(Buffer.from(task.image)).metadata();
  // transparency comes back, scaled as the picture was (the model sees colours only): a cut-out card upscaled came back
  // on an opaque colour and could no longer be graded as `transparent` (h257, PNG); a WebP, GIF, TIFF or AVIF cut-out
  // came back a JPEG on white until h340. An iPhone's HEIC has no alpha sharp could decode (no HEVC decoder).
  // A GIF always decodes with an alpha channel: only one that shows through makes a non-PNG input's result a PNG.
  const alpha = meta.hasAlpha === true && !isHeic(meta) && (meta.format === 'png' || !(await sharp(Buffer.from(task.image), { limitInputPixels: task.maxPixels }).stats()).isOpaque);
  const png = meta.format === 'png' || alpha;
  let encoded = sharp(Buffer.from(out.data.buffer, out.data.byteOffset, out.data.byteLength), { raw: { width: out.width, height: out.height, channels: 3 } });
  if (alpha) {
    const channel = await sharp(Buffer.from(task.image), { limitInputPixels: task.maxPixels }).rotate().extractChannel('alpha').resize(out.width, out.height, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
    encoded = encoded.joinChannel(channel, { raw: { width: out.width, height: out.height, channels: 1 } });
  }
  const bytes = await (png ? encoded.png({ compressionLevel: 6 }) : encoded.jpeg({ quality: 92, chromaSubsampling: '4:4:4' })).toBuffer();
  return {
    width: img.width,
    height: img.height,
    upscaledWidth: out.width,
    upscaledHeight: out.height,
    model: up.model,
    image: ownBuffer(bytes),
    format: png ? 'png' : 'jpg',
    // an animated GIF or WebP came back as its first frame with a plain OK (h340)
    ...((meta.pages ?? 1) > 1 ? { frames: meta.pages } : {}),
  };
}

/** The bytes of an encoded image in an ArrayBuffer of their own, as tasks carry them. */
const ownBuffer = (bytes: Buffer): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** A small real photo-like input (a gradient with a disc) to run each model once. */
function warmImage(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><defs><linearGradient id="g"><stop offset="0" stop-color="#3a6"/><stop offset="1" stop-color="#c84"/></linearGradient></defs><rect width="320" height="240" fill="url(#g)"/><circle cx="160" cy="110" r="60" fill="#eebb99"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

/** Each model is warmed once per worker: at start-up, and again only if a warm task names another. */
const warmed = new Map<ModelName, Promise<void>>();

async function warm(requested: readonly string[]): Promise<{ warmed: (ModelName | 'card')[]; ms: number }> {
  const t0 = performance.now();
  const names = requested.filter((m): m is ModelName => m in decodeEdge && m !== 'colors');
  const card = requested.includes('card');
  if (card) await warmCard();
  for (const kind of names) {
    let done = warmed.get(kind);
    if (!done) {
      done = (async () => {
        const bytes = await warmImage();
        const image = ownBuffer(bytes);
        await runImageTask({ kind, image, maxPixels: 1_000_000 });
      })();
      // A failed warm-up is tried again by the next warm task; a request loads the model itself.
      done.catch(() => warmed.delete(kind));
      warmed.set(kind, done);
    }
    await done;
  }
  return { warmed: [...names, ...(card ? (['card'] as const) : [])], ms: Math.round(performance.now() - t0) };
}

let cardWarmed: Promise<void> | undefined;
const WARM_CARD_RUNS = 3;
/**
 * The card detector's networks, OpenCV and the text reader, loaded and run on a drawn card
 * ({@link WARM_CARD_RUNS} times): the first card request after a start (recognition, grading)
 * took 1.3 s, most of it loading them.
 */
function warmCard(): Promise<void> {
  cardWarmed ??= (async () => {
    const text = (x: number, y: number, size: number, t: string) => `<text x="${x}" y="${y}" font-family="sans-serif" font-size="${size}" font-weight="bold" fill="#111">${t}</text>`;
    // a name, an HP and a collector number: the text recogniser runs too, not only the text detector
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="960"><rect width="720" height="960" fill="#7a6a58"/><rect x="170" y="180" width="378" height="528" rx="18" fill="#f2c230"/><rect x="185" y="195" width="348" height="498" fill="#efe6d2"/>${text(195, 232, 26, 'Pikachu')}${text(460, 232, 22, '60 HP')}<rect x="192" y="250" width="334" height="230" fill="#5b8fc9"/>${text(195, 682, 14, '025/165')}</svg>`;
    const bytes = await sharp(Buffer.from(svg)).jpeg().toBuffer();
    // three times: the detector's second and third runs were still 100 and 56 ms against 113 for the
    // first (its networks and code settle over a few runs), and a first scan then paid the difference
    for (let i = 0; i < WARM_CARD_RUNS; i++) await runCardTask({ kind: 'card', image: ownBuffer(bytes), maxPixels: 1_000_000, op: 'read', options: {} }, ocr);
  })();
  cardWarmed.catch(() => (cardWarmed = undefined));
  return cardWarmed;
}

/**
 * Loads the models a task needs. The engine's timeout covers only what follows (the work on the
 * image), so a worker that loads a model on first use is not timed out for it.
 */
async function prepare(task: VisionTask): Promise<void> {
  switch (task.kind) {
    case 'embed':
      await embedder();
      break;
    case 'index':
    case 'item': {
      const parts = task.options?.seen ?? seenParts;
      if (task.kind === 'item') await pose();
      await embedder();
      if (parts.includes('objects') || task.kind === 'item') await objects();
      if (parts.includes('faces')) await faces();
      if (parts.includes('ocr')) await ocr();
      break;
    }
    case 'faces':
      await faces();
      break;
    case 'objects':
      await objects();
      break;
    case 'pose':
      await pose();
      break;
    case 'ocr':
    case 'ocr-share':
      await ocr();
      break;
    case 'text':
      if (options.clipPack) await clip();
      break;
    case 'upscale':
      await model<Upscaler>(`upscale-x${task.factor}`, () => loadUpscaler(task.factor));
      break;
    case 'card':
      await loadCv();
      await cardDetector();
      // the names a card's name line is looked for (card-reading.ts), read once here rather than in a first scan
      installedSpeciesLexicon();
      break;
    default:
    // colors needs no model; a warm task is all loading, under the model-load limit.
  }
}

const progress = (taskId: number | undefined, phase: TaskProgress['phase']) => {
  if (taskId !== undefined) parentPort?.postMessage({ loupeTask: taskId, phase } satisfies TaskProgress);
};

/** One task: says when it is taken and when its work starts, and how long that work took. */
export async function handleTask(posted: PostedTask): Promise<TaskDone> {
  const { taskId, ...task } = posted;
  progress(taskId, 'load');
  // A model that fails to load fails the task below, where it is used, with the same message.
  await prepare(task).catch(() => undefined);
  progress(taskId, 'work');
  const t0 = performance.now();
  const value = await run(task);
  return { value, workMs: performance.now() - t0 };
}

async function run(task: VisionTask): Promise<unknown> {
  switch (task.kind) {
    case 'warm':
      return warm(task.models);
    case 'text': {
      if (!options.clipPack) throw new Error('no text model: install and activate a CLIP-family pack (loupe models add)');
      const pack = await clip();
      return { vector: Array.from(await pack.embedText(task.text)), model: `clip:${pack.name}:${pack.fingerprint.slice(0, 12)}` };
    }
    case 'upscale':
      return runUpscale(task);
    case 'card':
      return runCardTask(task, ocr);
    case 'ocr-share':
      return readShared(task, ocr);
    default:
      return runImageTask(task);
  }
}

/**
 * The start-up warm-up runs while this module loads, and piscina hands a worker tasks only once it
 * has loaded: a worker that replaces one stopped for a timeout or a crash takes its first task
 * with its models ready. Before, it loaded them on that task's clock, which with a tight
 * LOUPE_VISION_TIMEOUT_MS timed it out again, and the next one, for good (issue 16); loading is
 * now also outside the timeout (`prepare`), and this keeps the first request after a replacement
 * as fast as any. A warm-up that fails or hangs does not keep the worker from serving: requests
 * then load the models themselves.
 */
const startupWarmMs = 120_000;
if (options.warm.length) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([warm(options.warm).catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, startupWarmMs)))]);
  clearTimeout(timer);
}
