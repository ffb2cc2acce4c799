/**
 * Dotted field paths in a record (`meta.color`), read as the filters read them (docs/filters.md):
 * a key holding the whole dotted name wins; otherwise each part is an own key of an object, and
 * an array on the way applies the rest of the path to each of its objects (MongoDB's projection).
 */

const own = (o: unknown, k: string): o is Record<string, unknown> => o !== null && typeof o === 'object' && !Array.isArray(o) && Object.hasOwn(o, k);

/** What `fields_to_return` keeps of `value` along `parts`, or undefined where the path finds nothing. */
function pick(value: unknown, parts: readonly string[]): unknown {
  if (parts.length === 0) return value;
  if (Array.isArray(value)) {
    const kept = value.filter((v) => v !== null && typeof v === 'object').map((v) => pick(v, parts)).filter((v) => v !== undefined);
    return kept;
  }
  const [head, ...rest] = parts as [string, ...string[]];
  if (!own(value, head)) return undefined;
  const inner = pick(value[head], rest);
  return inner === undefined ? undefined : { [head]: inner };
}

/** Merges two picks of one record (`a.b` and `a.c` both under `a`). */
function merge(into: Record<string, unknown>, add: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(add)) {
    const have = into[k];
    if (Array.isArray(have) && Array.isArray(v)) {
      // picks of one array are element by element, of the same elements in the same order
      into[k] = have.map((h, i) => {
        const o = { ...(h as Record<string, unknown>) };
        merge(o, (v[i] ?? {}) as Record<string, unknown>);
        return o;
      });
    } else if (have !== null && typeof have === 'object' && !Array.isArray(have) && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = { ...(have as Record<string, unknown>) };
      merge(o, v as Record<string, unknown>);
      into[k] = o;
    } else {
      into[k] = v;
    }
  }
}

/** The record's fields named by `fields` (top-level or dotted), nested as in the record. */
export function projectPaths(data: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (Object.hasOwn(data, f)) {
      merge(out, { [f]: data[f] });
      continue;
    }
    if (!f.includes('.')) continue;
    const got = pick(data, f.split('.'));
    if (got !== undefined && !(Array.isArray(got) && got.length === 0)) merge(out, got as Record<string, unknown>);
  }
  return out;
}

/** One value at a dotted path (objects only: a product id inside a list would name several products), or undefined. */
export function valueAtPath(data: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(data, path)) return data[path];
  if (!path.includes('.')) return undefined;
  let at: unknown = data;
  for (const part of path.split('.')) {
    if (!own(at, part)) return undefined;
    at = at[part];
  }
  return at;
}

/** Levels a record may nest, itself the first: a body nests 32, and a record stands at its third (`{"records": [{…}]}`). */
export const maxRecordDepth = 30;

/** Levels of objects and arrays in a value (a scalar 0), stopping once past the record's limit. */
function depthOf(v: unknown, limit = maxRecordDepth + 1): number {
  if (v === null || typeof v !== 'object' || limit <= 0) return 0;
  let deepest = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) deepest = Math.max(deepest, depthOf(x, limit - 1));
  return 1 + deepest;
}

/** What a value along a path is, for a message. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** An own key written as data, never as the object's prototype (`__proto__`). */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/**
 * An update's dotted name (`meta.color`) sets that part of a nested field, as MongoDB's `$set` does, or removes it
 * when the value is null (`$unset`); a field whose own name holds the dots is set as it is, as `projectPaths` reads it.
 * Objects along the path are copied, never changed in place, and made where missing. Returns why it cannot be set.
 */
/**
 * Two names of one update where one is a path inside the other (`cond` and `cond.wear`, or `a.b` and `a.b.c`): which
 * would win depends on their order in the body, so neither is applied (MongoDB's "would create a conflict").
 * `paths` are the names set as paths; every name of the record can hold one of them.
 */
export function pathConflict(names: readonly string[], paths: readonly string[]): string | undefined {
  const sent = new Set(names);
  for (const path of paths) {
    const parts = path.split('.');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('.');
      if (sent.has(parent)) {
        const short = (n: string) => (n.length > 80 ? `${n.slice(0, 80)}…` : n);
        return `${short(path)} and ${short(parent)}: one names a field inside the other, and which would win depends on their order; send the whole ${short(parent)}, or its parts alone`;
      }
    }
  }
  return undefined;
}

export function setPath(data: Record<string, unknown>, path: string, value: unknown): string | undefined {
  if (Object.hasOwn(data, path) || !path.includes('.')) {
    if (value === null) delete data[path];
    else put(data, path, value);
    return undefined;
  }
  const parts = path.split('.');
  const named = path.length > 80 ? `${path.slice(0, 80)}…` : path;
  if (parts.some((p) => p === '')) return `${named}: a dotted field name needs a name between its dots`;
  // as the body's own keys are refused (docs/api-decisions.md): a client merging the record naively would take them
  if (parts.some((p, i) => p === '__proto__' || (p === 'constructor' && parts[i + 1] === 'prototype'))) return `${named}: "__proto__", or "constructor" holding "prototype", is not accepted as a field name`;
  // a record read back must be a body that can be sent again (32 levels, the record itself at the third)
  if (parts.length + depthOf(value) > maxRecordDepth) return `${named}: the record would nest deeper than ${maxRecordDepth} levels, more than a request body may carry`;
  let at = data;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const next = Object.hasOwn(at, part) ? at[part] : undefined;
    if (next === undefined) {
      if (value === null) return undefined; // nothing there to remove
      const made: Record<string, unknown> = {};
      put(at, part, made);
      at = made;
    } else if (next !== null && typeof next === 'object' && !Array.isArray(next)) {
      const copy = { ...(next as Record<string, unknown>) };
      put(at, part, copy);
      at = copy;
    } else {
      if (value === null) return undefined;
      return `${path}: ${parts.slice(0, i + 1).join('.')} is ${kindOf(next)}, not an object, so ${parts.slice(i + 1).join('.')} cannot be set in it`;
    }
  }
  const last = parts[parts.length - 1]!;
  if (value === null) delete at[last];
  else put(at, last, value);
  return undefined;
}
