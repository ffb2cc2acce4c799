import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The signal that stops the image downloads of the work in progress: the HTTP layer runs each
 * request's handler with one (the client went away, or the request's downloads ran past their
 * budget); work outside a request (queued jobs, the background passes) has none and keeps each
 * download's own deadline. Carried by async context so that no service has to pass it along; made
 * on first use, as most requests download nothing.
 */
const scope = new AsyncLocalStorage<() => AbortSignal>();

export function withDownloadSignal<T>(signal: () => AbortSignal, fn: () => T): T {
  let made: AbortSignal | undefined;
  return scope.run(() => (made ??= signal()), fn);
}

export function downloadSignal(): AbortSignal | undefined {
  return scope.getStore()?.();
}
