import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ruleErrorsOf, type CallContext } from '../../../services/card-session-service.ts';
import { ServiceError } from '../../../services/errors.ts';
import { baseUrlOf } from '../../base-url.ts';
import { pageEnvelope } from '../../pagination.ts';
import { errorResponses, IdempotencyHeaders, WorkspaceQuery, pageOf } from '../../schemas/common.ts';
import * as S from './schemas.ts';

const service = 'cardstream' as const;
const tags = ['card sessions'];
const security = [{ token: [] }];

const errors = (...statuses: number[]) => errorResponses(401, 403, 404, 429, ...statuses);

function ctx(request: FastifyRequest): CallContext {
  return { workspaceId: request.workspaceId!, baseUrl: baseUrlOf(request) };
}

/** `/cardstream/v2/…`: the card sessions service of spec document 1. */
export async function cardstreamRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { cardSessions, accounts, config } = app.loupe;
  const sessionConfig = { service };

  app.get('/ping/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Check that the token can use the service', querystring: WorkspaceQuery, response: { 200: S.Ping, ...errors() } },
    handler: async (request) => {
      const account = await accounts.getAccount(request.principal!.account.id);
      return { detail: 'ok', service, account: account.id, workspace: request.workspaceId!, credits: account.credits };
    },
  });

  app.post('/session/', {
    config: { service, price: 'cardstream.session.create', chargeInHandlerWithIdempotencyKey: true },
    schema: {
      tags,
      security,
      summary: 'Create a session (starts live)',
      description:
        "With an `Idempotency-Key` header, a create sent again with that key and the same body answers the session the first one made, charging nothing (`Idempotent-Replayed: true`); with another body it is 422. A key stays the workspace's while its session lives.",
      querystring: WorkspaceQuery,
      headers: IdempotencyHeaders,
      body: S.SessionCreateBody,
      response: { 201: S.SessionCreated, ...errors(400, 402, 413, 415, 422) },
    },
    handler: async (request, reply) => {
      const { replayed, ...session } = await cardSessions.createSession(ctx(request), request.body, request.headers['idempotency-key'], request.deferredCharge);
      // a replay made nothing, so it costs nothing (with a key it is not charged; the refund of any other is access control's, on the way out)
      if (replayed) void reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(session);
    },
  });

  app.get('/session/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'List sessions, newest first', querystring: S.SessionListQuery, response: { 200: pageOf(S.Session), ...errors(400) } },
    handler: async (request) => {
      const page = await cardSessions.listSessions(ctx(request), { page: request.query.page ?? 1, pageSize: request.query.page_size, search: request.query.search, game: request.query.game, upTo: request.query.up_to });
      return pageEnvelope(request, page, page.upTo !== undefined ? { up_to: String(page.upTo) } : {});
    },
  });

  app.get('/session/:session_id/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Get a session', params: S.SessionParams, querystring: WorkspaceQuery, response: { 200: S.Session, ...errors() } },
    handler: async (request) => cardSessions.getSession(ctx(request), request.params.session_id),
  });

  // A session has no version (ETag): an If-Match naming one cannot hold, so it is 412 (RFC 9110 §13.1.1 asks the server to
  // evaluate it; a client that sent the rows' pattern here was unprotected, its stale delete done, h195); `*` holds.
  const sessionIfMatch = Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'Sessions carry no version: only `*` holds (any other value is 412); rows do (`etag`).' })) });
  // an upload to a session that does not exist is refused before its body is asked for (Expect: 100-continue, h241)
  const sessionBeforeBody = async (request: FastifyRequest) => cardSessions.assertSession(ctx(request), (request.params as { session_id: string }).session_id);
  // (a session that does not exist is its 404 first: a precondition is not evaluated where the request fails anyway,
  // RFC 9110 §13.2.1, h243)
  const noSessionVersion = async (request: FastifyRequest) => {
    const ifMatch = request.headers['if-match'];
    if (typeof ifMatch !== 'string' || ifMatch.trim() === '*') return;
    await cardSessions.assertSession(ctx(request), (request.params as { session_id: string }).session_id);
    throw new ServiceError(412, 'precondition_failed', 'A session has no version (ETag) for If-Match to name: send `If-Match: *` or none (cards have one: their `etag`).');
  };

  app.patch('/session/:session_id/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Rename a session, or change its description or meta_data', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, body: S.SessionPatchBody, response: { 200: S.Session, ...errors(400, 412, 415) } },
    handler: async (request) => {
      await noSessionVersion(request);
      return cardSessions.updateSession(ctx(request), request.params.session_id, request.body);
    },
  });

  app.delete('/session/:session_id/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Delete a session with all its cards and images', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, response: { 204: Type.Null(), ...errors(412) } },
    handler: async (request, reply) => {
      await noSessionVersion(request);
      await cardSessions.deleteSession(ctx(request), request.params.session_id);
      return reply.code(204).send(null);
    },
  });

  app.post('/session/:session_id/close/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Close a session (closing a closed one succeeds)', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, response: { 200: S.Session, ...errors(412) } },
    handler: async (request) => {
      await noSessionVersion(request);
      return cardSessions.closeSession(ctx(request), request.params.session_id);
    },
  });

  app.post('/session/:session_id/reopen/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Make a session live again (reopening a live one succeeds)', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, response: { 200: S.Session, ...errors(412) } },
    handler: async (request) => {
      await noSessionVersion(request);
      return cardSessions.reopenSession(ctx(request), request.params.session_id);
    },
  });

  app.get('/session/:session_id/summary/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Session summary', params: S.SessionParams, querystring: WorkspaceQuery, response: { 200: S.Summary, ...errors() } },
    handler: async (request) => cardSessions.summary(ctx(request), request.params.session_id),
  });

  app.post('/session/:session_id/calls/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Report the API calls of one app run (highest count per run is kept)', params: S.SessionParams, querystring: WorkspaceQuery, body: S.CallsBody, response: { 200: S.CallsResponse, ...errors(400, 415) } },
    handler: async (request) => cardSessions.recordCalls(ctx(request), request.params.session_id, request.body.run, request.body.calls),
  });

  app.post('/session/:session_id/identifications/', {
    config: { ...sessionConfig, batchBody: true, rowErrors: (body, failed) => ruleErrorsOf((body as { identifications?: unknown } | null)?.identifications, failed), beforeBody: sessionBeforeBody },
    bodyLimit: config.limits.batchBodyBytes,
    schema: {
      tags,
      security,
      summary: 'Upload a batch of cards (new event ids are created, known ones updated)',
      params: S.SessionParams,
      querystring: WorkspaceQuery,
      headers: sessionIfMatch,
      body: S.UploadBody,
      response: { 200: S.UploadResult, ...errors(400, 409, 412, 413, 415) },
    },
    handler: async (request) => {
      await noSessionVersion(request);
      return cardSessions.uploadIdentifications(ctx(request), request.params.session_id, request.body.identifications);
    },
  });

  app.post('/session/:session_id/images/', {
    config: { ...sessionConfig, beforeBody: sessionBeforeBody },
    bodyLimit: config.limits.imageBodyBytes,
    schema: {
      tags,
      security,
      summary: 'Attach an image to an uploaded card',
      params: S.SessionParams,
      querystring: WorkspaceQuery,
      headers: Type.Object({ 'if-match': Type.Optional(Type.String({ description: "The card's `etag`: 412 when the card changed since (a retry of an image already stored still succeeds)." })) }),
      body: S.ImageBody,
      response: { 200: { ...S.Identification, headers: { ETag: { type: 'string', description: "The row's version with its image (its `etag`)." } } }, ...errors(400, 412, 413, 415) },
    },
    handler: async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const row = await cardSessions.attachImage(ctx(request), request.params.session_id, request.body.event_id, request.body.image, typeof ifMatch === 'string' ? ifMatch : undefined);
      // as a PATCH answers it: the version to send as If-Match next (h259: only the body had it)
      void reply.header('etag', row.etag);
      return row;
    },
  });

  app.get('/identification/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'List the cards of a session in upload order', querystring: S.IdentificationListQuery, response: { 200: pageOf(S.Identification), ...errors(400) } },
    handler: async (request) => {
      const q = request.query;
      return pageEnvelope(request, await cardSessions.listIdentifications(ctx(request), { session: q.session, eventId: q.event_id || undefined, page: q.page ?? 1, pageSize: q.page_size }));
    },
  });

  app.delete('/identification/:id/', {
    config: sessionConfig,
    schema: {
      tags,
      security,
      summary: 'Delete one card with its image (not in the spec)',
      description: "The card goes with its image and thumbnail (their links answer 404 at once); the session's summary counts what is left; a live or a closed session. `If-Match` (the row's `etag`, or `*`): only while it is that version, else 412. An app uploading the same `event_id` again makes the card again.",
      params: S.IdentificationParams,
      querystring: WorkspaceQuery,
      headers: Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'The `etag` of the row as last read; `*` for any version.' })) }),
      response: { 204: Type.Null(), ...errors(412) },
    },
    handler: async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      await cardSessions.deleteIdentification(ctx(request), request.params.id, typeof ifMatch === 'string' ? ifMatch : undefined);
      return reply.code(204).send(null);
    },
  });

  app.patch('/identification/:id/', {
    config: sessionConfig,
    schema: {
      tags,
      security,
      summary: "Correct a card's match (kept as the user's correction)",
      description: "`If-Match` (the row's `etag`, or `*`): change the row only while it is that version, else 412 `precondition_failed` (another device changed it since). The answer's `ETag` is the row's new version.",
      params: S.IdentificationParams,
      querystring: WorkspaceQuery,
      headers: Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'The `etag` of the row as last read; `*` for any version.' })) }),
      body: S.CorrectionBody,
      response: { 200: { ...S.Identification, headers: { ETag: { type: 'string', description: "The row's new version (its `etag`)." } } }, ...errors(400, 412, 415) },
    },
    handler: async (request, reply) => {
      const ifMatch = request.headers['if-match'];
      const row = await cardSessions.correctIdentification(ctx(request), request.params.id, request.body, typeof ifMatch === 'string' ? ifMatch : undefined);
      void reply.header('etag', row.etag);
      return row;
    },
  });
}

