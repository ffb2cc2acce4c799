import { badRequest } from './errors.ts';

/**
 * Refuses a body's top-level names that are neither the endpoint's own nor among `alsoTaken`: a misspelt option
 * (`filters` for `filter`, `small_face` for `small_faces`, `webhook_url` for `webhook`) was ignored, and the answer
 * looked like one to the request the client meant (h273 for collections; h341 for the vision endpoints; h343 for
 * recognition and asynchronous submits).
 */
export function refuseUnknownParameters(endpoint: string, own: readonly string[], body: unknown, alsoTaken: readonly string[] = []): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const unknown = Object.keys(body).filter((k) => !own.includes(k) && !alsoTaken.includes(k));
  if (!unknown.length) return;
  const shown = unknown.slice(0, 5).map((k) => (k.length > 40 ? `${k.slice(0, 40)}…` : k));
  throw badRequest(`${endpoint} has no parameter ${shown.join(', ')}${unknown.length > 5 ? ` (and ${unknown.length - 5} more)` : ''}: it takes ${own.join(', ')} (docs/api-decisions.md).`, unknown.slice(0, 20).map((field) => ({ field, message: 'not a parameter of this method' })));
}
