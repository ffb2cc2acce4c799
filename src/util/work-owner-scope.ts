import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The account a piece of work is done for: the HTTP layer runs each authenticated call's handler
 * with it, so the vision engine can take turns between accounts (one account's burst no longer
 * holds another's single image behind all of it, h191). Work outside a call has none.
 */
const scope = new AsyncLocalStorage<string>();

export function withWorkOwner<T>(owner: string | undefined, fn: () => T): T {
  return owner === undefined ? fn() : scope.run(owner, fn);
}

export function workOwner(): string | undefined {
  return scope.getStore();
}
