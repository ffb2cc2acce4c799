import type { JobContext, JobHandler, JobOutcome } from '../../queue/job-handler.ts';
import { pick } from '../../queue/job-runner.ts';
import type { CardResult } from '../../vision/vision-tasks.ts';
import { failure, type VisionService } from '../vision-service.ts';

type Point = [number, number];
type Op = 'localize' | 'crop_level' | 'centering';

/** Endpoints built so far; `grade` and `condition` come with corners, edges and surface. */
const endpoints: Record<Op, { records: number }> = { localize: { records: 10 }, crop_level: { records: 10 }, centering: { records: 10 } };

const corners = ['UPPER_LEFT', 'UPPER_RIGHT', 'DOWN_RIGHT', 'DOWN_LEFT'] as const;
const edges = ['UPPER', 'RIGHT', 'DOWN', 'LEFT'] as const;
/** Corner regions reach this share of the card's width along each side; edges run between them. */
const CORNER_SHARE = 0.08;
/** Edge bands are this share of the card's width deep. */
const EDGE_DEPTH = 0.03;

const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined);
const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * `type: card-grader` (spec 3 §4 "Card grading"): the card's geometry from the vision workers
 * (src/vision/card-tasks.ts), shaped into the spec's result records, with pictures as media.
 */
export class CardGraderJob implements JobHandler {
  readonly type = 'card-grader';

  constructor(private readonly vision: VisionService) {}

  accepts(endpoint: string): boolean {
    return Object.hasOwn(endpoints, endpoint);
  }

  endpoints(): string[] {
    return Object.keys(endpoints);
  }

  maxRecords(endpoint: string): number {
    return endpoints[endpoint as Op]?.records ?? 10;
  }

  async run(ctx: JobContext): Promise<JobOutcome> {
    const op = ctx.endpoint as Op;
    const records: Record<string, unknown>[] = [];
    for (let i = 0; i < ctx.records.length; i++) {
      const rec = ctx.records[i]!;
      const base = pick(rec);
      const status = (code: number, text: string) => ({ code, text, request_id: ctx.requestId });
      try {
        const side = rec.side === 'back' || rec.side === 'front' ? rec.side : undefined;
        const r = await this.vision.card(await ctx.image(i), op, {
          transparent: bool(rec.transparent) ?? false,
          skipLocation: bool(rec['skip-location']) ?? false,
          noImageOutput: bool(rec['no-image-output']) ?? false,
          level: bool(rec.level) ?? true,
          ...(side ? { side } : {}),
        });
        const sized = { ...base, _width: r.width, _height: r.height };
        if (!r.found || !r.quad) {
          records.push({ ...sized, _objects: [], versions: r.versions, _status: status(404, 'No card was found in the image') });
          continue;
        }
        records.push({ ...sized, ...(await this.shape(ctx, op, r)), _status: status(200, 'OK') });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const { code, text } = failure(err);
        records.push({ ...base, _status: status(code, text) });
      }
    }
    return { records };
  }

  private async shape(ctx: JobContext, op: Op, r: CardResult): Promise<Record<string, unknown>> {
    const quad = r.quad!;
    const box = boundBox(quad, r.width, r.height);
    const geometry = {
      _objects: [{ id: 0, name: 'Card', prob: r.prob ?? 1, bound_box: box }],
      _points: quad,
    };
    if (op === 'crop_level') {
      return { _img_url: await ctx.putMedia(Buffer.from(r.images!.crop!), 'webp'), versions: r.versions };
    }
    if (op === 'localize') {
      return { ...geometry, corners: cornerRegions(quad, r.width, r.height), edges: edgeBands(quad), card: [{ name: 'CARD', polygon: quad, bound_box: box }], versions: r.versions };
    }
    const c = r.centering;
    const centering = c
      ? { 'left/right': c.leftRight, 'top/bottom': c.topBottom, bound_box: c.boundBox, pixels: c.pixels, offsets: c.offsets, grade: c.grade }
      : { grade: null, detail: r.centeringUnmeasurable };
    const images: Record<string, string> = {};
    if (r.images?.clean) images._clean_url_card = await ctx.putMedia(Buffer.from(r.images.clean), 'jpg');
    if (r.images?.exact) images._exact_url_card = await ctx.putMedia(Buffer.from(r.images.exact), 'jpg');
    return { ...geometry, card: [{ name: 'CARD', polygon: quad, bound_box: box, centering }], grades: { centering: c ? c.grade : null }, versions: r.versions, ...images };
  }
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
