import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a connection's requests still under way are: done when they all are, and whether they only read. */
const underWay = new WeakMap<Socket, { done: Promise<void>; safe: boolean }>();

/**
 * Requests pipelined on one connection run in the order sent, unless they all only read. Node hands a connection's
 * pipelined requests to the app at once; a large upload followed by `close/` was overtaken by the close (the upload
 * then 409 session_closed, its cards dropped: h241). RFC 9112 §9.3.2 lets a server run pipelined requests in parallel
 * only where they are all safe. A request sent after the previous answer (the usual keep-alive) waits for nothing.
 */
export function registerPipelinedOrder(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const socket = request.raw.socket as Socket | undefined;
    // (a request made in-process, app.inject, has a stand-in socket of its own)
    if (typeof socket?.setTimeout !== 'function') return;
    const safe = SAFE.has(request.method);
    const before = underWay.get(socket);
    const done = new Promise<void>((resolve) => {
      reply.raw.once('finish', resolve);
      reply.raw.once('close', resolve);
    });
    underWay.set(socket, { done: before ? Promise.all([before.done, done]).then(() => undefined) : done, safe: safe && (before?.safe ?? true) });
    if (before && !(before.safe && safe)) await before.done;
  });
}
