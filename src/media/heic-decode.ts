import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A file sharp can describe but not decode: HEVC in HEIF (an iPhone's HEIC); AVIF, AV1 in HEIF, it decodes itself. */
export const isHeic = (meta: { format?: string; compression?: string }): boolean => meta.format === 'heif' && meta.compression === 'hevc';

export interface RgbaImage {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * HEIC (HEVC in HEIF) decoding, for iPhone photos. sharp's prebuilt libvips reads a HEIC's header
 * but has no HEVC decoder (patents); `heic-decode` runs libheif with libde265 compiled to
 * WebAssembly. The decode is synchronous CPU work (about 0.5 s for 12 MP), so it runs in a worker
 * thread of its own, started on first use and ended after a while idle: its WebAssembly memory
 * (about 150 MB after a 12-MP photo) is given back then. One photo at a time.
 */
const decoderSource = `
const { parentPort, workerData } = require('node:worker_threads');
// libheif prints its decode errors; they are the caller's (a 400), not lines in the server's log
console.log = console.warn = console.error = () => {};
const decode = require(workerData.module);
parentPort.on('message', async ({ id, bytes }) => {
  try {
    const img = await decode({ buffer: new Uint8Array(bytes) });
    const data = new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength);
    parentPort.postMessage({ id, width: img.width, height: img.height, data }, [data.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

const IDLE_MS = 30_000;
let worker: Worker | undefined;
let idle: NodeJS.Timeout | undefined;
let nextId = 0;
/** Decodes under way, each with the thread it was sent to. */
const waiting = new Map<number, { resolve(img: RgbaImage): void; reject(err: Error): void; thread?: Worker }>();

function decoder(): Worker {
  if (idle) clearTimeout(idle);
  if (worker) return worker;
  // plain CommonJS whatever flags the process has (`--input-type=module` made the source a module)
  const w = new Worker(decoderSource, { eval: true, execArgv: [], workerData: { module: createRequire(import.meta.url).resolve('heic-decode') } });
  // only this thread's decodes: an idle thread's exit arrives after the next photo went to its
  // successor, and refused that photo as corrupt (an iPhone's first scan after a pause)
  const fail = (err: Error) => {
    if (worker === w) worker = undefined;
    for (const [id, p] of waiting) {
      if (p.thread !== w) continue;
      waiting.delete(id);
      p.reject(err);
    }
  };
  w.on('message', (m: { id: number; width?: number; height?: number; data?: Uint8Array; error?: string }) => {
    const p = waiting.get(m.id);
    if (!p) return;
    waiting.delete(m.id);
    if (m.error !== undefined || !m.data || !m.width || !m.height) p.reject(new Error(m.error ?? 'no image'));
    else p.resolve({ data: Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength), width: m.width, height: m.height });
    if (![...waiting.values()].some((q) => q.thread === w)) {
      // idle: the thread no longer keeps the process alive, and ends after a while
      w.unref();
      idle = setTimeout(() => void stopDecoder(), IDLE_MS).unref();
    }
  });
  w.on('error', fail);
  w.on('exit', () => fail(new Error('the HEIC decoder stopped')));
  worker = w;
  return w;
}

/** Ends the decoder thread (after idling, and at shutdown; the next photo starts one again). */
export async function stopDecoder(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (idle) clearTimeout(idle);
  await w?.terminate();
}

/** Longest a decode may take before the decoder thread is ended (and started afresh for the next photo). */
const DECODE_TIMEOUT_MS = 30_000;

/**
 * The first image of a HEIC file as 8-bit RGBA, its rotation and mirroring (irot, imir) applied.
 * A file decoded again (a collection insert measures one photo at several sizes) is decoded once
 * while its bytes are held.
 */
export function decodeHeic(bytes: Buffer): Promise<RgbaImage> {
  const known = decoded.get(bytes);
  if (known) return known;
  const made = new Promise<RgbaImage>((resolve, reject) => {
    const id = nextId++;
    // a decode that never ends would hold every later HEIC behind it
    const timer = setTimeout(() => {
      const p = waiting.get(id);
      if (p?.thread) void p.thread.terminate();
    }, DECODE_TIMEOUT_MS).unref();
    const done = <T>(f: (v: T) => void) => (v: T) => {
      clearTimeout(timer);
      f(v);
    };
    // held while a decode is under way (a command awaiting it must not end first); let go when idle
    // (a CLI command that had decoded a HEIC waited 30 s for the idle timer)
    const w = decoder();
    waiting.set(id, { resolve: done(resolve), reject: done(reject), thread: w });
    w.ref();
    w.postMessage({ id, bytes: new Uint8Array(bytes) });
  });
  decoded.set(bytes, made);
  made.catch(() => decoded.delete(bytes));
  return made;
}

const decoded = new WeakMap<Buffer, Promise<RgbaImage>>();
