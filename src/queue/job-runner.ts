import { EventEmitter, setMaxListeners } from 'node:events';
import { BlockedWork } from './blocked-work.ts';
import { PrefetchBudget, type PrefetchShare, type PrefetchTicket } from './prefetch-budget.ts';
import { RepeatedFailureLog } from './repeated-failure-log.ts';
import type { ImageIntake } from '../media/image-intake.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import { DownloadHoldExceeded, type DownloadHold } from '../media/url-fetch.ts';
import { storedMediaUrl } from '../media/media-links.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { AsyncRequestRow, Claim, RequestPreview, RequestStore } from '../store/request-store.ts';
import { InputsUnreadableError, MediaWriteError, type HandlerRegistry, type JobContext, type JobHandler, type JobOutcome } from './job-handler.ts';
import type { QueueSignal } from './queue-signal.ts';
import { WakeableSleep } from './wakeable-sleep.ts';
import { withDownloadOwner, withDownloadSignal } from '../util/download-scope.ts';

/** A job's `_url` images downloaded at once: every record's (a submit takes at most 10). */
const DOWNLOADS_PER_JOB = 10;

export interface RunnerOptions {
  /** Jobs run at once by this runner. */
  concurrency: number;
  /** A job's lease; renewed every third of it while the job runs. */
  leaseMs: number;
  /** How often to look for work when no signal came (other processes on SQLite, lost notices). */
  pollMs: number;
  /** Runs of one request before it is finished with every record failed. */
  maxAttempts: number;
  /** How long a job whose result the storage refused waits before it runs again (60 s in the server). */
  storageRetryMs?: number;
  /**
   * Jobs that may wait on their `_url` downloads outside a slot (default: `concurrency`); a job claimed past them
   * downloads in its slot. Bounds the jobs the runner holds that other nodes cannot take (their images: `prefetchBytes`).
   */
  downloading?: number;
  /**
   * Bytes of `_url` images downloaded ahead of their handlers that the runner holds at once, across its jobs
   * (prefetch-budget.ts; `LOUPE_QUEUE_PREFETCH_MB`); past it a record's image is downloaded when its handler asks.
   * Unset: no limit.
   */
  prefetchBytes?: number;
  /** Long edge of the previews handlers ask for (LOUPE_REQUEST_PREVIEWS; JobContext.previewEdge); 0 or unset: none. */
  previewEdge?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;
}

export interface RunnerDeps {
  requests: RequestStore;
  registry: HandlerRegistry;
  signal: QueueSignal;
  intake: ImageIntake;
  media: MediaStore;
  /** Why no job may be claimed now (a newer release upgraded the database), else undefined. */
  claimBlocked?: () => Promise<string | undefined>;
}

/** Events: `done` (id) after a result was written by this runner. */
export class JobRunner extends EventEmitter {
  /**
   * `slot`: whether the job holds one of the `concurrency` slots now (not while it waits on its downloads); `begun`:
   * whether its handler (or its failure for too many attempts) has started, past its downloads and its wait for a slot.
   */
  private readonly active = new Map<string, Job>();
  /** Slots held, and the jobs whose downloads are done waiting for one (given the next slot freed, before any claim). */
  private slotsHeld = 0;
  private readonly slotWaiters: (() => void)[] = [];
  /** Jobs waiting on their downloads outside a slot. */
  private downloadingNow = 0;
  private running = false;
  private readonly doze = new WakeableSleep();
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly log: NonNullable<RunnerOptions['log']>;
  /** What the runner holds of images downloaded ahead; undefined without `prefetchBytes`. */
  readonly prefetch: PrefetchBudget | undefined;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly options: RunnerOptions,
  ) {
    super();
    this.log = options.log ?? (() => {});
    this.claims = new RepeatedFailureLog(this.log, 'claiming jobs');
    this.gate = new BlockedWork(deps.claimBlocked, this.log, 'no job is taken');
    this.prefetch = options.prefetchBytes === undefined ? undefined : new PrefetchBudget(options.prefetchBytes);
  }

  private readonly claims: RepeatedFailureLog;
  private readonly gate: BlockedWork;

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.deps.signal.on('requests', () => this.poke());
    this.heartbeat = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    this.heartbeat.unref();
    this.loop = this.run();
  }

  /** Stops claiming; waits up to `graceMs` for running jobs, then hands the rest back to the queue. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.poke();
    await this.loop;
    // jobs whose handler has not started (downloading, in their slot or outside one, or waiting for a slot) have
    // nothing to finish: handed back now, not after the grace (one downloading in its slot waited it all, h290)
    for (const job of this.active.values()) if (!job.begun) job.abort.abort();
    const all = Promise.all([...this.active.values()].map((a) => a.finished));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    for (const [id, job] of this.active) {
      job.abort.abort();
      await this.deps.requests.release(id, job.token, 'the worker stopped before finishing', Date.now(), true).catch(() => false);
    }
    await all.catch(() => {});
    clearInterval(this.heartbeat);
  }

  private poke(): void {
    this.doze.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.options.concurrency - this.slotsHeld;
      const claimed: Claim[] = [];
      const blocked = free > 0 ? await this.gate.reason() : undefined;
      if (free > 0 && !blocked) {
        try {
          // one at a time, so a long job claimed keeps the next claim from taking another (job-handler.ts `long`)
          for (let k = 0; k < free; k++) {
            const longRunning = [...this.active.values()].some((a) => a.long);
            const [c] = await this.deps.requests.claim(1, this.options.leaseMs, Date.now(), longRunning ? this.deps.registry.longTypes() : []);
            if (!c) break;
            // a job run before and not finished: its worker died or stopped, or its handler threw
            if (c.row.attempts > 1) this.log('warn', 'job taken up again', { id: c.row.id, type: c.row.type, attempt: c.row.attempts });
            claimed.push(c);
            this.begin(c);
          }
          this.claims.worked();
        } catch (err) {
          this.claims.failed(err);
        }
      }
      // Full, or nothing claimable: sleep until a job finishes, a signal comes, or the poll is due.
      if (claimed.length === 0 || this.slotsHeld >= this.options.concurrency) {
        await this.doze.sleep(this.options.pollMs);
      }
    }
  }

  private begin(claim: Claim): void {
    // Taken again while an earlier run of it here still ends: that run's lease ran out (renewals failed while the
    // database was away longer than the lease) and its result would be refused. Stopped now; and the new run keeps its
    // entry (the old run's end removed it: the new run's lease was then not renewed, and a run longer than it lost it)
    this.active.get(claim.row.id)?.abort.abort();
    const abort = new AbortController();
    const entry: Job = { token: claim.token, abort, finished: Promise.resolve(), long: this.deps.registry.get(claim.row.type)?.long === true, slot: false, begun: false };
    this.active.set(claim.row.id, entry);
    // claimed for a free slot, taken at once (a job whose downloads ended may have had it meanwhile: this one then waits)
    entry.finished = this.takeSlot(entry, abort.signal)
      .then(() => this.execute(claim, abort.signal, entry))
      .catch((err: unknown) => this.log('error', 'job bookkeeping failed', { id: claim.row.id, err: String(err) }))
      .finally(() => {
        if (entry.slot) this.freeSlot(entry);
        if (this.active.get(claim.row.id) === entry) this.active.delete(claim.row.id);
        this.poke();
      });
  }

  /** Takes a slot for the job, now or when one is freed; returns without one when the job is stopped meanwhile. */
  private async takeSlot(entry: Job, signal: AbortSignal): Promise<void> {
    if (this.slotsHeld < this.options.concurrency) {
      this.slotsHeld++;
      entry.slot = true;
      return;
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', stopped);
        resolve();
      };
      const stopped = () => {
        const at = this.slotWaiters.indexOf(handOver);
        if (at >= 0) this.slotWaiters.splice(at, 1);
        resolve();
      };
      // a slot passed on by the job that freed it (the count stays): a claim cannot take it in between
      const handOver = () => {
        entry.slot = true;
        wake();
      };
      signal.addEventListener('abort', stopped, { once: true });
      this.slotWaiters.push(handOver);
    });
    // handed over after a stop, it goes back at once
    if (entry.slot && signal.aborted) this.freeSlot(entry);
  }

  private freeSlot(entry: Job): void {
    entry.slot = false;
    const next = this.running ? this.slotWaiters.shift() : undefined;
    if (next) next();
    else this.slotsHeld--;
    this.poke();
  }

  private async execute({ row, token }: Claim, signal: AbortSignal, entry: Job): Promise<void> {
    const { requests, registry } = this.deps;
    const handler = registry.get(row.type);
    const media: string[] = [];
    // the previews' keys are in `media` too: removed with the attempt's other files, and with the request
    const previews: RequestPreview[] = [];
    let outcome: JobOutcome;
    if (!handler) {
      // Submitted to a node that knew this type; this one does not (a mixed-version deployment).
      await requests.release(row.id, token, `no handler for type ${row.type} on this worker`);
      return;
    }
    if (row.attempts > this.options.maxAttempts) {
      entry.begun = true;
      // no error recorded: each attempt ended with its worker (a crash, a kill, the machine's memory), so a
      // client can tell that from an image that fails
      outcome = failedOutcome(row, `Processing failed ${row.attempts - 1} times (last: ${row.lastError || 'the worker processing it stopped before it finished: a crash or a kill, not an answer about the image'})`);
    } else {
      let ctx: RunnerContext | undefined;
      try {
        const faults: { inputs?: InputsUnreadableError } = {};
        ctx = this.context(row, signal, media, faults, previews);
        if (await readsImages(handler, row.endpoint)) await this.download(ctx, entry, signal);
        if (signal.aborted) throw new Error('stopped before it began');
        entry.begun = true;
        outcome = await handler.run(ctx);
        if (faults.inputs) throw faults.inputs;
        if (outcome.records.length !== recordsOf(row).length) throw new Error(`handler returned ${outcome.records.length} records for ${recordsOf(row).length}`);
      } catch (err) {
        await this.deps.media.remove(media);
        // stopped between records (job handlers check the signal): said as the finished-too-late case below says it
        if (signal.aborted) {
          // one that had not begun is handed back here: the stop hands back only the jobs still running after its grace
          if (!this.running && !entry.begun) await requests.release(row.id, token, 'the worker stopped before finishing', Date.now(), true).catch(() => false);
          if (!this.running) this.log('info', 'job handed back at shutdown; another worker runs it', { id: row.id });
          // an erased request (`loupe request delete`, `account delete`) runs nowhere: said so, not that another worker has it (h142)
          else if (!(await requests.status(row.id).catch(() => ({})))) this.log('info', 'job stopped: its request was deleted', { id: row.id });
          else this.log('warn', 'job stopped: its lease was lost; another worker runs it', { id: row.id });
          return;
        }
        // erased while it ran, before the lease's renewal said so: its images went with it (inputs unreadable), so the
        // failure is no fault to wait out or retry, and a handing back would find nothing (CI: "could not read its images")
        if (!(await requests.status(row.id).catch(() => ({})))) {
          this.log('info', 'job stopped: its request was deleted', { id: row.id });
          return;
        }
        // the server's storage refused a result (a full disk, an unwritable media folder): waited out, the attempt given
        // back, not spent three times in a few seconds and failed for good (h144)
        if (err instanceof MediaWriteError) {
          const wait = this.options.storageRetryMs ?? 60_000;
          this.log('error', `job could not store its result; it runs again in ${Math.round(wait / 1000)} s`, { id: row.id, err: String(err.reason) });
          await requests.release(row.id, token, err.message, Date.now(), true, Date.now() + wait);
          return;
        }
        // the database did not give the job its images: waited out as above, whatever the handler made of them
        if (err instanceof InputsUnreadableError) {
          const wait = Math.min(this.options.storageRetryMs ?? 60_000, 10_000);
          this.log('warn', `job could not read its images from the database; it runs again in ${Math.round(wait / 1000)} s`, { id: row.id, err: String(err.reason) });
          await requests.release(row.id, token, err.message, Date.now(), true, Date.now() + wait).catch((e: unknown) => this.log('warn', 'job could not be handed back; its lease runs out instead', { id: row.id, err: String(e) }));
          return;
        }
        this.log('warn', 'job failed; it goes back to the queue', { id: row.id, attempt: row.attempts, err: String(err) });
        // what the client reads in the record's status after the last try: an image's own problem says what it is;
        // anything else is the server's, kept in the log line above (libvips' "bad seek to 123676" reached clients, h118)
        await requests.release(row.id, token, err instanceof ImageLoadError ? err.message : `an internal error; the server's log has it under request ${row.id}`);
        return;
      } finally {
        // images downloaded ahead that the handler did not take (it failed, or was stopped) leave the budget
        ctx?.drop();
      }
    }
    const failed = outcome.records.filter((r) => ((r._status as { code?: number } | undefined)?.code ?? 200) >= 400).length;
    const pricePerRecord = Number(row.options.pricePerRecord ?? 0);
    const refund = Math.min(row.charged, failed * pricePerRecord);
    const written = await requests.complete(row.id, token, { response: { ...outcome.extra, records: outcome.records }, media, previews, refund, webhookAt: row.webhook ? Date.now() : null });
    if (!written) {
      // The lease went to another worker meanwhile; its result is the one that counts.
      await this.deps.media.remove(media);
      if (signal.aborted && !this.running) this.log('info', 'job handed back at shutdown; another worker runs it', { id: row.id });
      // its request erased meanwhile (h144: logged as a lost lease)
      else if (!(await requests.status(row.id).catch(() => ({})))) this.log('info', 'job finished after its request was deleted; result dropped', { id: row.id });
      else this.log('warn', 'job finished after its lease was lost; result dropped', { id: row.id });
      return;
    }
    if (row.webhook) this.deps.signal.notify('webhooks');
    this.emit('done', row.id);
  }

  /**
   * Downloads every `_url` image of the job at once, before its handler runs and, while fewer than `downloading` jobs
   * do so, with its slot given up: a job waits on an image host without holding a slot another account's job could
   * use (h280: one after the other, or four at a time, two jobs of ten slow URLs held both slots for about 60 s).
   */
  private async download(ctx: RunnerContext, entry: Job, signal: AbortSignal): Promise<void> {
    // stopped while it waited for its first slot (a lost lease): it holds none to give up, and begins nothing
    if (!ctx.downloads || signal.aborted) return;
    const outside = this.downloadingNow < (this.options.downloading ?? this.options.concurrency);
    if (!outside) {
      await ctx.fetchAll();
      // images still in line for the budget, which jobs waiting for a slot with theirs all in hold: the first of those
      // runs in this slot, and its handler's taking lets these begin, while this job waits for the next slot as it
      // does (h298: run first, it downloaded one image after another in its slot while theirs waited, 20-22 s for six
      // jobs of 20 MiB images). Once: the slot it is given next is its own
      if (!ctx.inLine()) return;
      // the jobs whose downloads ended in the same turn (the one that stalled this job's) are in the slots' line by the next
      await new Promise((r) => setImmediate(r));
      if (ctx.inLine() && this.slotWaiters.length > 0 && !signal.aborted) {
        this.freeSlot(entry);
        await this.takeSlot(entry, signal);
      }
      return;
    }
    this.downloadingNow++;
    if (entry.slot) this.freeSlot(entry);
    try {
      await ctx.fetchAll();
    } finally {
      this.downloadingNow--;
    }
    if (!signal.aborted) await this.takeSlot(entry, signal);
  }

  private context(row: AsyncRequestRow, signal: AbortSignal, media: string[], faults: { inputs?: InputsUnreadableError } = {}, previews: RequestPreview[] = []): RunnerContext {
    const records = recordsOf(row);
    let inputs: Promise<Map<number, Buffer>> | undefined;
    /** The record's uploaded image; undefined when it is to be downloaded. */
    const uploaded = async (index: number): Promise<Buffer | undefined> => {
      inputs ??= this.deps.requests.inputs(row.id).catch((err: unknown) => {
        faults.inputs ??= new InputsUnreadableError(err);
        throw faults.inputs;
      });
      const bytes = (await inputs).get(index);
      if (bytes) return bytes;
      const error = (row.options.inputErrors as Record<string, string> | undefined)?.[index];
      if (error) throw new ImageLoadError(error);
      return undefined;
    };
    // stopped with the job (a stop, a lost lease): a download would otherwise run on to its own deadline
    const download = (index: number, stop = signal, hold?: DownloadHold) => withDownloadSignal(() => ({ any: stop, gone: notGone }), () => withDownloadOwner(row.accountId, () => this.deps.intake.bytes(records[index] ?? {}, hold)));
    const one = async (index: number): Promise<Buffer> => (await uploaded(index)) ?? download(index);
    // downloads ahead end with their job too: one begun while its handler ran (room made late), and never asked for,
    // is wanted by no one after it
    const ended = new AbortController();
    const aheadSignal = AbortSignal.any([signal, ended.signal]);
    // each download ahead and its place in the budget's line listen on it: past Node's 10, a warning for every job
    setMaxListeners(2 * records.length + 10, aheadSignal);
    // the budget's shares of the images downloaded ahead: given back as each is taken, the rest when the job ends
    const shares = new Map<number, PrefetchShare>();
    /** One record's image ahead of the handler (see Ahead). */
    const ahead = (index: number): Ahead => {
      let ticket: PrefetchTicket | undefined;
      let begun = false;
      let left = false;
      let stall!: () => void;
      const stalled = new Promise<void>((r) => (stall = r));
      let waiting = false;
      const result = (async (): Promise<Buffer | undefined> => {
        const bytes = await uploaded(index);
        if (bytes) return bytes;
        if (left) return undefined;
        begun = true;
        if (!this.prefetch) return download(index, aheadSignal);
        // its size is not known before its answer: a share of the largest image the intake takes until then
        ticket = this.prefetch.take(this.deps.intake.options.maxBytes, aheadSignal);
        void ticket.stalled.then(stall);
        waiting = true;
        const share = await ticket.share.finally(() => (waiting = false));
        if (!share) return undefined;
        shares.set(index, share);
        try {
          const got = await download(index, aheadSignal, share);
          share.settle(got.length);
          return got;
        } catch (err) {
          share.release();
          // more than the budget had room for: downloaded when its handler asks, as one with no room is
          if (err instanceof DownloadHoldExceeded) return undefined;
          throw err;
        }
      })();
      // a failure is its record's, when its turn comes
      result.catch(() => {});
      return {
        result,
        ready: Promise.race([result.then(noop, noop), stalled]),
        leave: () => {
          if (ticket) return ticket.cancel();
          if (begun) return false;
          left = true;
          return true;
        },
        inLine: () => waiting,
      };
    };
    // every record's image, fetched before the handler runs when the job has any to download (see `download`)
    const aheads = new Map<number, Ahead>();
    const baseUrl = String(row.options.baseUrl ?? '');
    const inputErrors = (row.options.inputErrors as Record<string, string> | undefined) ?? {};
    return {
      downloads: records.some((r, i) => typeof r._url === 'string' && !inputErrors[i]),
      fetchAll: async () => {
        let next = 0;
        const lane = async () => {
          for (let k = next++; k < records.length; k = next++) {
            const a = ahead(k);
            aheads.set(k, a);
            await a.ready;
          }
        };
        await Promise.all(Array.from({ length: Math.min(DOWNLOADS_PER_JOB, records.length) }, lane));
      },
      id: row.id,
      accountId: row.accountId,
      workspaceId: row.workspaceId,
      type: row.type,
      endpoint: row.endpoint,
      options: row.options,
      records,
      requestId: row.id,
      signal,
      image: async (index) => {
        const a = aheads.get(index);
        // handed over once: its bytes are not kept past their record, nor counted once the handler has them
        aheads.delete(index);
        // not begun ahead (no room yet): downloaded now, not after the downloads in line before it
        if (!a || a.leave()) return one(index);
        try {
          // cut for the budget: downloaded now
          return (await a.result) ?? (await one(index));
        } finally {
          shares.get(index)?.release();
          shares.delete(index);
        }
      },
      inLine: () => [...aheads.values()].some((a) => a.inLine()),
      drop: () => {
        ended.abort();
        for (const a of aheads.values()) a.leave();
        aheads.clear();
        for (const share of shares.values()) share.release();
        shares.clear();
      },
      putMedia: async (bytes, ext) => {
        // named before it is written: an attempt killed before its request completes leaves it to the sweep
        const key = this.deps.media.newKey(ext);
        try {
          await this.deps.requests.intendMedia([key]);
          await this.deps.media.write(key, bytes);
        } catch (err) {
          throw new MediaWriteError(err);
        }
        media.push(key);
        return storedMediaUrl(baseUrl, key);
      },
      previewEdge: this.options.previewEdge ?? 0,
      putPreview: async (index, jpeg, width, height) => {
        const key = this.deps.media.newKey('jpg');
        try {
          await this.deps.requests.intendMedia([key]);
          await this.deps.media.write(key, jpeg);
        } catch (err) {
          // named for the sweep already, or never written: the result goes on without this picture
          this.log('warn', 'a request preview could not be stored; the request finishes without it', { id: row.id, index, err: String(err) });
          return;
        }
        media.push(key);
        previews.push({ index, key, width, height });
      },
    };
  }

  private async renew(): Promise<void> {
    const byToken = new Map<string, string[]>();
    for (const [id, job] of this.active) byToken.set(job.token, [...(byToken.get(job.token) ?? []), id]);
    for (const [token, ids] of byToken) {
      try {
        const lost = await this.deps.requests.extend(ids, token, Date.now() + this.options.leaseMs);
        // the run under this token only: one taken again since holds the request under another
        for (const id of lost) {
          const job = this.active.get(id);
          if (job?.token === token) job.abort.abort();
        }
      } catch (err) {
        this.log('warn', 'renewing leases failed', { err: String(err) });
      }
    }
  }
}

/** A job's context, with what the runner does before its handler runs. */
interface RunnerContext extends JobContext {
  /** Whether the job has images to download (`_url` records). */
  downloads: boolean;
  /**
   * Fetches every record's image at once (up to DOWNLOADS_PER_JOB), as the runner's prefetch budget allows; settles
   * when each has (its failure is its record's), or waits in the budget's line with no download under way to make room
   * for it (it begins when a handler's taking does, or is downloaded when its own handler asks first).
   */
  fetchAll(): Promise<void>;
  /** Ends the job's downloads ahead, and gives back the budget's share of the images fetched and not taken. */
  drop(): void;
  /** Whether some of its images wait in the budget's line, not begun. */
  inLine(): boolean;
}

/** A record's image fetched ahead of its handler. */
interface Ahead {
  /** The image; undefined where it was not downloaded ahead (left to the handler, or cut for the budget). */
  result: Promise<Buffer | undefined>;
  /** Settles with `result`, or when it waits for room that only a handler can make. */
  ready: Promise<void>;
  /** Its handler asks for it: true where its download has not begun (and now never does here), false where it has. */
  leave(): boolean;
  /** Whether it waits in the budget's line. */
  inLine(): boolean;
}

/** A job this runner has claimed (see JobRunner `active`). */
interface Job {
  token: string;
  abort: AbortController;
  finished: Promise<void>;
  long: boolean;
  slot: boolean;
  begun: boolean;
}

/**
 * Whether a run of the job now reads its records' images: not where its handler would answer every record without
 * them (a flow deleted since the submit, no catalog of the kind imported), which then downloads none ahead; it still
 * gets any image it asks for.
 */
async function readsImages(handler: JobHandler, endpoint: string): Promise<boolean> {
  try {
    return (await handler.accepts(endpoint)) && (await handler.readsImages?.(endpoint)) !== false;
  } catch {
    // not known now (the database away): downloaded ahead, as before it was asked
    return true;
  }
}

const noop = () => {};

/** A client's going away stops nothing here: a queued job has no client waiting on its call. */
const notGone = new AbortController().signal;

export function recordsOf(row: AsyncRequestRow): Record<string, unknown>[] {
  return (row.request.records as Record<string, unknown>[] | undefined) ?? [];
}

function failedOutcome(row: AsyncRequestRow, text: string): JobOutcome {
  return {
    records: recordsOf(row).map((r) => ({ ...pick(r), _status: { code: 500, text, request_id: row.id } })),
  };
}

/** The identifying fields of a submitted record, echoed in its result. */
export function pick(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (record._id !== undefined) out._id = record._id;
  if (record._url !== undefined) out._url = record._url;
  return out;
}
