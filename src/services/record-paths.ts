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
