import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../services/account-service.ts';
import { ServiceError } from '../services/errors.ts';
import { withCreditHold } from '../util/credit-hold-scope.ts';
import { withWorkOwner } from '../util/work-owner-scope.ts';
import { timesSent } from './header-count.ts';
import { cutByServer } from './client-errors.ts';

/**
 * Every later line of an authenticated request (its "request completed" line too) names the
 * account and token that acted: behind a proxy the address names no one.
 */
export function logAsPrincipal(request: Pick<FastifyRequest, 'log'>, reply: Pick<FastifyReply, 'log'>, principal: Pick<Principal, 'account' | 'tokenId'>): void {
  request.log = reply.log = request.log.child({ account: principal.account.id, tokenId: principal.tokenId });
}

/**
 * Authentication, rate limit, service switch and workspace selection happen before the body is
 * read; credits are charged after validation so a malformed call costs nothing, and refunded
 * when the call fails.
 */
export function registerAccessControl(app: FastifyInstance): void {
  const { accounts, rateLimiter, config, inFlight } = app.loupe;

  app.addHook('onRequest', async (request, reply) => {
    const service = request.routeOptions.config.service;
    if (!service) return;
    await inFlight.run(() => authorize(request, reply, service));
  });

  async function authorize(request: FastifyRequest, reply: FastifyReply, service: string): Promise<void> {
    // Node keeps the first of two Authorization headers and drops the other: which account acts must not be a guess
    if (timesSent(request, 'authorization') > 1) throw new ServiceError(400, 'invalid_request', 'The Authorization header was sent more than once: send one token.');
    // Node joins two into "k1, k2", which was refused as a key of the wrong characters (h120)
    if (timesSent(request, 'idempotency-key') > 1) throw new ServiceError(400, 'invalid_request', 'The Idempotency-Key header was sent more than once: send one key.');
    const principal = await accounts.authenticate(request.headers.authorization);
    // the token is known from here: a refusal for its rate or services is its account's line too
    logAsPrincipal(request, reply, principal);
    const wait = rateLimiter.take(principal.tokenId);
    if (wait > 0) {
      throw new ServiceError(429, 'rate_limited', `Too many requests; retry in ${wait} s.`, undefined, { 'retry-after': String(wait) });
    }
    accounts.assertService(principal, service);
    const workspace = (request.query as Record<string, unknown> | undefined)?.workspace;
    request.principal = principal;
    request.workspaceId = await accounts.resolveWorkspace(principal, typeof workspace === 'string' ? workspace : undefined);
  }

  // after the body is read and before it is validated: a workspace not the account's is its 404, as in the query
  app.addHook('preValidation', async (request) => {
    if (!request.routeOptions.config.workspaceInBody || !request.principal) return;
    const given = (request.body as Record<string, unknown> | undefined)?.workspace;
    if (given === undefined || given === null || given === '') return;
    if (typeof given !== 'string') throw new ServiceError(400, 'invalid_request', 'workspace must be the id of one of the account\'s workspaces (a string).', [{ field: 'workspace', message: 'a workspace id' }]);
    const named = await accounts.resolveWorkspace(request.principal, given);
    const query = (request.query as Record<string, unknown> | undefined)?.workspace;
    if (typeof query === 'string' && query !== '' && named !== request.workspaceId) {
      throw new ServiceError(400, 'invalid_request', `The body's workspace (${given.slice(0, 80)}) and ?workspace= (${query.slice(0, 80)}) name two workspaces: send one.`, [{ field: 'workspace', message: 'names another workspace than ?workspace=' }]);
    }
    request.workspaceId = named;
  });

  app.addHook('preHandler', async (request) => {
    const priceKey = request.routeOptions.config.price;
    if (!priceKey || !request.principal) return;
    const { id } = request.principal.account;
    const price = config.prices[priceKey] ?? 0;
    if (request.routeOptions.config.chargeInHandlerWithIdempotencyKey && request.headers['idempotency-key'] !== undefined) {
      request.deferredCharge = { accountId: id, price, priceKey };
      return;
    }
    // the call's charges are held until it answers: a process stopped before then gives them back (the sweep)
    const hold = (request.creditHold ??= { id: randomUUID(), held: false });
    if (request.routeOptions.config.chargedInService) {
      request.serviceCharge = { accountId: id, price, priceKey };
      // nothing taken yet: an error answer gives back whatever the service charged (its hold)
      request.charged = { accountId: id, price: 0 };
      return;
    }
    await inFlight.run(() => accounts.charge(id, priceKey, price, hold));
    request.charged = { accountId: id, price };
  });

  // charges a service makes inside the call go to the call's hold too
  app.addHook('onRoute', (route) => {
    if (!route.config?.service) return;
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      if (request.principal) request.creditHold ??= { id: randomUUID(), held: false };
      // and its vision work takes turns with other accounts' (work-owner-scope.ts)
      return withWorkOwner(request.principal?.account.id, () => withCreditHold(request.creditHold, () => handler.call(this, request, reply)));
    };
  });

  // Refunded before the answer leaves (onSend, not onResponse): a client that reads its balance
  // right after a failed call must see the refund, whichever store is behind it.
  app.addHook('onSend', async (request, reply, payload) => {
    // a replay of an earlier call with the same Idempotency-Key made nothing new: it is free too
    const charged = request.charged;
    request.charged = undefined;
    let refunded = true;
    // the client hung up before its answer (a phone losing its link mid-call): an answer nobody reads is not charged
    // where the call keeps nothing; where it stored what was sent, the stored work is the client's and charged
    // not where the server cut the request itself (a body that stopped arriving: its 408 is logged where it is cut, h227)
    const gone = (reply.raw.destroyed || request.raw.socket?.destroyed === true) && !cutByServer.has(request.raw);
    const hold = request.creditHold;
    if (gone && request.routeOptions.config.storesNothing && hold) {
      const back = await inFlight.run(() => accounts.returnHold(hold)).catch((err: unknown) => {
        request.log.error({ err }, 'credit refund failed: the sweep gives the charge back within the hour');
        return 0;
      });
      request.log.warn({ statusCode: reply.statusCode, refunded: back }, 'the client hung up before its answer: the call is not charged');
      return payload;
    }
    // an error answer stored nothing and is given back below: the line said "kept, and charged" of a batch cut off mid-upload (h120)
    if (gone) request.log.warn({ statusCode: reply.statusCode }, reply.statusCode >= 400 ? 'the client hung up before its answer (an error: nothing kept, not charged)' : 'the client hung up before its answer (what the call stored is kept, and charged)');
    if (charged && (reply.statusCode >= 400 || reply.getHeader('idempotent-replayed') === 'true')) {
      // every charge of the call goes back, those made inside it too (analyze_all's further cards, a fashion insert's
      // extras): only the call's own price did before, where the service gave back none of its own (h92)
      const back = async (): Promise<unknown> => (hold?.held ? accounts.returnHold(hold) : accounts.refund(charged.accountId, charged.price, request.creditHold));
      await inFlight.run(back).catch((err: unknown) => {
        refunded = false;
        request.log.error({ err }, 'credit refund failed: the sweep gives the charge back within the hour');
      });
    }
    // a refund that failed leaves the hold for the sweep to give back
    if (hold && refunded) await inFlight.run(() => accounts.settle(hold)).catch((err: unknown) => request.log.error({ err }, 'credit hold not settled'));
    else if (hold) hold.closed = true;
    return payload;
  });
}
