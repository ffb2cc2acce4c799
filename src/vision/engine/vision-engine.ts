import { Piscina } from 'piscina';
import type { VisionOptions } from '../../config/config.ts';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { resolveOcrLanguage } from '../models/ocr-language.ts';
import { workForNobody } from '../../util/download-scope.ts';
import { workOwner } from '../../util/work-owner-scope.ts';
import { forgetDebugLog } from './runtime-debug-log.ts';
import { type CardResult, type CardTask, type ImageRefused, type ImageTaskKind, type ImageTaskOptions, type PostedTask, type ShareRequest, type TaskDone, type TaskProgress, type TextEmbedding, type ImageTaskResults, type TaskOutcome, type UpscaleResult, type VisionTask } from './vision-tasks.ts';
import type { WorkerOptions } from './vision-worker.ts';

export type VisionEngineOptions = VisionOptions;

/** The pool is full: the request is refused before any work, with a hint when to come back. */
export class VisionBusyError extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    /** Refused for the account's share, not the whole queue: other accounts' images are still taken. */
    readonly ownShare = false,
  ) {
    super(ownShare ? "This account's images fill its share of the vision engine (half its queue); retry later." : 'The vision engine is at capacity; retry later.');
    this.name = 'VisionBusyError';
  }
}

/** Room reserved in the engine's queue: given back once; `more` reserves room for further tasks of the same request. */
export interface VisionTicket {
  release(): void;
  more(tasks: number): { release(): void };
}

/** A task that did not finish: `timeout`, `crashed` (the worker died and was replaced) or `failed`. */
export class VisionTaskError extends Error {
  constructor(
    readonly reason: 'timeout' | 'crashed' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'VisionTaskError';
  }
}

function exclusiveArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  // Transfer moves the whole ArrayBuffer: a Buffer that is a view into a shared pool slab (small
  // Buffers are) must be copied out first, or the transfer would detach other Buffers' memory.
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  // (Buffer#slice is a view, not a copy: copy explicitly.)
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

/** Where a posted task stands, as its worker reports it (see `run`). */
interface Posted {
  phase: TaskProgress['phase'] | 'queued';
  progress(phase: TaskProgress['phase']): void;
}

/**
 * How long a worker may take to load the models of one task before it is stopped. Apart from the
 * task timeout, which is for the work on an image: a model loads once per worker and takes
 * seconds (more on a busy machine), far more than one image may take.
 */
const modelLoadTimeoutMs = 120_000;

/** Work times kept for the mean behind Retry-After, and the mean assumed before any is measured. */
const workSamples = 50;
const defaultWorkMs = 200;
/** Retry-After stays within these seconds. */
const retryAfterRange = [1, 60] as const;

/**
 * Runs inference and image decoding in a worker_threads pool, never on the event loop. The queue
 * is bounded (`admit` refuses with VisionBusyError), every task has a timeout on its work, and a
 * worker that dies or overruns fails only its own task: piscina starts a replacement, which warms
 * its models before it takes a task.
 */
export class VisionEngine {
  private poolInstance: Piscina | undefined;
  /** Minutes-long work (super-resolution) runs in its own small pool, so it never holds up requests. */
  private longPoolInstance: Piscina | undefined;
  /** Request-pool tasks posted and not finished; `working` of them are past model loading. */
  private pending = 0;
  /** Offered pictures being read by otherwise idle workers (`share`), and how many were since start. */
  private sharing = 0;
  private sharedReads = 0;
  private sharesDeclined = 0;
  private working = 0;
  private reserved = 0;
  /** Room each account holds (requests' `owner`); work for no account (queued jobs, background passes) holds none here. */
  private readonly reservedBy = new Map<string, number>();
  /** Posted tasks by id, for the progress messages of their workers. */
  private readonly posted = new Map<number, Posted>();
  /** Every posted task until its worker is done with it (one answered as a timeout goes on running): `close` waits for them. */
  private readonly unfinished = new Set<Promise<void>>();
  private nextTaskId = 1;
  /**
   * Request-pool tasks are handed to piscina only as its workers come free, one at a time from each account in turn
   * (`lanes`, in the order their first task is waiting; work for no account is a lane of its own): piscina's own queue
   * is first come first served, and another account's single image waited 30–52 s behind one account's 200 inserts
   * (h191). `slots`: tasks handed over and not finished.
   */
  private slots = 0;
  private readonly lanes = new Map<string, { go: () => void; stop: (err: Error) => void }[]>();
  /** The latest work times of request-pool tasks (ms in a worker, queue and model loads excluded). */
  private readonly workMs: number[] = [];
  private started: Promise<{ ms: number }> | undefined;
  /** Set by `start()`: the server's workers warm up as they start; other processes load lazily. */
  private warmWorkers = false;

  constructor(readonly options: VisionEngineOptions) {}

  /**
   * Threads start on first use (or `start()`), so an app that never sees an image request (the
   * admin CLI, most tests) never pays for them. `minThreads` = `maxThreads`: workers hold loaded
   * models that take seconds to rebuild, so idle ones are kept, and a dead one is replaced.
   */
  private get pool(): Piscina {
    this.poolInstance ??= this.newPool(this.options.threads, this.warmWorkers ? this.options.warm : []);
    return this.poolInstance;
  }

  /** The long pool warms nothing: the request models would only take its memory. */
  private get longPool(): Piscina {
    this.longPoolInstance ??= this.newPool(this.options.longThreads ?? 1, []);
    return this.longPoolInstance;
  }

  private newPool(threads: number, warm: readonly string[]): Piscina {
    const workerData: WorkerOptions = { embedder: this.options.embedder, clipPack: this.options.clipPack, testHooks: this.options.testHooks ?? false, warm };
    // its threads load the ONNX runtime, whose debug log of this process only the main thread is sure to remove
    forgetDebugLog();
    const pool = new Piscina({ filename: new URL('./vision-worker-entry.js', import.meta.url).href, minThreads: threads, maxThreads: threads, workerData });
    // Without a listener an 'error' event (a worker failing outside a task) would crash the server.
    pool.on('error', () => {});
    pool.on('message', (m: unknown) => {
      const p = m as Partial<TaskProgress> | null;
      if (typeof p?.loupeTask === 'number' && (p.phase === 'load' || p.phase === 'work')) this.posted.get(p.loupeTask)?.progress(p.phase);
      const share = m as Partial<ShareRequest> | null;
      if (share?.loupeShare && share.port) this.share(pool, share as ShareRequest);
    });
    return pool;
  }

  /**
   * A worker offers a picture its task would read next (shared-reads.ts): run it on a worker that
   * is idle now, or decline (close the port) so the asker reads it itself. Only an idle worker
   * takes one, so an offer never waits in the queue; its result goes back on the offer's port.
   */
  private share(pool: Piscina, request: ShareRequest): void {
    const { port, loupeShare } = request;
    if (pool !== this.poolInstance || this.pending + this.sharing >= this.options.threads) {
      this.sharesDeclined++;
      port.close();
      return;
    }
    this.sharing++;
    pool
      .run({ kind: 'ocr-share', ...loupeShare } satisfies VisionTask, { transferList: [loupeShare.pixels] })
      .then(
        (done: TaskDone) => {
          // null: its asker had taken it back before this worker started it
          if (done.value) this.sharedReads++;
          port.postMessage({ lines: done.value });
        },
        (err: Error) => port.postMessage({ error: err.message }),
      )
      .finally(() => {
        this.sharing--;
        port.close();
      });
  }

  /**
   * Resolves once every worker has loaded and run the warm-up models. After `start()` each worker
   * warms them as it starts, replacements included (vision-worker.ts); without it (queue worker
   * processes, the CLI) models load on first use. As many warm tasks as threads are posted at
   * once to wait for the warm-up: piscina gives a busy worker no second task, so each takes one.
   */
  start(): Promise<{ ms: number }> {
    this.started ??= (async () => {
      this.warmWorkers = true;
      const t0 = performance.now();
      if (this.options.warm.length) {
        await Promise.all(Array.from({ length: this.options.threads }, () => this.pool.run({ kind: 'warm', models: this.options.warm } satisfies VisionTask)));
      }
      return { ms: Math.round(performance.now() - t0) };
    })();
    return this.started;
  }

  /**
   * Refuses (HTTP 503 with Retry-After) unless the queue has room for `tasks` more now; reserves nothing. An
   * `owner` (the account a request is for) that holds room for other requests may hold at most half the queue: one
   * account's calls sent at once filled it, and every other account was refused (h106). `mine` is the room the asking
   * request itself holds already (its images sent inline, when it asks for one it downloaded): an account's only
   * request is weighed against the whole queue alone, so a large request still runs on a quiet server (h111).
   */
  checkRoom(tasks: number, owner?: string, mine = 0): void {
    // a request alone in the queue is taken whatever its size: under a LOUPE_VISION_QUEUE below 10 a call of ten
    // records was refused 503 busy for good, on an idle server, and a client honouring Retry-After retried forever (h225)
    if (this.reserved - mine > 0 && this.reserved + tasks > this.options.maxQueue) throw new VisionBusyError(this.retryAfterSeconds());
    const own = owner === undefined ? 0 : (this.reservedBy.get(owner) ?? 0);
    if (own - mine > 0 && own + tasks > Math.ceil(this.options.maxQueue / 2)) throw new VisionBusyError(this.retryAfterSeconds(), true);
  }

  /**
   * Reserves room for `tasks` before their work starts, or refuses them (HTTP 503 with Retry-After), within
   * `owner`'s share ({@link checkRoom}). The caller releases the reservation when done; `more` reserves room for
   * further tasks of the same request (an image downloaded meanwhile), weighed as that request's.
   */
  admit(tasks: number, owner?: string, mine = 0): VisionTicket {
    this.checkRoom(tasks, owner, mine);
    this.reserved += tasks;
    if (owner !== undefined) this.reservedBy.set(owner, (this.reservedBy.get(owner) ?? 0) + tasks);
    let held = tasks;
    let released = false;
    const ticket: VisionTicket = {
      release: () => {
        if (released) return;
        released = true;
        this.reserved -= tasks;
        held -= tasks;
        if (owner === undefined) return;
        const left = (this.reservedBy.get(owner) ?? 0) - tasks;
        if (left > 0) this.reservedBy.set(owner, left);
        else this.reservedBy.delete(owner);
      },
      more: (n: number) => {
        const extra = this.admit(n, owner, mine + held);
        held += n;
        let done = false;
        return {
          release: () => {
            if (done) return;
            done = true;
            held -= n;
            extra.release();
          },
        };
      },
    };
    return ticket;
  }

  /**
   * When the work admitted so far will have drained: the reserved tasks (waiting or running) ×
   * the mean work time of recent tasks ÷ threads, in whole seconds within 1–60. The mean is
   * measured in the workers, so it is the real drain rate, not inflated by time in the queue.
   */
  retryAfterSeconds(): number {
    const seconds = Math.ceil((this.reserved * this.meanWorkMs) / this.options.threads / 1000);
    return Math.max(retryAfterRange[0], Math.min(retryAfterRange[1], seconds));
  }

  private get meanWorkMs(): number {
    return this.workMs.length ? this.workMs.reduce((a, b) => a + b, 0) / this.workMs.length : defaultWorkMs;
  }

  private recordWork(ms: number): void {
    this.workMs.push(ms);
    if (this.workMs.length > workSamples) this.workMs.shift();
  }

  get load(): { threads: number; running: number; queued: number; reserved: number; maxQueue: number; meanTaskMs: number; sharedReads: number; sharesDeclined: number } {
    return {
      sharedReads: this.sharedReads,
      sharesDeclined: this.sharesDeclined,
      threads: this.poolInstance?.threads.length ?? 0,
      running: this.working,
      queued: this.pending - this.working,
      reserved: this.reserved,
      maxQueue: this.options.maxQueue,
      meanTaskMs: Math.round(this.meanWorkMs),
    };
  }

  /**
   * Runs one image task. The bytes are transferred to the worker (the caller's buffer may be
   * detached afterwards). An image the worker cannot decode rejects with ImageLoadError.
   */
  async image<K extends ImageTaskKind>(kind: K, bytes: Uint8Array, maxPixels: number, options?: ImageTaskOptions): Promise<ImageTaskResults[K]> {
    // Checked here, on the main thread, so a bad hint is the caller's error, not a failed task.
    if (options?.language !== undefined) resolveOcrLanguage(options.language);
    const image = exclusiveArrayBuffer(bytes);
    const outcome = (await this.run({ kind, image, maxPixels, ...(options ? { options } : {}) }, [image])) as TaskOutcome<K>;
    if ('refused' in outcome) throw new ImageLoadError(outcome.refused.reason, outcome.refused.status, outcome.refused.code);
    return outcome;
  }

  /**
   * Super-resolution of one image by `factor` in the long-task pool (one task per thread at a
   * time, queued behind each other). Refusals (undecodable, too large) are ImageLoadError.
   */
  async upscale(bytes: Uint8Array, factor: 2 | 3 | 4 | 8, limits: { maxPixels: number; maxOutputPixels: number; timeoutMs: number }, signal?: AbortSignal): Promise<UpscaleResult> {
    const image = exclusiveArrayBuffer(bytes);
    const task: VisionTask = { kind: 'upscale', image, factor, maxPixels: limits.maxPixels, maxOutputPixels: limits.maxOutputPixels };
    const outcome = (await this.run(task, [image], { pool: this.longPool, timeoutMs: limits.timeoutMs, signal })) as UpscaleResult | ImageRefused;
    if ('refused' in outcome) throw new ImageLoadError(outcome.refused.reason, outcome.refused.status, outcome.refused.code);
    return outcome;
  }

  /** Card geometry of one photo (localize, crop_level, centering) in the request pool. */
  async card(bytes: Uint8Array, op: CardTask['op'], options: CardTask['options'], maxPixels: number): Promise<CardResult> {
    const image = exclusiveArrayBuffer(bytes);
    const outcome = (await this.run({ kind: 'card', image, maxPixels, op, options: { locator: this.options.cardLocator ?? 'detector', ...options } }, [image])) as CardResult | ImageRefused;
    if ('refused' in outcome) throw new ImageLoadError(outcome.refused.reason, outcome.refused.status, outcome.refused.code);
    return outcome;
  }

  /** The text embedding of the active CLIP-family pack; fails when none is active. */
  async text(text: string): Promise<TextEmbedding> {
    return (await this.run({ kind: 'text', text }, [])) as TextEmbedding;
  }

  /** Whether descriptors and text search come from a CLIP-family pack. */
  get clipPack(): string | undefined {
    return this.options.clipPack;
  }

  /**
   * Posts a task and times it from the moment its worker starts the work, never from the post:
   * a task waiting in the queue behind a burst must not time out there, and neither may one whose
   * worker is still loading models (`modelLoadTimeoutMs` bounds that instead). The worker reports
   * both moments as pool messages (`TaskProgress`) and returns its own work time, which feeds the
   * Retry-After estimate. A task over its time limit is answered as a timeout at once; its worker
   * is given `graceMs` more to finish on its own before piscina stops it and starts a replacement:
   * a worker stopped inside a native call (onnxruntime, the JPEG decoder's addon) aborts the whole
   * process (a probe with a 150 ms limit did so on its seventh request).
   */
  private async run(task: VisionTask, transferList: ArrayBuffer[], long?: { pool: Piscina; timeoutMs: number; signal?: AbortSignal | undefined }): Promise<unknown> {
    const timeoutMs = long?.timeoutMs ?? this.options.taskTimeoutMs;
    const id = this.nextTaskId++;
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    let expired: 'load' | 'work' | undefined;
    let answerNow: (() => void) | undefined;
    const early = new Promise<never>((_, reject) => (answerNow = () => reject(new Error('timed out'))));
    const entry: Posted = {
      phase: 'queued',
      progress: (phase) => {
        if (phase === 'work' && entry.phase !== 'work' && !long) this.working++;
        entry.phase = phase;
        clearTimeout(timer);
        timer = setTimeout(() => {
          expired = phase;
          if (phase === 'work' && !long) {
            answerNow!();
            grace = setTimeout(() => stop.abort(), this.graceMs(timeoutMs));
          } else stop.abort();
        }, phase === 'work' ? timeoutMs : modelLoadTimeoutMs);
      },
    };
    this.posted.set(id, entry);
    if (!long) this.pending++;
    let inSlot = false;
    try {
      if (!long) {
        await this.turn(workOwner() ?? '');
        inSlot = true;
        // its turn came after its client left a call that keeps nothing: nobody reads it
        if (workForNobody()) throw new VisionTaskError('failed', 'the request was cancelled by its client');
      }
      const posted: PostedTask = { ...task, taskId: id };
      const job = (long?.pool ?? this.pool).run(posted, { transferList, signal: long?.signal ? AbortSignal.any([stop.signal, long.signal]) : stop.signal });
      // answered early, the task goes on: its end (or its stop) only clears the grace period
      const finished = job.then(
        () => clearTimeout(grace),
        () => clearTimeout(grace),
      );
      this.unfinished.add(finished);
      void finished.then(() => this.unfinished.delete(finished));
      const done = (await Promise.race([job, early])) as TaskDone;
      if (!long) this.recordWork(done.workMs);
      return done.value;
    } catch (err) {
      const e = err as Error;
      if (long?.signal?.aborted) throw new VisionTaskError('failed', 'the task was cancelled');
      if (expired === 'work') {
        // It held its worker that long: that is what it cost the queue.
        if (!long) this.recordWork(timeoutMs);
        throw new VisionTaskError('timeout', `the image took longer than ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`} to process`);
      }
      if (expired === 'load') throw new VisionTaskError('timeout', `the vision worker took longer than ${Math.round(modelLoadTimeoutMs / 1000)} s to load its models`);
      if (/worker exited|terminated/i.test(e.message)) throw new VisionTaskError('crashed', 'the vision worker stopped while processing the image (it has been restarted)');
      throw new VisionTaskError('failed', e.message);
    } finally {
      clearTimeout(timer);
      this.posted.delete(id);
      if (!long) {
        this.pending--;
        if (entry.phase === 'work') this.working--;
      }
      if (inSlot) this.nextTurn();
    }
  }

  /** Waits for a free worker, taking turns with other accounts' tasks (`lanes`). */
  private turn(owner: string): Promise<void> {
    if (this.slots < this.options.threads && this.lanes.size === 0) {
      this.slots++;
      return Promise.resolve();
    }
    return new Promise((go, stop) => {
      const lane = this.lanes.get(owner);
      if (lane) lane.push({ go, stop });
      else this.lanes.set(owner, [{ go, stop }]);
    });
  }

  /** A slot came free: the next account's oldest task takes it, and that account goes to the back of the turn. */
  private nextTurn(): void {
    const first = this.lanes.entries().next();
    if (first.done) {
      this.slots--;
      return;
    }
    const [owner, lane] = first.value;
    const next = lane.shift()!;
    this.lanes.delete(owner);
    if (lane.length) this.lanes.set(owner, lane);
    next.go();
  }

  /** How long a task over its limit may run on before its worker is stopped: long enough for any native call to return. */
  private graceMs(timeoutMs: number): number {
    return this.options.timeoutGraceMs ?? Math.max(10_000, 2 * timeoutMs);
  }

  /**
   * Stops the pools once the tasks still in their workers are done, for at most as long as a timed-out
   * task's grace: destroying a pool terminates its workers, and a worker stopped inside a native call
   * aborts the whole process (a task answered as a timeout is still running in one).
   */
  async close(): Promise<void> {
    // tasks still waiting their turn never reach a worker: sent on, one would start on a worker the pool then stops
    // mid-task (a native call aborts the process), as close waits only for tasks already posted (h200)
    const waiting = [...this.lanes.values()].flat();
    this.lanes.clear();
    for (const { stop } of waiting) stop(new VisionTaskError('failed', 'the server is stopping'));
    // a stop during the start waits for the warm-up: its workers are inside the models' native loading, and a pool
    // destroyed then aborted the process (exit 134, h205); a load is bounded as every model load is
    if (this.started) await settledWithin(this.started, modelLoadTimeoutMs);
    if (this.unfinished.size > 0) await settledWithin(Promise.all(this.unfinished), this.graceMs(this.options.taskTimeoutMs));
    await Promise.all([this.poolInstance?.destroy(), this.longPoolInstance?.destroy()]);
  }
}

/** Waits for `work` to settle, for at most `ms`. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (bound = setTimeout(resolve, ms)))]);
  clearTimeout(bound);
}
