/**
 * Counts work that may still touch the stores: route handlers and the access-control hooks.
 * Fastify's close waits for connections, not for handlers, and a client that hangs up leaves
 * its handler running; shutdown waits for this count to reach zero before closing the stores.
 */
export class InFlight {
  private active = 0;
  private waiters: Array<() => void> = [];

  async run<T>(work: () => T | Promise<T>): Promise<T> {
    const done = this.begin();
    try {
      return await work();
    } finally {
      done();
    }
  }

  /**
   * Counts work that ends later than the call that started it (a handler that answers with
   * `reply.send(stream)` and returns nothing); `done` may be called more than once.
   */
  begin(): () => void {
    this.active++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.active--;
      if (this.active === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  get count(): number {
    return this.active;
  }

  /** Resolves when nothing is running, or after `timeoutMs` (returns whether it drained). */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
