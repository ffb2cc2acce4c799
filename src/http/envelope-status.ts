import type { FastifyInstance } from 'fastify';

/**
 * Statuses whose HTTP meaning forbids a body: fetch() hands the client an empty body for them
 * whatever the server sent (measured with Node 20's fetch: a 205 answer reads as ""), so an
 * envelope with one of these codes goes out as HTTP 200.
 */
const nullBodyStatuses = new Set([204, 205, 304]);

/**
 * The HTTP status that carries an envelope's `status.code` (spec 2 §7: "Status is carried in the
 * HTTP status and in `status.code`"): the code itself when it is an HTTP status that may carry a
 * body (200–599, not 204/205/304); otherwise 200 for a success-like code and 500 for one above
 * 599 (none of the spec's codes is either). docs/api-decisions.md "HTTP status vs `status.code`".
 */
export function httpStatusOf(code: number, mixedIsSuccess = false): number {
  // spec 3 §7: "Success is any 2xx HTTP status": a call some of whose records were answered (and charged) succeeded
  if (mixedIsSuccess && code === 300) return 200;
  if (Number.isInteger(code) && code >= 200 && code <= 599 && !nullBodyStatuses.has(code)) return code;
  return code > 599 ? 500 : 200;
}

/**
 * Spec codes sent as HTTP statuses whose standard reason phrase says something else, or nothing (Node's `unknown`):
 * an insert of stored `_id`s went out as `411 Length Required`, which Python's `raise_for_status` and curl print, and a
 * newcomer took for a missing Content-Length (h330). Their reason phrase is the body's `status.text` instead.
 */
const specOwnStatuses = new Set([206, 210, 211, 220, 300, 411, 412]);

/** A `status.text` as a reason phrase (RFC 9112: visible ASCII and spaces here), or undefined where it cannot be one. */
function reasonPhrase(text: unknown): string | undefined {
  return typeof text === 'string' && /^[\x20-\x7e]{1,120}$/.test(text) ? text : undefined;
}

/**
 * Every route marked `config.envelope` (the search-style services of spec 2, and recognition of
 * spec 3 when its routes are built with the same flag) answers the HTTP status of its body's
 * `status.code`. Only the route's own answer (HTTP 200 until now) is touched: errors already have
 * their HTTP status, and their `status.code` equals it. The route's response schemas must list
 * the statuses it can answer (see `envelopeResponses`).
 */
export function registerEnvelopeStatus(app: FastifyInstance): void {
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (!request.routeOptions.config?.envelope || reply.statusCode !== 200) return payload;
    const status = (payload as { status?: { code?: unknown; text?: unknown } } | null)?.status;
    const code = status?.code;
    if (typeof code !== 'number') return payload;
    const http = httpStatusOf(code, request.routeOptions.config.mixedIsSuccess === true);
    reply.code(http);
    const phrase = specOwnStatuses.has(http) ? reasonPhrase(status?.text) : undefined;
    if (phrase) reply.raw.statusMessage = phrase;
    return payload;
  });
}
