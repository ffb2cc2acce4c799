import type { DownloadHold } from '../media/url-fetch.ts';

/**
 * One image downloaded ahead of its handler: its bytes counted in the budget until it is given back. As a DownloadHold
 * (url-fetch.ts) it becomes the size the answer declares once its headers are in, and grows only while there is room.
 */
export interface PrefetchShare extends DownloadHold {
  /** The download ended with `bytes`: the share becomes their size. */
  settle(bytes: number): void;
  /** Handed to the handler, failed, or the job ended: counted no more. Again, or after it, does nothing. */
  release(): void;
}

/** A download's place in the budget's line (PrefetchBudget `take`). */
export interface PrefetchTicket {
  /** The share, once there is room; undefined when the ticket was cancelled, its job stopped, or it can never fit. */
  readonly share: Promise<PrefetchShare | undefined>;
  /**
   * Settles when no download under way can make room for it (only a handler taking images can now): its job need not
   * wait for it. It keeps its place, and begins when a handler's taking makes room, unless cancelled first.
   */
  readonly stalled: Promise<void>;
  /** Leaves the line: true where no share was given (nor ever will be), false where one was (or the job stopped). */
  cancel(): boolean;
}

/**
 * The bytes a job runner holds of `_url` images downloaded ahead of their handlers (job-runner.ts `download`), across
 * all its jobs. A download ahead begins with a share of the largest image the server takes (nothing is known of its size
 * before the answer), made the size the answer declares as soon as its headers are in (h290 held the largest image until
 * the end, so that fewer fit), and the image's own size when it ends: what the runner holds, downloading or downloaded,
 * stays within the budget. A download that sends more than it declared grows its share while there is room, and is cut
 * where there is none (url-fetch.ts DownloadHoldExceeded).
 *
 * A download that finds no room waits in line while others ahead are under way (each ends within its own deadline, and
 * may leave room). When none is, its job stops waiting for it (`stalled`): no job waits on a handler taking images, as
 * the jobs holding the budget may be waiting for a slot that jobs waiting on the budget hold. It keeps its place all the
 * same, and begins as soon as a handler taking images makes room (h290 left it to its handler, to be downloaded in its
 * slot one after another, 37–43 s for six jobs of 20 MiB images where 24–32 s before the budget); its handler asking
 * for it first takes it out of line and downloads it itself.
 */
export class PrefetchBudget {
  /** Bytes counted: shares of downloads under way, and images downloaded and not yet taken. */
  private counted = 0;
  private underWay = 0;
  private peakCounted = 0;
  private readonly waiting: Waiting[] = [];

  constructor(readonly limit: number) {}

  /** Bytes held now, and the most held since the runner started (the bench's and tests' view). */
  get held(): { now: number; peak: number } {
    return { now: this.counted, peak: this.peakCounted };
  }

  /** A place in line for one download ahead of up to `size` bytes, given its share at once when it fits. */
  take(size: number, signal: AbortSignal): PrefetchTicket {
    // a budget under the largest image never has room: nothing ahead, nothing kept in line
    if (signal.aborted || size > this.limit) return { share: Promise.resolve(undefined), stalled: Promise.resolve(), cancel: () => true };
    if (this.waiting.length === 0 && this.fits(size)) return { share: Promise.resolve(this.share(size)), stalled: new Promise(() => {}), cancel: () => false };
    let grant!: (share: PrefetchShare | undefined) => void;
    let stall!: () => void;
    const share = new Promise<PrefetchShare | undefined>((r) => (grant = r));
    const stalled = new Promise<void>((r) => (stall = r));
    const leave = () => {
      const at = this.waiting.indexOf(entry);
      if (at < 0) return false;
      this.waiting.splice(at, 1);
      signal.removeEventListener('abort', stopped);
      grant(undefined);
      stall();
      return true;
    };
    const stopped = () => void leave();
    const entry: Waiting = {
      size,
      grant: (s) => {
        signal.removeEventListener('abort', stopped);
        grant(s);
      },
      stall,
    };
    signal.addEventListener('abort', stopped, { once: true });
    this.waiting.push(entry);
    if (this.underWay === 0) stall();
    return { share, stalled, cancel: leave };
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
      resize: (n) => {
        if (state !== 'under way') return false;
        // growing: only into room no one else counts on (the line waits behind it, as for any download under way)
        if (n > bytes && !this.fits(n - bytes)) return false;
        const before = bytes;
        this.count(n - bytes);
        bytes = n;
        if (n < before) this.changed();
        return true;
      },
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

  /** Room made: the downloads in line that fit now begin, in turn; with none under way, the others are stalled. */
  private changed(): void {
    while (this.waiting.length && this.fits(this.waiting[0]!.size)) {
      const next = this.waiting.shift()!;
      next.grant(this.share(next.size));
    }
    if (this.underWay === 0) for (const w of this.waiting) w.stall();
  }
}

interface Waiting {
  size: number;
  grant: (share: PrefetchShare | undefined) => void;
  /** Settles the ticket's `stalled`; again does nothing. */
  stall: () => void;
}
