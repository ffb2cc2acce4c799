import type { FastifyRequest } from 'fastify';

/**
 * How many times a header was sent, by its lower-case name. Node keeps the first of two Authorization or Host lines and
 * joins two others ("k1, k2"): which one was meant is then a guess, so such a request is refused (auth.ts, app.ts).
 */
export function timesSent(request: FastifyRequest, name: string): number {
  const raw = request.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) n++;
  return n;
}
