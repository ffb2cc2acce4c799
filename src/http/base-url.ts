import net from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * The configured public URL, else what the client used to reach us: proxy headers only when trusted, the path a proxy
 * serves us under (`X-Forwarded-Prefix: /loupe`) with them (h112: links dropped it, and 404ed at the shop's address).
 */
export function baseUrlOf(request: FastifyRequest): string {
  const configured = request.server.loupe.config.publicUrl;
  if (configured) return configured;
  // a trusted proxy passes on what its client sent where it sets nothing: only a scheme of the web makes a link (h271:
  // `javascript://shop.example/…` was handed out); a host of no host's form is refused before (app.ts)
  const protocol = request.protocol === 'http' || request.protocol === 'https' ? request.protocol : 'encrypted' in request.socket && request.socket.encrypted ? 'https' : 'http';
  return `${protocol}://${request.host}${trustedPeer(request) ? forwardedPrefix(request) : ''}`;
}

const lists = new Map<string, net.BlockList>();
/**
 * Whether the request came straight from a proxy LOUPE_TRUST_PROXY trusts: any peer with `1`, else one of its listed
 * addresses (Fastify checks the peer so for the other X-Forwarded-* headers; the prefix had only the setting's truth, h115).
 */
function trustedPeer(request: FastifyRequest): boolean {
  const trust = request.server.loupe.config.trustProxy;
  if (typeof trust !== 'string') return trust;
  let list = lists.get(trust);
  if (!list) {
    list = new net.BlockList();
    for (const part of trust.split(',')) {
      const [ip, bits] = part.split('/') as [string, string?];
      const type = net.isIPv4(ip) ? 'ipv4' : 'ipv6';
      if (bits === undefined) list.addAddress(ip, type);
      else list.addSubnet(ip, Number(bits), type);
    }
    lists.set(trust, list);
  }
  const peer = (request.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '');
  return net.isIP(peer) !== 0 && list.check(peer, net.isIPv4(peer) ? 'ipv4' : 'ipv6');
}

/** `X-Forwarded-Prefix`'s path (its first value), without a trailing slash; '' when absent or not a plain path. */
export function forwardedPrefix(request: FastifyRequest): string {
  const header = request.headers['x-forwarded-prefix'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().replace(/\/+$/, '') ?? '';
  // no dot segments, however written: they collapse in a client's URL (`/a/../b` is `/b`, `/%2e%2e/x` `/x`, h115)
  const plain = /^(\/[A-Za-z0-9._~%!$&'()*+;=:@-]+)+$/.test(first) && !first.split('/').some((seg) => /^(?:\.|%2e){1,2}$/i.test(seg));
  return plain ? first : '';
}

/** The path part of the address clients use (`/loupe` for `https://shop.example/loupe`), '' at a host's root. */
export function basePathOf(request: FastifyRequest): string {
  return new URL(baseUrlOf(request)).pathname.replace(/\/+$/, '');
}

/** A request target's path and query: `http://host:8200/a?b` is `/a?b`; an origin-form target is itself. */
export function originForm(target: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!absolute) return target;
  const rest = target.slice(absolute[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
