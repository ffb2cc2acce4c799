import { MediaWriteError, refusal, type JobContext, type JobHandler, type JobOutcome, type Refusal, type RequestOptions } from '../../queue/job-handler.ts';
import { pick } from '../../queue/job-runner.ts';
import { sourceVersion } from '../../util/source-version.ts';
import type { CardResult } from '../../vision/engine/vision-tasks.ts';
import { stopwatch } from '../envelope.ts';
import { failure, type VisionService } from '../vision-service.ts';
import { autographHint, categories, categoryHint, conditionEntry, conditionModeOf, conditionModes, damagedTag, gradesOf, prefilled, weighFrontBack, type Category, type ConditionMode, type Grades, type TagEntry } from '../grading-rules.ts';

type Point = [number, number];
type Op = 'grade' | 'condition' | 'centering' | 'localize' | 'crop_level';

/** Records per request (spec 3 §8: `grade` takes the front and back of one card). */
const endpoints: Record<Op, { records: number }> = { grade: { records: 2 }, condition: { records: 10 }, centering: { records: 10 }, localize: { records: 10 }, crop_level: { records: 10 } };

/** Version of the final-grade rules: a short hash of their source, changing when they do. */
const FINAL_VERSION = sourceVersion(new URL('../grading-rules.ts', import.meta.url));

const corners = ['UPPER_LEFT', 'UPPER_RIGHT', 'DOWN_RIGHT', 'DOWN_LEFT'] as const;
const edges = ['UPPER', 'RIGHT', 'DOWN', 'LEFT'] as const;
/** Corner regions reach this share of the card's width along each side; edges run between them. */
const CORNER_SHARE = 0.08;
/** Edge bands are this share of the card's width deep. */
const EDGE_DEPTH = 0.03;

/** `grade` and `/grade` name the same endpoint: clients copy the path. */
const endpointOf = (endpoint: string) => endpoint.replace(/^\//, '');
/** A record's side hint, in any case and spacing; undefined when it names neither side. */
const sideOfHint = (v: unknown): 'front' | 'back' | undefined => {
  const hint = typeof v === 'string' ? v.trim().toLowerCase() : '';
  return hint === 'front' || hint === 'back' ? hint : undefined;
};
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined);
const round1 = (x: number) => Math.round(x * 10) / 10;
/** The spec's per-record boolean options. */
const recordFlags = ['skip-location', 'no-image-output', 'transparent', 'level'];
/** A record's own options and hints (spec 3 §4), which the request's body beside the records does not take. */
const recordKeys = [...recordFlags, 'side', 'Side', 'Category', 'category', 'Autograph', 'autograph'];

/**
 * `type: card-grader` (spec 3 §4 "Card grading"): the card's geometry from the vision workers
 * (src/vision/cards/card-tasks.ts), shaped into the spec's result records, with pictures as media.
 */
export class CardGraderJob implements JobHandler {
  readonly type = 'card-grader';

  constructor(private readonly vision: VisionService) {}

  accepts(endpoint: string): boolean {
    return Object.hasOwn(endpoints, endpointOf(endpoint));
  }

  endpoints(): string[] {
    return Object.keys(endpoints);
  }

  maxRecords(endpoint: string): number {
    return endpoints[endpointOf(endpoint) as Op]?.records ?? 10;
  }

  /**
   * The spec's boolean options as booleans (or the strings `"true"`/`"false"`, which older clients
   * send), and `side` as front or back: a value read as nothing would grade another way than asked.
   */
  validateRecords(_endpoint: string, records: readonly Record<string, unknown>[]): Refusal | undefined {
    for (const [i, rec] of records.entries()) {
      // an option spelt otherwise (`skip_location`, `noImageOutput`) would be ignored and the card graded as not asked (h266)
      for (const key of Object.keys(rec)) {
        const meant = recordFlags.find((f) => f !== key && f.replace(/-/g, '') === key.replace(/[-_\s]/g, '').toLowerCase());
        if (meant) return refusal(`records[${i}].${key}`, `records[${i}].${key} is not an option: the option is \`${meant}\`.`);
      }
      // the request's options in a record would weigh or scale nothing: said, as a record's option at the root is
      for (const key of ['front_weight', 'mode']) if (rec[key] !== undefined) return refusal(`records[${i}].${key}`, `records[${i}].${key}: \`${key}\` is an option of the request: send it beside the records.`);
      for (const flag of recordFlags) {
        if (rec[flag] !== undefined && rec[flag] !== null && bool(rec[flag]) === undefined) return refusal(`records[${i}].${flag}`, `records[${i}].${flag} must be true or false.`);
      }
      for (const key of ['side', 'Side']) {
        const v = rec[key];
        if (v !== undefined && v !== null && sideOfHint(v) === undefined) return refusal(`records[${i}].${key}`, `records[${i}].${key} must be "front" or "back".`);
      }
      // the tags' hints too: one read as nothing would tag (and pick the condition scale) otherwise than asked
      for (const key of ['Autograph', 'autograph']) {
        const v = rec[key];
        if (v !== undefined && v !== null && autographHint(v) === undefined) return refusal(`records[${i}].${key}`, `records[${i}].${key} must be true or false (or "Yes" / "No").`);
      }
      for (const key of ['Category', 'category']) {
        const v = rec[key];
        if (v !== undefined && v !== null && typeof v !== 'string') return refusal(`records[${i}].${key}`, `records[${i}].${key} must be a string, such as "Trading Card Game" or "Sport".`);
      }
      // one hint spelt both ways, saying different things: one of them would be dropped without a word (h307: `side: front`
      // beside `Side: back` was graded and tagged as the front)
      const readings: [string, string, (v: unknown) => unknown][] = [
        ['side', 'Side', sideOfHint],
        ['Autograph', 'autograph', autographHint],
        ['Category', 'category', (v) => categoryHint(v) ?? 'Trading Card Game'],
      ];
      for (const [first, second, read] of readings) {
        const [a, b] = [rec[first], rec[second]];
        if (a === undefined || a === null || b === undefined || b === null || read(a) === read(b)) continue;
        return refusal(`records[${i}].${second}`, `records[${i}].${first} (${JSON.stringify(a)}) and records[${i}].${second} (${JSON.stringify(b)}) say different things: send one of them.`);
      }
    }
    return undefined;
  }

  validate(endpoint: string, options: RequestOptions): Refusal | undefined {
    endpoint = endpointOf(endpoint);
    // a record's option sent beside the records would reach none of them
    const misplaced = options.rootKeys?.find((k) => recordKeys.includes(k));
    if (misplaced) return refusal(misplaced, `\`${misplaced}\` is an option of each record: send it in the records it applies to.`);
    // mode and front_weight say nothing to the other endpoints, which leave them be (request builders send them always)
    if (options.mode !== undefined && endpoint === 'condition' && !conditionModeOf(options.mode)) return refusal('mode', `Unknown mode "${options.mode}"; one of: ${conditionModes.join(', ')} (or the marketplace names ebay, tcgplayer, ximilar, cardmarket).`);
    return undefined;
  }

  /** Spec 3 §4: crop_level's `_img_url` is "publicly readable". */
  publicMedia(endpoint: string): boolean {
    return endpointOf(endpoint) === 'crop_level';
  }

  async run(ctx: JobContext): Promise<JobOutcome> {
    const op = endpointOf(ctx.endpoint) as Op;
    const clock = stopwatch();
    const records: Record<string, unknown>[] = [];
    const sides: { side: 'front' | 'back'; grades: Grades }[] = [];
    const sideOf = sidesOf(ctx.records, op);
    for (let i = 0; i < ctx.records.length; i++) {
      // a worker stopping hands the job back: the next record would be work thrown away
      ctx.signal.throwIfAborted();
      const rec = ctx.records[i]!;
      const base = pick(rec);
      const status = (code: number, text: string) => ({ code, text, request_id: ctx.requestId });
      try {
        const side = sideOf[i]!;
        const r = await this.vision.card(await ctx.image(i), op === 'condition' ? 'grade' : op, {
          transparent: bool(rec.transparent) ?? false,
          skipLocation: bool(rec['skip-location']) ?? false,
          noImageOutput: op === 'condition' || (bool(rec['no-image-output']) ?? false),
          level: bool(rec.level) ?? true,
          side,
          ...(ctx.previewEdge ? { preview: ctx.previewEdge } : {}),
        });
        // the photo as the request's preview (h365), whatever became of its card
        if (r.preview) await ctx.putPreview(i, Buffer.from(r.preview.jpeg), r.preview.width, r.preview.height);
        const sized = { ...base, _width: r.width, _height: r.height };
        if (!r.found || !r.quad) {
          // a card filling a large photo can be refused by the verifier (docs/status.md, "Card grading": "Known limit"): said where it may be the cause (h123)
          // (a card fills a photo of about its own shape; in a long strip it is small, and shrinking the strip loses it: h266)
          const [short, long] = [Math.min(r.width, r.height), Math.max(r.width, r.height)];
          const hint =
            short < stripShare * long
              ? `; in a photo this long and narrow (${r.width}x${r.height}) a card is small: crop the photo around the card`
              : long >= largePhotoEdge
                ? `; a card that fills a photo this large (${r.width}x${r.height}) is missed at times: send it at about 800 px on its long side`
                : '';
          records.push({ ...sized, _objects: [], versions: versionsRun(r.versions, 'found'), _status: status(404, `No card was found in the image${hint}`) });
          continue;
        }
        if (r.unfit) {
          records.push({ ...sized, ...geometryOf(r), versions: versionsRun(r.versions, 'found'), _status: status(422, r.unfit) });
          continue;
        }
        const tags = tagsOf(rec, side);
        const shaped = await this.shape(ctx, op, r, tags);
        if (op === 'grade') sides.push({ side, grades: shaped.grades as Grades });
        // Wear and surface are read through the case, often on its inner well (a PSA 10 graded 5.9): say so, not only in the docs
        const slab = (op === 'grade' || op === 'condition') && r.cards?.[0] && 'kind' in r.cards[0] && r.cards[0].kind === 'slab';
        // the others were listed, unmeasured, and the status said a plain OK (h123: two cards alike in size, one graded at random;
        // h307: crop_level, which crops the first alone); localize places every card
        const others = (r.cards?.length ?? 1) - 1;
        const more = others > 0 && op !== 'localize' ? `; ${others} more card${others > 1 ? 's were' : ' was'} found, not looked at (only the first object is): send one card a photo, or each as its crop` : '';
        records.push({ ...sized, ...shaped, _status: status(200, `${slab ? slabNote : 'OK'}${unmeasured(op, r)}${glared(op, r)}${more}`) });
      } catch (err) {
        // stopping, or a result the disk would not take: the job goes back to the queue (h139)
        if (ctx.signal.aborted || err instanceof MediaWriteError) throw err;
        const { code, text } = failure(err);
        records.push({ ...base, _status: status(code, text) });
      }
    }
    const envelope = { type: this.type, endpoint: op, statistics: clock.done() };
    if (op !== 'grade') return { records, extra: envelope };
    // Top-level grades: the one card's, or its front and back weighed.
    const front = sides.find((x) => x.side === 'front');
    const back = sides.find((x) => x.side === 'back');
    const weight = typeof ctx.options.frontWeight === 'number' ? ctx.options.frontWeight : 0.7;
    const grades = front && back ? weighFrontBack(front.grades, back.grades, weight) : (front ?? back)?.grades ?? null;
    // two records, the top-level grades of one side alone, which they did not say (h266): the other side was not graded,
    // or both records are one side (two cards graded in one request, each its own record's grades)
    const one = ctx.records.length === 2 && !(front && back) ? (front ?? back) : undefined;
    // (two records of one side, one not graded: no other side was missing, h268)
    const sameSide = sideOf[0] === sideOf[1];
    const note = !grades
      ? // no record graded: said, as a lone side is (h347: `grades: null` and nothing else)
        { grades_note: `No card was graded: the top-level grades are null (each record's status says why).` }
      : !one
      ? {}
      : sameSide
        ? { graded_side: one.side, grades_note: `Both records are the ${one.side}: the grades are the ${sides.length === 1 ? "one graded card's" : "first's"} (a grade's two records are one card's front and back; each record has its own grades).` }
        : { graded_side: one.side, grades_note: `Graded from the ${one.side} alone: the ${one.side === 'front' ? 'back' : 'front'} was not graded (its record's status says why).` };
    return { records, extra: { ...envelope, grades, ...(front && back ? { front_weight: weight } : {}), ...note } };
  }

  private async shape(ctx: JobContext, op: Op, r: CardResult, tags: RecordTags): Promise<Record<string, unknown>> {
    const quad = r.quad!;
    const geometry = geometryOf(r);
    const box = geometry._objects[0]!.bound_box;
    if (op === 'crop_level') {
      // document 3 §2: `_objects` is common to every grading record
      return { ...geometry, _img_url: await ctx.putMedia(Buffer.from(r.images!.crop!), 'webp'), versions: versionsRun(r.versions, 'found') };
    }
    if (op === 'localize') {
      return { ...geometry, corners: cornerRegions(quad, r.width, r.height), edges: edgeBands(quad), card: [{ name: 'CARD', polygon: quad, bound_box: box }], versions: versionsRun(r.versions, 'found') };
    }
    if (op === 'grade' || op === 'condition') return this.shapeGrade(ctx, op, r, geometry, box, tags);
    const c = r.centering;
    const centering = centeringOf(r);
    const images: Record<string, string> = {};
    if (r.images?.clean) images._clean_url_card = await ctx.putMedia(Buffer.from(r.images.clean), 'jpg');
    if (r.images?.exact) images._exact_url_card = await ctx.putMedia(Buffer.from(r.images.exact), 'jpg');
    return { ...geometry, card: [{ name: 'CARD', polygon: quad, bound_box: box, _tags: tags.map, centering }], grades: { centering: c ? c.grade : null }, versions: versionsRun(r.versions, 'centering'), ...images };
  }

  private async shapeGrade(ctx: JobContext, op: 'grade' | 'condition', r: CardResult, geometry: { _objects: Record<string, unknown>[]; _points: unknown }, box: number[], tags: RecordTags): Promise<Record<string, unknown>> {
    const quad = r.quad!;
    const wear = r.wear!;
    const sub = { corners: wear.corners.map((c) => c.grade), edges: wear.edges.map((e) => e.grade), surface: r.surface!.grade };
    const grades = gradesOf({ ...sub, centering: r.centering?.grade ?? null });
    if (op === 'condition') {
      const requested = typeof ctx.options.mode === 'string' ? ctx.options.mode : 'default';
      const mode = conditionModeOf(requested) ?? 'default';
      // The default scale follows the card's top Category (spec 3 §4).
      const scale: ConditionMode = mode === 'default' && tags.category === 'Sport' ? 'default_sports' : mode;
      const [x0, y0, x1, y1] = box as [number, number, number, number];
      const object = {
        ...geometry._objects[0],
        area: Math.round((x1 - x0) * (y1 - y0)),
        'Top Category': [{ id: 0, name: 'Card', prob: 1 }],
        Category: tags.map.Category,
        Condition: [conditionEntry(grades.final, scale, requested)],
      };
      // spec 3 §4: "returns the card position and, for the largest card, a Condition label": the others' positions too
      return { _objects: [object, ...geometry._objects.slice(1)], _points: quad, versions: { ...r.versions, final: FINAL_VERSION } };
    }
    const regions = cornerRegions(quad, r.width, r.height);
    const images: Record<string, string> = {};
    if (r.images?.full) images._full_url_card = await ctx.putMedia(Buffer.from(r.images.full), 'jpg');
    if (r.images?.exact) images._exact_url_card = await ctx.putMedia(Buffer.from(r.images.exact), 'jpg');
    return {
      ...geometry,
      corners: regions.map((c, i) => ({ ...c, grade: wear.corners[i]!.grade, whitening: wear.corners[i]!.whitening, loss: wear.corners[i]!.loss })),
      edges: edgeBands(quad).map((e, i) => ({ ...e, grade: wear.edges[i]!.grade, whitening: wear.edges[i]!.whitening, loss: wear.edges[i]!.loss })),
      card: [{ name: 'CARD', polygon: quad, bound_box: box, _tags: { ...tags.map, Damaged: damagedTag(sub) }, surface: { grade: r.surface!.grade, lines: r.surface!.lines, creases: r.surface!.creases, stains: r.surface!.stains, glare: r.surface!.glare }, centering: centeringOf(r) }],
      grades,
      versions: { ...r.versions, final: FINAL_VERSION },
      ...images,
    };
  }
}

/**
 * What a plain OK left unsaid where the card's border was not measured (a full-art or holo card's inner edge): no
 * centering, the final grade of the other three parts, and a surface without stains, read as "examined and clean"
 * (h123, h134: a surface of 10 and a charged centering call with no numbers, both "OK").
 */
function unmeasured(op: Op, r: CardResult): string {
  if (r.centering) return '';
  // the reason without its own "centering is not measured" and with no parentheses inside the parentheses (h260: "(the
  // left border's inner edge is not straight (art or text reaches into it): centering is not measured)")
  const reason = r.centeringUnmeasurable?.replace(/\.$/, '').replace(/: centering is not measured$/, '').replace(/ \(([^()]*)\)/g, ': $1');
  const why = reason ? ` (${reason})` : '';
  if (op === 'centering') return `; centering not measured${why}`;
  if (op === 'grade' || op === 'condition') return `; the border was not measured${why}: the final grade is of corners, edges and surface, and surface counts scratches and creases only (no stains)`;
  return '';
}

/**
 * A surface graded with much of it under glare, which it leaves out: said, as an unmeasured border is (h266: 38 % of a
 * card under glare and a plain OK; its surface grade is of the rest).
 */
function glared(op: Op, r: CardResult): string {
  const share = r.surface?.glare ?? 0;
  if ((op !== 'grade' && op !== 'condition') || share < glareNoted) return '';
  return `; glare covers ${Math.round(100 * share)} % of the card, which the surface grade leaves out: photograph it without a reflection for a surface grade of all of it`;
}
const glareNoted = 0.15;

/** A photo's long edge from which a card filling it may be missed (h123's 3000x4000 phone photo: missed from 1000 px, found at 800, h135). */
const largePhotoEdge = 1000;
/** A photo whose short side is under this share of its long one is a strip (a panorama, a banner), no card's frame. */
const stripShare = 0.4;

const slabNote = 'OK; the card is in a graded slab, where these grades are not reliable: they are measured through the case (the grade on its label: /collectibles/v2/slab_grade)';

/**
 * The cards found as the spec's `_objects` and the measured one's `_points`. Every card the
 * detector found is listed, largest first; the first is the one measured (`measured: true`), with
 * its kind (`raw`, `holder` for a sleeve or top-loader, `slab`) and a slab's `label_box`.
 */
function geometryOf(r: CardResult) {
  const quad = r.quad!;
  const cards = r.cards?.length ? r.cards : [{ quad, prob: r.prob ?? 1 }];
  const _objects = cards.map((c, i) => ({
    id: i,
    name: 'Card',
    prob: c.prob,
    bound_box: boundBox(c.quad, r.width, r.height),
    ...('kind' in c ? { kind: c.kind } : {}),
    ...('labelBox' in c && c.labelBox ? { label_box: c.labelBox } : {}),
    ...(cards.length > 1 ? { measured: i === 0 } : {}),
    ...(i > 0 ? { polygon: c.quad } : {}),
  }));
  return { _objects, _points: quad };
}

/**
 * Each record's side. Side is not recognised from the picture (docs/grading.md "Tags"): a
 * record's own `side`/`Side` hint counts; in a `grade` request of two, a record without one is
 * the other side of the one that has it, and with no hints the second record is the back.
 */
function sidesOf(records: Record<string, unknown>[], op: Op): ('front' | 'back')[] {
  const hints = records.map((rec) => sideOfHint(rec.side ?? rec.Side));
  if (op !== 'grade' || records.length !== 2) return hints.map((h) => h ?? 'front');
  const other = (h: 'front' | 'back') => (h === 'front' ? 'back' : 'front');
  const [a, b] = hints;
  return [a ?? (b ? other(b) : 'front'), b ?? (a ? other(a) : 'back')];
}

interface RecordTags {
  category: Category;
  map: { Category: TagEntry[]; Side: TagEntry[]; Autograph: TagEntry[] };
}

/**
 * The card tags no measurement here decides (docs/grading.md "Tags"): the record's hints
 * (`Category`, `Side`/`side`, `Autograph`) or the documented assumptions, all `pre-filled`.
 * An autograph is never assumed either way: without a hint its list is empty.
 */
function tagsOf(rec: Record<string, unknown>, side: 'front' | 'back'): RecordTags {
  const category = categoryHint(rec.Category ?? rec.category) ?? 'Trading Card Game';
  const autograph = autographHint(rec.Autograph ?? rec.autograph);
  return {
    category,
    map: {
      Category: prefilled(category, categories),
      Side: prefilled(side === 'back' ? 'Back' : 'Front', ['Front', 'Back']),
      Autograph: autograph === undefined ? [] : prefilled(autograph ? 'Yes' : 'No', ['No', 'Yes']),
    },
  };
}

function centeringOf(r: CardResult) {
  const c = r.centering;
  return c ? { 'left/right': c.leftRight, 'top/bottom': c.topBottom, bound_box: c.boundBox, pixels: c.pixels, offsets: c.offsets, grade: c.grade } : { grade: null, detail: r.centeringUnmeasurable };
}

function boundBox(points: Point[], width: number, height: number): [number, number, number, number] {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const clampX = (x: number) => Math.max(0, Math.min(width, round1(x)));
  const clampY = (y: number) => Math.max(0, Math.min(height, round1(y)));
  return [clampX(Math.min(...xs)), clampY(Math.min(...ys)), clampX(Math.max(...xs)), clampY(Math.max(...ys))];
}

const sub = (a: Point, b: Point): Point => [a[0] - b[0], a[1] - b[1]];
const add = (a: Point, b: Point): Point => [a[0] + b[0], a[1] + b[1]];
const mul = (a: Point, k: number): Point => [a[0] * k, a[1] * k];
const len = (a: Point) => Math.hypot(a[0], a[1]);
const unit = (a: Point): Point => mul(a, 1 / (len(a) || 1));
const r1 = (p: Point): Point => [round1(p[0]), round1(p[1])];

/** Each corner's region: from the corner point along both sides into the card. */
function cornerRegions(quad: Point[], width: number, height: number) {
  const cardWidth = (len(sub(quad[1]!, quad[0]!)) + len(sub(quad[2]!, quad[3]!))) / 2;
  const reach = cardWidth * CORNER_SHARE;
  return corners.map((name, i) => {
    const p = quad[i]!;
    const toNext = unit(sub(quad[(i + 1) % 4]!, p));
    const toPrev = unit(sub(quad[(i + 3) % 4]!, p));
    const outward = mul(add(toNext, toPrev), -0.25);
    const pts = [add(p, mul(outward, reach)), add(p, mul(toNext, reach)), add(p, mul(toPrev, reach)), add(add(p, mul(toNext, reach)), mul(toPrev, reach))];
    return { name, point: r1(p), bound_box: boundBox(pts, width, height) };
  });
}

/** Each edge's band: along the side between the corner regions, a little way into the card. */
function edgeBands(quad: Point[]) {
  const cardWidth = (len(sub(quad[1]!, quad[0]!)) + len(sub(quad[2]!, quad[3]!))) / 2;
  return edges.map((name, i) => {
    const a = quad[i]!;
    const b = quad[(i + 1) % 4]!;
    const d = unit(sub(b, a));
    // Clockwise corners: (−d.y, d.x) points into the card.
    const inward: Point = [-d[1], d[0]];
    const a1 = add(a, mul(d, cardWidth * CORNER_SHARE));
    const b1 = sub(b, mul(d, cardWidth * CORNER_SHARE));
    const depth = mul(inward, cardWidth * EDGE_DEPTH);
    return { name, polygon: [r1(a1), r1(b1), r1(add(b1, depth)), r1(add(a1, depth))] };
  });
}

/**
 * The versions of what ran for a record (spec 3 §2: "the models used"): finding the card
 * (`detection`, `points`) always; `centering` for centering; every measure for grade and condition.
 */
function versionsRun(all: Record<string, string> | undefined, ran: 'found' | 'centering'): Record<string, string> | undefined {
  if (!all) return all;
  const keep = ran === 'centering' ? ['detection', 'points', 'centering'] : ['detection', 'points'];
  return Object.fromEntries(Object.entries(all).filter(([k]) => keep.includes(k)));
}
