/**
 * At most `size` holders at once; the rest wait in the order they asked. A bulkhead: work that may
 * run long (a client's filter on PostgreSQL) takes a slot, so it can hold only part of a shared
 * resource (the connection pool) and the rest keeps serving everything else.
 */
export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** No holder and no one waiting. */
  get idle(): boolean {
    return this.held === 0 && this.waiting.length === 0;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.held >= this.size) await new Promise<void>((r) => this.waiting.push(r));
    else this.held++;
    try {
      return await fn();
    } finally {
      // handed straight to the next in line, or given back
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    }
  }
}
