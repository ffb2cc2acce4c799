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
  /** Aborted when the request's client went away (alone: `signal` also stops for the downloads' time budget). */
  gone?: () => AbortSignal;
  owner?: string;
  /** Whether the request's work stops when its client goes (a call that keeps nothing: its answer is all it makes). */
  stopsWhenGone?: boolean;
}

const scope = new AsyncLocalStorage<DownloadScope>();

export function withDownloadSignal<T>(signals: () => { any: AbortSignal; gone: AbortSignal }, fn: () => T, owner?: string, stopsWhenGone = false): T {
  let made: { any: AbortSignal; gone: AbortSignal } | undefined;
  const get = () => (made ??= signals());
  return scope.run({ signal: () => get().any, gone: () => get().gone, ...(owner ? { owner } : {}), ...(stopsWhenGone ? { stopsWhenGone } : {}) }, fn);
}

/**
 * Whether the work in progress is for a client that went away from a call that keeps nothing: its images not yet
 * begun need not be (h227: three dropped calls of ten 12-MP photos ran all thirty, refunded, and held a phone's retry
 * 71 s behind them). Always false outside a request, and for calls that store what they make.
 */
export function workForNobody(): boolean {
  const s = scope.getStore();
  return s?.stopsWhenGone === true && s.gone?.().aborted === true;
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
  // the client's own signal: the downloads' budget (60 s) aborted the combined one first, and a client
  // that left after it was never noticed (a pass of 2.5 min ran on for nobody)
  const gone = clientGoneSignal();
  return () => gone?.aborted === true;
}

/** Aborted when the request's client went away; undefined outside a request. */
export function clientGoneSignal(): AbortSignal | undefined {
  return scope.getStore()?.gone?.();
}
