import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requestStates } from '../../services/request-service.ts';
import { baseUrlOf } from '../base-url.ts';
import { pageEnvelope } from '../pagination.ts';
import { AnyObject, IdempotencyHeaders, Nullable, pageOf, replayedHeader, StringEnum, WorkspaceQuery } from '../schemas/common.ts';
import { SearchError } from '../schemas/search.ts';
import { RECORDS_ANSWERED_EACH } from '../../util/not-a-record.ts';

const service = 'requests' as const;
const tags = ['asynchronous requests'];
const security = [{ token: [] }];
// spec 3 §7: error bodies carry `status` too (the shared error shape with it)
const errors = (...statuses: number[]) => Object.fromEntries([401, 403, 404, 429, ...statuses].map((s) => [s, Type.Ref(SearchError)]));

const State = StringEnum(requestStates);
// typed as a session's times are: a generated client's Date, not a String (h140)
const Time = Type.String({ format: 'date-time' });
const Workspace = Type.String({ format: 'uuid' });
const Echo = Type.Object(
  { type: Type.String(), endpoint: Type.String(), records: Type.Array(AnyObject), mode: Type.Optional(Type.String()), front_weight: Type.Optional(Type.Number()) },
  { additionalProperties: true, description: 'The request as submitted; `_base64` images are left out.' },
);
const Submitted = Type.Object(
  { id: Type.String({ format: 'uuid' }), request: Echo, type: Type.String(), status: State, created: Time, workspace: Workspace },
  replayedHeader('submit'),
);
/** A webhook's states as the list filters them, the list's rows and the detail's `webhook.state` name them. */
const webhookStates = ['waiting', 'pending', 'delivered', 'failed'] as const;
const Summary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: State,
  type: Type.String(),
  created: Time,
  workspace: Workspace,
  // named as the list's filter, so a row's value can be fed back to it (h355)
  webhook_state: Nullable(StringEnum(webhookStates, { description: 'Where the request\'s webhook is, as `?webhook_state=` filters (not in the spec): waiting until the request is DONE, then pending, delivered or failed; null without a webhook.' })),
});
const Webhook = Type.Object(
  {
    url: Type.String(),
    state: StringEnum(webhookStates, { description: 'waiting: the request is not DONE yet; pending: being delivered or retried.' }),
    attempts: Type.Integer(),
    last_error: Nullable(Type.String()),
    next_attempt: Nullable(Time),
    delivered: Nullable(Time),
    failed: Nullable(Type.String({ format: 'date-time', description: 'When the delivery failed for good (not in the spec; since the forty-fifth session).' })),
  },
  { description: 'Delivery of the completion webhook (docs/webhooks.md).' },
);
const Detail = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: State,
  request: Echo,
  response: Type.Optional(Type.Object({ records: Type.Array(AnyObject) }, { additionalProperties: true, description: 'Present when DONE.' })),
  type: Type.String(),
  created: Time,
  modified: Time,
  workspace: Workspace,
  webhook: Type.Optional(Webhook),
});

const WebhookGiven = Type.Object(
  {
    endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'Same as `endpoint` (the grading documents name it so).' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { description: 'Sent with each delivery; a number or boolean is sent as its text. A JSON `Content-Type` is accepted (the payload is JSON); other headers the server sets are 400.' })),
  },
  // checked by the service, which names a misspelt key (h180: `header` was ignored, and the receiver's token with it)
  { additionalProperties: true, description: 'Any other key is a 400 naming it (since the forty-fifth session; it was ignored).' },
);

const SubmitBody = Type.Object({
  type: Type.String({ maxLength: 100, description: '`upscaler`, `flows`, `card-grader` or `collectibles-recognition`.' }),
  // a record's fields of the wrong form are that record's own 400 in the result (docs/api-decisions.md, "Image record fields"), not the request's
  records: Type.Array(
    Type.Object(
      {
        _url: Type.Optional(Type.Unknown({ description: 'A string of at most 8192 characters.' })),
        _base64: Type.Optional(Type.Unknown({ description: 'A string: the image, Base64-encoded.' })),
        _id: Type.Optional(Type.Unknown({ description: 'A string of 1 to 255 characters, or an integer.' })),
      },
      { additionalProperties: true },
    ),
    { minItems: 1, maxItems: 10, [RECORDS_ANSWERED_EACH]: true, description: 'At most 10 (fewer for some endpoints). A record that is not an object is taken: its result is its own 400 `_status`, the others run.' },
  ),
  endpoint: Type.Optional(Type.String({ maxLength: 200, description: 'upscaler: upscale_2x, upscale_3x, upscale_4x, upscale_8x; flows: the flow name; card-grader: grade, condition, centering, localize, crop_level; collectibles-recognition: tcg_id, sport_id, comics_id, card_ocr_id, slab_id, slab_grade (their options on each record). A missing one is a 400 naming the endpoints of the type.' })),
  webhook: Type.Optional(WebhookGiven),
  mode: Type.Optional(Type.String({ maxLength: 100, description: 'Card grading `condition`: the label scale (docs/grading.md).' })),
  front_weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Card grading `grade` with front and back: the front\'s weight (default 0.7).' })),
  workspace: Type.Optional(Type.String({ description: 'The workspace the request belongs to, as `?workspace=` names it (either, or both alike; default: the account\'s first).' })),
});

const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const ListQuery = Type.Composite([
  WorkspaceQuery,
  Type.Object({
    type: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(State),
    webhook_state: Type.Optional(StringEnum(webhookStates, { description: 'Only requests whose webhook is in this state (not in the spec): `failed` finds the deliveries a receiver missed for good.' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20, description: 'Default 20; values above 100 are treated as 100 (as the card-session lists cap theirs).' })),
    up_to: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Set by the server in `next` and `previous` (not in the spec): the pages after the first list the requests as they were at the first, so requests submitted meanwhile repeat no row.' })),
  }),
]);

/** `/account/v2/request/…`: the asynchronous request API of spec 3 §4. */
export async function requestRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { requests, config } = app.loupe;
  const accountOf = (request: FastifyRequest) => request.principal!.account.id;

  app.post('/', {
    config: { service, statusInErrors: true, workspaceInBody: true },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags,
      security,
      summary: 'Submit a request (up to 10 records); poll it or get a webhook when DONE',
      description:
        'With an `Idempotency-Key` header, a submit sent again with that key and the same body answers the request the first one made, charging nothing (`Idempotent-Replayed: true`); with another body it is 422. A key stays the account\'s until its request\'s retention ends.',
      querystring: WorkspaceQuery,
      headers: IdempotencyHeaders,
      body: SubmitBody,
      response: { 201: Submitted, ...errors(400, 402, 413, 415, 422) },
    },
    handler: async (request, reply) => {
      const d = await requests.submit({ accountId: accountOf(request), workspaceId: request.workspaceId!, baseUrl: baseUrlOf(request), services: request.principal!.account.services }, request.body, request.headers['idempotency-key']);
      if (d.replayed) void reply.header('idempotent-replayed', 'true');
      // the request id (reqId) of this call beside the asynchronous request's: a worker's lines name the latter (`id`)
      request.log.info({ id: d.id, type: d.type, replayed: d.replayed === true }, 'asynchronous request submitted');
      return reply.code(201).send({ id: d.id, request: d.request, type: d.type, status: d.status, created: d.created, workspace: d.workspace });
    },
  });

  app.get('/', {
    config: { service, statusInErrors: true },
    schema: { tags, security, summary: 'List requests, newest first', querystring: ListQuery, response: { 200: pageOf(Summary), ...errors(400) } },
    // the spec writes states in capitals and types in small letters; a client's `?status=done` means the same;
    // an empty one is not given (a client sending every filter with "" for all), as for the other lists
    preValidation: async (request) => {
      const q = request.query as Record<string, unknown>;
      for (const name of ['status', 'type', 'webhook_state']) if (q[name] === '') delete q[name];
      if (typeof q.status === 'string') q.status = q.status.toUpperCase();
      if (typeof q.webhook_state === 'string') q.webhook_state = q.webhook_state.toLowerCase();
      if (typeof q.type === 'string') q.type = q.type.toLowerCase();
    },
    handler: async (request) => {
      const q = request.query;
      // Without ?workspace= the list covers every workspace of the account.
      const page = await requests.list(accountOf(request), { workspaceId: q.workspace ? request.workspaceId : undefined, type: q.type, status: q.status, webhookState: q.webhook_state, page: q.page ?? 1, pageSize: q.page_size ?? 20, upTo: q.up_to });
      return pageEnvelope(request, page, page.upTo !== undefined ? { up_to: String(page.upTo) } : {});
    },
  });

  app.get('/:id/status', {
    config: { service, statusInErrors: true },
    schema: { tags, security, summary: 'The state of a request', params: IdParams, querystring: WorkspaceQuery, response: { 200: Type.Object({ status: State }), ...errors() } },
    handler: async (request) => requests.status(accountOf(request), request.params.id),
  });

  app.post('/:id/webhook', {
    config: { service, statusInErrors: true },
    schema: {
      tags,
      security,
      summary: 'Send a DONE request\'s webhook again (not in the spec)',
      description:
        'For a delivery that ended (delivered, or failed for good): sent again now, its attempts counted from 1 on the full retry schedule. The body is optional: `endpoint` (or `url`) to send it elsewhere (checked as at submit), `headers` to send (those of a finished delivery were dropped, docs/webhooks.md). 409 while the request is not DONE or its delivery is pending. A request without a webhook can be given one so.',
      params: IdParams,
      querystring: WorkspaceQuery,
      body: Type.Optional(WebhookGiven),
      response: { 200: Detail, ...errors(400, 409, 415) },
    },
    handler: async (request) => requests.resendWebhook(accountOf(request), request.params.id, request.body ?? undefined, baseUrlOf(request)),
  });

  app.get('/:id/previews', {
    config: { service, statusInErrors: true },
    schema: {
      tags,
      security,
      summary: "A request's previews of its photos (not in the spec)",
      description:
        "A JPEG of each photo a finished `collectibles-recognition` or `card-grader` request read, long edge 512 px (never enlarged), kept with the result as long as the request (LOUPE_REQUEST_PREVIEWS; docs/api-decisions.md \"Request previews\"): a photo sent as `_base64` is drawn with its cards' boxes after the request's inputs are dropped. `index` is the record's place in `records`; `width` and `height` are the preview's pixels, the photo's own scaled by `width / _width` (and `height / _height`) of its result record, as its boxes scale. A record whose photo could not be read has none; an empty list before the request is DONE, for the other types, and for requests finished before previews were kept or with the setting off. Found as the request's detail is: another account's, unknown or expired is 404.",
      params: IdParams,
      querystring: WorkspaceQuery,
      response: {
        200: Type.Object({
          previews: Type.Array(
            Type.Object({
              index: Type.Integer({ minimum: 0, description: "The record's place in the request's `records`, from 0." }),
              _url: Type.String({ description: 'A signed media link (docs/api-decisions.md "Media links").' }),
              width: Type.Integer(),
              height: Type.Integer(),
            }),
          ),
        }),
        ...errors(),
      },
    },
    handler: async (request) => requests.previews(accountOf(request), request.params.id, baseUrlOf(request)),
  });

  app.get('/:id', {
    config: { service, statusInErrors: true },
    schema: { tags, security, summary: 'A request with its response once DONE', params: IdParams, querystring: WorkspaceQuery, response: { 200: Detail, ...errors() } },
    handler: async (request) => requests.get(accountOf(request), request.params.id, baseUrlOf(request)),
  });
}
