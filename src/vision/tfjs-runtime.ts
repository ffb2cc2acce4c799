import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TfModule from '@tensorflow/tfjs';
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
