import type { FastifyReply } from 'fastify';

/** RFC 9745's Deprecation value, a structured-field date: the day this server first served them as deprecated (2026-11-24). */
const deprecatedSince = '@1795478400';
/** The deprecated bases (spec 2 §9) and the base that replaces each. */
export const deprecatedBases: Record<string, string> = { '/similarity/fashion/v2': '/similarity/fashion-new/v2', '/similarity/homedecor/v2': '/similarity/homedecor-new/v2' };

/**
 * A deprecated base's answer says so and names its successor: every answer of its methods, and the 404s and 405s the
 * router gives under it (h251: a 405 had neither header).
 */
export function deprecationHeaders(url: string, reply: FastifyReply): void {
  const path = url.split('?')[0]!;
  const prefix = Object.keys(deprecatedBases).find((b) => path === b || path.startsWith(`${b}/`));
  if (!prefix) return;
  reply.header('Deprecation', deprecatedSince);
  reply.header('Link', `<${deprecatedBases[prefix]}${path.slice(prefix.length)}>; rel="successor-version"`);
}
