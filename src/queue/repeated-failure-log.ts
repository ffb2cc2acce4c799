import type { QueueLog } from './queue-workers.ts';

/**
 * A loop's failure logged once when it starts failing, then once a minute with how many times it
 * failed meanwhile, and once when it works again: a database outage made each worker loop log the
 * same error every second on every node.
 */
export class RepeatedFailureLog {
  private failing = false;
  private since = 0;
  private count = 0;
  private lastLogged = 0;

  constructor(
    private readonly log: QueueLog | undefined,
    private readonly what: string,
    private readonly everyMs = 60_000,
  ) {}

  failed(err: unknown, now = Date.now()): void {
    this.count++;
    if (!this.failing) {
      this.failing = true;
      this.since = now;
      this.count = 1;
      this.lastLogged = now;
      this.log?.('error', `${this.what} failed`, { err: String(err) });
    } else if (now - this.lastLogged >= this.everyMs) {
      this.lastLogged = now;
      this.log?.('error', `${this.what} still failing`, { err: String(err), failures: this.count, since: new Date(this.since).toISOString() });
    }
  }

  worked(now = Date.now()): void {
    if (!this.failing) return;
    this.failing = false;
    this.log?.('info', `${this.what} works again`, { failures: this.count, seconds: Math.round((now - this.since) / 1000) });
  }
}
