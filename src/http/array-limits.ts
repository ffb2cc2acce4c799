import type { ErrorObject } from 'ajv';

interface Limited {
  path: string[];
  max: number;
}

/**
 * The arrays a body schema bounds with `maxItems`, reached through object properties. Checked before
 * the schema validates: Ajv checks every item of an array over its limit too, and in all-errors mode
 * (a card upload, which names every bad row) ten million empty rows made as many errors, whose
 * message string overflowed and ended the process.
 */
export function limitedArrays(schema: unknown, path: string[] = []): Limited[] {
  const s = schema as { type?: unknown; maxItems?: unknown; properties?: Record<string, unknown>; anyOf?: unknown[] } | null;
  if (!s || typeof s !== 'object') return [];
  const out: Limited[] = [];
  if (typeof s.maxItems === 'number') out.push({ path, max: s.maxItems });
  for (const [k, v] of Object.entries(s.properties ?? {})) out.push(...limitedArrays(v, [...path, k]));
  // a union (anyOf) of an array with other types (no schema here unites arrays of different limits at one place)
  for (const v of s.anyOf ?? []) out.push(...limitedArrays(v, path));
  return out;
}

/** Where `arrayOverLimit` says a list is over its length: an array's own `maxItems` ('#/properties/…/maxItems' from Ajv) is not. */
const beforeItems = '#/maxItems';

/**
 * Whether the error is `arrayOverLimit`'s, made before any item was validated: an array nested in an item (a card's
 * 11 alternatives) is one item's problem, and the other items' rule errors are still looked for (h334).
 */
export function isListOverLimit(error: { keyword: string; schemaPath: string }): boolean {
  return error.keyword === 'maxItems' && error.schemaPath === beforeItems;
}

/** The first array of `data` over its limit, as Ajv would report it; null when none is. */
export function arrayOverLimit(limited: readonly Limited[], data: unknown): ErrorObject | null {
  for (const l of limited) {
    let at: unknown = data;
    for (const k of l.path) at = at && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[k] : undefined;
    if (Array.isArray(at) && at.length > l.max) {
      return {
        instancePath: l.path.map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''),
        schemaPath: beforeItems,
        keyword: 'maxItems',
        params: { limit: l.max, count: at.length },
        message: `must NOT have more than ${l.max} items (it has ${at.length})`,
      };
    }
  }
  return null;
}
