import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeRequire, packageDir, tfjs, type RgbPixels, type Tf } from '../engine/tfjs-runtime.ts';

/** A detection in the pixels of the image given, `[xmin, ymin, xmax, ymax]`. */
export interface Detection {
  name: string;
  prob: number;
  bound_box: [number, number, number, number];
}

export interface PoseKeypoint {
  part: string;
  x: number;
  y: number;
  prob: number;
}

export interface Pose {
  prob: number;
  bound_box: [number, number, number, number];
  keypoints: PoseKeypoint[];
}

export type DetectorKind = 'faces' | 'objects' | 'pose';

/**
 * A face as BlazeFace gave it, before it is answered: the answer's {@link Detection}, BlazeFace's six points (right eye,
 * left eye, nose, mouth, right ear, left ear, in the pixels of the image given) and its own box's width.
 */
export interface SeenFace {
  face: Detection;
  points: [number, number][];
  boxWidth: number;
}

/** The few members of a Human instance used here (the package's own typings pull in all of tfjs). */
interface HumanInstance {
  load(): Promise<void>;
  detect(input: unknown): Promise<HumanResult>;
  config: Record<string, unknown>;
}
interface HumanResult {
  error?: string | null;
  face: { score: number; boxScore: number; box: [number, number, number, number]; mesh?: number[][] }[];
  object: { score: number; label: string; box: [number, number, number, number] }[];
  body: { score: number; box: [number, number, number, number]; keypoints: { part: string; position: [number, number]; score: number }[] }[];
}

/** Model files and versions, for `docs/models.md` and the engine's status. */
export const detectorModels: Record<DetectorKind, string> = {
  faces: 'blazeface (@vladmandic/human 3.3.6)',
  objects: 'centernet COCO-80 (@vladmandic/human 3.3.6)',
  pose: 'movenet-lightning (@vladmandic/human 3.3.6)',
};

let fetchPatched = false;

/**
 * Human loads its models with `fetch`, and Node's fetch refuses `file://` URLs: answer those
 * from disk so the models come from the installed package, never the network.
 */
function serveFileUrls(): void {
  if (fetchPatched) return;
  fetchPatched = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('file://')) {
      const body = await fs.readFile(fileURLToPath(url));
      return new Response(body, { status: 200, headers: { 'content-type': url.endsWith('.json') ? 'application/json' : 'application/octet-stream' } });
    }
    return original(input, init);
  };
}

const off = { enabled: false };

/**
 * One Human instance per capability, each with its own fixed configuration: `detect(input,
 * config)` merges a per-call config into the instance for good, so sharing one instance and
 * switching parts on and off per call silently disables them. Each instance loads only its model.
 */
function configFor(kind: DetectorKind, modelBasePath: string, wasmPath: string): Record<string, unknown> {
  return {
    backend: 'wasm',
    wasmPath,
    modelBasePath,
    debug: false,
    async: true,
    warmup: 'none',
    // Results of the previous frame are reused when the input "looks the same"; these are
    // unrelated photos, never video frames.
    cacheSensitivity: 0,
    filter: { enabled: false },
    gesture: off,
    hand: off,
    segmentation: off,
    face: kind === 'faces'
      ? {
        enabled: true,
        // scale 1 keeps the detector's own face box (Human enlarges it by 1.4 for its face mesh).
        detector: { enabled: true, modelPath: 'blazeface.json', rotation: false, maxDetected: 100, minConfidence: 0.2, iouThreshold: 0.3, scale: 1, skipFrames: 0, skipTime: 0, return: false },
        mesh: off, iris: off, description: off, emotion: off, antispoof: off, liveness: off, attention: off, gear: off,
      }
      : off,
    body: kind === 'pose' ? { enabled: true, modelPath: 'movenet-lightning.json', maxDetected: 1, minConfidence: 0.2, skipFrames: 0, skipTime: 0 } : off,
    object: kind === 'objects' ? { enabled: true, modelPath: 'centernet.json', maxDetected: 100, minConfidence: 0.3, iouThreshold: 0.4, skipFrames: 0, skipTime: 0 } : off,
  };
}

/**
 * Whether a face box, in a list surest first, is not a part of a surer face: at least 0.6 of its area inside one. A face
 * filling the frame gave boxes inside it (a cheek, an eye, the mouth: 10 of 40 headshots had 2 or 3 "faces", h189),
 * which BlazeFace's IoU 0.3 keeps (a box 82 % inside another is 0.27 of their union).
 */
export const notNestedFace = (d: Detection, i: number, surestFirst: readonly Detection[]): boolean => !surestFirst.slice(0, i).some((surer) => shareInside(d.bound_box, surer.bound_box) >= nestedFace);
const nestedFace = 0.6;
const area = (b: readonly number[]) => (b[2]! - b[0]!) * (b[3]! - b[1]!);
/** Faces are looked for in tiles too from this long side (decoded pixels), in a grid of 3 × 3 tiles each 1.25 of a cell. */
const tiledFaceFrom = 1500;
const faceGrid = 3;
const faceTileSpan = 1.25;
/** A face only a tile finds needs more certainty than the whole view's 0.5: a tile sees a face's parts sharp (h201). */
const tileFaceProb = 0.7;
/** The score from which `/identity/v2/face` answers a face (docs/models.md, "Faces"). */
const faceServedProb = 0.5;
/** Faces from `faceServedProb` to this score are answered only where they look like one (h289, `withoutFalseFaces`). */
const faceSureProb = 0.8;
/** The second look is a square this many times the face's side, and must find a face at `secondLookProb` at this IoU. */
const secondLookSpan = 3;
const secondLookProb = 0.6;
const secondLookOverlap = 0.3;

/**
 * Whether BlazeFace's points sit as a face's do, in the frame of the eye line so that a tilted head passes (h289; every
 * bound chosen on the tuning half with room to spare: its real faces gave nose 0.30–0.69 and mouth 0.19–0.60 eye
 * distances down, nose and mouth at most 0.29 across, eyes 0.32 of the box or more). Points of no face land anywhere:
 * eyes a few pixels apart, a "nose" above the eyes. Points missing (another BlazeFace build): no opinion.
 */
export function faceLike(points: readonly (readonly [number, number])[], boxWidth: number): boolean {
  const [rightEye, leftEye, nose, mouth] = points;
  if (!rightEye || !leftEye || !nose || !mouth) return true;
  const ex = leftEye[0] - rightEye[0];
  const ey = leftEye[1] - rightEye[1];
  const eyes = Math.hypot(ex, ey);
  if (eyes < faceLikeBounds.eyesOfBox * boxWidth || eyes === 0) return false;
  if ((Math.abs(Math.atan2(ey, ex)) * 180) / Math.PI > faceLikeBounds.tiltDeg) return false;
  const [ux, uy] = [ex / eyes, ey / eyes];
  const [mx, my] = [(rightEye[0] + leftEye[0]) / 2, (rightEye[1] + leftEye[1]) / 2];
  /** A point's offset from `from`, in eye distances: across (along the eye line) and down (square to it). */
  const along = (p: readonly number[], from: readonly number[]) => ({ across: Math.abs((p[0]! - from[0]!) * ux + (p[1]! - from[1]!) * uy) / eyes, down: ((p[1]! - from[1]!) * ux - (p[0]! - from[0]!) * uy) / eyes });
  const n = along(nose, [mx, my]);
  const m = along(mouth, [mx, my]);
  const mouthBelowNose = along(mouth, nose).down;
  const b = faceLikeBounds;
  return n.down >= b.noseDown[0] && n.down <= b.noseDown[1] && mouthBelowNose >= b.mouthBelowNose[0] && mouthBelowNose <= b.mouthBelowNose[1] && n.across <= b.noseAcross && m.across <= b.mouthAcross;
}
const faceLikeBounds = { eyesOfBox: 0.25, tiltDeg: 45, noseDown: [0.2, 0.9], mouthBelowNose: [0.1, 0.8], noseAcross: 0.5, mouthAcross: 0.45 } as const;
/** A photo whose surest face's long side is this share of the photo's short side or more is a close-up (facesWhole). */
const closeUpShare = 0.4;
/** A whole-view face lying this share inside a margin-view face (or holding one so) is that face. */
const closeUpOverlap = 0.3;
/** The margin view is built from the photo halved to this long side or less (facesWhole). */
const marginEdge = 1024;
/** Photos up to this long side (BlazeFace's input) with no face are looked at with a margin too. */
const thumbnailEdge = 256;
const longSide = (b: readonly number[]) => Math.max(b[2]! - b[0]!, b[3]! - b[1]!);
function shareInside(inner: readonly number[], outer: readonly number[]): number {
  const w = Math.min(inner[2]!, outer[2]!) - Math.max(inner[0]!, outer[0]!);
  const h = Math.min(inner[3]!, outer[3]!) - Math.max(inner[1]!, outer[1]!);
  const area = (inner[2]! - inner[0]!) * (inner[3]! - inner[1]!);
  return w <= 0 || h <= 0 || area <= 0 ? 0 : (w * h) / area;
}

const clampBox = (x: number, y: number, w: number, h: number, img: RgbPixels): [number, number, number, number] => [
  Math.max(0, Math.round(x)),
  Math.max(0, Math.round(y)),
  Math.min(img.width, Math.round(x + w)),
  Math.min(img.height, Math.round(y + h)),
];

/** Faces, COCO objects and body pose from the models inside `@vladmandic/human`, on tfjs-wasm. */
export class HumanDetector {
  private constructor(
    private readonly tf: Tf,
    private readonly human: HumanInstance,
    readonly kind: DetectorKind,
  ) {}

  static async load(kind: DetectorKind): Promise<HumanDetector> {
    const tf = await tfjs();
    serveFileUrls();
    const root = packageDir('@vladmandic/human');
    // The package's "node" export needs tfjs-node, which does not install here; its wasm build
    // requires the tfjs packages we already loaded, so both share one tfjs instance.
    const { Human } = nodeRequire(path.join(root, 'dist', 'human.node-wasm.js')) as { Human: new (config: Record<string, unknown>) => HumanInstance };
    const wasmPath = path.join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist') + path.sep;
    const human = new Human(configFor(kind, pathToFileURL(path.join(root, 'models')).href + '/', wasmPath));
    await human.load();
    return new HumanDetector(tf, human, kind);
  }

  private async run(img: RgbPixels): Promise<HumanResult> {
    const input = this.tf.tensor4d(img.data, [1, img.height, img.width, 3], 'int32');
    try {
      const result = await this.human.detect(input);
      if (result.error) throw new Error(`detector failed: ${result.error}`);
      return result;
    } finally {
      input.dispose();
    }
  }

  /**
   * BlazeFace's boxes are square and sit a little low: on the 93 hand-boxed faces of
   * test/fixtures/face-annotations.json, a forehead-to-chin, ear-to-ear box is 0.88 of its width,
   * as tall, and 0.067 of its height higher (medians). Two global constants reshape it to that
   * convention, which is what a client drawing or cropping faces expects.
   */
  async faces(img: RgbPixels): Promise<Detection[]> {
    return (await this.facesSeen(img)).map((s) => s.face);
  }

  /** {@link faces} with BlazeFace's points and box width, which the false-face rule reads (`faceLike`). */
  private async facesSeen(img: RgbPixels): Promise<SeenFace[]> {
    // Human stretches its input to BlazeFace's 256 × 256 whatever its shape: a 16:9 photo's faces were squeezed to 0.56
    // of their width (bbt1 lost one of its 4 faces; a 2,100 × 940 sheet of six group photos, 31 of 40; a 30:1 panorama
    // every face), so the photo is centred on a square grey canvas first and the boxes moved back (h352)
    const { canvas, offsetX, offsetY } = squared(img);
    const result = await this.run(canvas);
    return result.face
      .map((f) => {
        const [x, y, w, h] = f.box;
        const nw = w * faceBoxWidth;
        const face: Detection = { name: 'face', prob: round3(f.boxScore ?? f.score), bound_box: clampBox(x - offsetX + (w - nw) / 2, y - offsetY - faceBoxRaise * h, nw, h, img) };
        return { face, points: (f.mesh ?? []).map((m): [number, number] => [m[0]! - offsetX, m[1]! - offsetY]), boxWidth: w };
      })
      // a face wholly on the canvas around the photo is none of the photo's
      .filter((s) => s.face.bound_box[2] > s.face.bound_box[0] && s.face.bound_box[3] > s.face.bound_box[1])
      .sort((a, b) => b.face.prob - a.face.prob);
  }

  /**
   * The faces `/identity/v2/face` answers: {@link faces} seen again with a margin where the photo is a close-up or a
   * thumbnail ({@link facesWhole}), without boxes inside a surer face (`notNestedFace`), and without the doubtful faces
   * that do not look like one ({@link withoutFalseFaces}). Text search's index keeps the detector's own list, as it was
   * measured with (the nested boxes dropped there too moved the face query's Recall@10 from 1.00 to 0.90,
   * `npm run bench -- search-quality`). `keepDoubtful` leaves the doubtful faces in, for the bench's before and after.
   */
  async facesFound(img: RgbPixels, options: { keepDoubtful?: boolean } = {}): Promise<Detection[]> {
    const seen = await this.facesWhole(img);
    const faces = seen.map((s) => s.face);
    const found = seen.filter((s, i) => notNestedFace(s.face, i, faces));
    return (options.keepDoubtful ? found : await this.withoutFalseFaces(img, found)).map((s) => s.face);
  }

  /**
   * Drops the faces scored 0.5–0.8 that are not faces (h289, rule `docs/models.md`, "Faces on photos of no one"): at the
   * served 0.5 BlazeFace found a "face" in 26 % of Caltech photos of no one (animals, statues, instruments, barrels),
   * most at 0.5–0.65, where real faces mostly score 0.8 and more. Such a face is kept where its points are placed as a
   * face's (`faceLike`) and a second look at it alone (`seenAgain`) finds a face there at 0.6: a real face seen larger
   * scores higher (a face at 0.69 in a group photo scored 0.93), a dog's muzzle or a guitar's body rarely does.
   */
  private async withoutFalseFaces(img: RgbPixels, found: SeenFace[]): Promise<SeenFace[]> {
    const kept: SeenFace[] = [];
    for (const s of found) {
      const doubtful = s.face.prob >= faceServedProb && s.face.prob < faceSureProb;
      if (!doubtful || (faceLike(s.points, s.boxWidth) && (await this.seenAgain(img, s.face)))) kept.push(s);
    }
    return kept;
  }

  /** Whether BlazeFace finds a face at `secondLookProb` on the face's box in a square of 3 × its side around it, grey outside the photo. */
  private async seenAgain(img: RgbPixels, face: Detection): Promise<boolean> {
    const [a, b, c, e] = face.bound_box;
    const side = Math.max(16, Math.round(Math.max(c - a, e - b) * secondLookSpan));
    // a large face is looked at on the photo halved (as the margin view is): its square was up to 3 × the photo's side
    if (side > marginEdge && Math.min(img.width, img.height) >= 2) {
      const { image } = halvedTo(img, Math.max(img.width, img.height) - 1);
      return this.seenAgain(image, { ...face, bound_box: [a / 2, b / 2, c / 2, e / 2] });
    }
    const x0 = Math.round((a + c) / 2 - side / 2);
    const y0 = Math.round((b + e) / 2 - side / 2);
    const data = new Uint8Array(side * side * 3).fill(canvasGrey);
    const xs = Math.max(0, x0);
    const xe = Math.min(img.width, x0 + side);
    for (let y = Math.max(0, y0); y < Math.min(img.height, y0 + side) && xe > xs; y++) {
      data.set(img.data.subarray((y * img.width + xs) * 3, (y * img.width + xe) * 3), ((y - y0) * side + (xs - x0)) * 3);
    }
    return (await this.faces({ data, width: side, height: side })).some((d) => d.prob >= secondLookProb && iou([d.bound_box[0] + x0, d.bound_box[1] + y0, d.bound_box[2] + x0, d.bound_box[3] + y0], face.bound_box) >= secondLookOverlap);
  }

  /**
   * {@link faces}, and where BlazeFace sees the photo as a close-up, the photo again in the middle of a grey canvas
   * twice its width and height. BlazeFace learnt faces smaller than its frame: a face filling the photo got its box
   * off the face and a second box on a cheek or an eye (4 of the 40 150-px headshots kept two faces after the nested
   * rule), or no box at all (8 of 20 headshots cut to the face at 40 × 47 px); with a margin around it, one box each.
   * Upscaling does not help: the model sees its 256-px input whatever the photo's size. Rule `docs/models.md`, "Close-ups
   * and thumbnails" (h285): a close-up is a photo whose surest face is 0.4 of its short side or more; the margin view's
   * faces then replace the whole view's they overlap. A photo of 256 px or less where the whole view finds no face is
   * looked at with the margin too, its faces kept at prob 0.7 (as a face only a tile finds: a small photo of no face
   * gives the margin view more false faces than the whole view).
   */
  private async facesWhole(img: RgbPixels): Promise<SeenFace[]> {
    const whole = await this.facesSeen(img);
    const surest = whole[0]?.face;
    const closeUp = surest !== undefined && surest.prob >= faceServedProb && longSide(surest.bound_box) >= closeUpShare * Math.min(img.width, img.height);
    const thumbnail = !closeUp && Math.max(img.width, img.height) <= thumbnailEdge && !whole.some((s) => s.face.prob >= faceServedProb);
    if (!closeUp && !thumbnail) return whole;
    // from a copy of at most `marginEdge` px: BlazeFace sees its 256-px input whatever the canvas, and a 2,048-px
    // close-up (faces looked for in tiles) made a 4,096-px canvas, 150 MB as the detector's tensor and 1.1 s a photo
    const { image: small, scale } = halvedTo(img, marginEdge);
    const { canvas, offsetX, offsetY } = withMargin(small);
    const margin = (await this.facesSeen(canvas))
      .filter((s) => s.face.prob >= (closeUp ? faceServedProb : tileFaceProb))
      .map(({ face: d, points, boxWidth }) => ({
        face: { ...d, bound_box: clampBox((d.bound_box[0] - offsetX) * scale, (d.bound_box[1] - offsetY) * scale, (d.bound_box[2] - d.bound_box[0]) * scale, (d.bound_box[3] - d.bound_box[1]) * scale, img) },
        points: points.map(([x, y]): [number, number] => [(x - offsetX) * scale, (y - offsetY) * scale]),
        boxWidth: boxWidth * scale,
      }))
      .filter((s) => s.face.bound_box[2] > s.face.bound_box[0] && s.face.bound_box[3] > s.face.bound_box[1]);
    const elsewhere = whole.filter((w) => !margin.some((m) => shareInside(w.face.bound_box, m.face.bound_box) >= closeUpOverlap || shareInside(m.face.bound_box, w.face.bound_box) >= closeUpOverlap));
    return [...margin, ...elsewhere].sort((a, b) => b.face.prob - a.face.prob);
  }

  /**
   * Faces in the photo as a whole and, where it is 1,500 px or more on its long side, in a 3 × 3 grid of overlapping
   * tiles too: BlazeFace sees its input at 256 px, so faces under about 6 % of the photo's long side were lost (a wide
   * group shot, h189). A face a tile finds is kept where it is small for the tile (under 0.35 of its width) and not cut
   * by an inner edge: larger and cut faces are the whole view's. Rule `/work/runs/prereg.txt` s46 (b) (docs/models.md).
   */
  async facesInTiles(img: RgbPixels): Promise<Detection[]> {
    if (Math.max(img.width, img.height) < tiledFaceFrom) return this.facesFound(img);
    const seen = await this.facesWhole(img);
    const whole = seen.map((s) => s.face);
    // each whole-view face judged as facesFound judges it (nested ones too: the surer face around one may go); a face
    // only a tile finds keeps its own 0.7, as measured (h201)
    const judged = (await this.withoutFalseFaces(img, seen)).map((s) => s.face);
    const n = faceGrid;
    const tw = Math.min(img.width, Math.ceil((img.width / n) * faceTileSpan));
    const th = Math.min(img.height, Math.ceil((img.height / n) * faceTileSpan));
    const inTiles: Detection[] = [];
    for (let gy = 0; gy < n; gy++) {
      for (let gx = 0; gx < n; gx++) {
        const x0 = Math.round((gx * (img.width - tw)) / (n - 1));
        const y0 = Math.round((gy * (img.height - th)) / (n - 1));
        const data = new Uint8Array(tw * th * 3);
        for (let y = 0; y < th; y++) data.set(img.data.subarray(((y0 + y) * img.width + x0) * 3, ((y0 + y) * img.width + x0 + tw) * 3), y * tw * 3);
        for (const d of await this.faces({ data, width: tw, height: th })) {
          const [a, b, c, e] = d.bound_box;
          const cut = (a <= 2 && x0 > 0) || (b <= 2 && y0 > 0) || (c >= tw - 2 && x0 + tw < img.width) || (e >= th - 2 && y0 + th < img.height);
          if (cut || c - a > tw * 0.35 || d.prob < tileFaceProb) continue;
          const box: Detection['bound_box'] = [a + x0, b + y0, c + x0, e + y0];
          // a part of a face the whole view found (an eye a tile sees sharper, and surer): the whole view's, whatever its prob
          // (h201: headshots at 2,000 px gained eye-sized "faces" inside a face of prob 0.56)
          if (whole.some((w) => shareInside(box, w.bound_box) >= nestedFace && area(box) < 0.5 * area(w.bound_box))) continue;
          inTiles.push({ ...d, bound_box: box });
        }
      }
    }
    const kept: Detection[] = [];
    for (const d of [...judged, ...inTiles].sort((p, q) => q.prob - p.prob)) {
      if (!kept.some((k) => iou(k.bound_box, d.bound_box) > 0.3)) kept.push(d);
    }
    return kept.filter(notNestedFace);
  }

  async objects(img: RgbPixels): Promise<Detection[]> {
    const result = await this.run(img);
    return result.object
      .map((o) => ({ name: o.label, prob: round3(o.score), bound_box: clampBox(o.box[0], o.box[1], o.box[2], o.box[3], img) }))
      .sort((a, b) => b.prob - a.prob);
  }

  /**
   * COCO objects in the photo as it is (`plain`, from `objects`) and shrunk to half on a grey
   * canvas of its size. CenterNet
   * learnt from COCO, where objects rarely fill the frame, and misses most that do: a phone photo
   * or a dog portrait cut to the animal gives nothing or a wrong label, and the same photo with a
   * margin around it gives the object (docs/models.md, "Framed view"). The framed view adds only
   * objects covering a fifth of the photo or more; the two lists are merged per label, the surer
   * of two overlapping boxes kept.
   */
  async objectsFramed(img: RgbPixels, plain: readonly Detection[]): Promise<Detection[]> {
    const { canvas, offsetX, offsetY } = framed(img);
    const inFrame = (await this.objects(canvas))
      .map((d) => {
        const [x0, y0, x1, y1] = d.bound_box;
        const back = (v: number, o: number, max: number) => clamp((v - o) * 2, max);
        return { ...d, bound_box: [back(x0, offsetX, img.width), back(y0, offsetY, img.height), back(x1, offsetX, img.width), back(y1, offsetY, img.height)] as Detection['bound_box'] };
      })
      // Only what fills much of the photo: smaller objects are the plain view's, seen there larger.
      .filter((d) => (d.bound_box[2] - d.bound_box[0]) * (d.bound_box[3] - d.bound_box[1]) >= framedMinShare * img.width * img.height);
    const kept: Detection[] = [];
    for (const d of [...plain, ...inFrame].sort((a, b) => b.prob - a.prob)) {
      if (!kept.some((k) => k.name === d.name && iou(k.bound_box, d.bound_box) > framedOverlap)) kept.push(d);
    }
    return kept;
  }

  /**
   * The people `/identity/v2/person` answers: CenterNet's `person` boxes at 0.3 (`objects`) less two kinds of false
   * ones (rule `docs/models.md`, "Persons", h285). A box covering half the photo or more at under 0.5 is kept only
   * where the framed view ({@link framed}) sees a person there at 0.5: on photos of no one, CenterNet called a statue, a
   * flamingo, a scorpion or a tick filling the frame a person at 0.34–0.48, and portraits it scores that low (0.46) it
   * scores high once framed. Then boxes under 0.3 of the largest person's long side are dropped (`notBackgroundPerson`).
   */
  async persons(img: RgbPixels): Promise<Detection[]> {
    let found = (await this.objects(img)).filter((d) => d.name === 'person');
    const doubtful = (d: Detection) => d.prob < personSureProb && area(d.bound_box) >= personLargeShare * img.width * img.height;
    if (found.some(doubtful)) {
      const { canvas, offsetX, offsetY } = framed(img);
      const seen = (await this.objects(canvas))
        .filter((d) => d.name === 'person' && d.prob >= personSureProb)
        .map((d) => d.bound_box.map((v, i) => (v - (i % 2 ? offsetY : offsetX)) * 2));
      found = found.filter((d) => !doubtful(d) || seen.some((b) => iou(b, d.bound_box) >= personSameBox));
    }
    return found.filter(notBackgroundPerson);
  }

  async pose(img: RgbPixels): Promise<Pose[]> {
    const result = await this.run(img);
    return result.body.map((b) => ({
      prob: round3(b.score),
      bound_box: clampBox(b.box[0], b.box[1], b.box[2], b.box[3], img),
      // MoveNet extrapolates joints just outside the frame (a hip below the bottom edge): clamp.
      keypoints: b.keypoints.map((k) => ({ part: k.part, x: clamp(Math.round(k.position[0]), img.width), y: clamp(Math.round(k.position[1]), img.height), prob: round3(k.score) })),
    }));
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
/** A framed-view object is kept when its box covers this share of the photo at least. */
const framedMinShare = 0.2;
/** Boxes of one label overlapping more than this are one object. */
const framedOverlap = 0.5;
/** Grey of the canvas around the shrunk photo (the usual letterbox grey). */
const canvasGrey = 114;

/**
 * Whether a person box is not background beside a larger person: its long side at least 0.3 of the largest's. Around
 * one person CenterNet boxed chairs, monitors and blurred heads behind her (10 "persons" on a portrait, h285), and a
 * tie or a torso inside a person it had not boxed whole; the people of the group photos here are 0.42 of the largest
 * or more.
 */
export const notBackgroundPerson = (d: Detection, _i: number, all: readonly Detection[]): boolean => longSide(d.bound_box) >= personMinShare * Math.max(...all.map((o) => longSide(o.bound_box)));
const personMinShare = 0.3;
/** A person box at this score or more needs no second look. */
const personSureProb = 0.5;
/** A person box covering this share of the photo under `personSureProb` is looked at again in the framed view. */
const personLargeShare = 0.5;
/** A framed-view box at this IoU with a plain-view box is the same person. */
const personSameBox = 0.5;

/** The photo in the middle of a grey canvas twice its width and height, every pixel kept (a thumbnail has few). */
export function withMargin(img: RgbPixels): { canvas: RgbPixels; offsetX: number; offsetY: number } {
  const { width: W, height: H, data } = img;
  const offsetX = Math.floor(W / 2);
  const offsetY = Math.floor(H / 2);
  const out = new Uint8Array(4 * W * H * 3).fill(canvasGrey);
  for (let y = 0; y < H; y++) out.set(data.subarray(y * W * 3, (y + 1) * W * 3), ((y + offsetY) * 2 * W + offsetX) * 3);
  return { canvas: { data: out, width: 2 * W, height: 2 * H }, offsetX, offsetY };
}

/** Long side over short side up to which a photo goes to BlazeFace stretched to its square, as before h352. */
const squareEnough = 1.25;

/** The photo in the middle of a grey square as wide as its long side (itself when near square): what BlazeFace sees undistorted. */
export function squared(img: RgbPixels): { canvas: RgbPixels; offsetX: number; offsetY: number } {
  const { width: W, height: H, data } = img;
  // a photo near square (a 40 × 47 thumbnail, 4:5) is seen as before: letterboxed, such thumbnails gave false faces
  // (the identity bench's 40 × 47 Caltech thumbnails with a face: 20 → 33 of 450), and its faces lose little stretched
  if (Math.max(W, H) / Math.min(W, H) <= squareEnough) return { canvas: img, offsetX: 0, offsetY: 0 };
  const side = Math.max(W, H);
  const offsetX = Math.floor((side - W) / 2);
  const offsetY = Math.floor((side - H) / 2);
  const out = new Uint8Array(side * side * 3).fill(canvasGrey);
  for (let y = 0; y < H; y++) out.set(data.subarray(y * W * 3, (y + 1) * W * 3), ((y + offsetY) * side + offsetX) * 3);
  return { canvas: { data: out, width: side, height: side }, offsetX, offsetY };
}

/**
 * The photo halved (2 x 2 pixel means) until its long side is at most `edge`, and the factor that maps its pixels back
 * (1, the photo itself, where it is that small already).
 */
export function halvedTo(img: RgbPixels, edge: number): { image: RgbPixels; scale: number } {
  let image = img;
  let scale = 1;
  while (Math.max(image.width, image.height) > edge && Math.min(image.width, image.height) >= 2) {
    image = halved(image);
    scale *= 2;
  }
  return { image, scale };
}

/** The photo at half size, each pixel the mean of 2 x 2 (a side of one pixel stays one). */
function halved(img: RgbPixels): RgbPixels {
  const { width: W, height: H, data } = img;
  const w = Math.max(1, Math.floor(W / 2));
  const h = Math.max(1, Math.floor(H / 2));
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const y0 = Math.min(H - 1, 2 * y);
    const y1 = Math.min(H - 1, 2 * y + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.min(W - 1, 2 * x);
      const x1 = Math.min(W - 1, 2 * x + 1);
      const o = (y * w + x) * 3;
      for (let c = 0; c < 3; c++) {
        out[o + c] = (data[(y0 * W + x0) * 3 + c]! + data[(y0 * W + x1) * 3 + c]! + data[(y1 * W + x0) * 3 + c]! + data[(y1 * W + x1) * 3 + c]! + 2) >> 2;
      }
    }
  }
  return { data: out, width: w, height: h };
}

/** The photo at half size (2 x 2 pixel means) in the middle of a grey canvas as large as the photo. */
export function framed(img: RgbPixels): { canvas: RgbPixels; offsetX: number; offsetY: number } {
  const { width: W, height: H } = img;
  const half = halved(img);
  const offsetX = Math.floor((W - half.width) / 2);
  const offsetY = Math.floor((H - half.height) / 2);
  const out = new Uint8Array(W * H * 3).fill(canvasGrey);
  for (let y = 0; y < half.height; y++) out.set(half.data.subarray(y * half.width * 3, (y + 1) * half.width * 3), ((y + offsetY) * W + offsetX) * 3);
  return { canvas: { data: out, width: W, height: H }, offsetX, offsetY };
}

function iou(a: readonly number[], b: readonly number[]): number {
  const ix = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!));
  const iy = Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
  const inter = ix * iy;
  const union = (a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter;
  return union > 0 ? inter / union : 0;
}
const clamp = (v: number, max: number) => Math.min(max, Math.max(0, v));
const faceBoxWidth = 0.88;
const faceBoxRaise = 0.067;
