import { MessageChannel, isMainThread, parentPort } from 'node:worker_threads';
import type { OcrLine, OcrReadOptions, OcrReader } from '../models/ocr-reader.ts';
import type { RgbPixels } from './tfjs-runtime.ts';
import type { OcrShareTask, ShareRequest } from './vision-tasks.ts';

const UNCLAIMED = 0;
const TAKEN_THERE = 1;
const TAKEN_BACK = 2;

/** What an idle worker's answer to a shared picture says. */
type ShareAnswer = { lines: OcrLine[] | null } | { error: string };

/**
 * A reader that reads several pictures at once. One worker runs one inference at a time (the
 * onnxruntime runs block its thread), so a task with two bands to read used one core while the
 * other stood idle: the server takes one request at a time as often as not. `readAll` offers every
 * picture but the first to an idle worker (through the engine, vision-engine.ts), reads the first
 * itself, then each offered one that no worker has started yet itself too. A picture is never
 * waited for unless a worker has started it, so no task waits on work queued behind it, and under
 * load (no worker idle) it costs an unanswered message. The lines are the same either way: the
 * same models read the same pixels.
 */
export interface SharingOcrReader extends OcrReader {
  /** `options.lexicon` looks at the first picture's lines only: that one is always read here (a lexicon does not travel to another worker). */
  readAll(images: RgbPixels[], options?: OcrReadOptions): Promise<OcrLine[][]>;
}

/** `ocr` with `readAll`; outside a vision worker (tests, scripts, the CLI) it reads one after the other. */
export function sharingReader(ocr: OcrReader, port = isMainThread ? null : parentPort): SharingOcrReader {
  return {
    read: (img, options) => ocr.read(img, options),
    countText: (img, longSide) => ocr.countText(img, longSide),
    dispose: () => ocr.dispose(),
    async readAll(images, options) {
      const { lexicon: _first, ...rest } = options ?? {};
      const offered = port ? images.slice(1).map((img) => offer(port, img, rest)) : [];
      const out: OcrLine[][] = [await ocr.read(images[0]!, options)];
      for (const [k, img] of images.slice(1).entries()) out.push((await offered[k]?.taken()) ?? (await ocr.read(img, rest)));
      return out;
    },
  };
}

/**
 * Offers one picture to an idle worker. `taken()` is its lines when a worker started it (waiting
 * for them), or null when none had: the picture is then claimed back and the caller reads it.
 */
function offer(port: NonNullable<typeof parentPort>, img: RgbPixels, options: OcrReadOptions | undefined): { taken(): Promise<OcrLine[] | null> } {
  const claim = new SharedArrayBuffer(4);
  const flag = new Int32Array(claim);
  const channel = new MessageChannel();
  const answer = new Promise<ShareAnswer | null>((resolve) => {
    channel.port1.once('message', (m: ShareAnswer) => resolve(m));
    // the engine closes its end without an answer when no worker is idle
    channel.port1.once('close', () => resolve(null));
  });
  const pixels = img.data.slice().buffer as ArrayBuffer;
  const request: ShareRequest = { loupeShare: { pixels, width: img.width, height: img.height, claim, ...(options?.language ? { language: options.language } : {}) }, port: channel.port2 };
  port.postMessage(request, [channel.port2, pixels]);
  return {
    async taken() {
      if (Atomics.compareExchange(flag, 0, UNCLAIMED, TAKEN_BACK) === UNCLAIMED) {
        channel.port1.close();
        return null;
      }
      const a = await answer;
      channel.port1.close();
      // a worker that failed or stopped mid-read: read it here
      return a && 'lines' in a ? a.lines : null;
    },
  };
}

/** The idle worker's side: the picture's lines, or null when its asker took it back first. */
export async function readShared(task: OcrShareTask, ocr: () => Promise<OcrReader>): Promise<OcrLine[] | null> {
  const reader = await ocr();
  if (Atomics.compareExchange(new Int32Array(task.claim), 0, UNCLAIMED, TAKEN_THERE) !== UNCLAIMED) return null;
  return reader.read({ data: new Uint8Array(task.pixels), width: task.width, height: task.height }, task.language ? { language: task.language } : {});
}
