import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unsupportedMediaType } from './errors.ts';
import { isJsonType } from './json-media-type.ts';

const continueAsked = (request: FastifyRequest) => /(^|,)\s*100-continue\s*(,|$)/i.test(String(request.headers.expect ?? '')) && request.raw.httpVersion === '1.1';

/**
 * `Expect: 100-continue` (a client asking whether to send its body): Node answered `100 Continue` on arrival, before
 * the token, the rate limit, the service switch or the size was checked, so a phone asking before a 20 MB upload sent
 * it only to hear 401, 429 or 413. The 100 now goes once the request has passed those checks and its body is about to
 * be read (after its turn among large uploads); a refusal goes without it and closes the connection, since the client
 * may never send the body it announced.
 */
export function registerExpectContinue(app: FastifyInstance): void {
  const continued = new WeakSet<FastifyRequest>();
  app.server.on('checkContinue', (req, res) => app.server.emit('request', req, res));
  // An expectation other than 100-continue (RFC 9110 §10.1.1: 417): in the house shape with a request id, not Node's
  // bare 417 with an empty body (h120)
  app.server.on('checkExpectation', (req, res) => {
    const body = JSON.stringify({ detail: `Expect: ${String(req.headers.expect ?? '').slice(0, 100)} is not supported; only 100-continue is.`, code: 'expectation_failed' });
    res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': randomUUID(), 'x-content-type-options': 'nosniff', connection: 'close' });
    res.end(body);
  });
  app.addHook('preParsing', async (request, reply, payload) => {
    if (!continueAsked(request) || reply.raw.headersSent) return payload;
    // over the route's limit: the parser answers 413 without reading it
    const length = Number(request.headers['content-length'] ?? NaN);
    if (Number.isFinite(length) && length > request.routeOptions.bodyLimit) return payload;
    // a body that is not JSON is refused whatever it holds (app.ts): said before it is asked for (h98)
    // (a chunked body may be empty, which any label may carry: asked for, as without Expect, h99)
    if (Number.isFinite(length) && length > 0 && !isJsonType(request.headers['content-type'])) throw unsupportedMediaType();
    await request.routeOptions.config.beforeBody?.(request);
    reply.raw.writeContinue();
    continued.add(request);
    return payload;
  });
  app.addHook('onSend', async (request, reply) => {
    if (continueAsked(request) && !continued.has(request)) reply.header('connection', 'close');
  });
}
