import pino from 'pino';

/** Lines held while the log cannot be written, at most: past it a line is dropped and counted. */
const heldBytes = 8 * 1024 * 1024;

let shared: pino.DestinationStream | undefined;

/**
 * The server's log, on stdout, as Fastify's own destination writes it, with one difference: a write that fails (the
 * disk the log is redirected to full or read-only, an I/O error) is not the process's end. Pino re-raised every error
 * but a closed pipe's, and nothing listened: the server exited 1 at its next log line and its requests were cut, its
 * jobs stopped (h221, "a log that grew"). Lines wait, up to 8 MiB, and are written once the disk takes them again,
 * followed by a line saying how many could not be kept. One per process: stdout is one.
 */
export function logOutput(): pino.DestinationStream {
  if (shared) return shared;
  const out = pino.destination({ dest: 1, sync: false, maxLength: heldBytes });
  let failing: { code: string; since: number } | undefined;
  let dropped = 0;
  out.on('error', (err: NodeJS.ErrnoException) => {
    // a closed pipe is pino's own case: it stops writing
    if (err.code === 'EPIPE') return;
    failing ??= { code: err.code ?? 'unknown', since: Date.now() };
  });
  out.on('drop', () => {
    dropped++;
  });
  out.on('write', () => {
    if (!failing) return;
    const { code, since } = failing;
    failing = undefined;
    const lost = dropped;
    dropped = 0;
    out.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, code, since: new Date(since).toISOString(), dropped: lost, msg: `the log could not be written (${code}) for ${Math.round((Date.now() - since) / 1000)} s: the lines of that time were held and written now${lost ? `, but ${lost} past the 8 MiB held were dropped` : ''}` })}\n`);
  });
  shared = out;
  return out;
}

/**
 * Failed writes to stdout and stderr (a full or read-only disk they are redirected to) are not the process's end:
 * with no listener, the stream's error ended it (h221). What could not be written is lost; there is nowhere to say so.
 */
export function keepOnOutputErrors(): void {
  for (const stream of [process.stdout, process.stderr]) if (stream.listenerCount('error') === 0) stream.on('error', () => undefined);
}
