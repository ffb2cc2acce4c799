import type { ImageIntake, ImageRecord } from '../media/image-intake.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import { VisionBusyError, VisionTaskError, type VisionEngine, type VisionTicket } from '../vision/engine/vision-engine.ts';
import type { CardOp, CardResult, ImageTaskKind, ImageTaskOptions, ImageTaskResults } from '../vision/engine/vision-tasks.ts';
import { echoAnswer, mapLimited, overall, recordError, stopwatch, type EnvelopeStatus, type SearchContext, type Statistics } from './envelope.ts';
import { ServiceError } from './errors.ts';
import { downloadOwner } from '../util/download-scope.ts';
import { inexactRecordProblem } from '../util/exact-numbers.ts';

export type InputRecord = ImageRecord & { _id?: string | number; [key: string]: unknown };

export type Outcome<K extends ImageTaskKind> = { ok: ImageTaskResults[K] } | { error: { code: number; text: string } };
export type CardOutcome = { ok: CardResult } | { error: { code: number; text: string } };

/** Downloads and decodes of one request that may run at once (the workers bound the inference). */
const perRequest = 8;

/**
 * BlazeFace scores ≥ 0.5 count as faces: on the hand-boxed photos of test/fixtures (93 faces, 10
 * with no face) that gave recall 0.925 at precision 0.956 (`npm run bench -- vision`).
 */
const faceMinProb = 0.5;

/** Float32 carries ~7 significant digits; more in JSON is noise that triples the response size. */
const float7 = (x: number) => Number(x.toPrecision(7));

/** A record field the server cannot keep as sent: the record's own 400, before its image is read. */
class RecordFieldError extends Error {}

/** What a failed task means to the client, as the record's `_status`. */
export function failure(err: unknown): { code: number; text: string } {
  if (err instanceof ImageLoadError || err instanceof RecordFieldError) return { code: 400, text: err.message };
  if (err instanceof VisionBusyError) return { code: 503, text: `Error Processing Image: ${err.ownShare ? "this account's images fill its share of the vision engine" : 'the vision engine is at capacity'}; try again in ${err.retryAfterSeconds} s` };
  if (err instanceof VisionTaskError) {
    return err.reason === 'timeout' ? { code: 504, text: `Error Processing Image: ${err.message}` } : { code: 500, text: `Error Processing Image: ${err.message}` };
  }
  return { code: 500, text: 'Error Processing Image: the image could not be processed' };
}

/** A busy engine's refusal of a whole request: 503 `busy` with Retry-After. */
const busyRefusal = (err: VisionBusyError) => new ServiceError(503, 'busy', `${err.message} Try again in ${err.retryAfterSeconds} s.`, undefined, { 'retry-after': String(err.retryAfterSeconds) });

/** Whether a record's image is downloaded (`_url` alone: `_base64` and `_file` come first, image-intake.ts). */
const downloads = (record: InputRecord): boolean => typeof record._url === 'string' && record._base64 === undefined && record._file === undefined;

export type OutputRecord = Record<string, unknown> & { _status: { code: number; text: string; request_id?: string } };

export interface VisionResponse {
  status: EnvelopeStatus;
  records: OutputRecord[];
  statistics: Statistics;
}

/** The descriptor and identity-detection endpoints (spec 2 §4) over the vision engine. */
export class VisionService {
  constructor(
    private readonly intake: ImageIntake,
    private readonly engine: VisionEngine,
  ) {}

  /** Starts the workers and warms the configured models (the server awaits this before listening). */
  start(): Promise<{ ms: number }> {
    return this.engine.start();
  }

  /**
   * Runs one task per record. A busy server answers 503 at once, before any download. Room in the
   * engine's queue is reserved for the whole request's images it has (`_base64`, `_file`) and for
   * each image to download once it has arrived, never while it downloads: URLs that never answer
   * held every slot of the queue for a minute at no cost (every account's images 503 meanwhile).
   */
  async each<K extends ImageTaskKind>(kind: K, records: InputRecord[], options?: ImageTaskOptions | ((record: InputRecord) => ImageTaskOptions)): Promise<Outcome<K>[]> {
    return this.admitted(records, async (bytes, record) => ({ ok: await this.engine.image(kind, bytes, this.intake.options.maxPixels, typeof options === 'function' ? options(record) : options) }));
  }

  /** Each record's image through `run`, with room in the engine's queue as {@link each} says; a record's failure is its status. */
  private async admitted<T extends { ok: unknown }>(records: InputRecord[], run: (bytes: Buffer, record: InputRecord) => Promise<T>): Promise<(T | { error: { code: number; text: string } })[]> {
    const fetched = records.map(downloads);
    const held = fetched.filter((f) => !f).length;
    const ticket = this.admit(held, records.length - held);
    let busy: VisionBusyError | null = null;
    try {
      const out = await mapLimited(records, perRequest, async (record, i) => {
        let own: { release(): void } | null = null;
        try {
          const bytes = await this.recordBytes(record);
          // weighed as this request's own room: its images sent inline are not another request's (h111)
          if (fetched[i]) own = ticket.more(1);
          return await run(bytes, record);
        } catch (err) {
          if (err instanceof VisionBusyError) busy = err;
          return { error: failure(err) };
        } finally {
          own?.release();
        }
      });
      // nothing done and the queue full when the downloads came: the whole request is the busy
      // server's 503 with Retry-After, as when it is refused before any download (not an envelope 503)
      if (busy && out.every((o) => 'error' in o)) throw busyRefusal(busy);
      return out;
    } finally {
      ticket.release();
    }
  }

  private respond<K extends ImageTaskKind>(ctx: SearchContext, records: InputRecord[], outcomes: Outcome<K>[], clock: { done(): Statistics }, fields: (r: ImageTaskResults[K]) => Record<string, unknown>): VisionResponse {
    const failures = outcomes.flatMap((o) => ('error' in o ? [o.error] : []));
    return {
      status: overall(ctx, failures, outcomes.length),
      records: outcomes.map((o, i): OutputRecord =>
        'error' in o
          ? { ...echoAnswer(records[i]!), _status: recordError(ctx, o.error.text, o.error.code) }
          : { ...echoAnswer(records[i]!), _status: { code: 200, text: 'OK' }, _width: o.ok.width, _height: o.ok.height, ...fields(o.ok) },
      ),
      statistics: clock.done(),
    };
  }

  /**
   * Objects in one image (the given detector) and a descriptor of each object's region, plus one
   * of the whole image: what detectKNN searches with. Failures are ImageLoadError (400) or
   * VisionTaskError; the caller reports them.
   */
  async detectAndDescribe(record: InputRecord, detector: 'objects' | 'persons' | 'faces', minProb: number, maxObjects: number) {
    // an image to download takes its room once it has arrived (see `each`)
    const later = downloads(record);
    let ticket = this.admit(later ? 0 : 2 + maxObjects, later ? 2 + maxObjects : 0);
    try {
      const bytes = await this.intake.bytes(record);
      if (later) ticket = this.admit(2 + maxObjects);
      const maxPixels = this.intake.options.maxPixels;
      // Each task takes its own copy: the bytes are transferred to a worker.
      const [found, whole] = await Promise.all([detector === 'persons' ? this.engine.image('objects', Buffer.from(bytes), maxPixels, { persons: true }) : this.engine.image(detector, Buffer.from(bytes), maxPixels), this.engine.image('embed', Buffer.from(bytes), maxPixels)]);
      const objects = found.objects.filter((o) => o.prob >= minProb).slice(0, maxObjects);
      const vectors = await Promise.all(objects.map((o) => this.engine.image('embed', Buffer.from(bytes), maxPixels, { boundBox: o.bound_box })));
      return { width: whole.width, height: whole.height, model: whole.model, whole: Float32Array.from(whole.descriptor), objects: objects.map((o, i) => ({ ...o, vector: Float32Array.from(vectors[i]!.descriptor) })) };
    } finally {
      ticket.release();
    }
  }

  /** Reserves room for `tasks` now, and refuses the request unless there is room for `later` more too (not reserved). */
  private admit(tasks: number, later = 0): VisionTicket {
    try {
      const owner = downloadOwner();
      this.engine.checkRoom(tasks + later, owner);
      return this.engine.admit(tasks, owner);
    } catch (err) {
      if (err instanceof VisionBusyError) throw busyRefusal(err);
      throw err;
    }
  }

  /**
   * The text-tower vector of a query, in the same space as descriptors when a CLIP-family pack is
   * active; a clear 501 otherwise (text search then uses the keyword engine).
   */
  /** Whether a CLIP-family pack's text tower is active (text search's second engine). */
  get hasTextModel(): boolean {
    return Boolean(this.engine.clipPack);
  }

  async textVector(text: string): Promise<{ vector: number[]; model: string }> {
    if (!this.engine.clipPack) throw new ServiceError(501, 'no_text_model', 'No CLIP-family model pack is active; install one with `loupe models add <dir>`.');
    try {
      return await this.engine.text(text);
    } catch (err) {
      throw new ServiceError(500, 'vision_failed', `The text could not be embedded: ${(err as Error).message}`);
    }
  }

  /** Super-resolution for the upscaler jobs; refusals are ImageLoadError, failures VisionTaskError. */
  upscale(bytes: Buffer, factor: 2 | 3 | 4 | 8, signal?: AbortSignal) {
    const o = this.engine.options;
    return this.engine.upscale(bytes, factor, { maxPixels: this.intake.options.maxPixels, maxOutputPixels: o.upscaleMaxOutputPixels ?? 16_777_216, timeoutMs: o.upscaleTimeoutMs ?? 600_000 }, signal);
  }

  /**
   * A record's image. A number JSON could not keep as sent (beyond ±2^53, or the double range) is the
   * record's 400 first: every field but the image is echoed, and would come back altered.
   */
  private async recordBytes(record: InputRecord): Promise<Buffer> {
    const inexact = inexactRecordProblem(record);
    if (inexact) throw new RecordFieldError(inexact);
    return this.intake.bytes(record);
  }

  /** Card geometry for the grading jobs; refusals are ImageLoadError, failures VisionTaskError. */
  card(bytes: Buffer, op: CardOp, options: Parameters<VisionEngine['card']>[2]) {
    return this.engine.card(bytes, op, options, this.intake.options.maxPixels);
  }

  /** One card task, its failure (an image not loadable, a worker that died or timed out) as the record's status. */
  async cardOutcome(bytes: () => Promise<Buffer>, op: CardOp, options: Parameters<VisionEngine['card']>[2] = {}): Promise<CardOutcome> {
    try {
      return { ok: await this.card(await bytes(), op, options) };
    } catch (err) {
      return { error: failure(err) };
    }
  }

  /**
   * A card task per record, for the synchronous recognition endpoints: room in the engine's queue
   * is reserved for the whole request first, as in {@link each}, so a busy server answers 503 at
   * once.
   */
  async cardEach(records: InputRecord[], op: CardOp, options: Parameters<VisionEngine['card']>[2] = {}): Promise<CardOutcome[]> {
    return this.admitted(records, async (bytes) => ({ ok: await this.card(bytes, op, options) }));
  }

  /** `POST /photo/v2/descriptor`: the L2-normalised embedding of each image. */
  async descriptor(ctx: SearchContext, records: InputRecord[]): Promise<VisionResponse & { descriptor_model?: { name: string; dimension: number } }> {
    const clock = stopwatch();
    const outcomes = await this.each('embed', records);
    const first = outcomes.find((o): o is { ok: ImageTaskResults['embed'] } => 'ok' in o);
    return {
      ...this.respond(ctx, records, outcomes, clock, (r) => ({ _descriptor: r.descriptor.map(float7) })),
      ...(first ? { descriptor_model: { name: first.ok.model, dimension: first.ok.descriptor.length } } : {}),
    };
  }

  /** `POST /identity/v2/face`: faces, best first. */
  /** `smallFaces`: large photos are looked at in tiles too (about 4× the time on a 12-MP photo; docs/models.md). */
  async faces(ctx: SearchContext, records: InputRecord[], options: { smallFaces?: boolean } = {}): Promise<VisionResponse> {
    const clock = stopwatch();
    return this.respond(ctx, records, await this.each('faces', records, options.smallFaces ? { tiles: true } : undefined), clock, (r) => ({ _objects: r.objects.filter((o) => o.prob >= faceMinProb) }));
  }

  /** `POST /identity/v2/person`: people, from the COCO object detector's `person` class less its false boxes (HumanDetector.persons). */
  async persons(ctx: SearchContext, records: InputRecord[]): Promise<VisionResponse> {
    const clock = stopwatch();
    return this.respond(ctx, records, await this.each('objects', records, { persons: true }), clock, (r) => ({ _objects: r.objects.filter((o) => o.name === 'person') }));
  }
}
