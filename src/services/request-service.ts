import { randomUUID } from 'node:crypto';
import dns from 'node:dns/promises';
import net from 'node:net';
import { resolvedRefusal, type AddressPolicy } from '../media/address-policy.ts';
import { decodeBase64ImageInSteps } from '../media/base64-image.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import type { HandlerRegistry } from '../queue/job-handler.ts';
import type { QueueSignal } from '../queue/queue-signal.ts';
import { isUniqueViolation, isForeignKeyViolation } from '../store/database.ts';
import { requestStates, type AsyncRequestRow, type RequestState, type RequestStore, type WebhookState, type WebhookTarget } from '../store/request-store.ts';
import { insufficientCredits, serviceEnabled } from './account-service.ts';
import type { Page } from './card-session-service.ts';
import { ServiceError, badRequest, isUuid, notFound } from './errors.ts';
import { inexactNumber } from '../util/exact-numbers.ts';
import { canonicalJsonSha256 } from '../util/canonical-json.ts';
import { notARecordOf, recordsAsSent } from '../util/not-a-record.ts';
import { maxRecordFieldBytes } from './record-limits.ts';
import { refuseUnknownParameters } from './unknown-parameters.ts';
import type { ResultLinks } from './result-links.ts';

/** The request states, for the routes' schemas: routes reach the store only through services (docs/architecture.md, Layers). */
export { requestStates };

export interface RequestCaller {
  accountId: string;
  workspaceId: string;
  /** Absolute base of result media URLs (how the caller reached the server). */
  baseUrl: string;
  /** The account's enabled services: a type whose synchronous endpoints need one needs it here too. */
  services: readonly string[];
}

export interface SubmitInput {
  type: string;
  endpoint?: string | undefined;
  records: Record<string, unknown>[];
  webhook?: { endpoint?: string | undefined; url?: string | undefined; headers?: Record<string, string | number | boolean> | undefined } | undefined;
  mode?: string | undefined;
  /** Card grading `grade`: the front's weight in the top-level grades (0–1, default 0.7). */
  front_weight?: number | undefined;
}

/** A submit's own names (spec 3 §4, and `workspace` as the request resource names it, h257). */
const SUBMIT_PARAMETERS = ['type', 'records', 'endpoint', 'webhook', 'mode', 'front_weight', 'workspace'] as const;

export interface RequestSettings {
  retentionMs: number;
  maxImageBytes: number;
  /** Credits per record by type (`requests.<type>` in the price table). */
  priceOf: (type: string) => number;
  /** The least time between a delivered webhook and its resend (docs/webhooks.md "Sending again"). */
  resendGapMs: number;
}

export interface RequestSummary {
  id: string;
  status: RequestState;
  type: string;
  created: string;
  workspace: string;
}

/** A row of the list: the summary and where its webhook is, as the list's `webhook_state` filter names it (null: none). */
export interface RequestListRow extends RequestSummary {
  webhook_state: 'waiting' | WebhookState | null;
}

/** The request as submitted, `_base64` left out. */
export interface RequestEcho {
  type: string;
  endpoint: string;
  records: Record<string, unknown>[];
  mode?: string;
  front_weight?: number;
}

export interface RequestDetail extends RequestSummary {
  request: RequestEcho;
  response?: { records: Record<string, unknown>[]; [key: string]: unknown };
  modified: string;
  webhook?: { url: string; state: 'waiting' | WebhookState; attempts: number; last_error: string | null; next_attempt: string | null; delivered: string | null; failed: string | null };
}

const headerName = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
/** Headers the server sets itself; a configured value would be overwritten or break the request. */
const reservedHeaders = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'loupe-signature', 'loupe-request-id', 'loupe-delivery-attempt']);
/** Headers of one hop or of the body's encoding: sent as given, each made every delivery fail (Trailer) or be refused (Content-Encoding on plain JSON). */
const hopHeaders = new Set(['trailer', 'te', 'upgrade', 'keep-alive', 'expect', 'proxy-authorization', 'proxy-connection', 'content-encoding']);

/** Submitting, reading and listing asynchronous requests (spec 3 §4). */
/**
 * Where a request's webhook is, in the words of the list's filter and the detail's `webhook.state`: `waiting` until
 * the request is DONE (the row's state is null then), null for a request without one.
 */
function webhookStateOf(row: AsyncRequestRow): RequestListRow['webhook_state'] {
  return row.webhook ? (row.webhookState ?? 'waiting') : null;
}

/** The most rows a page of the request list holds. */
const maxRequestPage = 100;

/** The detail's delivery fields (`webhook` of GET): ignored where a client sends a webhook back as it read it. */
const WEBHOOK_DETAIL_FIELDS = ['state', 'attempts', 'last_error', 'next_attempt', 'delivered', 'failed'];

/** Bytes of a webhook's own headers, names and values (`: ` and CRLF counted), at most. */
const maxWebhookHeaderBytes = 8192;

export class RequestService {
  constructor(
    private readonly requests: RequestStore,
    private readonly registry: HandlerRegistry,
    private readonly signal: QueueSignal,
    private readonly policy: AddressPolicy,
    private readonly settings: RequestSettings,
    private readonly results: ResultLinks,
  ) {}

  webhookSecret(accountId: string): Promise<string> {
    return this.requests.webhookSecret(accountId);
  }

  rotateWebhookSecret(accountId: string): Promise<string> {
    return this.requests.rotateWebhookSecret(accountId);
  }

  /**
   * Submits a request. With an `Idempotency-Key` (docs/api-decisions.md, "Retries of a submit") a
   * submit sent again with that key and the same body answers the request the first one made,
   * charging nothing (`replayed`); with another body it is 422. A key is the account's until its
   * request's retention ends.
   */
  async submit(caller: RequestCaller, input: SubmitInput, idempotencyKey?: string): Promise<RequestDetail & { replayed?: true }> {
    // hashed a slice at a time: a body of 44 MB of images hashed at once held the event loop (h286)
    const idempotency = idempotencyKey === undefined ? undefined : { key: idempotencyKey, bodyHash: await canonicalJsonSha256([caller.workspaceId, { ...input, records: recordsAsSent(input.records) }]) };
    const prior = idempotency && (await this.priorSubmit(caller, idempotency));
    if (prior) return prior;
    // the type in any case and spacing, as the list's filter reads it (h257: `Card-Grader` was 400 there, found here)
    const canonical = input.type.trim().toLowerCase();
    if (canonical !== input.type && this.registry.get(canonical)) input = { ...input, type: canonical };
    const handler = this.registry.get(input.type);
    if (!handler) throw new ServiceError(400, 'unknown_type', `Unknown type "${input.type}"; one of: ${this.registry.types().join(', ')}.`, [{ field: 'type', message: 'unknown type' }]);
    if (handler.service && !serviceEnabled(caller.services, handler.service)) {
      throw new ServiceError(403, 'service_not_enabled', `The ${handler.service} service is not enabled for this account: ${input.type} requests need it, as its synchronous endpoints do.`);
    }
    // a type whose endpoint the spec does not show runs its usual one when none is named (h270: a client written against
    // the spec, which lists only type and records as required, was refused); the request then says which it ran
    if ((input.endpoint === undefined || input.endpoint === null) && handler.defaultEndpoint !== undefined) input = { ...input, endpoint: handler.defaultEndpoint };
    let endpoint = input.endpoint ?? '';
    // an endpoint in another case (`Upscale_2x`, `/TCG_ID`), as the type is read: taken as its own spelling where only that
    // names one (a flow's own name, matched as written first, keeps its case)
    if (endpoint !== '' && !(await handler.accepts(endpoint))) {
      const lower = endpoint.trim().toLowerCase();
      if (lower !== endpoint && (await handler.accepts(lower))) {
        endpoint = lower;
        input = { ...input, endpoint };
      }
    }
    if (!(await handler.accepts(endpoint))) {
      const known = await handler.endpoints();
      const what = endpoint === '' ? `An endpoint is required for ${input.type}` : `Unknown endpoint "${endpoint}" for ${input.type}`;
      throw new ServiceError(400, 'unknown_endpoint', `${what}; one of: ${known.join(', ') || '(none defined)'}.`, [{ field: 'endpoint', message: 'unknown endpoint' }]);
    }
    const stepServices = await handler.servicesFor?.(endpoint);
    for (const service of stepServices ?? []) {
      if (!serviceEnabled(caller.services, service)) throw new ServiceError(403, 'service_not_enabled', `The ${service} service is not enabled for this account: the ${input.type} endpoint "${endpoint}" runs its endpoints.`);
    }
    const invalid = handler.validate?.(endpoint, { mode: input.mode, frontWeight: input.front_weight, rootKeys: Object.keys(input) }) ?? handler.validateRecords?.(endpoint, input.records);
    // with the field it names, as every other field-level 400 has (h257: these alone had no `errors`)
    if (invalid) throw new ServiceError(400, invalid.code ?? 'invalid_request', invalid.message, [{ field: invalid.field, message: invalid.message }]);
    // any other name is refused too, after the type's own words for a record's option sent beside the records (h343:
    // `webhook_url`, `Webhook` or `frontWeight` were ignored, and the request ran, paid, without its webhook or with the
    // default weight), as collections, image matching, the vision and recognition endpoints refuse one
    refuseUnknownParameters('account/v2/request', SUBMIT_PARAMETERS, input);
    // a number JSON could not keep as sent would be stored, echoed and sent to the webhook altered
    // (an _id beyond 2^53 too: the record's own 400 would echo it altered); and a record's own fields are
    // stored, echoed in every read and webhook for the retention's days: bounded as a collection record's
    for (const [i, record] of input.records.entries()) {
      const { _base64: _image, ...fields } = record;
      const inexact = inexactNumber(fields);
      if (inexact) throw badRequest(`records[${i}].${inexact} cannot be kept exactly: JSON numbers beyond ±2^53 lose digits; send it as a string.`, [{ field: `records[${i}]`, message: 'a number that cannot be kept exactly' }]);
      const bytes = Buffer.byteLength(JSON.stringify(fields));
      if (bytes > maxRecordFieldBytes) throw badRequest(`records[${i}]'s fields take ${Math.ceil(bytes / 1024)} KiB of JSON; at most ${maxRecordFieldBytes / 1024} KiB (the image not counted).`, [{ field: `records[${i}]`, message: `at most ${maxRecordFieldBytes / 1024} KiB of JSON besides the image` }]);
    }
    const max = handler.maxRecords?.(endpoint) ?? 10;
    // a list past its limit has its own code, as the schema's ten (h307: grade's two alone was invalid_request)
    if (input.records.length > max) throw new ServiceError(400, 'too_many_records', `${input.type} ${endpoint} takes at most ${max} records per request; ${input.records.length} were sent.`, [{ field: 'records', message: `at most ${max}` }]);
    const webhook = input.webhook ? await this.webhookTarget(input.webhook) : null;

    // Uploads are decoded now: their bytes wait in the database for a worker. A broken one
    // becomes that record's own error in the result, like every other per-record problem.
    // (decoded a slice at a time, the event loop let go between: at once, 44 MB of them held it, h286)
    const inputs = new Map<number, Buffer>();
    const inputErrors: Record<number, string> = {};
    const echoed: Record<string, unknown>[] = [];
    for (const [i, record] of input.records.entries()) {
      // a record that is no object (not-a-record.ts) is stored as one with no fields, its status said at submit: every
      // handler reads its image through the runner, which answers it with this (h336: the whole submit's 400)
      const not = notARecordOf(record);
      if (not) {
        inputErrors[i] = `records[${i}] must be an object (an image record with _url, _base64 or _file), not ${not.sent}`;
        echoed.push({});
        continue;
      }
      const { _base64, ...rest } = record;
      // `_id` is a label echoed back here, as on the synchronous endpoints of these types: kept as sent, whatever its
      // form (h257: a list or a 300-character id failed its record "Error Loading Image" here and passed there)
      if (rest._url !== undefined && rest._url !== null && (typeof rest._url !== 'string' || rest._url.length > 8192)) {
        inputErrors[i] = '_url must be a string of at most 8192 characters';
      } else if (typeof _base64 === 'string') {
        try {
          inputs.set(i, await decodeBase64ImageInSteps(_base64, this.settings.maxImageBytes));
        } catch (err) {
          if (!(err instanceof ImageLoadError)) throw err;
          inputErrors[i] = err.reason;
        }
      } else if (_base64 !== undefined) {
        inputErrors[i] = '_base64 must be a string';
      } else if (typeof rest._url !== 'string' && typeof rest._file !== 'string') {
        inputErrors[i] = 'the record has no _url or _base64';
      }
      echoed.push(rest);
    }

    const price = this.settings.priceOf(input.type);
    const charge = price * input.records.length;
    const id = randomUUID();
    const request: Record<string, unknown> = { type: input.type, endpoint, records: echoed };
    if (input.mode !== undefined) request.mode = input.mode;
    if (input.front_weight !== undefined) request.front_weight = input.front_weight;
    // The charge is debited in the insert's own transaction: a request is stored paid for, or not at all.
    let row: AsyncRequestRow | null;
    try {
      row = await this.requests.insert({
        id,
        accountId: caller.accountId,
        workspaceId: caller.workspaceId,
        type: input.type,
        endpoint,
        request,
        // the account's services as checked now, for a handler whose endpoint may change before it runs (a flow an
        // administrator replaces: h340, faces ran for an account refused them)
        options: { baseUrl: caller.baseUrl, pricePerRecord: price, inputErrors, ...(stepServices ? { services: [...caller.services] } : {}), ...(input.mode !== undefined ? { mode: input.mode } : {}), ...(input.front_weight !== undefined ? { frontWeight: input.front_weight } : {}) },
        charged: charge,
        webhook,
        expiresAt: Date.now() + this.settings.retentionMs,
        inputs,
        idempotency,
      });
    } catch (err) {
      // the same key sent twice at once: the one stored first is the request, the other its replay
      const first = idempotency && isUniqueViolation(err) ? await this.priorSubmit(caller, idempotency) : undefined;
      if (first) return first;
      if (idempotency && isUniqueViolation(err)) throw new ServiceError(409, 'idempotency_conflict', `Idempotency-Key "${idempotency.key}" was being freed as this submit arrived; send it again.`);
      // its workspace (or account) erased between the token's check and the insert: as one erased before (h244: a 500)
      if (isForeignKeyViolation(err)) throw notFound(`Workspace ${caller.workspaceId}`);
      throw err;
    }
    if (!row) {
      // the same key sent twice at once by an account that can pay for one: the second is the first's replay, not a 402
      const first = idempotency && (await this.priorSubmit(caller, idempotency));
      if (first) return first;
      throw insufficientCredits(`requests.${input.type}`, charge);
    }
    this.signal.notify('requests');
    return this.detail(row);
  }

  /** The live request an `Idempotency-Key` names, replayed; 422 when it was sent with another body or to another workspace; none when its retention has ended (the key is freed). */
  private async priorSubmit(caller: RequestCaller, idempotency: { key: string; bodyHash: string }): Promise<(RequestDetail & { replayed: true }) | undefined> {
    const prior = await this.requests.byIdempotencyKey(caller.accountId, idempotency.key);
    if (!prior) return undefined;
    if (prior.row.expiresAt <= Date.now()) {
      await this.requests.releaseIdempotencyKey(prior.row.id);
      return undefined;
    }
    if (prior.bodyHash !== idempotency.bodyHash) {
      throw new ServiceError(422, 'idempotency_key_reused', `Idempotency-Key "${idempotency.key}" was sent with another request (${prior.row.id}${prior.row.workspaceId === caller.workspaceId ? '' : `, in workspace ${prior.row.workspaceId}`}); a retry sends the same body to the same workspace, a new request a new key.`, [{ field: 'idempotency-key', message: prior.row.workspaceId === caller.workspaceId ? 'used with another body' : 'used in another workspace' }]);
    }
    return { ...this.detail(prior.row), replayed: true };
  }

  // A request past its retention is gone for its owner at once, not when the sweeper next runs (spec 3 §3: deleted after 7 days).
  async status(accountId: string, id: string): Promise<{ status: RequestState }> {
    const row = isUuid(id) ? await this.requests.status(id.toLowerCase()) : undefined;
    if (!row || row.accountId !== accountId || row.expiresAt <= Date.now()) throw notFound(`Request ${id}`);
    return { status: row.status };
  }

  /** `baseUrl`: the reading request's, on which the result's image links are signed. */
  async get(accountId: string, id: string, baseUrl?: string): Promise<RequestDetail> {
    const row = isUuid(id) ? await this.requests.get(id.toLowerCase()) : undefined;
    if (!row || row.accountId !== accountId || row.expiresAt <= Date.now()) throw notFound(`Request ${id}`);
    return this.detail(row, baseUrl);
  }

  /**
   * A request's previews (not in the spec; docs/api-decisions.md "Request previews"): a JPEG of each photo its handler
   * read, for the console's request view, which drew a photo sent as `_base64` nowhere once the request was done (h365).
   * Found and refused exactly as {@link get}; none before the request is DONE, nor for a type that makes none.
   */
  async previews(accountId: string, id: string, baseUrl?: string): Promise<{ previews: { index: number; _url: string; width: number; height: number }[] }> {
    const row = isUuid(id) ? await this.requests.get(id.toLowerCase()) : undefined;
    if (!row || row.accountId !== accountId || row.expiresAt <= Date.now()) throw notFound(`Request ${id}`);
    return { previews: row.status === 'DONE' ? this.results.previews(row, baseUrl) : [] };
  }

  /**
   * Sends a DONE request's completion webhook again (not in the spec; docs/webhooks.md "Sending again"): one delivered
   * or failed for good, to the address given (checked as at submit) or the one it had, with the headers given (a
   * finished delivery's were dropped). Its attempts count from 1 again, on the full retry schedule. A request without a
   * webhook can be given one so.
   */
  async resendWebhook(accountId: string, id: string, given: SubmitInput['webhook'] | undefined, baseUrl?: string, gapMs = this.settings.resendGapMs): Promise<RequestDetail> {
    const row = isUuid(id) ? await this.requests.get(id.toLowerCase()) : undefined;
    if (!row || row.accountId !== accountId || row.expiresAt <= Date.now()) throw notFound(`Request ${id}`);
    // any key given is checked (h186: `{"header": …}` alone skipped the check and went out without the token)
    const asked = given && Object.keys(given).length ? given : undefined;
    // headers alone go to the address it had
    const target = asked ? await this.webhookTarget({ ...asked, ...(asked.endpoint === undefined && asked.url === undefined && row.webhook ? { url: row.webhook.url } : {}) }, '') : null;
    const found = await this.requests.resendWebhook(accountId, row.id, target, Date.now(), gapMs);
    if (!found) throw notFound(`Request ${id}`);
    if (found.waitMs !== undefined) {
      const wait = Math.max(1, Math.ceil(found.waitMs / 1000));
      throw new ServiceError(429, 'rate_limited', `Request ${id}'s webhook's delivery ended less than ${Math.ceil(gapMs / 1000)} s ago: send it again in ${wait} s.`, undefined, { 'retry-after': String(wait) });
    }
    const conflict = (message: string) => new ServiceError(409, 'webhook_not_finished', message);
    if (found.state === 'waiting') throw conflict(row.webhook ? `Request ${id} is ${row.status}: its webhook is sent once it is DONE.` : `Request ${id} is ${row.status} and has no webhook: give one again once it is DONE.`);
    if (found.state === 'pending') throw conflict(`Request ${id}'s webhook is being delivered (pending: see next_attempt); send it again once it is delivered or failed.`);
    if (found.state === 'none' && !target) throw badRequest('Invalid webhook: the request has no webhook; give `endpoint` (or `url`).', [{ field: 'url', message: 'the request has no webhook' }]);
    this.signal.notify('webhooks');
    return this.get(accountId, row.id, baseUrl);
  }

  /**
   * Every webhook of an account that failed for good sent again to the address it had (`loupe webhook resend`, after a
   * receiver's outage; h180): as {@link resendWebhook} without a body, so without the headers a finished delivery
   * dropped. Says how many went and which could not.
   */
  async resendFailedWebhooks(accountId: string): Promise<{ resent: number; not_resent: { id: string; error: string }[] }> {
    const seen = new Set<string>();
    const out = { resent: 0, not_resent: [] as { id: string; error: string }[] };
    for (;;) {
      const { rows } = await this.requests.list({ accountId, webhookState: 'failed', liveAt: Date.now(), limit: 100, offset: 0 });
      const fresh = rows.filter((r) => !seen.has(r.id));
      if (!fresh.length) return out;
      for (const r of fresh) {
        seen.add(r.id);
        try {
          // the operator's, after an outage: no gap (it limits what a token may have sent again, h258)
          await this.resendWebhook(accountId, r.id, undefined, undefined, 0);
          out.resent++;
        } catch (err) {
          out.not_resent.push({ id: r.id, error: (err as Error).message });
        }
      }
    }
  }

  async list(accountId: string, asked: { workspaceId?: string | undefined; type?: string | undefined; status?: RequestState | undefined; webhookState?: 'waiting' | WebhookState | undefined; page: number; pageSize: number; upTo?: number | undefined }): Promise<Page<RequestListRow> & { upTo?: number }> {
    // past the most, the most, as the card-session lists read theirs (a shared pagination helper's 500 was a 400 here, h134)
    const query = { ...asked, pageSize: Math.min(asked.pageSize, maxRequestPage) };
    // a type no handler runs is a mistake (as an unknown status is), not a filter that matches nothing
    if (query.type !== undefined && !this.registry.types().includes(query.type)) throw new ServiceError(400, 'unknown_type', `Unknown type "${query.type}"; one of: ${this.registry.types().join(', ')}.`, [{ field: 'type', message: 'unknown type' }]);
    // a walk through the pages sees the list as it was at its first page: requests submitted meanwhile pushed every row
    // down a place, and the next page began with rows already read (h223: 772 rows read for 657 requests)
    const { count, rows, upToSeq } = await this.requests.list({ accountId, workspaceId: query.workspaceId, type: query.type, status: query.status, webhookState: query.webhookState, liveAt: Date.now(), upToSeq: query.upTo, limit: query.pageSize, offset: (query.page - 1) * query.pageSize });
    return { count, page: query.page, pageSize: query.pageSize, results: rows.map((r) => ({ ...this.summary(r), webhook_state: webhookStateOf(r) })), ...(upToSeq !== undefined ? { upTo: upToSeq } : {}) };
  }

  private summary(row: AsyncRequestRow): RequestSummary {
    return { id: row.id, status: row.status, type: row.type, created: row.createdAt, workspace: row.workspaceId };
  }

  private detail(row: AsyncRequestRow, baseUrl?: string): RequestDetail {
    const out: RequestDetail = { ...this.summary(row), request: row.request as unknown as RequestEcho, modified: row.modifiedAt };
    if (row.status === 'DONE' && row.response) out.response = this.results.response(row, baseUrl) as RequestDetail['response'];
    if (row.webhook) {
      out.webhook = {
        url: row.webhook.url,
        state: webhookStateOf(row)!,
        attempts: row.webhookAttempts,
        last_error: row.webhookLastError,
        next_attempt: row.webhookState === 'pending' && row.webhookNextAt !== null ? new Date(row.webhookNextAt).toISOString() : null,
        delivered: row.webhookState === 'delivered' ? row.webhookDeliveredAt : null,
        failed: row.webhookState === 'failed' ? row.webhookDeliveredAt : null,
      };
    }
    return out;
  }

  /** The webhook as given (`endpoint` or `url`), checked now so a bad one never gets queued. */
  /**
   * `at`: where the webhook is in the body, which its errors name (`webhook` at submit). Sent again, the body is the
   * webhook itself: its errors name its own key (`url`, `headers`), as `webhook` named nothing there (h315).
   */
  private async webhookTarget(w: NonNullable<SubmitInput['webhook']>, at = 'webhook'): Promise<WebhookTarget> {
    const urlKey = w.endpoint !== undefined ? 'endpoint' : 'url';
    const bad = (message: string, part: string = urlKey) => badRequest(`Invalid webhook: ${message}.`, [{ field: at ? at : part, message }]);
    // a misspelt key (`header`, `headres`) left the receiver's token out of every delivery, and the receiver's 401 ended it (h180)
    // (a `method` of POST, which some clients send, is what is done)
    // (a detail's own delivery fields, a webhook sent back as GET gave it, are read-only and ignored, h186)
    const unknown = Object.keys(w).filter((k) => !['endpoint', 'url', 'headers', 'method', ...WEBHOOK_DETAIL_FIELDS].includes(k));
    if (unknown.length) throw bad(`unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k.slice(0, 50)}"`).join(', ')}: a webhook takes \`endpoint\` (or \`url\`) and \`headers\``, unknown[0]!.slice(0, 50));
    const method = (w as { method?: unknown }).method;
    if (method !== undefined && (typeof method !== 'string' || method.toUpperCase() !== 'POST')) throw bad('`method`: a webhook is sent with POST only', 'method');
    if (w.endpoint !== undefined && w.url !== undefined && w.endpoint !== w.url) throw bad('give the URL as `endpoint` or as `url`, not two different ones');
    const raw = w.endpoint ?? w.url;
    if (!raw) throw bad('`endpoint` (or `url`) is required');
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw bad('the URL is not valid');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad('only http and https URLs are called');
    // Node takes port 0 for "no port" and would call 80 (h180)
    if (u.port === '0') throw bad('port 0 is no port a receiver listens on');
    if (u.username || u.password) throw bad('URLs with credentials are not accepted; send them in `headers`');
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const addresses = net.isIP(host)
      ? [host]
      : await dns.lookup(host, { all: true }).then(
          (list) => list.map((a) => a.address),
          () => {
            throw bad(`${host} does not resolve`);
          },
        );
    for (const address of addresses) {
      const refused = this.policy.refusal(address, host);
      if (refused) throw bad(net.isIP(host) ? refused : resolvedRefusal(host, refused));
    }
    const headers: Record<string, string> = {};
    const given = Object.entries(w.headers ?? {});
    if (given.length > 30) throw bad('at most 30 headers', 'headers');
    for (const [name, sent] of given) {
      if (!headerName.test(name)) throw bad(`"${name.slice(0, 100)}" is not a valid header name`, 'headers');
      // a header is text on the wire: 5 and true are sent as "5" and "true"
      if (typeof sent === 'number' && (!Number.isFinite(sent) || (Number.isInteger(sent) && !Number.isSafeInteger(sent)))) throw bad(`the value of header ${name} is a number beyond ±2^53, which JSON cannot keep exactly; send it as a string`, 'headers');
      const value = typeof sent === 'number' || typeof sent === 'boolean' ? String(sent) : sent;
      if (typeof value !== 'string' || value.length > 4096 || /[\r\n\0]/.test(value)) throw bad(`the value of header ${name} must be text (a string, or a number or boolean sent as its text) of at most 4096 characters without line breaks`, 'headers');
      // the payload is JSON and says so: a client's JSON Content-Type says the same, and is not sent twice
      if (name.toLowerCase() === 'content-type' && /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i.test(value.trim())) continue;
      // what HTTP can carry (Node refuses the rest when sending): accepted here, the webhook would fail on every attempt
      if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) throw bad(`the value of header ${name} has characters a header cannot carry (only Latin-1 letters and visible ASCII); percent-encode it`, 'headers');
      const lower = name.toLowerCase();
      if (reservedHeaders.has(lower) || lower.startsWith('loupe-')) throw bad(`header ${name} is set by the server`, 'headers');
      if (hopHeaders.has(lower)) throw bad(`header ${name} belongs to one connection or to the body's encoding, and would make every delivery fail; leave it out`, 'headers');
      // header names are case-insensitive: X-Dup and x-dup are one header, which would be sent once with either value
      if (Object.keys(headers).some((k) => k.toLowerCase() === lower)) throw bad(`header ${name} is given twice (names are case-insensitive)`, 'headers');
      headers[name] = value;
    }
    // what receivers take: Node's own server answers 431 past 16 KiB of headers, others at 8 KiB, and a 431 ended the
    // delivery for good (h149: 30 headers of 4096 characters were accepted)
    const bytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    if (bytes > maxWebhookHeaderBytes) throw bad(`the headers take ${bytes} bytes; at most ${maxWebhookHeaderBytes} in all (receivers refuse more, and the delivery would fail)`, 'headers');
    return { url: u.toString(), headers };
  }
}
