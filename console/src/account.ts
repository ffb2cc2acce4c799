import { ApiError, call, storedWorkspace } from './api.ts';

export interface AccountInfo {
  account: string | null;
  workspace: string | null;
  credits: number | null;
  /** Each service the console knows, and whether this token may use it (null: not on this server). */
  services: Record<string, boolean | null>;
}

/**
 * `cardstream/v2/ping/` gives account, workspace, credits and which services the account may use. Where card
 * sessions are not enabled (its ping refused), every other service is asked something it refuses before doing any
 * work (no collection, an empty body), so the answer says only whether the token passes its service switch: 403
 * means not enabled, 404 for a route means the server has no such service, anything else means enabled. Nothing
 * here is charged (credits are taken after validation). (The probes ran beside every ping, seven 400s in the
 * browser's console at each sign-in, h260.)
 */
const probes: { service: string; method: string; path: string; body?: unknown }[] = [
  { service: 'image_matching', method: 'GET', path: '/image_matching/v2/ping' },
  { service: 'visual_search', method: 'GET', path: '/similarity/photos/v2/ping' },
  { service: 'text_search', method: 'POST', path: '/similarity/text/photos/v2/text', body: {} },
  { service: 'requests', method: 'GET', path: '/account/v2/request/?page_size=1' },
  { service: 'collectibles', method: 'POST', path: '/collectibles/v2/tcg_id', body: {} },
  { service: 'descriptor', method: 'POST', path: '/photo/v2/descriptor', body: {} },
  { service: 'identity', method: 'POST', path: '/identity/v2/face', body: {} },
];

export function enabledFrom(err: unknown): boolean | null {
  if (!(err instanceof ApiError)) return true;
  if (err.status === 403) return false;
  if (err.status === 401 || err.status === 0) return false;
  // A route the server lacks answers the generic not-found; a missing collection names itself.
  if (err.status === 404 && (err.code === 'not_found' || err.code === '404')) return null;
  return true;
}

interface Ping {
  account: string;
  workspace: string;
  credits: number;
  /** Since 2026-12-04; a server before it leaves the probes to say. */
  services?: Record<string, boolean>;
}

export async function loadAccount(token: string): Promise<AccountInfo> {
  const services: Record<string, boolean | null> = {};
  let ping: Ping | null = null;
  try {
    ping = await call<Ping>('GET', '/cardstream/v2/ping/', { token });
    services.cardstream = true;
  } catch (err) {
    // A token the server does not know stops sign-in here; a disabled card sessions service does not.
    if (err instanceof ApiError && (err.status === 401 || err.status === 0)) throw err;
    // A chosen workspace the account does not own is a 404 like a missing session (docs/api-decisions.md).
    if (err instanceof ApiError && err.status === 404 && storedWorkspace()) throw err;
    services.cardstream = enabledFrom(err);
  }
  if (ping?.services) {
    for (const p of probes) services[p.service] = Object.hasOwn(ping.services, p.service) ? ping.services[p.service]! : null;
  } else {
    await Promise.all(
      probes.map(async (p) => {
        try {
          await call(p.method, p.path, { token, body: p.body });
          services[p.service] = true;
        } catch (err) {
          services[p.service] = enabledFrom(err);
        }
      }),
    );
  }
  return { account: ping?.account ?? null, workspace: ping?.workspace ?? null, credits: ping?.credits ?? null, services };
}

/** Credits change with priced calls; only card sessions' ping reports them. */
export async function refreshCredits(): Promise<number | null> {
  try {
    return (await call<Ping>('GET', '/cardstream/v2/ping/')).credits;
  } catch {
    return null;
  }
}
