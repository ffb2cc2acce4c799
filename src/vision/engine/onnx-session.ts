import { env, type InferenceSession } from 'onnxruntime-node';
import { forgetDebugLog } from './runtime-debug-log.ts';

/**
 * Session options of every ONNX model the vision workers run: the server runs one worker per
 * core, so one inter-op thread and sequential execution; `threads` intra-op threads (1 in the
 * workers). Errors only in the log: optimiser notes about an export's unused initialisers would
 * land on the CLI's stderr and the server log on every load.
 */
export function workerSessionOptions(threads = 1): InferenceSession.SessionOptions {
  // the runtime's own log, set before its first session in each thread: its warnings are coloured text on stderr,
  // not the server's JSON lines (h139: "Failed to persist telemetry device ID" on every start where HOME is read-only)
  env.logLevel = 'error';
  forgetDebugLog();
  return {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
}
