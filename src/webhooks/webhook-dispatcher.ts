import http from 'node:http';
import { BlockedWork } from '../queue/blocked-work.ts';
import { RepeatedFailureLog } from '../queue/repeated-failure-log.ts';
import https from 'node:https';
import net from 'node:net';
import type { AddressPolicy } from '../media/address-policy.ts';
import { guardedLookup } from '../media/url-fetch.ts';
import type { QueueSignal } from '../queue/queue-signal.ts';
import { WakeableSleep } from '../queue/wakeable-sleep.ts';
import type { AsyncRequestRow, RequestStore } from '../store/request-store.ts';
import { signatureHeader, signWebhook } from './webhook-signature.ts';

export interface WebhookOptions {
  /** Wait before each retry; its length is the number of retries (docs/webhooks.md). */
  retryDelaysMs: number[];
  /** One delivery attempt, connect to last byte. */
  timeoutMs: number;
  concurrency: number;
  /** Deliveries of one account in flight at once, on all nodes together (so slow receivers of one account leave the rest free). */
  perAccount: number;
  pollMs: number;
}

/** `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3), in milliseconds from now; null when absent or unreadable. */
export function retryAfterOf(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const t = value.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  // an HTTP date is GMT whether it says so or not (RFC 9110 §5.6.7: the asctime form names no zone): Date.parse read
  // such a date in the server's own zone, an hour's wait or none at all off UTC (h198)
  const zoned = /(?:GMT|UTC|UT|Z|[+-]\d{2}:?\d{2})$/i.test(t);
  const at = Date.parse(zoned ? t : /^\d{4}-\d{2}-\d{2}T/.test(t) ? `${t}Z` : `${t} GMT`);
  return Number.isFinite(at) && /[a-z]/i.test(t) ? Math.max(0, at - now) : null;
}

type Attempt = { ok: true } | { ok: false; retry: boolean; error: string; retryAfterMs?: number; stopped?: true };

/**
 * Delivers completion webhooks: claims due deliveries from the database (so any worker node can
 * send them and a crash loses none), signs and POSTs them, and reschedules failures.
 */
export class WebhookDispatcher {
  private running = false;
  private active = 0;
  private readonly doze = new WakeableSleep();
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      requests: RequestStore;
      signal: QueueSignal;
      policy: AddressPolicy;
      /** The response as a client reads it (media links signed at this delivery); the stored one when absent. */
      present?: (row: AsyncRequestRow) => Record<string, unknown> | null;
      log?: (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;
      /** Why no delivery may be claimed now (a newer release upgraded the database: its payloads are that release's), else undefined. */
      claimBlocked?: () => Promise<string | undefined>;
    },
    private readonly options: WebhookOptions,
  ) {
    this.claims = new RepeatedFailureLog(deps.log, 'claiming webhooks');
    this.gate = new BlockedWork(deps.claimBlocked, deps.log, 'no webhook is delivered');
  }

  private readonly claims: RepeatedFailureLog;
  private readonly gate: BlockedWork;
  /** Rounds that found nothing to deliver and none in flight ({@link flush}). */
  private quietRounds = 0;
  /** Aborted when a stop's deadline comes: every delivery still waiting is cut ({@link cutDeliveriesAt}). */
  private stopping = new AbortController();
  private cutTimer: NodeJS.Timeout | undefined;
  /** When the deliveries in flight are cut (epoch ms), once a stop has set it. */
  private cutAt: number | undefined;

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.unsubscribe = this.deps.signal.on('webhooks', () => this.poke());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.poke();
    await this.loop;
    await Promise.all(this.inFlight);
    clearTimeout(this.cutTimer);
  }

  private poke(): void {
    this.doze.wake();
  }

  /**
   * Before a stop: delivers what is due now, within `ms` (a round begun after this call finds nothing to claim and
   * nothing in flight). A job that finished while its process was stopping had its webhook wait for the next start (h104).
   */
  async flush(ms: number): Promise<void> {
    if (!this.running || ms <= 0) return;
    const until = Date.now() + ms;
    // what it begins, and what still waits, ends with it: the stop waits for them (h111); not before a cut the stop
    // already set, the jobs' grace (h276: a flush of 3 s cut a receiver answering in 4 s, whose request, answered 200,
    // was sent again after the restart: every deploy sent slow receivers a second copy)
    this.cutDeliveriesAt(Math.max(until, this.cutAt ?? 0));
    const from = this.quietRounds;
    while (this.running && Date.now() < until && this.quietRounds < from + 2) {
      this.poke();
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Cuts every delivery still waiting on its receiver at `at` (epoch ms), those begun before as well as after: a stop
   * waits for them, and a receiver that never answered held it past the server's 15 s (h111, h116). One cut is an
   * attempt failed, retried at the next start.
   */
  cutDeliveriesAt(at: number): void {
    this.cutAt = at;
    clearTimeout(this.cutTimer);
    this.cutTimer = setTimeout(() => this.stopping.abort(), Math.max(0, at - Date.now()));
    this.cutTimer.unref();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.options.concurrency - this.active;
      let due: AsyncRequestRow[] = [];
      const blocked = free > 0 ? await this.gate.reason() : undefined;
      if (free > 0 && !blocked) {
        try {
          // The lease outlives one attempt, so a slow receiver is not called twice at once.
          // every free slot at once: the claim keeps each account to its share itself (h246), and a claim's cost does not
          // grow with how many it takes (h247: 4 at a time drained a large backlog by back-to-back queries)
          due = await this.deps.requests.claimWebhooks(free, this.options.timeoutMs * 2 + 5000, Date.now(), this.options.perAccount);
          this.claims.worked();
        } catch (err) {
          this.claims.failed(err);
        }
        for (const row of due) {
          this.active++;
          // an attempt whose outcome cannot be written (the database refusing connections, h149: the rejection
          // ended the process) is delivered again once its lease ends, as after a crash
          const p = this.deliver(row)
            .catch((err: unknown) => this.deps.log?.('error', 'webhook delivery could not record its attempt; it is sent again when its lease ends', { id: row.id, attempt: row.webhookAttempts, error: (err as Error).message }))
            .finally(() => {
            this.active--;
            this.inFlight.delete(p);
            this.poke();
          });
          this.inFlight.add(p);
        }
      }
      if (!due.length && this.active === 0) this.quietRounds++;
      // a full claim may leave more due (of other accounts): claim again at once
      if (due.length < free || this.active >= this.options.concurrency) {
        let wait = await this.untilNextDue();
        // deliveries due now that could not be claimed (every slot busy, or their account at its share, maybe on
        // another node) would make that "now" again and again: wait for a delivery to end (each pokes), a new
        // webhook's notice, or the poll
        if (wait <= 10) wait = this.options.pollMs;
        await this.doze.sleep(wait);
      }
    }
  }

  /** Sleep until the earliest scheduled retry when that is sooner than the poll. */
  private async untilNextDue(): Promise<number> {
    const next = await this.deps.requests.nextWakeAt().catch(() => null);
    const wait = next === null ? this.options.pollMs : Math.max(10, next - Date.now());
    return Math.min(wait, this.options.pollMs);
  }

  /** Writes an attempt's outcome while this claim still holds the delivery; a later claim's (this node stalled past the lease) stands. */
  private async record(row: AsyncRequestRow, outcome: { state: 'delivered' | 'failed' | 'pending'; error: string | null; nextAt: number | null }): Promise<boolean> {
    const written = await this.deps.requests.webhookAttempt(row.id, outcome, Date.now(), row.webhookLeaseUntil);
    if (written) return true;
    // a request deleted meanwhile (`loupe request delete`, an account erased, retention) is no lost lease (h208)
    const gone = (await this.deps.requests.status(row.id).catch(() => 'unknown')) === undefined;
    if (gone) this.deps.log?.('info', 'webhook stopped: its request was deleted', { id: row.id, attempt: row.webhookAttempts });
    else this.deps.log?.('warn', "webhook attempt's outcome not recorded: the delivery was claimed again after this attempt's lease ran out", { id: row.id, attempt: row.webhookAttempts, outcome: outcome.state });
    return false;
  }

  private async deliver(row: AsyncRequestRow): Promise<void> {
    const target = row.webhook!;
    const response = this.deps.present ? this.deps.present(row) : row.response;
    const body = JSON.stringify({ status: row.status, id: row.id, type: row.type, response });
    let attempt: Attempt;
    try {
      const secret = await this.deps.requests.webhookSecret(row.accountId);
      // the client's own User-Agent goes as given (docs/webhooks.md); the rest below cannot be configured
      const ownAgent = Object.keys(target.headers).some((k) => k.toLowerCase() === 'user-agent');
      const headers: Record<string, string> = {
        ...(ownAgent ? {} : { 'user-agent': 'Loupe webhooks' }),
        ...target.headers,
        'content-type': 'application/json',
        [signatureHeader]: signWebhook(secret, body),
        'loupe-request-id': row.id,
        'loupe-delivery-attempt': String(row.webhookAttempts),
      };
      attempt = await post(target.url, body, headers, this.deps.policy, this.options.timeoutMs, this.stopping.signal);
    } catch (err) {
      attempt = { ok: false, retry: true, error: (err as Error).message };
    }
    const n = row.webhookAttempts - 1; // retries already used (this attempt was counted when claimed)
    if (attempt.ok) {
      await this.record(row, { state: 'delivered', error: null, nextAt: null });
      return;
    }
    // an attempt this server's own stop cut is retried at the next start, the last one too (h149: a deploy during the
    // ninth attempt failed the delivery for good)
    // (not due at once: the stop's own last round would take it again, cut again, without end)
    const delay = this.options.retryDelaysMs[n] ?? (attempt.stopped ? (this.options.retryDelaysMs[0] ?? 5000) : undefined);
    if (attempt.retry && delay !== undefined) {
      const wait = Math.max(delay, Math.min(attempt.retryAfterMs ?? 0, 3_600_000));
      // an operator asked why a customer's webhooks do not arrive finds each failed attempt here
      // said once the retry is written: a request deleted meanwhile is not retried
      if (await this.record(row, { state: 'pending', error: attempt.error, nextAt: Date.now() + wait })) {
        this.deps.log?.('warn', 'webhook delivery failed; it will be retried', { id: row.id, attempt: row.webhookAttempts, error: attempt.error, retry_in_s: Math.round(wait / 1000) });
      }
    } else if (await this.record(row, { state: 'failed', error: attempt.error, nextAt: null })) {
      this.deps.log?.('error', 'webhook delivery failed for good', { id: row.id, attempt: row.webhookAttempts, error: attempt.error });
    }
  }
}

/** Bytes of a receiver's answer read before its connection is closed: more is never looked at. */
const answerReadLimit = 64 * 1024;

/**
 * One POST. Network errors and every answer but a 2xx, a redirect and 410 are worth retrying: a receiver refusing a
 * signature (400, 401, 403: the secret rotated, a deploy half done) or not routing the path yet (404) comes right within
 * the hour (h180: a 401 ended the delivery at its first attempt, against the rotation advice). Redirects are not
 * followed: a receiver that moved is a configuration error, and following would need its own address checks; 410 Gone
 * is the receiver's own "never again".
 */
function post(url: string, body: string, headers: Record<string, string>, policy: AddressPolicy, timeoutMs: number, stop?: AbortSignal): Promise<Attempt> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, retry: false, error: 'the webhook URL is not valid' });
  }
  // An IP literal is connected to without a lookup, so it is checked here; names in the lookup.
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const refused = net.isIP(host) ? policy.refusal(host) : undefined;
  if (refused) return Promise.resolve({ ok: false, retry: true, error: refused });
  return new Promise((resolve) => {
    const client = u.protocol === 'https:' ? https : http;
    const req = client.request(u, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: guardedLookup(policy, (reason) => Object.assign(new Error(reason), { refused: true })), agent: false, timeout: timeoutMs }, (res) => {
      const status = res.statusCode ?? 0;
      // only the status counts: the body is read up to a bound and dropped, then the connection closed (a receiver
      // answering 200 MiB was read to the end or to the timeout, 36-200 MiB an attempt at 4 s, h350)
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > answerReadLimit) res.destroy();
      });
      res.on('error', () => undefined);
      res.on('close', () => clearTimeout(total));
      if (status >= 200 && status < 300) return resolve({ ok: true });
      const retryAfterMs = retryAfterOf(res.headers['retry-after']);
      // a redirect says where to (h149: the commonest, http to https, was a guess)
      const location = status >= 300 && status < 400 && typeof res.headers.location === 'string' ? `, to ${res.headers.location.slice(0, 200)}: redirects are not followed, send it again to the address it names (POST /account/v2/request/<id>/webhook)` : '';
      resolve({ ok: false, retry: !(status >= 300 && status < 400) && status !== 410, error: `the receiver answered HTTP ${status}${location}`, ...(retryAfterMs !== null ? { retryAfterMs } : {}) });
    });
    const total = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // the process stopping: cut at its deadline, retried at the next start (h116: one begun before the stop held it past 15 s)
    const cut = () => req.destroy(Object.assign(new Error('the server stopped before the receiver answered'), { stopped: true }));
    if (stop?.aborted) cut();
    else stop?.addEventListener('abort', cut, { once: true });
    req.on('close', () => stop?.removeEventListener('abort', cut));
    req.on('error', (err) => {
      clearTimeout(total);
      // an address refused at an attempt is retried as a network error is: a name resolving to a private address for a
      // while (split-horizon DNS, a maintenance page) or an allow-list edited back failed every delivery due then (h149)
      resolve({ ok: false, retry: true, error: err.message, ...((err as { stopped?: boolean }).stopped ? { stopped: true as const } : {}) });
    });
    // as bytes: a string body is written in one piece with the headers, in its encoding, so a header's Latin-1
    // letters went out as UTF-8 (München arrived as MÃ¼nchen, h94); headers alone go as Latin-1
    req.end(Buffer.from(body));
  });
}
