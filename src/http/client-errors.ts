import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * What Node's HTTP parser refuses before a request exists (headers over the size limit, a
 * malformed request line or header, a request that timed out), answered in the house error shape
 * rather than Fastify's default body. There is no request id yet: the parser never produced one.
 */
export function clientErrorResponse(code: string | undefined): { status: number; body: { detail: string; code: string } } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, body: { detail: 'The request headers are too large.', code: 'headers_too_large' } };
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return { status: 413, body: { detail: 'The body\'s chunk extensions are too large.', code: 'body_too_large' } };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, body: { detail: 'The request did not arrive in time; send it again.', code: 'request_timeout' } };
  // the headers parsed; the body stopped short of its Content-Length or last chunk (h176: said "not valid HTTP", which
  // sent a developer looking for a bad header)
  if (code === 'HPE_INVALID_EOF_STATE') return { status: 400, body: { detail: 'The request body ended before its Content-Length (or its last chunk) was sent: nothing of it was kept; send it whole.', code: 'invalid_request' } };
  return { status: 400, body: { detail: 'The request is not valid HTTP (its request line or a header does not parse).', code: 'invalid_request' } };
}

/** Requests the server cut itself (a body that stopped arriving): no "aborted by its client" or "hung up" line for them. */
export const cutByServer = new WeakSet<http.IncomingMessage>();

/**
 * Fastify's `clientErrorHandler`: writes the answer on the raw socket and closes it. While a request
 * on that connection is being answered (bytes that do not parse behind a whole request: a body longer
 * than its Content-Length, a bad pipelined request), nothing is written and that answer goes out
 * whole, then the connection closes: written, the error landed inside a streamed response's body, and
 * before its headers it replaced the answer of a call that had run and been charged (h81).
 */
export function handleClientError(this: { log?: { warn(o: object, msg: string): void }; server?: { requestTimeout?: number; headersTimeout?: number } } | undefined, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, body } = clientErrorResponse(err.code);
  const text = JSON.stringify(body);
  const inFlight = (socket as Socket & { _httpMessage?: (http.ServerResponse & { req?: http.IncomingMessage }) | null })._httpMessage;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // the server's own cut, said as such: the log said "request aborted by its client" and a 400 (h227)
    if (inFlight?.req) cutByServer.add(inFlight.req);
    // Node raises it for headers that did not all come within headersTimeout too (no request was made of them yet)
    const seconds = (ms: number | undefined) => (ms ? `${Math.round(ms / 1000)} s` : 'the time allowed');
    const what = inFlight?.req ? `the request did not arrive whole within the time a request may take (${seconds(this?.server?.requestTimeout)})` : `the request's headers did not arrive within ${seconds(this?.server?.headersTimeout)}`;
    this?.log?.warn({ url: inFlight?.req?.url, method: inFlight?.req?.method, remoteAddress: socket.remoteAddress, connectionBytesRead: socket.bytesRead }, `408 request_timeout: ${what}`);
  }
  // only behind a request that arrived whole: one cut off mid-body (its client hung up) has no answer to wait for,
  // and its socket, left open, held the request's large-body turn for good
  if (inFlight && !inFlight.writableFinished && inFlight.req?.complete === true) {
    // its answer says Connection: close when not yet begun; the socket closes once it has gone
    inFlight.shouldKeepAlive = false;
    const close = () => socket.destroy();
    inFlight.once('finish', close).once('close', close);
    return;
  }
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${text}`);
  }
  socket.destroy(err);
}
