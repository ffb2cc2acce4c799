import { Worker } from 'node:worker_threads';
import type { ArenaFillMessage, ArenaFillRequest } from './arena-fill-worker.ts';

/** A chunk of an arena as the fill worker made it, and the hashes of its records (`hashed[i]`: row i has one). */
export interface ArenaPart {
  keys: Float64Array;
  vectors: Float32Array;
  codes: Int8Array;
  hashed: Uint8Array;
  /** 8 words a row (packed-hash.ts). */
  hashes: Uint32Array;
}

/** The worker stopped, or could not start, or its read failed: the rest is read on the server's thread. */
export class ArenaFillLost extends Error {}

/**
 * One collection's vectors read on a worker thread (arena-fill-worker.ts), begun as this is made: the load reads the
 * records' attributes on the server's thread meanwhile, then takes the chunks, which wait here, in key order. The
 * worker's read is one snapshot begun after the collection's change number was read, which is what HnswIndex.open asks
 * of its rows. Iterated once; `close` ends the worker where the iteration stops early (the server's stop, an error).
 */
export class ArenaFill implements AsyncIterable<ArenaPart> {
  readonly #worker: Worker;
  readonly #parts: ArenaPart[] = [];
  #end: { error?: string } | undefined;
  #wake: (() => void) | undefined;

  constructor(request: ArenaFillRequest) {
    this.#worker = new Worker(new URL('./arena-fill-worker-entry.js', import.meta.url), { workerData: request });
    this.#worker.on('message', (m: ArenaFillMessage) => {
      if ('chunk' in m) this.#parts.push(m.chunk);
      else this.#finish('error' in m ? m.error : undefined);
      this.#wake?.();
    });
    this.#worker.on('error', (err) => {
      this.#finish(err.message);
      this.#wake?.();
    });
    this.#worker.on('exit', (code) => {
      this.#finish(`the worker stopped (exit code ${code})`);
      this.#wake?.();
    });
  }

  #finish(error: string | undefined): void {
    this.#end ??= error === undefined ? {} : { error };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ArenaPart> {
    try {
      for (;;) {
        const part = this.#parts.shift();
        if (part) {
          yield part;
          continue;
        }
        if (this.#end) {
          if (this.#end.error !== undefined) throw new ArenaFillLost(this.#end.error);
          return;
        }
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
    } finally {
      await this.close();
    }
  }

  /** Ends the worker (nothing where it is done); the chunks not taken are let go. */
  async close(): Promise<void> {
    this.#finish('closed');
    this.#parts.length = 0;
    await this.#worker.terminate();
  }
}
