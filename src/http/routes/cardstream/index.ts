import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ruleErrorsOf, type CallContext } from '../../../services/card-session-service.ts';
import { servicesState } from '../../../services/account-service.ts';
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
      return { detail: 'ok', service, account: account.id, workspace: request.workspaceId!, credits: account.credits, services: servicesState(account.services) };
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

  // A session's version (`etag`, the ETag header of its reads and writes): `If-Match` on its writes holds for `*` or that
  // version, else 412 (h259: a late retry of close/ closed again a session another device had reopened). Until the
  // fifty-third session sessions had none and only `*` held.
  const sessionIfMatch = Type.Object({ 'if-match': Type.Optional(Type.String({ description: "The session's `etag` as last read, or `*`: 412 when it changed since (renamed, closed, reopened, edited). Cards sent since do not change it." })) });
  const ifMatchOf = (request: FastifyRequest) => (typeof request.headers['if-match'] === 'string' ? request.headers['if-match'] : undefined);
  const sessionAnswer = { ...S.Session, headers: { ETag: { type: 'string', description: "The session's version (its `etag`)." } } };
  // an upload to a session that does not exist is refused before its body is asked for (Expect: 100-continue, h241)
  const sessionBeforeBody = async (request: FastifyRequest) => cardSessions.assertSession(ctx(request), (request.params as { session_id: string }).session_id);
  const withTag = <T extends { etag: string }>(reply: FastifyReply, session: T): T => {
    void reply.header('etag', session.etag);
    return session;
  };

  app.get('/session/:session_id/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Get a session', params: S.SessionParams, querystring: WorkspaceQuery, response: { 200: sessionAnswer, ...errors() } },
    handler: async (request, reply) => withTag(reply, await cardSessions.getSession(ctx(request), request.params.session_id)),
  });

  app.patch('/session/:session_id/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Rename a session, or change its description or meta_data', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, body: S.SessionPatchBody, response: { 200: sessionAnswer, ...errors(400, 412, 415) } },
    handler: async (request, reply) => withTag(reply, await cardSessions.updateSession(ctx(request), request.params.session_id, request.body, ifMatchOf(request))),
  });

  app.delete('/session/:session_id/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Delete a session with all its cards and images', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, response: { 204: Type.Null(), ...errors(412) } },
    handler: async (request, reply) => {
      await cardSessions.deleteSession(ctx(request), request.params.session_id, ifMatchOf(request));
      return reply.code(204).send(null);
    },
  });

  app.post('/session/:session_id/close/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Close a session (closing a closed one succeeds)', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, response: { 200: sessionAnswer, ...errors(412) } },
    handler: async (request, reply) => withTag(reply, await cardSessions.closeSession(ctx(request), request.params.session_id, ifMatchOf(request))),
  });

  app.post('/session/:session_id/reopen/', {
    config: sessionConfig,
    schema: { tags, security, summary: 'Make a session live again (reopening a live one succeeds)', params: S.SessionParams, querystring: WorkspaceQuery, headers: sessionIfMatch, response: { 200: sessionAnswer, ...errors(412) } },
    handler: async (request, reply) => withTag(reply, await cardSessions.reopenSession(ctx(request), request.params.session_id, ifMatchOf(request))),
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
    handler: async (request, reply) => {
      // when the request came: a close that came after it does not refuse it
      const arrived = new Date(Date.now() - reply.elapsedTime);
      await cardSessions.assertSessionVersion(ctx(request), request.params.session_id, ifMatchOf(request), arrived);
      return cardSessions.uploadIdentifications(ctx(request), request.params.session_id, request.body.identifications, arrived);
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

