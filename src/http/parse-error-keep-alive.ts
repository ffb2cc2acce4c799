import type { FastifyInstance } from 'fastify';

/**
 * Fastify closes the connection after any body-parser error (`Connection: close`), in case the rest of the body is still
 * on its way. Where the body was read whole (a JSON that does not parse, a media type refused after reading it), the
 * connection is as good as after any other 400: kept, so a phone does not pay a new TCP and TLS handshake for each
 * (h241). A body not read whole, or a client that asked to close, still closes.
 */
export function registerParseErrorKeepAlive(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 400 && reply.statusCode !== 415) return payload;
    if (String(reply.getHeader('connection') ?? '').toLowerCase() !== 'close') return payload;
    if (!request.raw.complete || /\bclose\b/i.test(String(request.headers.connection ?? ''))) return payload;
    reply.removeHeader('connection');
    return payload;
  });
}
