/**
 * What a job handler sees. Handlers are registered by `type` (+ the endpoints they accept) and
 * turn a request's records into result records; the runner does leases, retries and storage.
 */
/** A submit a handler refuses: the field it names (as a 400's `errors` give it) and a sentence saying what is wrong. */
export interface Refusal {
  field: string;
  message: string;
  /** The error code where it is not `invalid_request` (a record limit's `too_many_records`). */
  code?: string;
}

export const refusal = (field: string, message: string): Refusal => ({ field, message });

export interface JobContext {
  id: string;
  accountId: string;
  workspaceId: string;
  type: string;
  endpoint: string;
  /** Request-level options kept at submit (e.g. `mode`). */
  options: Record<string, unknown>;
  /** The records as submitted, `_base64` left out (its bytes come from `image`). */
  records: Record<string, unknown>[];
  /** The request id reported in every record's `_status.request_id`. */
  requestId: string;
  /** Image bytes of record `index`: the upload, or the `_url` fetched now. Throws ImageLoadError. */
  image(index: number): Promise<Buffer>;
  /**
   * Stores a result image, deleted with the request; returns its URL as stored in the result.
   * That URL is not served as is: every read of the result replaces it with a signed link.
   */
  putMedia(bytes: Buffer, ext: 'jpg' | 'png' | 'webp'): Promise<string>;
  /**
   * Long edge (px) of the preview a handler that decodes its records' photos asks the vision worker for, 0 for none
   * (LOUPE_REQUEST_PREVIEWS off): the console draws a finished request's photos from them, a photo sent as data too.
   */
  previewEdge: number;
  /**
   * Keeps record `index`'s preview (a JPEG of `width` × `height` px) with the result, deleted with the request; read
   * through `GET /account/v2/request/<id>/previews`, never in the response. One that cannot be written is left out
   * (the server's log says why): the result does not wait on its picture.
   */
  putPreview(index: number, jpeg: Buffer, width: number, height: number): Promise<void>;
  /** Aborted when this worker lost the lease (another worker will redo the job) or is stopping. */
  signal: AbortSignal;
}

export interface JobOutcome {
  /** One per submitted record, in order; each carries its own `_status`. */
  records: Record<string, unknown>[];
  /** Further fields of `response` beside `records` (grading adds type, endpoint, statistics). */
  extra?: Record<string, unknown>;
}

/** What a submit says beside its records: the grading options, and every key of the body (`rootKeys`). */
export interface RequestOptions {
  mode?: string | undefined;
  frontWeight?: number | undefined;
  /** The body's own keys, so a record's option sent beside the records is refused rather than ignored. */
  rootKeys?: readonly string[];
}

export interface JobHandler {
  type: string;
  /** The account service this type also needs (besides `requests`): its synchronous endpoints' own. */
  service?: string;
  /**
   * Its jobs hold the vision engine's long pool (one thread by default) for their whole run: a
   * process runs one such job at a time, so the others' slots stay free for the rest of the queue.
   */
  long?: boolean;
  /** The account services this endpoint's work needs besides `service` (a flow's steps'); asked after `accepts`. */
  servicesFor?(endpoint: string): Promise<readonly string[]>;
  /** Whether `endpoint` names something this handler runs (an upscale factor, a flow name…). */
  accepts(endpoint: string): Promise<boolean> | boolean;
  /** The endpoint a submit that names none runs, where the type has one a client would expect (the spec shows none for it). */
  readonly defaultEndpoint?: string;
  /**
   * Whether a job of `endpoint` run now reads its records' images; false where it would answer every record without
   * them (no catalog of its kind imported), so the runner downloads none ahead (job-runner.ts). Asked after `accepts`;
   * not given: it does.
   */
  readsImages?(endpoint: string): Promise<boolean> | boolean;
  /** Endpoints to list in errors and docs. */
  endpoints(): Promise<string[]> | string[];
  /** Records one request may carry for this endpoint (10 when not given). */
  maxRecords?(endpoint: string): number;
  /** Checks request-level options at submit; returns what is wrong (the field and a sentence), or nothing. */
  validate?(endpoint: string, options: RequestOptions): Refusal | undefined;
  /** Checks the records' own options at submit, as the synchronous endpoint's schema would; what is wrong, or nothing. */
  validateRecords?(endpoint: string, records: readonly Record<string, unknown>[]): Refusal | undefined;
  /** Whether this endpoint's result images are publicly readable (spec): their links live longer. */
  publicMedia?(endpoint: string): boolean;
  run(ctx: JobContext): Promise<JobOutcome>;
}

/** Handlers by type; grading and recognition register theirs the same way. */
export class HandlerRegistry {
  private readonly handlers = new Map<string, JobHandler>();

  register(handler: JobHandler): void {
    if (this.handlers.has(handler.type)) throw new Error(`a handler for ${handler.type} is already registered`);
    this.handlers.set(handler.type, handler);
  }

  get(type: string): JobHandler | undefined {
    return this.handlers.get(type);
  }

  /** The types whose jobs run one at a time in a process ({@link JobHandler.long}). */
  longTypes(): string[] {
    return [...this.handlers.values()].filter((h) => h.long === true).map((h) => h.type);
  }

  types(): string[] {
    return [...this.handlers.keys()].sort();
  }
}

/**
 * A result image the server could not store (a full disk, an unwritable media folder): the server's
 * trouble for now, not the record's. Handlers let it through, so the job goes back to the queue and
 * the log says why, rather than finishing with a 500 that blames the image (h139).
 */
/**
 * The request's uploaded images could not be read from the database (a lock held past a statement limit, the database
 * away): the server's problem, not the images'. Handlers turn an image that cannot be had into that record's 400, so
 * the runner looks at this after the handler and sends the job back (h226: a VACUUM FULL's lock finished jobs for good
 * as "400 Error Loading Image", their images deleted with them).
 */
export class InputsUnreadableError extends Error {
  constructor(readonly reason: unknown) {
    super(`the request's uploaded images could not be read: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

export class MediaWriteError extends Error {
  constructor(readonly reason: unknown) {
    super(`a result image could not be stored: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}
