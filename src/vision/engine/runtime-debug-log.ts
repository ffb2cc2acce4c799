import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let forgotten = false;

/**
 * The ONNX runtime leaves an empty `mat-debug-<pid>.log` in the temporary folder of every process that loads a model,
 * and never removes it: one file per start of a server, worker or command, for good (h169: 1,013 in a shared /tmp).
 * Removed, when empty, as the thread that asked ends: the thread that loads models, and the process's main thread (a
 * vision worker thread ended by its pool runs no exit handlers).
 */
export function forgetDebugLog(): void {
  if (forgotten) return;
  forgotten = true;
  process.once('exit', () => {
    const file = path.join(os.tmpdir(), `mat-debug-${process.pid}.log`);
    try {
      if (fs.statSync(file).size === 0) fs.rmSync(file, { force: true });
    } catch {
      // none, or another thread of this process took it
    }
  });
}
