import { Piscina } from 'piscina';
import type { VisionOptions } from '../config/config.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import { resolveOcrLanguage } from './ocr-language.ts';
import { type CardResult, type CardTask, type ImageRefused, type ImageTaskKind, type ImageTaskOptions, type TextEmbedding, type ImageTaskResults, type TaskOutcome, type UpscaleResult, type VisionTask } from './vision-tasks.ts';
import type { WorkerOptions } from './vision-worker.ts';

export type VisionEngineOptions = VisionOptions;

/** The pool is full: the request is refused before any work, with a hint when to come back. */
export class VisionBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('The vision engine is at capacity; retry later.');
    this.name = 'VisionBusyError';
  }
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

/**
 * Runs inference and image decoding in a worker_threads pool, never on the event loop. The queue
 * is bounded (`admit` refuses with VisionBusyError), every task has a timeout, and a worker that
 * dies fails only its own task: piscina starts a replacement.
 */
export class VisionEngine {
  private poolInstance: Piscina | undefined;
  /** Minutes-long work (super-resolution) runs in its own small pool, so it never holds up requests. */
  private longPoolInstance: Piscina | undefined;
  private pending = 0;
  private reserved = 0;
  /** Moving average of task time, for the Retry-After estimate. */
  private avgTaskMs = 200;
  private started: Promise<{ ms: number }> | undefined;

  constructor(readonly options: VisionEngineOptions) {}

  /**
   * Threads start on first use (or `start()`), so an app that never sees an image request (the
   * admin CLI, most tests) never pays for them. `minThreads` = `maxThreads`: workers hold loaded
   * models that take seconds to rebuild, so idle ones are kept, and a dead one is replaced.
   */
  private get pool(): Piscina {
    this.poolInstance ??= this.newPool(this.options.threads);
    return this.poolInstance;
  }

  private get longPool(): Piscina {
    this.longPoolInstance ??= this.newPool(this.options.longThreads ?? 1);
    return this.longPoolInstance;
  }

  private newPool(threads: number): Piscina {
    const workerData: WorkerOptions = { embedder: this.options.embedder, clipPack: this.options.clipPack, testHooks: this.options.testHooks ?? false };
    const pool = new Piscina({ filename: new URL('./vision-worker-entry.js', import.meta.url).href, minThreads: threads, maxThreads: threads, workerData });
    // Without a listener an 'error' event (a worker failing outside a task) would crash the server.
    pool.on('error', () => {});
    return pool;
  }

  /**
   * Loads and runs the warm-up models on every worker. As many warm tasks as threads are posted
   * at once: piscina gives a busy worker no second task, so each worker takes exactly one.
   */
  start(): Promise<{ ms: number }> {
    this.started ??= (async () => {
      const t0 = performance.now();
      if (this.options.warm.length) {
        await Promise.all(Array.from({ length: this.options.threads }, () => this.pool.run({ kind: 'warm', models: this.options.warm } satisfies VisionTask)));
      }
      return { ms: Math.round(performance.now() - t0) };
    })();
    return this.started;
  }

  /**
   * Reserves room for a request's `tasks` before any of its work starts (downloads included), or
   * refuses it (HTTP 503 with Retry-After). The caller releases the reservation when done.
   */
  admit(tasks: number): { release(): void } {
    if (this.reserved + tasks > this.options.maxQueue) {
      const seconds = Math.ceil(((this.reserved / this.options.threads) * this.avgTaskMs) / 1000);
      throw new VisionBusyError(Math.max(1, Math.min(60, seconds)));
    }
    this.reserved += tasks;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.reserved -= tasks;
      },
    };
  }

  get load(): { threads: number; running: number; reserved: number; maxQueue: number } {
    return { threads: this.poolInstance?.threads.length ?? 0, running: this.pending, reserved: this.reserved, maxQueue: this.options.maxQueue };
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
    const outcome = (await this.run({ kind: 'card', image, maxPixels, op, options }, [image])) as CardResult | ImageRefused;
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

  private async run(task: VisionTask, transferList: ArrayBuffer[], long?: { pool: Piscina; timeoutMs: number; signal?: AbortSignal | undefined }): Promise<unknown> {
    const timeoutMs = long?.timeoutMs ?? this.options.taskTimeoutMs;
    if (!long) this.pending++;
    const t0 = performance.now();
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await (long?.pool ?? this.pool).run(task, { transferList, signal: long?.signal ? AbortSignal.any([timeout, long.signal]) : timeout });
    } catch (err) {
      const e = err as Error;
      if (long?.signal?.aborted) throw new VisionTaskError('failed', 'the task was cancelled');
      if (e.name === 'AbortError' || e.name === 'TimeoutError') {
        throw new VisionTaskError('timeout', `the image took longer than ${Math.round(timeoutMs / 1000)} s to process`);
      }
      if (/worker exited|terminated/i.test(e.message)) throw new VisionTaskError('crashed', 'the vision worker stopped while processing the image (it has been restarted)');
      throw new VisionTaskError('failed', e.message);
    } finally {
      if (!long) {
        this.pending--;
        this.avgTaskMs = 0.9 * this.avgTaskMs + 0.1 * (performance.now() - t0);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.poolInstance?.destroy(), this.longPoolInstance?.destroy()]);
  }
}
