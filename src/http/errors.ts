import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, wholeCharacters, type FieldError } from '../services/errors.ts';
import { deprecationHeaders } from './deprecated-bases.ts';
import { isListOverLimit } from './array-limits.ts';
import { patternWords } from './schemas/patterns.ts';

/** The listed codes (docs/api-decisions.md) of a status a plugin answers with; any other 4xx is `client_error`. */
const pluginCodes: Record<number, string> = { 400: 'invalid_request', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed', 413: 'body_too_large', 415: 'unsupported_media_type' };

interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  schemaPath: string;
  params: Record<string, unknown>;
}

/** `/identifications/3/name` → `identifications[3].name`, row 3. */
function fieldOf(context: string | undefined, e: AjvError): FieldError {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') parts.push(e.params.missingProperty);
  let field = '';
  for (const p of parts) field += /^\d+$/.test(p) ? `[${p}]` : field ? `.${p}` : p;
  if (!field) field = context ?? 'body';
  // ajv's enum message names no value: the client needs them
  const allowed = e.keyword === 'enum' && Array.isArray(e.params.allowedValues) ? e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ') : undefined;
  const anyCase = e.keyword === 'pattern' ? anyCaseWords(e.params.pattern) : undefined;
  // a pattern in words, not the regular expression (h310: `must match pattern "^(?:[Hh][Tt][Tt][Pp][Ss]?://.*)?$"`)
  const worded = e.keyword === 'pattern' && typeof e.params.pattern === 'string' ? patternWords.get(e.params.pattern) : undefined;
  const message = e.keyword === 'required' ? 'is required' : allowed ? `must be one of ${allowed}` : anyCase ? `must be one of ${anyCase} (any case)` : (worded ?? sizeMessage(e) ?? e.message ?? 'is invalid');
  const rowMatch = /^identifications\/(\d+)/.exec(parts.join('/'));
  return rowMatch ? { field, message, row: Number(rowMatch[1]) } : { field, message };
}

const sizeWords: Record<string, [string, string]> = {
  minItems: ['at least', 'item'],
  maxItems: ['at most', 'item'],
  minLength: ['at least', 'character'],
  maxLength: ['at most', 'character'],
  minProperties: ['at least', 'field'],
  maxProperties: ['at most', 'field'],
};

/**
 * A size limit said in plain words (`records must hold at least 1 item`): Ajv's own
 * (`must NOT have fewer than 1 items`) shouts and miscounts. A batch over its limit, which
 * array-limits.ts finds before Ajv, also says how many it held.
 */
function sizeMessage(e: AjvError): string | undefined {
  const words = sizeWords[e.keyword];
  const limit = e.params.limit;
  if (!words || typeof limit !== 'number') return undefined;
  const after = typeof e.params.count === 'number' ? ` (it has ${e.params.count})` : '';
  const verb = e.keyword.endsWith('Length') ? 'be' : 'hold';
  const [bound, unit] = words;
  return `must ${verb} ${bound} ${limit} ${unit}${limit === 1 ? '' : 's'}${e.keyword.endsWith('Length') ? ' long' : ''}${after}`;
}

/**
 * The words of a case-blind enum written as a pattern (`^(?:[Tt][Cc][Gg]|[Ss][Ll][Aa][Bb])$`), quoted
 * as an enum's message quotes them: the pattern itself tells a client nothing.
 */
export function anyCaseWords(pattern: unknown): string | undefined {
  const m = typeof pattern === 'string' ? /^\^\(\?:(.*)\)\$$/.exec(pattern) : null;
  if (!m) return undefined;
  const words: string[] = [];
  for (const alt of m[1]!.split('|')) {
    const letters = [...alt.matchAll(/\[([A-Z])([a-z])\]/g)];
    if (!letters.length || letters.map((l) => l[0]).join('') !== alt || letters.some((l) => l[1]!.toLowerCase() !== l[2])) return undefined;
    words.push(JSON.stringify(letters.map((l) => l[2]).join('')));
  }
  return words.join(', ');
}

/**
 * One error a row (a batch's rows, whose schema reports every error), or a field: a union's failed
 * branches say the same thing several ways. At most {@link MAX_FIELD_ERRORS}.
 */
function firstOfEach(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    const key = e.row !== undefined ? `row ${e.row}` : e.field;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
    if (out.length === MAX_FIELD_ERRORS) break;
  }
  return out;
}
const MAX_FIELD_ERRORS = 100;

/** A body that is not JSON, refused wherever it is told (the parser, a body announced with Expect: 100-continue). */
export const unsupportedMediaType = () => new ServiceError(415, 'unsupported_media_type', 'Unsupported content type; send JSON with "Content-Type: application/json".');

const clientErrors: Record<string, { status: number; code: string; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', detail: unsupportedMediaType().message },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large', detail: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request', detail: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json', detail: 'The body is empty.' },
};

export function send(reply: FastifyReply, status: number, body: { detail: string; code: string; errors?: FieldError[] }, statusBlock?: boolean): FastifyReply {
  const request = reply.request;
  // Search-style clients read status.code / status.text; everyone else reads detail.
  const config = request.routeOptions.config;
  // a plugin's or a parser's message quoting a client's text, cut, is whole characters too
  const detail = wholeCharacters(body.detail);
  const envelope = (statusBlock ?? (config?.envelope || config?.statusInErrors)) ? { status: { code: status, text: detail, request_id: request.id } } : {};
  return reply.code(status).type('application/json; charset=utf-8').send({ ...body, detail, ...envelope });
}

/**
 * Requests that arrive while the server stops (on a connection still open for an answer under
 * way) get the house error shape; Fastify's own 503 (`{"error","message","statusCode"}`) was the one
 * body in another shape. Needs `return503OnClosing: false` on the instance.
 */
export function registerClosingAnswer(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    reply.header('retry-after', '5');
    return send(reply, 503, { detail: 'The server is stopping; send the request again (to another node, or to this one once it is back).', code: 'shutting_down' });
  });
}

/**
 * `onDamaged`: told when the database reports its file damaged, so `/ready` can say so from then on. `balance`: the
 * account's credits, read when a charge was refused, so the 402 says what the account holds (every charge debits
 * in one conditional statement, which returns no balance).
 */
export function registerErrorHandling(app: FastifyInstance, hooks: { onDamaged?: () => void; balance?: (accountId: string) => Promise<number> } = {}): void {
  let overloadTold = false;
  app.setErrorHandler(async (err: FastifyError | ServiceError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ServiceError) {
      if (err.headers) reply.headers(err.headers);
      const holds = err.code === 'insufficient_credits' && request.principal && hooks.balance ? await hooks.balance(request.principal.account.id).catch(() => undefined) : undefined;
      const detail = holds === undefined ? err.detail : `${err.detail} The account holds ${holds} credit${holds === 1 ? '' : 's'}.`;
      return send(reply, err.status, { detail, code: err.code, ...(err.errors ? { errors: err.errors } : {}) });
    }
    if (err.validation) {
      let errors = firstOfEach((err.validation as AjvError[]).map((e) => fieldOf(err.validationContext, e)));
      // a list over its length was refused before its rows were checked (src/http/array-limits.ts): its rows are not read for rule errors either
      const overLong = (err.validation as AjvError[]).some(isListOverLimit);
      const rowErrors = err.validationContext === 'body' && !overLong ? request.routeOptions.config?.rowErrors : undefined;
      if (rowErrors) {
        const failed = new Set(errors.flatMap((e) => (e.row === undefined ? [] : [e.row])));
        errors = [...errors, ...(await rowErrors(request.body, failed))].sort((a, b) => (a.row ?? -1) - (b.row ?? -1)).slice(0, MAX_FIELD_ERRORS);
      }
      const first = errors[0]!;
      const where = first.row !== undefined ? `Row ${first.row}: ` : '';
      const suffix = first.row !== undefined ? ' The batch was not stored.' : '';
      // a call's record list past its limit has its own code, as the rules' own too_many_records (h273: the schema's was invalid_request)
      const tooMany = err.validationContext === 'body' && (err.validation as AjvError[]).some((e) => e.keyword === 'maxItems' && (e.instancePath === '/records' || e.instancePath === '/query_records'));
      return send(reply, 400, { detail: `${where}${first.field} ${first.message}.${suffix}`, code: tooMany ? 'too_many_records' : 'invalid_request', errors });
    }
    // PostgreSQL class 22 (data exception): a value the schema let through but the column cannot
    // hold. The client must not retry it as if it were a server fault.
    if (typeof err.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code)) {
      request.log.warn({ err }, 'value rejected by the database');
      return send(reply, 400, { detail: 'A value in the request is outside what the server can store.', code: 'invalid_request' });
    }
    // a full disk is the server's state, not a bug: said so, and when to try again (it was a bare 500)
    if (storageFull(err)) {
      request.log.error({ err: String(err.message ?? err) }, 'storage full');
      reply.header('retry-after', '60');
      return send(reply, 503, { detail: "The server's storage is full; nothing of this request was stored. Retry later.", code: 'storage_full' });
    }
    // a media folder or database file the server may not write (its permissions changed, a read-only
    // mount) or that fails under it: the operator's to mend, and a retry's to wait for (it was a 500, a bug)
    if (storageUnwritable(err)) {
      request.log.error({ err: String(err.message ?? err), code: err.code }, 'storage cannot be written');
      reply.header('retry-after', '60');
      return send(reply, 503, { detail: "The server cannot write its storage now; nothing of this request was stored. Retry later (the server's log says why).", code: 'storage_unavailable' });
    }
    // The database unreachable (PostgreSQL stopped or restarting, its connections cut, the network): a
    // client retries a 503, where a 500 reads as a bug; /ready says the same (503) meanwhile.
    if (databaseUnavailable(err)) {
      // the pool's own timeout reads as an outage: it is as often every connection busy (LOUPE_PG_POOL)
      const pool = /timeout exceeded when trying to connect|terminated due to connection timeout/.test(String(err.message ?? '')) ? { hint: 'no connection came free or opened within 15 s: every connection of the pool busy (LOUPE_PG_POOL, long transactions or locks), or PostgreSQL not answering' } : {};
      request.log.warn({ err: String(err.message ?? err), ...pool }, 'database unavailable');
      reply.header('retry-after', '5');
      return send(reply, 503, { detail: 'The database is not reachable just now; retry shortly.', code: 'database_unavailable' });
    }
    // PostgreSQL's shared lock table full (53200 `out of shared memory`): many collections' indexes, each locked by every
    // statement on their table, times the statements under way on the whole database server (h369). It passes as they
    // end, so a client retries; the operator is told once a process what to raise (docs/operations.md)
    if (databaseOverloaded(err)) {
      if (overloadTold) request.log.warn({ err: String(err.message ?? err) }, 'database overloaded');
      else request.log.error({ err: String(err.message ?? err), hint: (err as { hint?: unknown }).hint, operator: overloadHint }, 'database overloaded: its shared lock table is full');
      overloadTold = true;
      reply.header('retry-after', '5');
      return send(reply, 503, { detail: 'The database is overloaded just now; nothing of this request was done. Retry shortly.', code: 'database_overloaded' });
    }
    // SQLite's file damaged (its WAL deleted under the server, a disk fault): every call then failed 500 while /ready
    // answered 200 (h190). No retry mends it: the operator restores a backup; the node leaves the load balancer.
    if (databaseDamaged(err)) {
      request.log.error({ err: String(err.message ?? err), code: err.code }, 'the database file is damaged: stop the server and restore a backup (docs/operations.md "Backups")');
      hooks.onDamaged?.();
      return send(reply, 503, { detail: "The server's database file is damaged; nothing of this request was stored. The operator must restore a backup (the server's log says so).", code: 'database_damaged' });
    }
    // a search of a collection whose index a restart is still reading, past the wait (src/index/collection-queries.ts
    // IndexLoadingError): the node is up and the rest of it answers; this collection only needs a moment more
    if (indexLoading(err)) {
      reply.header('retry-after', String(err.retryAfterS));
      const r = err.progress.rebuilding;
      const far = r ? `its saved index could not be used and is being rebuilt: ${r.inserted} of ${r.of} vectors inserted` : `${err.progress.records} of ${err.progress.of} records read`;
      return send(reply, 503, { detail: `The collection's index is still loading after a restart (${far}); nothing of this request was done. Retry in about ${err.retryAfterS} s.`, code: 'index_loading' });
    }
    const known = err.code ? clientErrors[err.code] : undefined;
    if (known && err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && request.routeOptions.bodyLimit) {
      // the limit differs by endpoint (1 MiB, 33 MiB for a session's image, 64 MiB for a batch): said, so a client can split
      return send(reply, known.status, { detail: `The request body is too large: at most ${byteSize(request.routeOptions.bodyLimit)} on this endpoint.`, code: known.code });
    }
    if (known) return send(reply, known.status, { detail: known.detail, code: known.code });
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // a plugin's own 4xx (the docs' static files refusing `..`: 403) under the listed codes where one fits
      return send(reply, err.statusCode, { detail: err.message, code: pluginCodes[err.statusCode] ?? 'client_error' });
    }
    request.log.error({ err }, 'unhandled error');
    return send(reply, 500, { detail: `Internal server error. Quote request id ${request.id} when reporting it.`, code: 'internal_error' });
  });

  const routes: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url === '*' || route.url.includes('*')) return;
    const config = route.config as { envelope?: boolean; statusInErrors?: boolean } | undefined;
    for (const method of [route.method].flat()) routes.push({ method, path: routePattern(route.url), prefix: route.url.split('/').slice(0, 3).join('/'), statusBlock: Boolean(config?.envelope || config?.statusInErrors) });
  });
  // A path no endpoint has, or a method it does not take, is answered before its body is read: a mistyped path sent
  // with a 2 MB body was 413 "too large: at most 1 MiB", the not-found route's own limit, and `Expect: 100-continue`
  // was answered 100 for it first (h195)
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    notFound(request, reply);
    return reply;
  });
  app.setNotFoundHandler((request, reply) => notFound(request, reply));
  const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0]!.replace(/\/{2,}/g, '/');
    const here = routes.filter((r) => r.path.test(path));
    // the family's clients read status.code / status.text on every answer, this one too
    const statusBlock = (here.length ? here : routes.filter((r) => r.prefix === path.split('/').slice(0, 3).join('/'))).some((r) => r.statusBlock);
    const allowed = [...new Set(here.map((r) => r.method))].filter((m) => m !== 'HEAD');
    deprecationHeaders(path, reply);
    // the method is among them when the router refused the path itself (an id longer than it takes): no such resource
    if (allowed.length && !allowed.includes(request.method) && !(request.method === 'HEAD' && allowed.includes('GET'))) {
      reply.header('allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
      return send(reply, 405, { detail: `${request.method} is not allowed on ${path}: ${allowed.join(', ')} ${allowed.length > 1 ? 'are' : 'is'}.`, code: 'method_not_allowed' }, statusBlock);
    }
    // a base a client may guess from its neighbours (the text path is …/text/products/v2/…, the product collections'
    // …/products-new/v2/…, h261): the 404 says where it is
    const guessed = /^\/similarity\/products\/v2(\/|$)/.test(path) ? path.replace('/similarity/products/v2', '/similarity/products-new/v2') : undefined;
    return send(reply, 404, { detail: `No endpoint ${request.method} ${path}.${guessed ? ` Product collections are under /similarity/products-new/v2/ (spec 2): ${guessed}.` : ''}`, code: 'not_found' }, statusBlock);
  };
}

interface KnownRoute {
  method: string;
  path: RegExp;
  prefix: string;
  statusBlock: boolean;
}

/** A route's URL as a pattern for request paths: `/session/:id/` matches `/session/abc/`. */
function routePattern(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  // as the router: a trailing slash or not, and doubled slashes, reach the same route
  return new RegExp(`^${source.replace(/\/$/, '')}/?$`);
}

/** An embedded index still loading past a request's wait (the adapter's IndexLoadingError, known by its code). */
function indexLoading(err: { code?: unknown }): err is { code: string; retryAfterS: number; progress: { records: number; of: number; rebuilding?: { inserted: number; of: number } } } {
  return err.code === 'LOUPE_INDEX_LOADING' && typeof (err as { retryAfterS?: unknown }).retryAfterS === 'number';
}

/**
 * A disk with no room: the file system's (ENOSPC, EDQUOT), a file-size limit's (EFBIG: a service
 * manager's LimitFSIZE, `ulimit -f`), SQLite's, or PostgreSQL's (53100 disk_full).
 */
export function storageFull(err: { code?: unknown }): boolean {
  return typeof err.code === 'string' && ['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL', '53100'].includes(err.code);
}

/**
 * A file the server writes that it may not (EACCES, EPERM, EROFS on a path: the media folder's
 * permissions, a read-only mount), or the database file refusing or failing writes (SQLite's
 * read-only and I/O errors).
 */
export function storageUnwritable(err: { code?: unknown; path?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  // SQLite's read-only family (READONLY_DBMOVED: the file replaced under it), a file it cannot open, its I/O
  // errors; PostgreSQL's 25006, a read-only transaction (a standby after a failover)
  return (['EACCES', 'EPERM', 'EROFS'].includes(code) && typeof err.path === 'string') || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_IOERR') || code === '25006';
}

/** SQLite's own word that its file is damaged or is no database (`SQLITE_CORRUPT`, `SQLITE_NOTADB` and their extended codes). */
export function databaseDamaged(err: { code?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/**
 * PostgreSQL's connection and shutdown errors (SQLSTATE classes 08 and 57P), and the driver's own
 * when no connection can be made or one is cut: the database is away, not the request wrong.
 */
export function databaseUnavailable(err: { code?: unknown; message?: unknown; syscall?: unknown }): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  // 08P01 is a protocol violation: a bug, not an outage; 55P03 a lock another held past lock_timeout (a filtered query's)
  if ((/^08[0-9A-Z]{3}$/.test(code) && code !== '08P01') || /^57P0[1-3]$/.test(code) || code === '55P03') return true;
  // 53300 too many connections (several nodes' pools at max_connections), 53100 disk full, and 55000 where a database no
  // longer takes connections (ALLOW_CONNECTIONS false): the database away for now, not the request wrong (a 500
  // `internal_error` with no Retry-After until the forty-second session, h139). Not the rest of class 53: a query past
  // temp_file_limit (53400) fails the same way on every retry (h144); out of lock memory (53200) is its own 503
  // database_overloaded since h369 (databaseOverloaded)
  if (code === '53300' || code === '53100' || (code === '55000' && typeof err.message === 'string' && /not currently accepting connections/.test(err.message))) return true;
  // a DBA's own limits: a statement past the database's statement_timeout, or cancelled by pg_cancel_backend (57014; a
  // filter's own is its client's 400 before it gets here), a transaction or session ended by idle_in_transaction_ or
  // idle_session_timeout (25P03, 57P05): the database busy or impatient for now (500 internal_error until the
  // forty-ninth session, h226)
  if (code === '57014' || code === '25P03' || code === '57P05') return true;
  // SQLite's file held by another process's write past the wait (docs/architecture.md, `BusyWait`): the database busy
  // for now, as PostgreSQL's 55P03 (a plain 500 `internal_error` until the thirty-ninth session, h96)
  if (code.startsWith('SQLITE_BUSY') || code === 'SQLITE_LOCKED') return true;
  const message = typeof err.message === 'string' ? err.message : '';
  // a connection the pool could not open (the fetches of images and webhooks never reach here: theirs are the records' own errors)
  if (err.syscall === 'connect' && ['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)) return true;
  return /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message);
}

/**
 * PostgreSQL out of shared memory (53200), which is its lock table full: every statement on `collection_records` locks
 * each collection's index, so with many collections a few statements at once fill it (h369). Not class 53's others
 * (53400 temp_file_limit fails alike on every retry).
 */
export function databaseOverloaded(err: { code?: unknown }): boolean {
  return err.code === '53200';
}
const overloadHint =
  'PostgreSQL ran out of lock table entries: every statement on collection_records locks every collection\'s index. Raise max_locks_per_transaction (the start\'s warning, or `loupe collection list`, gives the figure: docs/operations.md "Many collections on PostgreSQL") and restart PostgreSQL';

/** `1 MiB`, `33 MiB`, `512 KiB`, `900 bytes`. */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
