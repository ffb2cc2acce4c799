import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

describe('ONNX sessions', () => {
  it("write nothing of the runtime's own on stderr where HOME cannot be written (h139: a coloured telemetry warning among the JSON log lines)", () => {
    const url = (p: string) => JSON.stringify(pathToFileURL(path.join(root, p)).href);
    const script = `const { workerSessionOptions } = await import(${url('src/vision/engine/onnx-session.ts')}); const { InferenceSession } = await import(${url('node_modules/onnxruntime-node/dist/index.js')}); await InferenceSession.create(${JSON.stringify(path.join(root, 'models/card-verifier.onnx'))}, workerSessionOptions()); console.log('ok');`;
    // in a folder of its own: the runtime then keeps its telemetry id in a file of the working folder (":memory:.ses")
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-ort-'));
    try {
      const run = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/esm/index.mjs')).href, '--input-type=module', '-e', script], { cwd, env: { ...process.env, HOME: '/proc/no-home-here', TMPDIR: cwd }, encoding: 'utf8', timeout: 60_000 });
      expect(run.stdout.trim()).toBe('ok');
      expect(run.stderr).toBe('');
      // nor its empty debug log in the temporary folder, one a process for good (h169)
      expect(fs.readdirSync(cwd).filter((f) => f.startsWith('mat-debug-'))).toEqual([]);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 70_000);
});
