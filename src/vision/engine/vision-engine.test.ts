import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { VisionBusyError, VisionEngine, VisionTaskError } from './vision-engine.ts';
import { busyMarker, crashMarker, type CardResult } from './vision-tasks.ts';
import { runCardTask } from '../cards/card-tasks.ts';
import { photoBytes } from '../../../test/helpers/photos.ts';
import { withWorkOwner } from '../../util/work-owner-scope.ts';

const photo = () => photoBytes('faces/faces.jpg');
/** Bytes that hold a worker for `ms` (a test hook) and decode nothing. */
const busy = (ms: number) => Buffer.from(`not an image ${busyMarker(ms)}`);

describe('vision engine (real workers, real models)', () => {
  let engine: VisionEngine;
  beforeAll(async () => {
    engine = new VisionEngine({ threads: 2, maxQueue: 6, taskTimeoutMs: 20_000, warm: ['faces'], embedder: '', testHooks: true });
    await engine.start();
  }, 60_000);
  afterAll(() => engine.close());

  it('detects faces off the main thread and reports the stored image size', async () => {
    const r = await engine.image('faces', photo(), 40_000_000);
    expect(r).toMatchObject({ width: 710, height: 473 });
    expect(r.objects.length).toBeGreaterThanOrEqual(5);
    for (const o of r.objects) {
      expect(o.bound_box[0]).toBeLessThan(o.bound_box[2]);
      expect(o.bound_box[2]).toBeLessThanOrEqual(710);
    }
  });

  it('indexes an object that fills the frame, which only the framed view finds (a dalmatian portrait)', async () => {
    const dog = () => photoBytes('caltech101/dalmatian/image_0006.jpg');
    const plain = await engine.image('objects', dog(), 40_000_000);
    expect(plain.objects.filter((o) => o.prob >= 0.3).map((o) => o.name)).not.toContain('dog');
    const index = await engine.image('index', dog(), 40_000_000, { seen: ['objects', 'framed'] });
    const found = index.observed.objects.find((o) => o.name === 'dog');
    expect(found).toBeDefined();
    // In the photo's own pixels, and covering much of it.
    const [x0, y0, x1, y1] = found!.box;
    expect(x1).toBeLessThanOrEqual(index.width);
    expect(y1).toBeLessThanOrEqual(index.height);
    expect((x1 - x0) * (y1 - y0)).toBeGreaterThan(0.2 * index.width * index.height);
  }, 60_000);

  it('finds COCO objects and a body pose (MoveNet keypoints) in stored-image pixels', async () => {
    const objects = await engine.image('objects', photo(), 40_000_000);
    expect(objects.objects.filter((o) => o.name === 'person').length).toBeGreaterThanOrEqual(3);
    const pose = await engine.image('pose', photo(), 40_000_000);
    expect(pose.poses).toHaveLength(1);
    // Keypoints below MoveNet's confidence floor are left out; a group photo shows upper bodies.
    expect(pose.poses[0]!.keypoints.length).toBeGreaterThanOrEqual(5);
    expect(pose.poses[0]!.keypoints.length).toBeLessThanOrEqual(17);
    expect(pose.poses[0]!.keypoints.map((k) => k.part)).toContain('leftShoulder');
    for (const k of pose.poses[0]!.keypoints) expect(k.x >= 0 && k.x <= 710 && k.y >= 0 && k.y <= 473).toBe(true);
  }, 60_000);

  it('reads text (OCR) in stored-image pixels and refuses a language the model cannot read', async () => {
    // A label made on the spot, like a slab's: a name line and a certificate number.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="200"><rect width="100%" height="100%" fill="#f4f1e8"/><text x="30" y="80" font-family="sans-serif" font-size="40" fill="#111">CHARIZARD 4/102</text><text x="360" y="150" font-family="sans-serif" font-size="40" fill="#111">69039810</text></svg>`;
    const label = await sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
    const r = await engine.image('ocr', label, 40_000_000, { language: 'en' });
    expect(r.lines.map((l) => l.text.replace(/\s/g, ''))).toContain('CHARIZARD4/102');
    const cert = r.lines.find((l) => l.text === '69039810');
    expect(cert).toBeDefined();
    for (const [x, y] of cert!.polygon) expect(x >= 340 && x <= r.width && y >= 90 && y <= r.height).toBe(true);
    await expect(engine.image('ocr', label, 40_000_000, { language: 'fr' })).rejects.toThrow(/not supported/);
  }, 60_000);

  it('reads a card with both workers when the other is idle, and reads the same lines as one thread alone', async () => {
    const bytes = await photoBytes('cards/read-416032719_901419734749956_6708327569765181669_n_jpg.rf.6fc7207f060c960502cef148cb233d25.jpg');
    const copy = () => new Uint8Array(bytes);
    const alone = (await runCardTask({ kind: 'card', image: copy().buffer, maxPixels: 40_000_000, op: 'read', options: {} })) as CardResult;
    const before = engine.load.sharedReads;
    // the first read also loads the other worker's OCR models, while its own task reads on
    await engine.card(copy(), 'read', {}, 40_000_000);
    const pooled = await engine.card(copy(), 'read', {}, 40_000_000);
    expect(engine.load.sharedReads).toBeGreaterThan(before);
    expect(pooled.readings![0]!.lines.map((l) => l.text)).toEqual(alone.readings![0]!.lines.map((l) => l.text));
    expect(pooled.readings![0]!.lines.length).toBeGreaterThan(3);
    // with the other worker busy, nothing is offered to it: the card is read alone, the same lines
    const held = engine.image('colors', busy(4000), 40_000_000);
    const { sharedReads, sharesDeclined } = engine.load;
    const alone2 = await engine.card(copy(), 'read', {}, 40_000_000);
    expect(engine.load.sharedReads).toBe(sharedReads);
    expect(engine.load.sharesDeclined).toBeGreaterThan(sharesDeclined);
    expect(alone2.readings![0]!.lines.map((l) => l.text)).toEqual(alone.readings![0]!.lines.map((l) => l.text));
    await held;
  }, 60_000);

  it('gives the dominant colors of a region, background excluded', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#ffffff"/><rect x="100" y="50" width="140" height="200" fill="#d01818"/><rect x="240" y="50" width="60" height="200" fill="#1830c0"/></svg>';
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const r = await engine.image('colors', png, 40_000_000, { boundBox: [80, 30, 320, 270] });
    expect(r.colors.map((c) => c.name)).toEqual(expect.arrayContaining([expect.stringMatching(/red/), expect.stringMatching(/blue/)]));
    expect(r.colors[0]!.percentage).toBeGreaterThan(60);
    expect(r.colors.some((c) => c.name === 'white')).toBe(false);
  });

  it('refuses bytes that are not an image as an image error, not a worker failure', async () => {
    await expect(engine.image('faces', Buffer.from('not an image at all'), 40_000_000)).rejects.toBeInstanceOf(ImageLoadError);
  });

  it('fails only the task of a worker that dies, and replaces the worker', async () => {
    const crashing = Buffer.concat([photo(), Buffer.from(crashMarker)]);
    const [bad, good] = await Promise.allSettled([engine.image('faces', crashing, 40_000_000), engine.image('faces', photo(), 40_000_000)]);
    expect(bad.status).toBe('rejected');
    expect((bad as PromiseRejectedResult).reason).toBeInstanceOf(VisionTaskError);
    expect(((bad as PromiseRejectedResult).reason as VisionTaskError).reason).toBe('crashed');
    expect(good.status).toBe('fulfilled');
    // Both threads serve again (the replacement loads its model on first use).
    const again = await Promise.all([engine.image('faces', photo(), 40_000_000), engine.image('faces', photo(), 40_000_000)]);
    expect(again.every((r) => r.objects.length >= 5)).toBe(true);
    expect(engine.load.threads).toBe(2);
  }, 60_000);

  it('admits at most maxQueue images at once and says when to retry', () => {
    const a = engine.admit(4);
    expect(() => engine.admit(3)).toThrow(VisionBusyError);
    try {
      engine.admit(3);
    } catch (err) {
      expect((err as VisionBusyError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    const b = engine.admit(2);
    a.release();
    a.release();
    b.release();
    expect(engine.load.reserved).toBe(0);
    // alone in the queue, a request larger than the queue is taken (maxQueue 6; ten records under LOUPE_VISION_QUEUE=8
    // were refused 503 for good on an idle server, h225), and refuses the next one while it holds the room
    const large = engine.admit(10);
    expect(() => engine.admit(1)).toThrow(VisionBusyError);
    // its own further images (downloaded) go on being taken
    large.more(2).release();
    large.release();
    expect(engine.load.reserved).toBe(0);
  });

  it("keeps half the queue for other accounts once an account holds room (h106: one account's calls refused every other's)", () => {
    // maxQueue 6: an account holding room may hold 3
    const first = engine.admit(4, 'b');
    expect(() => engine.admit(1, 'b')).toThrow(expect.objectContaining({ ownShare: true }));
    const other = engine.admit(2, 'a');
    expect(() => engine.admit(1, 'c')).toThrow(expect.objectContaining({ ownShare: false }));
    first.release();
    const again = engine.admit(3, 'b');
    expect(() => engine.admit(1, 'b')).toThrow(VisionBusyError);
    // work for no account (queued jobs) is held to the whole queue only
    const job = engine.admit(1);
    for (const t of [other, again, job]) t.release();
    expect(engine.load.reserved).toBe(0);
    // a first request larger than half runs on a quiet server
    engine.admit(5, 'b').release();
    // and so do the images it downloads, weighed as its own room, not another request's (h111: refused "for its share")
    const alone = engine.admit(4, 'b');
    const fetched = alone.more(1);
    const again2 = alone.more(1);
    // alone in the queue, even past its end (as a request larger than the queue is taken, h225)
    const past = alone.more(1);
    // a second request of the account is held to its half, another account's to the queue
    expect(() => engine.admit(1, 'b')).toThrow(VisionBusyError);
    expect(() => engine.admit(1, 'c')).toThrow(expect.objectContaining({ ownShare: false }));
    for (const t of [fetched, again2, past, alone]) t.release();
    fetched.release();
    expect(engine.load.reserved).toBe(0);
  });
});

describe('vision engine timeouts', () => {
  it('stops a task over its time limit with a timeout error', async () => {
    const engine = new VisionEngine({ threads: 1, maxQueue: 4, taskTimeoutMs: 1, warm: [], embedder: '' });
    try {
      const err = await engine.image('objects', photo(), 40_000_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VisionTaskError);
      expect((err as VisionTaskError).reason).toBe('timeout');
    } finally {
      await engine.close();
    }
  }, 30_000);

  it('times only the work: a burst larger than the pool waits in the queue without timing out', async () => {
    // Issue 16 item 13: the timeout started when a task was posted, so with a 2 s limit six
    // concurrent 10-image requests timed out 45 of 60 images that only waited their turn.
    const engine = new VisionEngine({ threads: 1, maxQueue: 16, taskTimeoutMs: 1_000, warm: [], embedder: '', testHooks: true });
    try {
      const t0 = performance.now();
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => engine.image('colors', busy(400), 40_000_000)));
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(Array(6).fill('ok'));
      // They did queue: one thread, 6 × 400 ms of work, far past the 1 s limit overall.
      expect(performance.now() - t0).toBeGreaterThan(2_400);
    } finally {
      await engine.close();
    }
  }, 30_000);

  it("takes turns between accounts: another account's one image waits for one task of a burst, not all of it (h191)", async () => {
    const engine = new VisionEngine({ threads: 1, maxQueue: 16, taskTimeoutMs: 5_000, warm: [], embedder: '', testHooks: true });
    try {
      const done: string[] = [];
      const burst = Array.from({ length: 6 }, (_, i) => withWorkOwner('a', () => engine.image('colors', busy(250), 40_000_000)).then(() => done.push(`a${i}`)));
      await new Promise((r) => setTimeout(r, 50));
      const single = withWorkOwner('b', () => engine.image('colors', busy(10), 40_000_000)).then(() => done.push('b'));
      await Promise.all([...burst, single]);
      // the burst's first task was running and its second waiting its turn when b came: b goes next
      expect(done.indexOf('b')).toBeLessThanOrEqual(2);
      expect(done.filter((d) => d.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
      // work for no account is a turn of its own too
      const order: string[] = [];
      const more = Array.from({ length: 4 }, (_, i) => withWorkOwner('a', () => engine.image('colors', busy(150), 40_000_000)).then(() => order.push(`a${i}`)));
      await new Promise((r) => setTimeout(r, 50));
      await Promise.all([...more, engine.image('colors', busy(10), 40_000_000).then(() => order.push('queued job'))]);
      expect(order.indexOf('queued job')).toBeLessThanOrEqual(2);
    } finally {
      await engine.close();
    }
  }, 30_000);

  it('on close, refuses the tasks still waiting their turn rather than start them on a worker it then stops (h200)', async () => {
    const engine = new VisionEngine({ threads: 1, maxQueue: 8, taskTimeoutMs: 5_000, warm: [], embedder: '', testHooks: true });
    const running = withWorkOwner('a', () => engine.image('colors', busy(800), 40_000_000));
    await new Promise((r) => setTimeout(r, 100));
    const waiting = withWorkOwner('b', () => engine.image('colors', busy(100), 40_000_000)).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await engine.close();
    await expect(running).resolves.toBeDefined();
    const refused = await waiting;
    expect(refused).toBeInstanceOf(VisionTaskError);
    expect((refused as VisionTaskError).message).toBe('the server is stopping');
  }, 30_000);

  it('answers a task over its limit at once, and lets its worker finish it rather than stopping it mid-call', async () => {
    // Stopping a worker inside a native call (onnxruntime, the JPEG addon) aborted the whole process.
    const engine = new VisionEngine({ threads: 1, maxQueue: 8, taskTimeoutMs: 300, timeoutGraceMs: 10_000, warm: [], embedder: '', testHooks: true });
    try {
      const t0 = performance.now();
      const slow = await engine.image('colors', busy(1_500), 40_000_000).catch((e: unknown) => e);
      const answered = performance.now() - t0;
      expect(slow).toBeInstanceOf(VisionTaskError);
      expect((slow as VisionTaskError).reason).toBe('timeout');
      expect((slow as VisionTaskError).message).toBe('the image took longer than 300 ms to process');
      // the next task waits for the same worker to finish the first, then runs: nothing was stopped
      await engine.image('colors', busy(10), 40_000_000);
      const finished = performance.now() - t0;
      expect(finished).toBeGreaterThanOrEqual(1_450);
      // answered well before its worker was done (timed from its finish, not from the post: a worker's start on a loaded
      // machine took over a second, and "answered within 1.4 s of the post" failed in full runs)
      expect(finished - answered).toBeGreaterThan(900);
      expect(engine.load.threads).toBe(1);
    } finally {
      await engine.close();
    }
  }, 30_000);

  it('on close, lets a task answered as a timeout finish in its worker before stopping the pool', async () => {
    const engine = new VisionEngine({ threads: 1, maxQueue: 8, taskTimeoutMs: 300, timeoutGraceMs: 10_000, warm: [], embedder: '', testHooks: true });
    const slow = await engine.image('colors', busy(1_500), 40_000_000).catch((e: unknown) => e);
    expect((slow as VisionTaskError).reason).toBe('timeout');
    // answered at its 300 ms limit, the task has about 1.2 s of work left: close waits for it, not stopping the worker mid-task
    const answered = performance.now();
    await engine.close();
    expect(performance.now() - answered).toBeGreaterThanOrEqual(900);
  }, 30_000);

  it('after a timeout the replaced worker warms its models first and serves the next task', async () => {
    // The replacement used to take its next task cold: its start-up and model loading counted
    // against that task's limit, so it timed out too, and every one after it.
    // 3 s: a warm face task takes about 100 ms, and 1.5 s was passed under heavy load (load average 17 on two cores)
    const engine = new VisionEngine({ threads: 1, maxQueue: 8, taskTimeoutMs: 3_000, timeoutGraceMs: 500, warm: ['faces'], embedder: '', testHooks: true });
    try {
      await engine.start();
      const stuck = await engine.image('colors', busy(20_000), 40_000_000).catch((e: unknown) => e);
      expect(stuck).toBeInstanceOf(VisionTaskError);
      expect((stuck as VisionTaskError).reason).toBe('timeout');
      // Posted at once, while the replacement is still starting.
      const [first, second] = await Promise.all([engine.image('faces', photo(), 40_000_000), engine.image('faces', photo(), 40_000_000)]);
      expect(first.objects.length).toBeGreaterThanOrEqual(5);
      expect(second.objects.length).toBeGreaterThanOrEqual(5);
      expect(engine.load.threads).toBe(1);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('says Retry-After from the measured work time, not the time tasks spent queued', async () => {
    const engine = new VisionEngine({ threads: 2, maxQueue: 20, taskTimeoutMs: 10_000, warm: [], embedder: '', testHooks: true });
    try {
      // 8 tasks of 300 ms on 2 threads: each waited up to 900 ms, but each worked 300 ms.
      await Promise.all(Array.from({ length: 8 }, () => engine.image('colors', busy(300), 40_000_000)));
      const full = engine.admit(20);
      const err = (() => {
        try {
          engine.admit(1);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(VisionBusyError);
      // 20 tasks × 300–400 ms ÷ 2 threads: 3–4 s, rounded up.
      expect((err as VisionBusyError).retryAfterSeconds).toBeGreaterThanOrEqual(3);
      expect((err as VisionBusyError).retryAfterSeconds).toBeLessThanOrEqual(4);
      expect(engine.load.meanTaskMs).toBeGreaterThanOrEqual(300);
      expect(engine.load.meanTaskMs).toBeLessThan(400);
      full.release();
    } finally {
      await engine.close();
    }
  }, 30_000);
});
