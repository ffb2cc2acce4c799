import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { defaultFetchLimits, type Config } from './config/config.ts';
import { registerAccessControl } from './http/auth.ts';
import './http/context.ts';
import { registerClosingAnswer, registerErrorHandling, unsupportedMediaType } from './http/errors.ts';
import { cutByServer, handleClientError } from './http/client-errors.ts';
import { registerEnvelopeStatus } from './http/envelope-status.ts';
import { recognitionAnswerFields } from './http/openapi-recognition.ts';
import { collectionAnswerFields, oas30Keywords, operationIds, optionalBodies, queryRequired, requiredCollectionHeader, serverErrors, typedRecordFields, workspaceParameter } from './http/openapi-compat.ts';
import { requestExamples } from './http/request-examples.ts';
import { registerRequestDownloads } from './http/request-downloads.ts';
import { InFlight } from './http/in-flight.ts';
import { registerLargeBodyLimit } from './http/large-bodies.ts';
import { registerExpectContinue } from './http/expect-continue.ts';
import { registerLingeringClose } from './http/lingering-close.ts';
import { registerPipelinedOrder } from './http/pipelined-order.ts';
import { registerParseErrorKeepAlive } from './http/parse-error-keep-alive.ts';
import { asUtf8 } from './http/body-charset.ts';
import { JsonParser } from './http/json-parser.ts';
import { timesSent } from './http/header-count.ts';
import { ErrorSchema } from './http/schemas/common.ts';
import { SearchEnvelope, SearchError } from './http/schemas/search.ts';
import { cardstreamRoutes } from './http/routes/cardstream/index.ts';
import { imageMatchingRoutes } from './http/routes/image-matching/index.ts';
import { mediaRoutes } from './http/routes/media.ts';
import { consoleRoutes } from './http/routes/console.ts';
import { plusJsonType } from './http/json-media-type.ts';
import { basePathOf, baseUrlOf, originForm } from './http/base-url.ts';
import { visionRoutes } from './http/routes/vision.ts';
import { collectiblesRoutes } from './http/routes/collectibles.ts';
import { collectionRoutes } from './http/routes/collections.ts';
import { textSearchRoutes } from './http/routes/text-search.ts';
import { requestRoutes } from './http/routes/requests.ts';
import { openServices, type IndexLoadOptions } from './services/container.ts';
import { ServiceError } from './services/errors.ts';
import { cachedSerializers, validators } from './http/schema-compilers.ts';
import { logOutput } from './util/log-output.ts';
import pino from 'pino';
import { registerCors } from './http/cors.ts';

export const apiVersion = '0.1.0';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A host name or IP literal, with an optional port: what a URL handed out can be built on. Names may
 * hold `_` (Docker Compose service names, which its DNS resolves) and end in the root's dot.
 */
const hostLabel = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const hostPattern = new RegExp(`^(?:\\[[0-9A-Fa-f:.]+\\]|(?=[^:]{1,254}(?::|$))${hostLabel}(?:\\.${hostLabel})*\\.?)(?::\\d{1,5})?$`);
/** The pattern, and what a URL can be built on: a port past 65535, `999.1.1.1` or `a.123` passed the pattern and made `new URL` throw (a 500 in every paged answer). */
const validHost = (host: string | undefined): boolean => {
  if (typeof host !== 'string' || !hostPattern.test(host)) return false;
  try {
    return new URL(`http://${host}/`).host !== '';
  } catch {
    return false;
  }
};

const integerNames = new WeakMap<object, string[]>();
const queryNameSets = new WeakMap<object, Set<string>>();

/** The query parameters a route's schema declares (worked out once per schema). */
function queryNames(schema: unknown): Set<string> {
  if (!schema || typeof schema !== 'object') return new Set();
  let names = queryNameSets.get(schema);
  if (!names) queryNameSets.set(schema, (names = new Set(Object.keys((schema as { properties?: object }).properties ?? {}))));
  return names;
}

/** The query parameters a route's schema types as integers (worked out once per schema). */
function integerQueryNames(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  let names = integerNames.get(schema);
  if (!names) {
    const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
    const integer = (type: unknown) => type === 'integer' || (Array.isArray(type) && type.includes('integer'));
    integerNames.set(schema, (names = Object.entries(properties).filter(([, s]) => integer(s.type)).map(([name]) => name)));
  }
  return names;
}

/**
 * A request URL with its secrets left out: a signed media link's `sig`, and a token sent in the query string, which
 * the server refuses but clients send (`?token=`, `?api_key=`, `?access_token=`, `?key=`, or any value that is a Loupe
 * token, `lp_…`): the refused call's log line held the live token (h106).
 */
export const redactedUrl = (url: string): string =>
  url
    .replace(/([?&](?:sig|token|access_token|api_key|apikey|api-key|key|auth|authorization)=)[^&#]*/gi, '$1[redacted]')
    // a filter a client sent in a body comes back in `allRecords`' `next` link, and was logged when the link was
    // followed (its values: a customer's email, an order number, h235): bodies are not logged, nor is it
    .replace(/([?&]filter=)[^&#]*/gi, '$1[redacted]')
    // a Loupe token anywhere: a value, the bare query (`?lp_…`), the path, percent-encoded (`lp%5F…`) (h111)
    // (at a word's start: `help_center`, `yelp_reviews` are words, h116)
    .replace(/(?<![A-Za-z0-9])lp(?:_|%5f)[A-Za-z0-9_%-]{8,}/gi, '[redacted]');

/**
 * The logger's serializers: a signed media link works as a bearer link for days, so its signature
 * stays out of the logs, in the request line and in any line that names a `url` (a client that
 * hung up on a media download logged the link whole).
 */
export const logSerializers = {
  req: (req: { method: string; url: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: req.method,
    url: redactedUrl(req.url),
    host: req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
  url: (url: unknown) => (typeof url === 'string' ? redactedUrl(url) : url),
};

/**
 * Builds the whole app (no listen). `app.close()` also closes the stores. The queue's workers, webhook deliveries and
 * sweeps start when the app is ready, unless `startQueue` is false: the server starts them itself once its port is
 * open (a start that then failed, its port in use, had run jobs and sent webhooks before it exited, h104). `indexLoad`:
 * how long a search waits for a collection's index still loading, and the tests' seam that holds a load.
 */
/**
 * How long an answer may wait for its client to read more of it: one the client stopped reading (a phone put away
 * mid-download, one in a tunnel that never closes) held the whole answer in memory and its socket for good (h176: 8
 * stalled readers of a 30 MB page held 700 MB). The socket is closed; a client reading, however slowly, is not.
 */
const ANSWER_STALL_MS = 120_000;

/** The API page's policy: Swagger UI's own files and styles, "Try it out" to this server (an image answer drawn from a blob, h186), nothing else. */
const DOCS_CSP = ["default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'"].join('; ');

export async function buildApp(config: Config, options: { startQueue?: boolean; answerStallMs?: number; indexLoad?: IndexLoadOptions } = {}): Promise<FastifyInstance> {
  // The services are opened before Fastify (and its logger) exists; what they log before it does is kept and
  // written once it does (the media-secret warning of a server on PostgreSQL was lost, h88).
  const logger: { to?: FastifyInstance['log'] } = {};
  // written at once, to the log Fastify's logger writes to: a start waiting on another process's database upgrade said
  // so only once it had waited (h226: a server silent for as long as the lock was held)
  const earlyLog = config.logLevel === 'silent' ? undefined : pino({ level: config.logLevel, serializers: logSerializers }, logOutput());
  const services = await openServices(config, {
    longRunning: true,
    // the retention requests are submitted under is the server's: only it brings older ones to a shorter one
    takesRequests: true,
    log: (level, message, details) => void (logger.to ?? earlyLog)?.[level](details ?? {}, message),
    ...(options.indexLoad ? { indexLoad: options.indexLoad } : {}),
  });
  const app = Fastify({
    // registerClosingAnswer answers requests that arrive while stopping, in the house shape
    return503OnClosing: false,
    logger: {
      level: config.logLevel,
      serializers: logSerializers,
      // silent, as tests run, writes nothing: stdout is left alone
      ...(config.logLevel === 'silent' ? {} : { stream: logOutput() }),
    },
    trustProxy: config.trustProxy,
    bodyLimit: config.limits.bodyBytes,
    // A request must arrive whole within 5 minutes (Node's own default, which Fastify turns off): a
    // body sent slowly, or never finished, held its connection open for good, with no token needed.
    // A 64 MiB batch takes about 1 minute at 10 Mbit/s; the answer's time is not counted.
    requestTimeout: 300_000,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // A request line in absolute form (`GET http://host/path`, RFC 9112 §3.2.2: a server must accept it; proxy-aware
    // clients send it) is the path it names: every link built from request.url doubled the address (a 500, h120).
    rewriteUrl: (req) => originForm(req.url ?? '/'),
    // The router's own answers, in the house error shape: a path id over the router's length
    // limit is an unknown id (404, like any malformed id), a URL that does not decode is a 400.
    frameworkErrors: (err, request, reply) => {
      const notFound = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void (reply as FastifyReply)
        .code(notFound ? 404 : 400)
        .header('x-request-id', request.id)
        .type('application/json; charset=utf-8')
        .send(notFound ? { detail: 'Not found: an id in the path is longer than any id the server makes.', code: 'not_found' } : { detail: 'The URL is not valid (a percent-escape does not decode).', code: 'invalid_request' });
    },
    clientErrorHandler: handleClientError,
    // Node answers an HTTP/1.1 request without Host with a bare 400 before the app sees it; the
    // app's own check (below) answers it in the house shape, and lets /health through, as for HTTP/1.0
    http: { requireHostHeader: false },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: cachedSerializers } },
  });
  logger.to = app.log;
  registerPipelinedOrder(app);
  const answerStallMs = options.answerStallMs ?? ANSWER_STALL_MS;
  // no limit while the request is worked on (a long vision call sends nothing for minutes); one once its answer goes
  // out, counted from the last byte the client took (Node closes a socket whose timeout passes with nothing listening)
  // requests of a socket being worked on: with pipelining, a later request's answer went out while an earlier one was
  // still worked on, and its limit cut that one off (h178)
  const working = new WeakMap<Socket, number>();
  const answering = new WeakMap<Socket, boolean>();
  const heard = new WeakSet<Socket>();
  // (a request made in-process, app.inject, has a stand-in socket without timeouts)
  const timed = (socket: Socket | undefined): socket is Socket => typeof socket?.setTimeout === 'function';
  app.addHook('onRequest', async (request) => {
    const socket = request.raw.socket;
    if (!timed(socket)) return;
    working.set(socket, (working.get(socket) ?? 0) + 1);
    answering.set(socket, false);
    socket.setTimeout(0);
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    const socket = request.raw.socket;
    if (!timed(socket)) return payload;
    const still = Math.max(0, (working.get(socket) ?? 1) - 1);
    working.set(socket, still);
    if (still > 0) return payload;
    if (!heard.has(socket)) {
      heard.add(socket);
      socket.on('timeout', () => answering.get(socket) && socket.destroy());
    }
    answering.set(socket, true);
    socket.setTimeout(answerStallMs);
    return payload;
  });
  // an upgrade says what it did (a new database's first migrations are its making, not news)
  const migrated = services.store.migrated ?? [];
  if (migrated.length && migrated[0] !== '001-initial') app.log.info({ migrations: migrated }, 'database upgraded');
  app.setValidatorCompiler(validators());
  const inFlight = new InFlight();
  app.decorate('loupe', { config, ...services, inFlight, startQueue: () => services.queue.start() });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    // The wrapper must keep the handler's own style: a callback-style handler (one that calls
    // reply.send later, as @fastify/static does, and returns nothing) wrapped in a promise looks
    // to Fastify like an async handler that resolved to nothing, and an empty reply goes out
    // before the file. Such a handler counts until its response is finished or abandoned.
    route.handler = function (request, reply) {
      const done = inFlight.begin();
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (err) {
        done();
        throw err;
      }
      if (result instanceof Promise) return result.finally(done);
      if (reply.raw.writableFinished) done();
      else {
        reply.raw.once('finish', done);
        reply.raw.once('close', done);
      }
      return result;
    };
  });
  registerRequestDownloads(app, config.fetch.requestTotalMs ?? defaultFetchLimits.requestTotalMs!);
  // The queue's workers, webhook deliveries and retention sweeps run beside the API.
  if (options.startQueue !== false) app.addHook('onReady', async () => services.queue.start());
  // A stop begins with the queue's, beside the requests' drain, not after it: its jobs get their grace and are handed
  // back within a container's 10 s to SIGKILL, and within the server's own 15 s (h184: after a 10-s drain they were
  // cut unreleased, and three deploys failed a paid job for good)
  app.addHook('preClose', async () => {
    void services.queue.stop().catch((err: unknown) => app.log.error({ err }, 'the job queue did not stop cleanly'));
  });
  // Runs after the server stopped accepting and its connections ended.
  app.addHook('onClose', async () => {
    if (!(await inFlight.drained(10_000))) app.log.warn({ inFlight: inFlight.count }, 'closing stores with requests still running');
    await services.close();
  });

  // Only JSON is accepted. An empty body with a JSON content type is "no body", which is what
  // clients send to close/, reopen/ and DELETE.
  app.removeAllContentTypeParsers();
  const jsonParser = new JsonParser(config.limits.largeBodyBytes);
  app.addHook('onClose', () => jsonParser.close());
  const parseJson = async (request: FastifyRequest, raw: Buffer) => {
    const parsed = await jsonParser.parse(asUtf8(raw, request.headers['content-type'], request.routeOptions.bodyLimit ?? config.limits.bodyBytes), request.routeOptions.config.batchBody === true);
    if ('error' in parsed) throw new ServiceError(parsed.error.status, parsed.error.code, parsed.error.detail);
    return parsed.value;
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
  // JSON by another name (RFC 6839): a PATCH sent as `application/merge-patch+json` was a 415 (h264)
  app.addContentTypeParser(plusJsonType, { parseAs: 'buffer' }, parseJson);
  // Any other content type is refused, except an empty body ("no body"), whatever it is labelled.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(unsupportedMediaType(), undefined);
  });
  registerCors(app, config.corsOrigins);
  app.addHook('onRequest', async (request) => {
    if (/%00/.test(request.url)) throw new ServiceError(400, 'invalid_request', 'NUL characters (%00) are not accepted.');
    // Node keeps the first of two Host lines (links were built from it while a proxy may route on the other: RFC 9112
    // §3.2 asks for a 400) and joins two collection-id headers into "X, X", a collection not found (h195)
    if (timesSent(request, 'host') > 1) throw new ServiceError(400, 'invalid_request', 'The Host header was sent more than once: send one.');
    if (timesSent(request, 'collection-id') > 1) throw new ServiceError(400, 'invalid_request', 'The collection-id header was sent more than once: send one collection id.');
    // The router leaves an undecodable escape in a path parameter as it was (a "Session %ZZ not found"),
    // and the query parser one in a query value ("search=%FF" searched for the text "%FF")
    if (request.url.includes('%')) {
      try {
        decodeURIComponent(request.url);
      } catch {
        throw new ServiceError(400, 'invalid_request', 'The URL is not valid (a percent-escape does not decode).');
      }
    }
    // Whole numbers in the query in decimal digits only: the validator's coercion reads 0x10 as 16
    // and 1e3 as 1000
    const query = request.query as Record<string, unknown> | undefined;
    // ?page=1&page=2 arrives as a list, which the validator called "must be string" or `not "1,2"`; a parameter the
    // route does not read is ignored, sent twice too (h315: `?_=1&_=2`, a cache-buster, was a 400 when `?_=1` passed)
    for (const [name, v] of Object.entries(query ?? {})) {
      if (Array.isArray(v) && (name === 'workspace' || queryNames(request.routeOptions.schema?.querystring).has(name))) throw new ServiceError(400, 'invalid_request', `${name} is given more than once in the query; give it once.`, [{ field: name, message: 'is given more than once' }]);
    }
    for (const name of integerQueryNames(request.routeOptions.schema?.querystring)) {
      const v = query?.[name];
      // empty is "not given", as it is for search=, game= and event_id= (client libraries send None so)
      if (typeof v === 'string' && v.trim() === '') {
        delete query![name];
        continue;
      }
      if (v !== undefined && (typeof v !== 'string' || !/^\s*\d+\s*$/.test(v))) throw new ServiceError(400, 'invalid_request', `${name} must be a whole number written in the digits 0-9, not "${String(v).slice(0, 40)}".`, [{ field: name, message: 'must be a whole number in the digits 0-9' }]);
    }
    // A compressed body is not unpacked (nor a bomb): say so, rather than "not valid UTF-8" or, for br, reading it as plain.
    const encoding = request.headers['content-encoding'];
    const hasBody = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
    if (hasBody && encoding !== undefined && encoding.trim() !== '' && !/^\s*identity\s*$/i.test(encoding)) throw new ServiceError(415, 'unsupported_media_type', `Content-Encoding "${String(encoding).slice(0, 40)}" is not supported: send the body uncompressed.`, undefined, { 'accept-encoding': 'identity' }); // RFC 7694: a client that compresses falls back on it (h220)
    // URLs handed out are built from the Host the client used unless LOUPE_PUBLIC_URL is set.
    if (!config.publicUrl && request.url !== '/health' && request.url !== '/ready' && !validHost(request.host)) {
      throw new ServiceError(400, 'invalid_request', 'A valid Host header is required (or set LOUPE_PUBLIC_URL on the server).');
    }
  });
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
  });
  // a client that went away before its answer gets a line of its own (its "incoming request" had no end in the log)
  app.addHook('onRequestAbort', async (request) => {
    if (cutByServer.has(request.raw)) return;
    request.log.info({ url: request.url, method: request.method }, 'request aborted by its client');
  });
  // /docs's page under a trusted proxy's X-Forwarded-Prefix alone (LOUPE_PUBLIC_URL sets the prefix once, indexPrefix):
  // its files load from the prefix too (they were asked for at the host's root, a blank page, h112's find left over).
  // Before compression (registered below), so the page is still text here.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (config.publicUrl || typeof payload !== 'string' || (request.routeOptions.url !== '/docs' && request.routeOptions.url !== '/docs/')) return payload;
    const base = basePathOf(request);
    return base ? payload.replace(/(src|href)="\/docs\//g, `$1="${base}/docs/`) : payload;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // every answer is what its Content-Type says: an error echoing a client's text is never sniffed as a page
    if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff');
    // an answer holds an account's data unless its route says how long it may be kept (media links, the console's
    // files): no proxy or browser cache keeps it (h150); and no page frames another's (the token pasted into /docs)
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
    // /docs holds the token pasted into it, as the console does: its files only, and no Referer out (h185)
    if (request.routeOptions.url?.startsWith('/docs') && !reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', DOCS_CSP);
      reply.header('referrer-policy', 'no-referrer');
    }
  });

  registerLargeBodyLimit(app, {
    thresholdBytes: config.limits.largeBodyBytes,
    atOnce: config.limits.largeBodiesAtOnce,
    arrivingAtOnce: config.limits.largeBodiesArriving,
    maxWaiting: 32,
    idleMs: config.limits.largeBodyIdleMs,
    minBytesPerSecond: config.limits.largeBodyMinBytesPerSecond,
    rateGraceMs: config.limits.largeBodyRateGraceMs,
    corsOrigins: config.corsOrigins,
  });
  // after the large uploads' turn: the 100 asks for the body when it will be read
  registerExpectContinue(app);
  // after the 100-continue's hook, which says Connection: close on a refusal
  registerLingeringClose(app);
  registerParseErrorKeepAlive(app);
  registerErrorHandling(app, { onDamaged: () => app.loupe.databaseDamaged(), balance: async (id) => (await app.loupe.accounts.getAccount(id)).credits });
  // A newer release upgraded the database while this node ran (docs/upgrades.md): it answers nothing but its
  // probes, rather than write rows as the old release makes them (a session it stored was never found again, h88).
  app.addHook('onRequest', async (request) => {
    // before the token's check: an outdated node does no lookup, and answers no 401/403/429 in its place
    const route = request.routeOptions.url;
    if (route === '/health' || route === '/ready') return;
    const outdated = await services.outdatedRelease();
    if (outdated) throw new ServiceError(503, 'outdated_release', `This server is of an older release than its database: ${outdated}.`, undefined, { 'retry-after': '60' });
  });
  registerClosingAnswer(app);
  registerEnvelopeStatus(app);
  registerAccessControl(app);
  // Answers over 1 KiB are compressed for clients that accept it (a page of 500 rows with grading was
  // 31 MB of JSON to a phone); zlib runs off the event loop. Images are sent as they are. Request
  // bodies are not decompressed: their limits count the bytes that arrive.
  await app.register(compress, { threshold: 1024, globalDecompression: false });

  // Shared schemas: responses refer to them (`Type.Ref`), and the OpenAPI document lists each once
  // under components instead of a copy per status code and route.
  app.addSchema(ErrorSchema);
  app.addSchema(SearchError);
  app.addSchema(SearchEnvelope);
  await app.register(swagger, {
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Loupe',
        version: apiVersion,
        description: 'Self-hosted visual-AI server. Authenticate with the header `Authorization: Token <token>`.',
      },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <token>' } } },
      ...(config.publicUrl ? { servers: [{ url: config.publicUrl }] } : {}),
    },
    transformObject: (doc) => ('openapiObject' in doc ? requestExamples(queryRequired(optionalBodies(operationIds(workspaceParameter(typedRecordFields(serverErrors(recognitionAnswerFields(collectionAnswerFields(requiredCollectionHeader(oas30Keywords(doc.openapiObject))))))))))) : doc.swaggerObject),
  });
  // Under a proxy's sub-path (LOUPE_PUBLIC_URL=https://shop.example/loupe) the UI's files and "Try it out" go there too (h112)
  const publicPath = config.publicUrl ? new URL(config.publicUrl).pathname.replace(/\/+$/, '') : '';
  // Without it, under a trusted proxy's X-Forwarded-Prefix alone: the document names the address the request came
  // through as its server (Try it out called the host's root), and the page's file links carry the prefix (onSend below)
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    ...(publicPath ? { indexPrefix: publicPath } : {}),
    transformSpecificationClone: false,
    transformSpecification: (spec, request) => (config.publicUrl || !basePathOf(request) ? spec : { ...spec, servers: [{ url: baseUrlOf(request) }] }),
  });

  await app.register(cardstreamRoutes, { prefix: '/cardstream/v2' });
  await app.register(imageMatchingRoutes, { prefix: '/image_matching/v2' });
  await app.register(visionRoutes);
  await app.register(collectiblesRoutes, { prefix: '/collectibles/v2' });
  await app.register(collectionRoutes);
  await app.register(textSearchRoutes);
  await app.register(mediaRoutes);
  await app.register(consoleRoutes, { publicPath, basePath: basePathOf });
  await app.register(requestRoutes, { prefix: '/account/v2/request' });

  // probes every few seconds: their request lines would drown the log (warnings and errors still
  // show; a quieter LOG_LEVEL stays as it is)
  const probeLogLevel = (['info', 'debug', 'trace'].includes(config.logLevel) ? 'warn' : config.logLevel) as 'warn';
  // in the OpenAPI document too: a generated client and a load balancer's configuration read them there (h85)
  const probe = { tags: ['health'], summary: '' };
  app.get(
    '/health',
    { schema: { ...probe, summary: 'Liveness: the process answers (no token)', response: { 200: Type.Object({ status: Type.Literal('ok') }) } }, logLevel: probeLogLevel },
    async () => ({ status: 'ok' as const }),
  );
  // liveness above (the process answers); readiness here: the database and media folder work, for a
  // load balancer to stop sending requests to a node that would answer them all 500
  const ReadyAnswer = Type.Object({ status: Type.Literal('ready') });
  // the not-ready answer, or the house error of a request refused on its way (shutting_down): one shape for both
  const NotReadyAnswer = Type.Object({ status: Type.Optional(Type.Literal('unavailable')), detail: Type.String(), code: Type.Optional(Type.String()) });
  const readiness = { ...probe, summary: 'Readiness: the database takes a write and the media folder a file (no token; one check a second)', response: { 200: ReadyAnswer, 503: NotReadyAnswer } };
  app.get('/ready', { schema: readiness, logLevel: probeLogLevel }, async (request, reply) => {
    try {
      await services.ready();
      return { status: 'ready' };
    } catch (err) {
      request.log.error({ err: (err as { cause?: unknown }).cause ?? err }, 'not ready');
      // the house error shape's code too (docs/api-decisions.md lists it; a monitor keyed on `code` saw none, h113)
      return reply.code(503).header('retry-after', '5').send({ status: 'unavailable', detail: err instanceof ServiceError ? err.detail : 'Not ready (the server log says why).', code: 'not_ready' });
    }
  });
  return app;
}
