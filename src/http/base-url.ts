import type { FastifyRequest } from 'fastify';

/**
 * The configured public URL, else what the client used to reach us: proxy headers only when trusted, the path a proxy
 * serves us under (`X-Forwarded-Prefix: /loupe`) with them (h112: links dropped it, and 404ed at the shop's address).
 */
export function baseUrlOf(request: FastifyRequest): string {
  const configured = request.server.loupe.config.publicUrl;
  if (configured) return configured;
  return `${request.protocol}://${request.host}${request.server.loupe.config.trustProxy ? forwardedPrefix(request) : ''}`;
}

/** `X-Forwarded-Prefix`'s path (its first value), without a trailing slash; '' when absent or not a plain path. */
export function forwardedPrefix(request: FastifyRequest): string {
  const header = request.headers['x-forwarded-prefix'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().replace(/\/+$/, '') ?? '';
  return /^(\/[A-Za-z0-9._~%!$&'()*+;=:@-]+)+$/.test(first) ? first : '';
}

/** The path part of the address clients use (`/loupe` for `https://shop.example/loupe`), '' at a host's root. */
export function basePathOf(request: FastifyRequest): string {
  return new URL(baseUrlOf(request)).pathname.replace(/\/+$/, '');
}
