import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The hold a synchronous call's charges go to (migration 017): the HTTP layer runs each
 * authenticated call's handler with one, so a charge a service makes inside the call (extra
 * colours, slab options, `analyze_all`'s further cards) is held with the call's own price and given
 * back by the sweep if the process stops before the call answers. Work outside a call (queued
 * jobs, whose charge is the request's, stored with it) has none.
 */
export interface CallHold {
  id: string;
  /** Something was debited to it, so it must be settled when the call answers. */
  held: boolean;
  /** The call answered: a charge made after that (work left running) is not held. */
  closed?: boolean;
  /** Debits to it not yet finished: the hold is settled after them, or one could write it again after. */
  pending?: Set<Promise<unknown>>;
}

const scope = new AsyncLocalStorage<CallHold>();

export function withCreditHold<T>(hold: CallHold | undefined, fn: () => T): T {
  return hold === undefined ? fn() : scope.run(hold, fn);
}

export function creditHold(): CallHold | undefined {
  return scope.getStore();
}
