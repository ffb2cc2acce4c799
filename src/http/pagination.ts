import type { FastifyRequest } from 'fastify';
import type { Page } from '../services/card-session-service.ts';
import { baseUrlOf } from './base-url.ts';

/** Page envelope with absolute `next` and `previous` URLs that keep every other query parameter. */
export function pageEnvelope<T>(request: FastifyRequest, page: Page<T>, links: Record<string, string> = {}): { count: number; next: string | null; previous: string | null; results: T[] } {
  // the base's own path kept (`https://shop.example/loupe`): new URL(path, base) replaced it with the request's (h112)
  const url = new URL(`${baseUrlOf(request)}${request.url}`);
  const at = (n: number) => {
    const u = new URL(url);
    for (const [name, value] of Object.entries(links)) u.searchParams.set(name, value);
    u.searchParams.set('page', String(n));
    return u.toString();
  };
  const lastPage = Math.max(1, Math.ceil(page.count / page.pageSize));
  return {
    count: page.count,
    next: page.page < lastPage ? at(page.page + 1) : null,
    previous: page.page > 1 ? at(Math.min(page.page - 1, lastPage)) : null,
    results: page.results,
  };
}
