import type { ImageIntake, ImageRecord } from '../media/image-intake.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import { hammingDistance, hashInputEdge, visualHashes, type HashType } from '../vision/models/visual-hash.ts';
import { echoAnswer, mapLimited, overall, recordError, status, stopwatch, type EnvelopeStatus, type SearchContext, type Statistics } from './envelope.ts';
import { ServiceError } from './errors.ts';
import { inexactRecordProblem } from '../util/exact-numbers.ts';

export type InputRecord = ImageRecord & { _id?: string | number; [key: string]: unknown };

interface Hashed {
  record: InputRecord;
  width: number;
  height: number;
  hashes: Partial<Record<HashType, string>>;
  /** The one colour of an image of no brightness pattern (a swatch, a blank): its hashes say nothing of it. */
  flat?: [number, number, number];
}

/** Spread (standard deviation, 0–255) under which an image is one colour: JPEG noise on a swatch stays under it. */
const FLAT_SPREAD = 3;
/** Two flat images are one colour within this much on each channel (0–255). */
const FLAT_SAME = 8;

/**
 * The colour of an image of one colour, or undefined. Both hashes compare brightness patterns only, so every such image
 * hashes alike (all bits 0) whatever its colour (h284: white, black and red swatches were duplicates at distance 0).
 */
export function flatColour(data: Uint8Array | Buffer, width: number, height: number, channels: number): [number, number, number] | undefined {
  const n = width * height;
  if (!n) return undefined;
  const step = Math.max(1, Math.floor(n / 4096));
  const sum = [0, 0, 0];
  const sq = [0, 0, 0];
  let k = 0;
  for (let p = 0; p < n; p += step, k++) {
    for (let c = 0; c < 3; c++) {
      const v = data[p * channels + c]!;
      sum[c]! += v;
      sq[c]! += v * v;
    }
  }
  const mean = sum.map((s) => s / k) as [number, number, number];
  const flat = sq.every((s, c) => Math.sqrt(Math.max(0, s / k - mean[c]! ** 2)) < FLAT_SPREAD);
  return flat ? (mean.map(Math.round) as [number, number, number]) : undefined;
}

/** Whether two hashed images can be duplicates by their hashes: an image of one colour only of one of its colour. */
function comparable(a: Hashed, b: Hashed): boolean {
  if (!a.flat && !b.flat) return true;
  return !!a.flat && !!b.flat && a.flat.every((v, c) => Math.abs(v - b.flat![c]!) <= FLAT_SAME);
}
interface Failed {
  record: InputRecord;
  error: string;
}
type Outcome = Hashed | Failed;
const failed = (o: Outcome): o is Failed => 'error' in o;

const perRequest = 8;

function overallOf(ctx: SearchContext, outcomes: Outcome[]): Required<EnvelopeStatus> {
  return overall(ctx, outcomes.filter(failed).map(() => ({ code: 400 })), outcomes.length);
}

/** Image matching (spec 2 §4): hashes, duplicate removal and ranking of the images sent, no collection. */
export class ImageMatchingService {
  constructor(private readonly intake: ImageIntake) {}

  ping(ctx: SearchContext) {
    return {
      status: status(ctx, 200, 'OK'),
      _service_info: { _name: 'image_matching', _info: 'Visual hashes (bmh1: 256-bit block mean, phash: 64-bit DCT) of images sent in the request; Hamming distances.' },
    };
  }

  /**
   * At most `perRequest` records of one request load at once: a request of 100 `_url` records
   * must not hold 100 downloads (up to 1.5 GB) or fill the thread pool that decoding shares.
   */
  private async hashAll(records: InputRecord[], types: readonly HashType[], { uniqueIds = false, flat: withFlat = false } = {}): Promise<Outcome[]> {
    // where answers are merged or reordered, an `_id` sent twice names two answers one cannot tell apart (h284: which
    // "a" was removed as whose duplicate): each repeat is its own record's 400, the first kept
    const idOf = (r: InputRecord) => (r._id === undefined || r._id === null ? undefined : String(r._id));
    const first = new Map<string, number>();
    records.forEach((r, i) => {
      const id = idOf(r);
      if (id !== undefined && !first.has(id)) first.set(id, i);
    });
    return mapLimited(records, perRequest, async (record, i): Promise<Outcome> => {
      const id = idOf(record);
      const at = id === undefined ? i : first.get(id)!;
      if (uniqueIds && at !== i) return { record, error: `_id ${JSON.stringify(id).slice(0, 300)} is sent twice in this request (records ${at + 1} and ${i + 1}): answers are told apart by _id, give each image its own` };
      const inexact = inexactRecordProblem(record);
      if (inexact) return { record, error: inexact };
      try {
        const img = await this.intake.rgb(record, hashInputEdge);
        // (only duplicate removal weighs it)
        const flat = withFlat ? flatColour(img.data, img.width, img.height, img.channels) : undefined;
        return { record, width: img.originalWidth, height: img.originalHeight, hashes: visualHashes(img.data, img.width, img.height, img.channels, types), ...(flat ? { flat } : {}) };
      } catch (err) {
        // One bad image never fails the request: anything unexpected is still that record's error.
        return { record, error: err instanceof ImageLoadError ? err.message : 'Error Loading Image: the image could not be processed' };
      }
    });
  }

  async visualHash(ctx: SearchContext, records: InputRecord[], hashType: HashType | undefined): Promise<{ status: EnvelopeStatus; records: Record<string, unknown>[]; statistics: Statistics }> {
    const clock = stopwatch();
    const outcomes = await this.hashAll(records, hashType ? [hashType] : ['bmh1', 'phash']);
    return {
      status: overallOf(ctx, outcomes),
      records: outcomes.map((o) =>
        failed(o)
          ? { ...echoAnswer(o.record), _status: recordError(ctx, o.error) }
          : { ...echoAnswer(o.record), _width: o.width, _height: o.height, ...o.hashes, _status: { code: 200, text: 'OK' } },
      ),
      statistics: clock.done(),
    };
  }

  /**
   * Greedy, in request order: each record not yet removed keeps every later record within
   * `range` bits of it in its `removed_records`. Deterministic for a given request.
   */
  async removeDuplicates(ctx: SearchContext, records: InputRecord[], hashType: HashType, range: number) {
    const clock = stopwatch();
    const outcomes = await this.hashAll(records, [hashType], { uniqueIds: true, flat: true });
    const ids = answerIds(records);
    const removed = new Set<number>();
    const out: Record<string, unknown>[] = [];
    outcomes.forEach((o, i) => {
      if (removed.has(i)) return;
      if (failed(o)) {
        out.push({ ...echoAnswer(o.record), _id: ids[i], _status: recordError(ctx, o.error) });
        return;
      }
      const dups: Record<string, unknown>[] = [];
      for (let j = i + 1; j < outcomes.length; j++) {
        const other = outcomes[j]!;
        if (removed.has(j) || failed(other) || !comparable(o, other)) continue;
        const d = hammingDistance(o.hashes[hashType]!, other.hashes[hashType]!);
        if (d <= range) {
          removed.add(j);
          dups.push({ ...echoAnswer(other.record), _id: ids[j], _width: other.width, _height: other.height, _distance: d });
        }
      }
      out.push({ ...echoAnswer(o.record), _id: ids[i], _width: o.width, _height: o.height, _status: { code: 200, text: 'OK', request_id: ctx.requestId }, ...(dups.length ? { removed_records: dups } : {}) });
    });
    return { status: overallOf(ctx, outcomes), records: out, statistics: clock.done() };
  }

  /** Records ranked by Hamming distance to the query, closest first; ties keep request order. */
  async rankImages(ctx: SearchContext, query: InputRecord, records: InputRecord[], hashType: HashType) {
    const clock = stopwatch();
    // the query's own `_id` is not an answer's: only the records' are held unique
    const [[first], rest] = await Promise.all([this.hashAll([query], [hashType]), this.hashAll(records, [hashType], { uniqueIds: true })]);
    const q = first!;
    if (failed(q)) throw new ServiceError(400, 'invalid_image', `query_record: ${q.error}`);
    const ids = answerIds(records);
    const ranked = rest
      .map((o, i) => ({ o, i, id: ids[i]! }))
      .filter((x): x is { o: Hashed; i: number; id: string | number } => !failed(x.o))
      .map((x) => ({ ...x, d: hammingDistance(q.hashes[hashType]!, x.o.hashes[hashType]!) }))
      .sort((a, b) => a.d - b.d || a.i - b.i);
    const skipped = rest.flatMap((o, i) => (failed(o) ? [{ ...echoAnswer(o.record), _id: ids[i], _status: recordError(ctx, o.error) }] : []));
    return {
      status: overallOf(ctx, rest),
      query_records: [{ ...echoAnswer(query), _width: q.width, _height: q.height }],
      answer_records: ranked.map((x) => ({ ...echoAnswer(x.o.record), _id: x.id, _width: x.o.width, _height: x.o.height })),
      answer_distances: ranked.map((x) => x.d),
      answer_count: ranked.length,
      skipped_records: skipped,
      statistics: clock.done(),
    };
  }
}

/**
 * Each record's `_id` in an answer: its own, else its place in the request (`"0"`, `"1"`, …), or, where a record sent
 * that id itself, the place with an underscore before it (`"_1"`): two answers both `"0"` could not be told apart (h265).
 */
export function answerIds(records: readonly InputRecord[]): (string | number)[] {
  const sent = new Set(records.flatMap((r) => (r._id === undefined || r._id === null ? [] : [String(r._id)])));
  return records.map((r, i) => {
    if (r._id !== undefined && r._id !== null) return r._id as string | number;
    let id = String(i);
    while (sent.has(id)) id = `_${id}`;
    sent.add(id);
    return id;
  });
}
