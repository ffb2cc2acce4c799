/**
 * The console's only way to the server: the public API with the user's token, exactly as a client
 * written against the spec calls it. No call here exists for the console alone.
 */

const tokenKey = 'loupe.token';
const workspaceKey = 'loupe.workspace';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(detail);
  }
}

export function storedToken(): string | null {
  return sessionStorage.getItem(tokenKey);
}

export function storeToken(token: string | null): void {
  // Session storage only: the token leaves with the tab and is never written to disk by us.
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

/** A workspace other than the token's default, chosen in the header; null for the default. */
export function storedWorkspace(): string | null {
  return sessionStorage.getItem(workspaceKey);
}

export function storeWorkspace(id: string | null): void {
  if (id) sessionStorage.setItem(workspaceKey, id);
  else sessionStorage.removeItem(workspaceKey);
}

/** Card sessions and asynchronous requests live in workspaces (`?workspace=`, spec 1 §4, spec 3 §2); the other services are the account's. */
/**
 * Where the API is: the path the console's own script was served under, less `/console/assets/` (`/loupe` behind a
 * proxy's sub-path, '' at a host's root). Calls to `/cardstream/…` at the host's root were 404 there (h112).
 */
export const apiRoot = ((): string => {
  try {
    const here = new URL('../../', import.meta.url);
    return here.protocol === 'http:' || here.protocol === 'https:' ? here.pathname.replace(/\/+$/, '') : '';
  } catch {
    return '';
  }
})();

export function withWorkspace(path: string, workspace = storedWorkspace()): string {
  if (!workspace || !/^\/(cardstream|account)\//.test(path) || /[?&]workspace=/.test(path)) return path;
  return `${path}${path.includes('?') ? '&' : '?'}workspace=${encodeURIComponent(workspace)}`;
}

/** The sentence a person should read for a failed call: the house `detail`, or a search envelope's `status.text`. */
export function detailOf(status: number, body: unknown): { code: string; detail: string } {
  const b = (body ?? {}) as { detail?: unknown; code?: unknown; status?: { text?: unknown; code?: unknown } };
  const detail = typeof b.detail === 'string' ? b.detail : typeof b.status?.text === 'string' ? b.status.text : `The server answered ${status}.`;
  const code = typeof b.code === 'string' ? b.code : String(b.status?.code ?? status);
  return { code, detail };
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  token?: string;
  signal?: AbortSignal;
  /** Search-style answers (spec 2) use 2xx and 3xx codes of their own; 300 MIXED_RESULT still carries records. */
  acceptMixed?: boolean;
}

/** How long any call waits for the server's whole answer. */
export const writeTimeoutMs = 30_000;

export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const token = options.token ?? storedToken();
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (token) headers.authorization = `Token ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  // a call the server never answers (a frozen process, a phone in a dead spot) said so, not "Saving…" for ever; reads too:
  // one read lost in a dead spot held a live session's updates and its Refresh for good, and "Loading session…" stayed (h203)
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), writeTimeoutMs);
  const stop = () => limit.abort();
  options.signal?.addEventListener('abort', stop);
  const reading = method === 'GET' || method === 'HEAD';
  const failed = (err: unknown): never => {
    if ((err as Error).name === 'AbortError') {
      if (!options.signal?.aborted) {
        throw new ApiError(0, 'timeout', reading ? `The server did not answer within ${writeTimeoutMs / 1000} s: the connection may have dropped. Try again.` : `The server did not answer within ${writeTimeoutMs / 1000} s: it may be busy or stopped. Reload to see whether the change was kept.`, undefined);
      }
      throw err;
    }
    // a phone without signal says this too (h97): the connection is the first thing a shop can check
    throw new ApiError(0, 'network', "The server could not be reached: check this device's internet connection, then whether the Loupe server is running.", undefined);
  };
  let text: string;
  try {
    res = await fetch(apiRoot + withWorkspace(path), { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal: limit.signal });
    // the answer's body is waited for within the same limit: headers alone are no answer
    text = await res.text();
  } catch (err) {
    return failed(err);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const ok = res.ok || (options.acceptMixed === true && res.status === 300);
  if (!ok) {
    const { code, detail } = detailOf(res.status, body);
    if (res.status === 401) window.dispatchEvent(new CustomEvent('loupe:unauthorized'));
    throw new ApiError(res.status, code, detail, body);
  }
  return body as T;
}

/** An `Idempotency-Key` for one create: a retry of it sends the same key (randomUUID needs a secure context, which a LAN address over http is not). */
export function newKey(): string {
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

/** Any message a thrown value carries, for an error box. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.status ? `${err.detail} (${err.status}${err.code && err.code !== String(err.status) ? ` ${err.code}` : ''})` : err.detail;
  return err instanceof Error ? err.message : String(err);
}
