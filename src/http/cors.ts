import type { FastifyInstance, FastifyReply } from 'fastify';

/** Headers a browser client may send (Authorization and JSON, and the ones the API reads). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, collection-id, X-Request-Id';
/** Answer headers a browser client may read (fetch hides all others). */
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Allow, Deprecation, Link, Idempotent-Replayed, ETag';
const METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE';

/**
 * Cross-origin calls from the origins LOUPE_CORS_ORIGINS names (`*` for any): a browser app (a web
 * dashboard, a stream overlay) calls with `Authorization`, so every call is preflighted. Tokens travel
 * in that header, never in cookies, so credentials are not allowed. Without the setting nothing changes:
 * no CORS header, and a preflight is the 405 of any method a path lacks.
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (!origins.length) return;
  const any = origins.includes('*');
  const allowed = (origin: string | undefined): origin is string => typeof origin === 'string' && (any || origins.includes(origin));
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    // (without an Origin it is no preflight: an OPTIONS like any other, whose 405 names the methods; it was 403 "Origin undefined", h195)
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined || origin === undefined) return;
    // a preflight is answered before anything else looks at the request: it carries no token
    if (!allowed(origin)) return reply.code(403).send({ detail: `Origin ${String(origin).slice(0, 200)} may not call this server (LOUPE_CORS_ORIGINS).`, code: 'forbidden' });
    return reply
      .code(204)
      .header('access-control-allow-origin', any ? '*' : origin)
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  });
  app.addHook('onSend', async (request, reply) => {
    // with a list, the answer depends on Origin whoever asks: a shared cache must not give one origin's copy to another
    if (!any) varyOnOrigin(reply);
    for (const [name, value] of Object.entries(corsAnswerHeaders(origins, request.headers.origin))) reply.header(name, value);
  });
}

/**
 * The CORS headers of an answer to `origin` (none where it may not call), for answers written past Fastify's hooks: a
 * body cut for arriving too slowly is answered on the raw socket, and a browser app could read neither it nor its
 * request id (h230).
 */
export function corsAnswerHeaders(origins: readonly string[], origin: string | undefined): Record<string, string> {
  const any = origins.includes('*');
  if (typeof origin !== 'string' || !(any || origins.includes(origin))) return {};
  return { 'access-control-allow-origin': any ? '*' : origin, 'access-control-expose-headers': EXPOSED_HEADERS };
}

/** Adds Origin to the answer's Vary (the console's answers vary on Accept-Encoding too). */
function varyOnOrigin(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const names = (Array.isArray(current) ? current.join(',') : String(current ?? '')).split(',').map((v) => v.trim()).filter(Boolean);
  if (!names.some((v) => v.toLowerCase() === 'origin' || v === '*')) reply.header('vary', [...names, 'Origin'].join(', '));
}
