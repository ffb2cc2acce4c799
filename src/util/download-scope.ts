import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the image downloads of the work in progress run under, carried by async context so that no
 * service has to pass it along:
 * - `signal`: what stops them. The HTTP layer runs each request's handler with one (the client went
 *   away, or the request's downloads ran past their budget); work outside a request (queued jobs,
 *   the background passes) has none and keeps each download's own deadline. Made on first use, as
 *   most requests download nothing.
 * - `owner`: the account the downloads are for (a request's, a queued job's), so that what one
 *   account's URLs do to a host is held against that account alone (url-fetch.ts `failingHosts`).
 */
interface DownloadScope {
  signal?: () => AbortSignal;
  owner?: string;
}

const scope = new AsyncLocalStorage<DownloadScope>();

export function withDownloadSignal<T>(signal: () => AbortSignal, fn: () => T, owner?: string): T {
  let made: AbortSignal | undefined;
  return scope.run({ signal: () => (made ??= signal()), ...(owner ? { owner } : {}) }, fn);
}

/** Runs `fn` with its downloads owned by `owner` (a queued job's account), keeping any signal in force. */
export function withDownloadOwner<T>(owner: string, fn: () => T): T {
  return scope.run({ ...scope.getStore(), owner }, fn);
}

export function downloadSignal(): AbortSignal | undefined {
  return scope.getStore()?.signal?.();
}

export function downloadOwner(): string | undefined {
  return scope.getStore()?.owner;
}

/**
 * Whether the client of the request in progress went away before its answer (not its downloads'
 * time budget running out): long work a client no longer waits for stops. Always false outside a
 * request.
 */
export function clientCancelled(): () => boolean {
  const signal = downloadSignal();
  return () => signal?.aborted === true && /cancelled by its client/.test(String((signal.reason as { message?: unknown } | undefined)?.message));
}
