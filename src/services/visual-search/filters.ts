import type { CollectionQueries } from '../../index/collection-queries.ts';
import { FilterError } from '../../store/filters/filter-error.ts';
import { RegexWorkExhausted } from '../../store/filters/linear-regex.ts';
import { validateFilter } from '../../store/filters/mongo-filter.ts';
import { ServiceError } from '../errors.ts';

/**
 * An integer `_id` is stored as its decimal text (`idOf`), as `get` and `delete` read it: a filter
 * naming `_id` by the integer (`{"_id": 7}`, `$in: [7]`) means that text, not a number no record holds.
 * A range of numbers on `_id` (`{"_id": {"$gt": 4}}`) has no such text: no `_id` is a number, so it matched
 * nothing (and under `$not` every record) without a word, and decimal texts do not sort as numbers ("10" < "4"):
 * refused, saying so (h311).
 */
function idsAsStored(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(idsAsStored);
  if (filter === null || typeof filter !== 'object') return filter;
  const asText = (v: unknown): unknown => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v);
  const range = new Set(['$gt', '$gte', '$lt', '$lte']);
  const operand = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return asText(v);
    return Object.fromEntries(
      Object.entries(v).map(([op, x]) => {
        if (range.has(op) && typeof x === 'number') throw new FilterError(op, `_id is text (an integer _id is kept as its decimal string), so no _id is greater or less than the number ${x}; compare with a string, or list the ids with $in`, '_id');
        return [op, op === '$in' || op === '$nin' ? (Array.isArray(x) ? x.map(asText) : x) : op === '$eq' || op === '$ne' ? asText(x) : op === '$not' ? operand(x) : x];
      }),
    );
  };
  return Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, k === '_id' ? operand(v) : k === '$and' || k === '$or' || k === '$nor' ? idsAsStored(v) : v]));
}

/** The fields a filter names (dotted paths), through `$and`, `$or` and `$nor`; not those inside an operator's own document. */
export function filterFields(filter: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const walk = (f: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(f)) {
      if (key === '$and' || key === '$or' || key === '$nor') for (const sub of Array.isArray(value) ? value : []) walk(sub as Record<string, unknown>);
      else if (!key.startsWith('$')) out.add(key);
    }
  };
  walk(filter);
  return [...out];
}

export function checkedFilter(filter: unknown): Record<string, unknown> | undefined {
  if (filter === undefined || filter === null) return undefined;
  try {
    return validateFilter(idsAsStored(filter)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof FilterError) throw new ServiceError(400, 'invalid_filter', `Invalid filter: ${err.message}`);
    throw err;
  }
}

/**
 * The queries, with a filter that fails during a scan answered as the client's 400 like one that
 * fails validation: on the embedded backend a `$regex` can run out of its step budget over the
 * records (docs/filters.md), which only the scan finds out; or a 503 with a wait when the process's
 * regex work for now is used up (not the pattern's fault alone).
 */
export function filterFailuresAre400(queries: CollectionQueries): CollectionQueries {
  const rethrow = (err: unknown): never => {
    if (err instanceof RegexWorkExhausted) throw new ServiceError(503, 'busy', `Filter not run: ${err.message}`, undefined, { 'retry-after': String(err.retryAfterSeconds) });
    if (err instanceof FilterError) throw new ServiceError(400, 'invalid_filter', `Invalid filter: ${err.message}`);
    throw err;
  };
  return new Proxy(queries, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const out: unknown = value.apply(target, args);
        return out instanceof Promise ? out.catch(rethrow) : out;
      };
    },
  });
}

/** A filter that matches every record by its shape alone: `{}`, `{$and: [{}]}`, `{$or: [{}, …]}`, nested. */
export function matchesEverything(f: unknown): boolean {
  if (f === null || typeof f !== 'object' || Array.isArray(f)) return false;
  return Object.entries(f).every(([k, v]) => Array.isArray(v) && ((k === '$and' && v.every(matchesEverything)) || (k === '$or' && v.some(matchesEverything))));
}
