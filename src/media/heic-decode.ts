import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

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
const waiting = new Map<number, { resolve(img: RgbaImage): void; reject(err: Error): void }>();

function decoder(): Worker {
  if (idle) clearTimeout(idle);
  if (worker) return worker;
  const w = new Worker(decoderSource, { eval: true, workerData: { module: createRequire(import.meta.url).resolve('heic-decode') } });
  w.unref();
  const fail = (err: Error) => {
    if (worker === w) worker = undefined;
    for (const [id, p] of waiting) {
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
    if (!waiting.size) idle = setTimeout(() => void stopDecoder(), IDLE_MS).unref();
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

/** The first image of a HEIC file as 8-bit RGBA, its rotation and mirroring (irot, imir) applied. */
export function decodeHeic(bytes: Buffer): Promise<RgbaImage> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    decoder().postMessage({ id, bytes: new Uint8Array(bytes) });
  });
}
