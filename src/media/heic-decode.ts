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
/** Longest one decode may take, from when it starts, before the decoder thread is ended (and started afresh). */
const DECODE_TIMEOUT_MS = 30_000;

interface Pending {
  id: number;
  bytes: Uint8Array;
  resolve(img: RgbaImage): void;
  reject(err: Error): void;
  thread?: Worker;
  timer?: NodeJS.Timeout;
}

let worker: Worker | undefined;
let idle: NodeJS.Timeout | undefined;
let nextId = 0;
/**
 * Photos waiting for the decoder, sent to it one at a time: a decode is timed from its start (timed
 * from its queueing, a burst of large photos timed out healthy ones), and the photo under way is
 * the only one a thread's end refuses (an idle thread's exit, arriving after the next photo went to
 * its successor, refused that photo as corrupt: an iPhone's first scan after a pause).
 */
const queue: Pending[] = [];
let current: Pending | undefined;

function finish(p: Pending): void {
  clearTimeout(p.timer);
  if (current === p) current = undefined;
}

function decoder(): Worker {
  if (idle) clearTimeout(idle);
  if (worker) return worker;
  // plain CommonJS whatever flags the process has (`--input-type=module` made the source a module)
  const w = new Worker(decoderSource, { eval: true, execArgv: [], workerData: { module: createRequire(import.meta.url).resolve('heic-decode') } });
  const fail = (err: Error) => {
    if (worker === w) worker = undefined;
    const p = current;
    if (p?.thread === w) {
      finish(p);
      p.reject(err);
    }
    pump();
  };
  w.on('message', (m: { id: number; width?: number; height?: number; data?: Uint8Array; error?: string }) => {
    const p = current;
    if (!p || p.id !== m.id) return;
    finish(p);
    if (m.error !== undefined || !m.data || !m.width || !m.height) p.reject(new Error(m.error ?? 'no image'));
    else p.resolve({ data: Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength), width: m.width, height: m.height });
    pump();
  });
  w.on('error', fail);
  w.on('exit', () => fail(new Error('the HEIC decoder stopped')));
  worker = w;
  return w;
}

/** The next photo to the decoder, when none is under way; an idle thread let go (it ends after a while). */
function pump(): void {
  if (current) return;
  const p = queue.shift();
  if (!p) {
    // idle: the thread no longer keeps the process alive, and ends after a while
    if (worker) {
      worker.unref();
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => void stopDecoder(), IDLE_MS).unref();
    }
    return;
  }
  const w = decoder();
  // held while a decode is under way (a command awaiting it must not end first); let go when idle
  // (a CLI command that had decoded a HEIC waited 30 s for the idle timer)
  w.ref();
  p.thread = w;
  current = p;
  // a decode that never ends would hold every later HEIC behind it: its thread is ended, the next photo gets a new one
  p.timer = setTimeout(() => {
    if (current !== p) return;
    if (worker === w) worker = undefined;
    finish(p);
    p.reject(new Error('the HEIC decode took too long'));
    void w.terminate();
    pump();
  }, DECODE_TIMEOUT_MS).unref();
  w.postMessage({ id: p.id, bytes: p.bytes });
}

/**
 * Ends the decoder thread (after idling, and at shutdown; the next photo starts one again). Photos
 * still waiting are refused: they would start a thread of their own once this one ended.
 */
export async function stopDecoder(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (idle) clearTimeout(idle);
  for (const p of queue.splice(0)) p.reject(new Error('the HEIC decoder stopped'));
  await w?.terminate();
}

/**
 * The first image of a HEIC file as 8-bit RGBA, its rotation and mirroring (irot, imir) applied.
 * A file decoded again (a collection insert measures one photo at several sizes) is decoded once
 * while its bytes are held.
 */
export function decodeHeic(bytes: Buffer): Promise<RgbaImage> {
  const known = decoded.get(bytes);
  if (known) return known;
  const made = new Promise<RgbaImage>((resolve, reject) => {
    queue.push({ id: nextId++, bytes: new Uint8Array(bytes), resolve, reject });
    pump();
  });
  decoded.set(bytes, made);
  made.catch(() => decoded.delete(bytes));
  return made;
}

const decoded = new WeakMap<Buffer, Promise<RgbaImage>>();
