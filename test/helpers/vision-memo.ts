import { createHash } from 'node:crypto';
import { onTestFinished } from 'vitest';
import type { Harness } from './harness.ts';
import { ImageLoadError } from '../../src/media/image-load-error.ts';
import type { VisionEngine } from '../../src/vision/engine/vision-engine.ts';

/**
 * Remembers the vision engine's answers (`image` and `card` tasks) for the test file that asks, so a
 * photo the file sends again with the same task and options is not read again by the models.
 *
 * Why: most of the API files' time was the same photo recognised, graded or indexed again and again:
 * with other hints on the record (which the services apply after the engine), in another test, and
 * once more for the PostgreSQL harness, whose engine is its own but whose answer is the same bytes
 * through the same models. The first call of each photo, task and options still runs in a real worker;
 * everything above the engine (intake, admission to its queue, hints, catalogs, stores, the queue
 * workers, credits, the answer's shape) runs on every call. A test about the engine itself (workers,
 * time limits, a busy queue) must not use this, or calls `readFreshInThisTest` first.
 *
 * The key is everything an answer depends on: the task, the image's bytes, the options, the pixel
 * limit and the engine's own options (card locator, embedder, CLIP pack). Answers are handed out as
 * structured clones, as a worker's answer arrives, so a caller that edits one cannot change the next.
 * An image the engine refuses (ImageLoadError: not an image, too many pixels) is refused again from
 * memory, as the bytes decide it; any other failure (a worker that died or timed out) is not remembered.
 *
 * The memory lasts as long as the module: one test file (vitest isolates files). LOUPE_TEST_VISION_MEMO=off
 * turns it off, every image read by the models as before, for a run that doubts it.
 */
const answers = new Map<string, Promise<unknown>>();
let bypassed = 0;

function keyOf(engine: VisionEngine, parts: unknown[], bytes: Uint8Array): string {
  const digest = createHash('sha256').update(bytes).digest('hex');
  // functions (none today) and the engine's pool sizes say nothing of an answer
  const { threads: _t, maxQueue: _q, taskTimeoutMs: _l, warm: _w, ...engineOptions } = engine.options as unknown as Record<string, unknown>;
  return JSON.stringify([digest, parts, engineOptions]);
}

function remembered<T>(key: string, run: () => Promise<T>): Promise<T> {
  if (bypassed > 0) return run();
  let answer = answers.get(key) as Promise<T> | undefined;
  if (!answer) {
    answer = run();
    answers.set(key, answer);
    answer.catch((err: unknown) => {
      if (!(err instanceof ImageLoadError)) answers.delete(key);
    });
  }
  return answer.then((a) => structuredClone(a));
}

/** Makes `h`'s vision engine remember its answers for the rest of the file (see above). */
export function rememberVision(h: Harness): void {
  if (process.env.LOUPE_TEST_VISION_MEMO === 'off') return;
  const engine = (h.app.loupe.vision as unknown as { engine: VisionEngine }).engine;
  const image = engine.image.bind(engine);
  const card = engine.card.bind(engine);
  engine.image = ((kind, bytes, maxPixels, options) => remembered(keyOf(engine, ['image', kind, maxPixels, options ?? null], bytes), () => image(kind, bytes, maxPixels, options))) as VisionEngine['image'];
  engine.card = (bytes, op, options, maxPixels) => remembered(keyOf(engine, ['card', op, maxPixels, options ?? null], bytes), () => card(bytes, op, options, maxPixels));
}

/**
 * The test calling this reads every image afresh, whatever was read before (a test whose point is the
 * engine's own work: a worker that dies, a queue kept full by slow tasks); from the next test on, answers
 * are remembered again.
 */
export function readFreshInThisTest(): void {
  bypassed++;
  onTestFinished(() => {
    bypassed--;
  });
}
