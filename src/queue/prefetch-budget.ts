/** One image downloaded ahead of its handler: its bytes counted in the budget until it is given back. */
export interface PrefetchShare {
  /** The download ended with `bytes`: the share becomes their size. */
  settle(bytes: number): void;
  /** Handed to the handler, failed, or the job ended: counted no more. Again, or after it, does nothing. */
  release(): void;
}

/**
 * The bytes a job runner holds of `_url` images downloaded ahead of their handlers (job-runner.ts `download`), across
 * all its jobs. An image's size is known only once it is in, so a download ahead takes a share of the largest image
 * the server takes before it begins, made the image's own size when it ends: what the runner holds, downloading or
 * downloaded, stays within the budget.
 *
 * A download that finds no room waits while others ahead are under way (each ends within its own deadline, and may
 * leave room); when none is, it is not made ahead and its record is downloaded when the handler asks for it. It never
 * waits on a handler taking images: the jobs holding the budget may be waiting for a slot that jobs waiting on the
 * budget hold.
 */
export class PrefetchBudget {
  /** Bytes counted: shares of downloads under way, and images downloaded and not yet taken. */
  private counted = 0;
  private underWay = 0;
  private peakCounted = 0;
  private readonly waiting: { size: number; grant: (share: PrefetchShare | undefined) => void }[] = [];

  constructor(readonly limit: number) {}

  /** Bytes held now, and the most held since the runner started (the scratch probes' and tests' view). */
  get held(): { now: number; peak: number } {
    return { now: this.counted, peak: this.peakCounted };
  }

  /**
   * A share for one download ahead of up to `size` bytes: at once when it fits, after downloads under way end when it
   * then does; undefined when it cannot (the record is then downloaded when its handler asks) or `signal` stops it.
   */
  take(size: number, signal: AbortSignal): Promise<PrefetchShare | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.waiting.length === 0 && this.fits(size)) return Promise.resolve(this.share(size));
    if (this.underWay === 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const entry = {
        size,
        grant: (share: PrefetchShare | undefined) => {
          signal.removeEventListener('abort', stopped);
          resolve(share);
        },
      };
      const stopped = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      signal.addEventListener('abort', stopped, { once: true });
      this.waiting.push(entry);
    });
  }

  private fits(size: number): boolean {
    return this.counted + size <= this.limit;
  }

  private share(size: number): PrefetchShare {
    let state: 'under way' | 'held' | 'gone' = 'under way';
    let bytes = size;
    this.underWay++;
    this.count(size);
    return {
      settle: (n) => {
        if (state !== 'under way') return;
        state = 'held';
        this.underWay--;
        this.count(n - bytes);
        bytes = n;
        this.changed();
      },
      release: () => {
        if (state === 'gone') return;
        if (state === 'under way') this.underWay--;
        state = 'gone';
        this.count(-bytes);
        this.changed();
      },
    };
  }

  private count(delta: number): void {
    this.counted += delta;
    this.peakCounted = Math.max(this.peakCounted, this.counted);
  }

  /** Room made: the waiting downloads that fit now begin, in turn; with none under way, the others give up waiting. */
  private changed(): void {
    while (this.waiting.length && this.fits(this.waiting[0]!.size)) {
      const next = this.waiting.shift()!;
      next.grant(this.share(next.size));
    }
    if (this.underWay === 0) for (const w of this.waiting.splice(0)) w.grant(undefined);
  }
}
