import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { recordVectorRows } from '../store/record-vector-rows.ts';
import { ARENA_CHUNK, encodeI8 } from './arena-layout.ts';
import { packHashInto } from './packed-hash.ts';

// An arena fill worker of arena-fill.ts: reads one collection's vectors and hashes on its own read-only connection and
// sends them to the server's thread as whole arena chunks, int8 codes made, each chunk's buffers moved, not copied. On
// the server's thread these reads, copies and codes took 5–10 s of its event loop at 100,000 records of 1792-d, in
// steps of up to 150–230 ms on a busy machine (docs/vector-index.md, "Open").

export interface ArenaFillRequest {
  file: string;
  collectionId: string;
  dimensions: number;
  busyMs: number;
  /** Tests' seam: the read fails after this many rows, as a worker lost part way. */
  failAfter?: number;
}

/** A chunk of rows in key order (`keys.length` of them), then `done`; or the error that ended the read. */
export type ArenaFillMessage =
  | { chunk: { keys: Float64Array; vectors: Float32Array; codes: Int8Array; hashed: Uint8Array; hashes: Uint32Array } }
  | { done: true; rows: number }
  | { error: string };

const { file, collectionId, dimensions: d, busyMs, failAfter } = workerData as ArenaFillRequest;
const port = parentPort!;

function fresh() {
  // each its own ArrayBuffer at offset 0, moved whole to the server's thread (usearch's exactSearch ignores byteOffset)
  const vectors = new Float32Array(ARENA_CHUNK * d);
  return { n: 0, keys: new Float64Array(ARENA_CHUNK), vectors, bytes: new Uint8Array(vectors.buffer), codes: new Int8Array(ARENA_CHUNK * d), hashed: new Uint8Array(ARENA_CHUNK), hashes: new Uint32Array(ARENA_CHUNK * 8) };
}

function send(c: ReturnType<typeof fresh>): void {
  const keys = c.n === ARENA_CHUNK ? c.keys : c.keys.slice(0, c.n);
  const message: ArenaFillMessage = { chunk: { keys, vectors: c.vectors, codes: c.codes, hashed: c.hashed, hashes: c.hashes } };
  port.postMessage(message, [keys.buffer, c.vectors.buffer, c.codes.buffer, c.hashed.buffer, c.hashes.buffer] as ArrayBuffer[]);
}

try {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${Math.round(busyMs)}`);
  let c = fresh();
  let rows = 0;
  for (const r of recordVectorRows(db, collectionId)) {
    if (rows === failAfter) throw new Error(`failing after ${rows} rows, as asked`);
    // the message the server's own read gives (HnswIndex.open): a vector of another length is no row of this index
    if (r.vector.byteLength !== d * 4) throw new Error(`row ${r.key} has ${r.vector.byteLength / 4} dimensions, index ${d}`);
    const i = c.n++;
    c.keys[i] = r.key;
    c.bytes.set(r.vector, i * d * 4);
    encodeI8(c.vectors, i * d, d, c.codes, i * d);
    if (r.hash) {
      packHashInto(r.hash, c.hashes, i * 8);
      c.hashed[i] = 1;
    }
    rows++;
    if (c.n === ARENA_CHUNK) {
      send(c);
      c = fresh();
    }
  }
  if (c.n) send(c);
  db.close();
  port.postMessage({ done: true, rows } satisfies ArenaFillMessage);
} catch (err) {
  port.postMessage({ error: String((err as Error).message ?? err) } satisfies ArenaFillMessage);
}
