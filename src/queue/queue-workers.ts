import { BlockedWork } from './blocked-work.ts';
import type { QueueOptions, WebhookSettings } from '../config/config.ts';
import type { AddressPolicy } from '../media/address-policy.ts';
import type { ImageIntake } from '../media/image-intake.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { AsyncRequestRow, RequestStore } from '../store/request-store.ts';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import type { HandlerRegistry } from './job-handler.ts';
import { JobRunner } from './job-runner.ts';
import type { QueueSignal } from './queue-signal.ts';

/** How long a stop waits for webhooks due now once its jobs have ended (a delivery's own timeout still bounds each). */
const WEBHOOK_FLUSH_MS = 3000;
/**
 * How long a stop waits for running jobs before handing them back to the queue: under a container runtime's 10 s
 * between SIGTERM and SIGKILL (Docker's default), so the hand-back is written before the kill (h184: at 10 s, with the
 * HTTP drain before it, three deploys failed a paid job for good).
 */
const JOB_GRACE_MS = 7_000;

export type QueueLog = (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => void;

/**
 * Everything that works the queue in one process: job runner, webhook dispatcher and retention
 * sweeper. The server runs one (unless LOUPE_QUEUE_WORKERS=0); `loupe worker` runs one alone.
 */
export class QueueWorkers {
  readonly runner: JobRunner;
  readonly webhooks: WebhookDispatcher;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();
  private started = false;
  private readonly sweepGate: BlockedWork;

  constructor(
    private readonly deps: {
      requests: RequestStore;
      registry: HandlerRegistry;
      signal: QueueSignal;
      intake: ImageIntake;
      media: MediaStore;
      policy: AddressPolicy;
      /** A finished request's response as clients read it (media links signed); see WebhookDispatcher. */
      present?: (row: AsyncRequestRow) => Record<string, unknown> | null;
      /** Other background work of the process, started and stopped with the queue (text search's backfill). */
      background?: { start(): void; stop(): Promise<void> }[];
      /** Media files whose rows went, left by a process that stopped before it removed them (migration 016). */
      mediaDeletions?: { due(now: number): Promise<string[]>; removed(keys: readonly string[]): Promise<void>; later(keys: readonly string[], due: number): Promise<void> };
      /** Charges of calls whose process stopped before they answered, given back once due (migration 017). */
      creditHolds?: { returnDueHolds(now: number): Promise<{ holds: number; credits: number }> };
      /** Rows catalog and price imports staged and did not remove (they died, or their clean-up failed). */
      stagedImports?: { removeAbandoned(): Promise<number> };
      /** Sessions an older release stored without their search text, folded (migration 038). */
      unfoldedSessions?: { refold(): Promise<number> };
      /** Why no job may be claimed now (a newer release upgraded the database), else undefined. */
      claimBlocked?: () => Promise<string | undefined>;
    },
    /** `shortensRetention`: requests submitted under a longer retention are brought to this one (the API server's; a `loupe worker` started without the server's settings cut them to its default, h144). */
    private readonly options: { queue: QueueOptions; webhooks: WebhookSettings; log?: QueueLog; shortensRetention?: boolean },
  ) {
    const log = options.log ?? (() => {});
    const q = options.queue;
    this.runner = new JobRunner(deps, { concurrency: q.workers, leaseMs: q.leaseMs, pollMs: q.pollMs, maxAttempts: q.maxAttempts, storageRetryMs: q.storageRetryMs, prefetchBytes: q.prefetchBytes, previewEdge: q.previewEdge, log });
    this.sweepGate = new BlockedWork(deps.claimBlocked, options.log, 'nothing is swept');
    this.webhooks = new WebhookDispatcher({ requests: deps.requests, signal: deps.signal, policy: deps.policy, ...(deps.present ? { present: deps.present } : {}), ...(deps.claimBlocked ? { claimBlocked: deps.claimBlocked } : {}), log }, { ...options.webhooks, pollMs: q.pollMs });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.options.queue.workers > 0) this.runner.start();
    this.webhooks.start();
    this.sweeper = setInterval(() => void this.sweep(), this.options.queue.sweepIntervalMs);
    this.sweeper.unref();
    void this.sweep();
    for (const b of this.deps.background ?? []) b.start();
  }

  /** The stop under way: a second caller (the server's close after its early stop) waits for the same one. */
  private stopping: Promise<void> | undefined;

  stop(): Promise<void> {
    this.stopping ??= this.stopOnce().finally(() => (this.stopping = undefined));
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearInterval(this.sweeper);
    // the webhooks of jobs that finish while stopping go out before the dispatcher stops (they waited for the next start, h104)
    // within the jobs' own grace: a stop whose jobs took it all flushes nothing, and every delivery still waiting then is cut
    const since = Date.now();
    this.webhooks.cutDeliveriesAt(since + JOB_GRACE_MS);
    const deliveries = this.runner.stop(JOB_GRACE_MS).then(async () => {
      await this.webhooks.flush(Math.min(WEBHOOK_FLUSH_MS, JOB_GRACE_MS - (Date.now() - since)));
      await this.webhooks.stop();
    });
    await Promise.all([deliveries, this.sweeping, ...(this.deps.background ?? []).map((b) => b.stop())]);
  }

  /** Deletes requests past retention and their media; returns how many went. */
  sweep(now = Date.now()): Promise<number> {
    const run = this.sweeping.then(async () => {
      try {
        // a newer release's rows and files are its own to sweep, by its rules
        if (await this.sweepGate.reason()) return 0;
        const { deleted, media, refunded, shortened, abandoned } = await this.deps.requests.sweep(now, undefined, this.options.shortensRetention ? this.options.queue.retentionMs : undefined);
        // said, as it cuts every node's requests: one node left with a shorter LOUPE_RETENTION_DAYS did so silently (h239)
        if (shortened > 0) {
          this.options.log?.('warn', "retention: requests' expiry brought forward to this node's LOUPE_RETENTION_DAYS (every node must share it)", { requests: shortened, retention_days: this.options.queue.retentionMs / 86_400_000 });
        }
        const { failed } = await this.deps.media.remove(media);
        await this.deps.mediaDeletions?.removed(media.filter((k) => !failed.includes(k)));
        if (deleted > 0) this.options.log?.('info', 'retention: deleted expired requests', { deleted, media: media.length, ...(refunded ? { refunded } : {}) });
        if (abandoned > 0) this.options.log?.('info', 'requests: removed the images of submits that did not finish', { parts: abandoned });
        // what a process killed between a commit and its files' removal left (a deleted session's, a replaced
        // image's, a job attempt's never committed): removed, then its entry
        let files = 0;
        for (let due = await this.deps.mediaDeletions?.due(now); due?.length; due = await this.deps.mediaDeletions?.due(now)) {
          // with the part of a file a killed write left beside it; one that cannot be removed now (a read-only disk) is
          // due again at the next sweep, and holds back nothing after it (h221)
          const stuck = await this.deps.media.removeWithLeftovers(due);
          await this.deps.mediaDeletions!.removed(due.filter((k) => !stuck.includes(k)));
          if (stuck.length) await this.deps.mediaDeletions!.later(stuck, now + this.options.queue.sweepIntervalMs);
          files += due.length - stuck.length;
        }
        if (files > 0) this.options.log?.('info', 'media: removed files a stopped process left', { files });
        const staged = await this.deps.stagedImports?.removeAbandoned();
        if (staged) this.options.log?.('info', 'imports: removed the rows imports that did not finish had staged', { rows: staged });
        const folded = await this.deps.unfoldedSessions?.refold();
        if (folded) this.options.log?.('info', 'sessions: made the search text of sessions an older release stored without it', { sessions: folded });
        const back = await this.deps.creditHolds?.returnDueHolds(now);
        if (back?.holds) this.options.log?.('warn', 'credits: gave back the charges of calls a stopped process never answered', back);
        return deleted;
      } catch (err) {
        this.options.log?.('error', 'retention sweep failed', { err: String(err) });
        return 0;
      }
    });
    this.sweeping = run;
    return run;
  }
}
