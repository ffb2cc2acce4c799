/**
 * Token bucket per key, in process memory. Each API node limits on its own; with N nodes the
 * effective limit is N times the setting (documented in docs/api-decisions.md).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Returns 0 when the request may go ahead, otherwise the seconds to wait before retrying. */
  take(key: string): number {
    if (this.perSecond <= 0) return 0;
    const t = this.now();
    const capacity = Math.max(1, this.burst);
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: capacity, at: t };
      this.buckets.set(key, b);
      if (this.buckets.size > 100_000) this.sweep(t);
    }
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  /** Full buckets hold no information; drop them so the map cannot grow without bound. */
  private sweep(t: number): void {
    const capacity = Math.max(1, this.burst);
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.perSecond >= capacity) this.buckets.delete(k);
    }
  }
}
