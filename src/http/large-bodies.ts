import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../services/errors.ts';
import { cutByServer } from './client-errors.ts';
import { corsAnswerHeaders } from './cors.ts';

interface Waiter {
  account: string;
  grant: () => void;
}

/**
 * Bounds the memory of large batches: a request to a batch route (`config.batchBody`) whose body
 * is over `thresholdBytes` (or of unknown length) waits for one of `atOnce` slots before its
 * body is read, and holds it until its response ends. Any other large body (images inline) takes
 * one of `arrivingAtOnce` slots of its own only while it arrives: holding a turn through inference
 * would serialise them, and the vision queue bounds them after; before (h80), 24 image uploads of
 * 60 MiB that stopped half-way held 2 GB for the 300 s a request may take. A parsed batch takes several times its size in memory; eight 55 MiB batches
 * at once took the server to 2.1 GB. Waiting costs only a socket: the body stays unread (TCP
 * holds it back), and more than `maxWaiting` waiting are refused with 503 and a Retry-After.
 *
 * The slots are shared by every account: while another account waits, one account takes no more
 * than `atOnce − 1` of them (one when there are two), a slot that frees goes first to the waiting
 * upload of an account under that share, and one account's uploads fill at most a quarter of the
 * waiting places; alone, an account uses every slot. A helper's two slow uploads from one account
 * held both slots and kept every other account's batches waiting for the 300 s the server gives a
 * request. A slot's body must keep arriving: a pause of `idleMs` is 408 and the connection closed,
 * and so is an average under `minBytesPerSecond` once it has had `rateGraceMs`, while another upload
 * waits for a turn (a byte a second never pauses; alone, a phone on a 40-kbit/s link could never
 * send a batch or a photo over the threshold, however often it tried).
 */
/** Turns shared fairly by accounts (see above): taken before a body is read, given back by `release`. */
class Turns {
  private busy = 0;
  private readonly held = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private readonly share: number;
  private readonly perAccountWaiting: number;

  constructor(
    private readonly atOnce: number,
    private readonly maxWaiting: number,
  ) {
    this.share = Math.max(1, atOnce - 1);
    this.perAccountWaiting = Math.max(1, Math.floor(maxWaiting / 4));
  }

  private take(account: string): void {
    this.busy++;
    this.held.set(account, (this.held.get(account) ?? 0) + 1);
  }

  private underShare(account: string): boolean {
    return (this.held.get(account) ?? 0) < this.share;
  }

  /** Whether an upload waits for one of these turns (a slow body then holds it up). */
  get contended(): boolean {
    return this.waiting.length > 0;
  }

  private othersWait(account: string): boolean {
    return this.waiting.some((w) => w.account !== account);
  }

  /** Resolves `true` once the turn is this request's, `false` when its client hung up while waiting. */
  async acquire(account: string, request: FastifyRequest): Promise<boolean> {
    if (this.busy < this.atOnce && (this.underShare(account) || !this.othersWait(account))) {
      this.take(account);
      return true;
    }
    if (this.waiting.length >= this.maxWaiting || this.waiting.filter((w) => w.account === account).length >= this.perAccountWaiting) {
      throw new ServiceError(503, 'busy', 'Too many large uploads are in progress; retry shortly.', undefined, { 'retry-after': '5' });
    }
    return new Promise<boolean>((resolve) => {
      // a client that hangs up while waiting leaves the queue (its turn would go to nobody). Its connection's close, not
      // its request's: a body read on while it waits (sent chunked, read up to its threshold) ends, and closes the
      // request, without its client going anywhere
      const socket = request.raw.socket as typeof request.raw.socket | null | undefined;
      const gone = () => {
        const at = this.waiting.indexOf(w);
        if (at >= 0) {
          this.waiting.splice(at, 1);
          resolve(false);
        }
      };
      const w: Waiter = {
        account,
        grant: () => {
          socket?.off('close', gone);
          resolve(true);
        },
      };
      this.waiting.push(w);
      if (socket) socket.once('close', gone);
      else request.raw.once('close', gone);
    });
  }

  release(account: string): void {
    this.busy--;
    const n = (this.held.get(account) ?? 1) - 1;
    if (n > 0) this.held.set(account, n);
    else this.held.delete(account);
    while (this.busy < this.atOnce && this.waiting.length > 0) {
      // the first waiter of an account under its share; failing that, the first whose account no other waits beside
      const at = this.waiting.findIndex((w) => this.underShare(w.account));
      const next = at >= 0 ? at : this.waiting.findIndex((w) => !this.othersWait(w.account));
      if (next < 0) break;
      const [w] = this.waiting.splice(next, 1);
      this.take(w!.account);
      w!.grant();
    }
  }
}

export function registerLargeBodyLimit(
  app: FastifyInstance,
  options: { thresholdBytes: number; atOnce: number; arrivingAtOnce?: number; maxWaiting: number; idleMs?: number; minBytesPerSecond?: number; rateGraceMs?: number; corsOrigins?: readonly string[] },
): void {
  const idleMs = options.idleMs ?? 30_000;
  const minRate = options.minBytesPerSecond ?? 0;
  const graceMs = options.rateGraceMs ?? 20_000;
  const batches = new Turns(options.atOnce, options.maxWaiting);
  const arriving = new Turns(options.arrivingAtOnce ?? 16, options.maxWaiting);

  /** Answers 408 on the raw socket (the body is not read yet, so Fastify's reply cannot answer) and closes it. */
  const tooSlow = (request: FastifyRequest, reply: FastifyReply, detail: string) => {
    // once (two clocks may run out on one request)
    if (cutByServer.has(request.raw)) return;
    // said as the server's own cut: the log said "request aborted by its client" (h227)
    cutByServer.add(request.raw);
    // the connection's bytes, named so: behind a proxy's kept-alive connection they are every request's on it (h233)
    request.log.warn({ url: request.url, method: request.method, connectionBytesRead: request.raw.socket?.bytesRead }, `408 request_timeout: ${detail}`);
    if (!reply.raw.headersSent) {
      const text = JSON.stringify({ detail, code: 'request_timeout' });
      // the headers every answer has (h227: this one lacked them, and went chunked)
      reply.raw.writeHead(408, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close', 'x-request-id': String(request.id), 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store', ...corsAnswerHeaders(options.corsOrigins ?? [], request.headers.origin) });
      reply.raw.end(text);
    }
    request.raw.destroy();
  };

  /**
   * A body of any size that stops arriving is cut after `idleMs` too: a phone whose network went mid-upload left a
   * 250-KB photo's socket and bytes held for the 300 s a request may take (h227; 300 such near-1-MiB bodies from one
   * token took the server from 250 to 536 MB). Not once the body is in, nor once the answer is sent.
   */
  const idleCut = (request: FastifyRequest, reply: FastifyReply): (() => void) => {
    const raw = request.raw;
    if (!raw.socket || typeof raw.setTimeout !== 'function' || raw.complete || raw.readableEnded) return () => {};
    const cut = () => tooSlow(request, reply, `The body stopped arriving (nothing for ${Math.round(idleMs / 1000)} s); send it again.`);
    raw.setTimeout(idleMs, cut);
    untilArrived(request, reply, cut);
    // stopped by whoever stops reading the body on purpose (a chunked body waiting for its turn, h232)
    return () => {
      raw.off('timeout', cut);
      raw.setTimeout(0);
    };
  };

  /**
   * Stops a body's idle clock once it has arrived, or once its answer is sent. Only before the answer is the socket's
   * timeout cleared: after it, Node has set the kept-alive connection's own (72 s), and clearing that left a connection
   * whose body came after its headers open for good (h230).
   */
  const untilArrived = (request: FastifyRequest, reply: FastifyReply, cut: () => void) => {
    const raw = request.raw;
    const stop = () => {
      raw.off('timeout', cut);
      if (!reply.raw.writableFinished) raw.setTimeout(0);
    };
    raw.once('end', stop).once('error', stop);
    reply.raw.once('finish', () => raw.off('timeout', cut));
  };

  /**
   * Waits for a turn (`turns`), then holds it while the body arrives (a batch: until its answer ends), under the idle
   * and rate rules. Resolves when the turn is taken, or at once when the client hung up while waiting.
   */
  const holdTurn = async (request: FastifyRequest, reply: FastifyReply, batch: boolean, turns: Turns, account: string): Promise<void> => {
    if (!(await turns.acquire(account, request))) return;
    let holding = true;
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (!holding) return;
      holding = false;
      turns.release(account);
    };
    // A client that hung up while waiting gives its slot straight back.
    if (request.raw.destroyed || reply.raw.destroyed) end();
    reply.raw.once('finish', end);
    reply.raw.once('close', end);
    // (app.inject's requests have no socket to time)
    const socket = request.raw.socket as (typeof request.raw.socket | null | undefined);
    const timed = typeof request.raw.setTimeout === 'function' && socket;
    if (!timed) {
      if (!batch) end();
      return;
    }
    // The idle clock stops when the body has arrived (its parsing and the handler take the time they need); a body
    // that is not a batch gives its turn back then too.
    idleCut(request, reply);
    const arrived = () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (!batch) end();
    };
    request.raw.once('end', arrived).once('error', arrived);
    if (minRate > 0) {
      const started = Date.now();
      const before = socket.bytesRead;
      timer = setInterval(() => {
        const ms = Date.now() - started;
        if (ms < graceMs) return;
        const bytes = socket.bytesRead - before;
        // only while another upload waits for the turn: alone, a phone on a slow link may take its time (h81)
        if (turns.contended && bytes * 1000 < minRate * ms) {
          arrived();
          tooSlow(request, reply, `The body arrived too slowly (${Math.round(bytes / 1024)} KiB in ${Math.round(ms / 1000)} s; a large body must average ${Math.round(minRate / 1024)} KiB/s); send it again.`);
        }
      }, Math.min(1000, Math.max(100, graceMs / 4)));
      timer.unref();
    }
  };

  app.addHook('preParsing', async (request, reply, payload) => {
    const length = Number(request.headers['content-length'] ?? NaN);
    const chunked = !Number.isFinite(length) && request.headers['transfer-encoding'] !== undefined;
    if (Number.isFinite(length) ? length <= options.thresholdBytes : !chunked) {
      idleCut(request, reply);
      return payload;
    }
    const batch = request.routeOptions.config.batchBody === true;
    const turns = batch ? batches : arriving;
    const account = request.principal?.account.id ?? '';
    if (!chunked) {
      await holdTurn(request, reply, batch, turns, account);
      return payload;
    }
    // A body of unknown length (sent chunked) takes a turn once more than the threshold of it has come: taken before
    // a byte was read, a 500-byte chunked batch waited 19 s behind another account's stalled one (h227). Until then it
    // is held to the idle rule as any body; while it waits for its turn it is not read (TCP holds the rest back).
    const stopIdleClock = idleCut(request, reply);
    let seen = 0;
    let asked = false;
    const gate = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        if (asked || seen <= options.thresholdBytes) return done(null, chunk);
        asked = true;
        // not read while it waits, so not idle of its own doing: the clock stops, and its turn starts its own (h232: a
        // body sent whole, waiting over 30 s for a turn, was cut as one that stopped arriving)
        stopIdleClock();
        holdTurn(request, reply, batch, turns, account).then(() => done(null, chunk), (err: unknown) => done(err as Error));
      },
    });
    payload.pipe(gate);
    // a body cut or dropped ends its gate as the request's own stream ends then: with no error for the parser to answer
    // (h232: the gate's "premature close" made Fastify answer a request the server had already answered 408)
    payload.once('error', (err: Error) => gate.destroy(cutByServer.has(request.raw) ? undefined : err));
    payload.once('close', () => {
      if (!payload.readableEnded) gate.destroy();
    });
    return gate;
  });
}
