import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../services/errors.ts';

interface Waiter {
  account: string;
  grant: () => void;
}

/**
 * Bounds the memory of large batches: a request to a batch route (`config.batchBody`) whose body
 * is over `thresholdBytes` (or of unknown length) waits for one of `atOnce` slots before its
 * body is read, and holds it until its response ends. (Image bodies are bounded by the vision
 * queue instead; holding a turn through inference would serialise them.) A parsed batch takes several times its size in memory; eight 55 MiB batches
 * at once took the server to 2.1 GB. Waiting costs only a socket: the body stays unread (TCP
 * holds it back), and more than `maxWaiting` waiting are refused with 503 and a Retry-After.
 *
 * The slots are shared by every account: while another account waits, one account takes no more
 * than `atOnce − 1` of them (one when there are two), a slot that frees goes first to the waiting
 * upload of an account under that share, and one account's uploads fill at most a quarter of the
 * waiting places; alone, an account uses every slot. A helper's two slow uploads from one account
 * held both slots and kept every other account's batches waiting for the 300 s the server gives a
 * request. A slot's body must keep arriving: a pause of `idleMs`, or an average under
 * `minBytesPerSecond` once it has had `rateGraceMs`, is 408 and the connection closed (a byte a
 * second never pauses), so a slot taken while nobody else waited is not held for long.
 */
export function registerLargeBodyLimit(
  app: FastifyInstance,
  options: { thresholdBytes: number; atOnce: number; maxWaiting: number; idleMs?: number; minBytesPerSecond?: number; rateGraceMs?: number },
): void {
  const idleMs = options.idleMs ?? 30_000;
  const minRate = options.minBytesPerSecond ?? 0;
  const graceMs = options.rateGraceMs ?? 20_000;
  const share = Math.max(1, options.atOnce - 1);
  let busy = 0;
  const held = new Map<string, number>();
  const waiting: Waiter[] = [];
  const take = (account: string) => {
    busy++;
    held.set(account, (held.get(account) ?? 0) + 1);
  };
  const underShare = (account: string) => (held.get(account) ?? 0) < share;
  const othersWait = (account: string) => waiting.some((w) => w.account !== account);
  const mayTake = (account: string) => busy < options.atOnce && (underShare(account) || !othersWait(account));
  const perAccountWaiting = Math.max(1, Math.floor(options.maxWaiting / 4));
  const release = (account: string) => {
    busy--;
    const n = (held.get(account) ?? 1) - 1;
    if (n > 0) held.set(account, n);
    else held.delete(account);
    while (busy < options.atOnce && waiting.length > 0) {
      // the first waiter of an account under its share; failing that, the first whose account no other waits beside
      const at = waiting.findIndex((w) => underShare(w.account));
      const next = at >= 0 ? at : waiting.findIndex((w) => !othersWait(w.account));
      if (next < 0) break;
      const [w] = waiting.splice(next, 1);
      take(w!.account);
      w!.grant();
    }
  };

  /** Answers 408 on the raw socket (the body is not read yet, so Fastify's reply cannot answer) and closes it. */
  const tooSlow = (request: FastifyRequest, reply: FastifyReply, detail: string) => {
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': String(request.id) });
      reply.raw.end(JSON.stringify({ detail, code: 'request_timeout' }));
    }
    request.raw.destroy();
  };

  app.addHook('preParsing', async (request, reply, payload) => {
    if (!request.routeOptions.config.batchBody) return payload;
    const length = Number(request.headers['content-length'] ?? NaN);
    const large = Number.isFinite(length) ? length > options.thresholdBytes : request.headers['transfer-encoding'] !== undefined;
    if (!large) return payload;
    const account = request.principal?.account.id ?? '';
    if (mayTake(account)) take(account);
    else {
      if (waiting.length >= options.maxWaiting || waiting.filter((w) => w.account === account).length >= perAccountWaiting) {
        throw new ServiceError(503, 'busy', 'Too many large uploads are in progress; retry shortly.', undefined, { 'retry-after': '5' });
      }
      let left = false;
      await new Promise<void>((resolve) => {
        const w: Waiter = { account, grant: resolve };
        waiting.push(w);
        // a client that hangs up while waiting leaves the queue (its turn would go to nobody)
        request.raw.once('close', () => {
          const at = waiting.indexOf(w);
          if (at >= 0) {
            waiting.splice(at, 1);
            left = true;
            resolve();
          }
        });
      });
      if (left) return payload;
    }
    let holding = true;
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (!holding) return;
      holding = false;
      release(account);
    };
    // A client that hung up while waiting gives its slot straight back.
    if (request.raw.destroyed || reply.raw.destroyed) end();
    reply.raw.once('finish', end);
    reply.raw.once('close', end);
    // (app.inject's requests have no socket to time)
    const socket = request.raw.socket as (typeof request.raw.socket | null | undefined);
    const timed = typeof request.raw.setTimeout === 'function' && socket;
    if (!timed) return payload;
    // Cleared when the body has arrived (its parsing and the handler take the time they need).
    const arrived = () => {
      request.raw.setTimeout(0);
      if (timer) clearInterval(timer);
      timer = undefined;
    };
    request.raw.once('end', arrived).once('error', arrived);
    request.raw.setTimeout(idleMs, () => tooSlow(request, reply, `The body stopped arriving (nothing for ${Math.round(idleMs / 1000)} s); send it again.`));
    if (minRate > 0) {
      const started = Date.now();
      const before = socket.bytesRead;
      timer = setInterval(() => {
        const ms = Date.now() - started;
        if (ms < graceMs) return;
        const bytes = socket.bytesRead - before;
        if (bytes * 1000 < minRate * ms) {
          arrived();
          tooSlow(request, reply, `The body arrived too slowly (${Math.round(bytes / 1024)} KiB in ${Math.round(ms / 1000)} s; a large batch must average ${Math.round(minRate / 1024)} KiB/s); send it again.`);
        }
      }, Math.min(1000, Math.max(100, graceMs / 4)));
      timer.unref();
    }
    return payload;
  });
}
