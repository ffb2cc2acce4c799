import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import type * as TfModule from '@tensorflow/tfjs';
import type { io } from '@tensorflow/tfjs';
import type * as WasmBackend from '@tensorflow/tfjs-backend-wasm';

/**
 * The one TensorFlow.js instance of a vision worker, on the WebAssembly backend.
 *
 * tfjs is loaded through `require` on purpose: `@vladmandic/human`'s node-wasm build requires
 * `@tensorflow/tfjs-core` and friends, and only the CommonJS entry points give it and us the same
 * module instance (an ESM import would load a second copy with its own backend registry).
 * `@tensorflow/tfjs-node` does not install on these machines; the `cpu` backend is ~55× slower.
 */
export const nodeRequire = createRequire(import.meta.url);

export type Tf = typeof TfModule;

/** Folder of a package's files, found from its main entry (some packages do not export package.json). */
export function packageDir(name: string): string {
  const main = nodeRequire.resolve(name);
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const at = main.lastIndexOf(marker);
  if (at < 0) throw new Error(`cannot locate the folder of package ${name}`);
  return main.slice(0, at + marker.length - 1);
}

let ready: Promise<Tf> | undefined;

/**
 * tfjs with the wasm backend, initialised once per thread. The wasm binaries are read from the
 * installed package (the default is a CDN). The backend is single-threaded here: parallelism
 * comes from running one worker per core.
 */
export function tfjs(): Promise<Tf> {
  ready ??= (async () => {
    const tf = nodeRequire('@tensorflow/tfjs') as Tf;
    const wasm = nodeRequire('@tensorflow/tfjs-backend-wasm') as typeof WasmBackend;
    wasm.setWasmPaths(path.join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist') + path.sep);
    await tf.setBackend('wasm');
    await tf.ready();
    tf.enableProdMode();
    return tf;
  })();
  return ready;
}

/** Decoded pixels as the vision modules take them: 8-bit RGB, row-major, 3 bytes per pixel. */
export interface RgbPixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A tfjs model's files inside an installed package. */
export interface ModelFiles {
  json: () => ModelJson;
  shard: (p: string) => Buffer;
}

export type ModelJson = Pick<io.ModelJSON, 'modelTopology' | 'weightsManifest' | 'format' | 'generatedBy' | 'convertedBy' | 'userDefinedMetadata'>;

export function packageVersion(pkgDir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
}

export function modelArtifacts(files: ModelFiles): io.ModelArtifacts {
  const j = files.json();
  const weights = Buffer.concat(j.weightsManifest.flatMap((g) => g.paths.map((p) => files.shard(p))));
  return {
    modelTopology: j.modelTopology,
    weightSpecs: j.weightsManifest.flatMap((g) => g.weights),
    // A Buffer may be a view into a shared pool: hand tfjs exactly its bytes.
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    format: j.format,
    generatedBy: j.generatedBy,
    convertedBy: j.convertedBy,
    userDefinedMetadata: j.userDefinedMetadata,
  };
}
