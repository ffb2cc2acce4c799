import type { FastifyInstance } from 'fastify';

/**
 * An answer sent before the request's body was read, on a connection that then closes (HTTP/1.0, as nginx talks to an
 * upstream by default, or `Connection: close`), left the body's bytes unread: the kernel answers the close with a reset,
 * and a proxy still sending the body throws the answer away for its own 502 (h233: 10–16 of 20 revoked-token uploads of
 * 4–37 MB, and 429s without their Retry-After). The rest of the body is read and dropped first, for at most `maxMs` and
 * `maxBytes`, as nginx's own lingering close does. A kept-alive connection needs nothing: Node drops the rest itself.
 */
export function registerLingeringClose(app: FastifyInstance, options: { maxMs?: number; maxBytes?: number } = {}): void {
  const maxMs = options.maxMs ?? 2_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  app.addHook('onSend', async (request, reply, payload) => {
    const raw = request.raw;
    if (reply.statusCode < 400 || raw.complete || raw.readableEnded || raw.destroyed || !raw.socket) return payload;
    const hasBody = Number(raw.headers['content-length'] ?? 0) > 0 || raw.headers['transfer-encoding'] !== undefined;
    // a client that asked before sending (Expect: 100-continue) and was refused sends nothing to wait for
    if (!hasBody || /100-continue/i.test(String(raw.headers.expect ?? ''))) return payload;
    const closes = !reply.raw.shouldKeepAlive || String(reply.getHeader('connection') ?? '').toLowerCase() === 'close';
    if (!closes) return payload;
    await new Promise<void>((done) => {
      let bytes = 0;
      const finish = () => {
        clearTimeout(timer);
        raw.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
        done();
      };
      const onData = (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBytes) finish();
      };
      const timer = setTimeout(finish, maxMs);
      raw.on('data', onData).once('end', finish).once('close', finish).once('error', finish);
      raw.resume();
    });
    return payload;
  });
}
