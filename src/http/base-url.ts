import type { FastifyRequest } from 'fastify';

/** The configured public URL, else what the client used to reach us (proxy headers only when trusted). */
export function baseUrlOf(request: FastifyRequest): string {
  const configured = request.server.loupe.config.publicUrl;
  if (configured) return configured;
  return `${request.protocol}://${request.host}`;
}
