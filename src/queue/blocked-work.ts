import type { QueueLog } from './queue-workers.ts';

/**
 * A background loop's check, before each round, that it may work (a newer release upgraded the database: its
 * rows, payloads and files are that release's to handle, by its rules). The reason is logged once each time it
 * changes, not on every poll of every loop; a check that fails blocks nothing (the loop's own work then fails and
 * says why).
 */
export class BlockedWork {
  private said: string | undefined;

  constructor(
    private readonly check: (() => Promise<string | undefined>) | undefined,
    private readonly log: QueueLog | undefined,
    /** What stops, as the log line starts: "no job is taken". */
    private readonly what: string,
  ) {}

  /** Why no work may be done now, else undefined. */
  async reason(): Promise<string | undefined> {
    const why = await this.check?.().catch(() => undefined);
    if (why && why !== this.said) this.log?.('error', `${this.what}: ${why}`);
    this.said = why;
    return why;
  }
}
