import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../services/errors.ts';

/**
 * Bounds the memory of large batches: a request to a batch route (`config.batchBody`) whose body
 * is over `thresholdBytes` (or of unknown length) waits for one of `atOnce` slots before its
 * body is read, and holds it until its response ends. (Image bodies are bounded by the vision
 * queue instead; holding a turn through inference would serialise them.) A parsed batch takes several times its size in memory; eight 55 MiB batches
 * at once took the server to 2.1 GB. Waiting costs only a socket: the body stays unread (TCP
 * holds it back), and more than `maxWaiting` waiting are refused with 503 and a Retry-After.
 */
export function registerLargeBodyLimit(app: FastifyInstance, options: { thresholdBytes: number; atOnce: number; maxWaiting: number; idleMs?: number }): void {
  const idleMs = options.idleMs ?? 30_000;
  let busy = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };

  app.addHook('preParsing', async (request, reply, payload) => {
    if (!request.routeOptions.config.batchBody) return payload;
    const length = Number(request.headers['content-length'] ?? NaN);
    const large = Number.isFinite(length) ? length > options.thresholdBytes : request.headers['transfer-encoding'] !== undefined;
    if (!large) return payload;
    if (busy < options.atOnce) busy++;
    else {
      if (waiting.length >= options.maxWaiting) {
        throw new ServiceError(503, 'busy', 'Too many large uploads are in progress; retry shortly.', undefined, { 'retry-after': '5' });
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    let held = true;
    const end = () => {
      if (!held) return;
      held = false;
      release();
    };
    // A client that hung up while waiting gives its slot straight back.
    if (request.raw.destroyed || reply.raw.destroyed) end();
    reply.raw.once('finish', end);
    reply.raw.once('close', end);
    // A body that stops arriving would hold its slot, and with it every large upload, for ever: a
    // slot's body may idle `idleMs` at most, then the request is 408 and the connection closed.
    // Cleared when the body has arrived (its parsing and the handler take the time they need).
    // (app.inject's requests have no socket to time)
    const timed = typeof request.raw.setTimeout === 'function';
    const stop = () => request.raw.setTimeout(0);
    if (timed) request.raw.once('end', stop).once('error', stop);
    if (timed) request.raw.setTimeout(idleMs, () => {
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': String(request.id) });
        reply.raw.end(JSON.stringify({ detail: `The body stopped arriving (nothing for ${Math.round(idleMs / 1000)} s); send it again.`, code: 'request_timeout' }));
      }
      request.raw.destroy();
    });
    return payload;
  });
}
