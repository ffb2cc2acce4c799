import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleBundle, type ConsoleFile } from '../../services/console-bundle.ts';

/**
 * The browser may load the console's own files and images from anywhere (records' `_url`s point
 * at the client's own hosts); it talks to this server only, and nothing runs from elsewhere.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src * data: blob:',
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  const accepts = String(request.headers['accept-encoding'] ?? '');
  const [body, encoding] = /\bbr\b/.test(accepts) ? [file.brotli, 'br'] : /\bgzip\b/.test(accepts) ? [file.gzip, 'gzip'] : [file.raw, undefined];
  if (encoding) reply.header('content-encoding', encoding);
  return reply
    .type(file.contentType)
    .header('vary', 'accept-encoding')
    // Hashed asset names change with their content; the page itself must be fetched afresh so a
    // new build is seen at the next load.
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', contentSecurityPolicy)
    .header('referrer-policy', 'no-referrer')
    .send(body);
}

/**
 * `/console`: the web console (issue 21), a single-page app built from `console/` and served from
 * memory. It is a client of the public API like any other; this route holds no API of its own.
 */
export async function consoleRoutes(app: FastifyInstance, options: { bundle?: Promise<ConsoleBundle>; publicPath?: string; basePath?: (request: FastifyRequest) => string } = {}): Promise<void> {
  // Read on the first visit, not at start-up: most servers (and every API test) never open the console.
  let loading = options.bundle;
  const bundleOf = () => (loading ??= ConsoleBundle.load(undefined, options.publicPath));
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    // LOUPE_PUBLIC_URL's path is in the page already; else a trusted proxy's X-Forwarded-Prefix
    const index = options.publicPath || !options.basePath ? (await bundleOf()).index : (await bundleOf()).indexUnder(options.basePath(request));
    if (!index) return reply.code(503).type('application/json; charset=utf-8').send({ detail: 'The console is not built: run npm run console:build.', code: 'console_not_built' });
    return sendFile(request, reply, index);
  };
  app.get('/console', { schema: { hide: true } }, page);
  // the server's own address opened in a browser shows the console (h260: a JSON 404); relative, so a proxy's prefix stays,
  // or under the path the server knows it is served at (LOUPE_PUBLIC_URL, a trusted X-Forwarded-Prefix): `/loupe`
  // opened without its slash resolved `console` to the host's `/console` (h263)
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const base = options.basePath?.(request) ?? '';
    return reply.header('cache-control', 'no-store').redirect(base ? `${base}/console` : 'console', 302);
  });
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (request, reply) => {
    const rel = request.params['*'];
    const file = rel ? (await bundleOf()).file(rel) : undefined;
    if (file) return sendFile(request, reply, file);
    // A missing hashed asset is a stale page asking for an old build: a 404, not the page.
    if (rel.startsWith('assets/')) return reply.code(404).type('application/json; charset=utf-8').send({ detail: 'Not found.', code: 'not_found' });
    return page(request, reply);
  });
}
