import type { CollectionRecord, StoredRecord } from '../../store/collection-store.ts';
import { ServiceError } from '../errors.ts';
import { projectPaths } from '../record-paths.ts';
import type { InputRecord } from '../vision-service.ts';

/**
 * The first field name sent, at any depth (dotted names part by part), that starts with `$`, as its path: MongoDB
 * refuses such names too (h273: stored, then no filter could find them).
 */
function dollarName(value: unknown, path = '', removals = false): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = dollarName(v, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    // an update's top-level null removes the field: the one way to be rid of a `$` name stored before h273 (h278)
    if (removals && !path && v === null) continue;
    const at = path ? `${path}.${k}` : k;
    if (k.split('.').some((part) => part.startsWith('$'))) return at.length > 80 ? `${at.slice(0, 80)}…` : at;
    const found = dollarName(v, at);
    if (found) return found;
  }
  return undefined;
}

export function dollarProblem(sent: Record<string, unknown>, removals = false): string | undefined {
  const name = dollarName(sent, '', removals);
  return name && `${name}: a field name starting with $ could be stored but no filter could name it ($ starts an operator); rename it`;
}

export type Fields = string[] | undefined;
export type Out = Record<string, unknown>;

/** A stored record as returned: `_id` always, then the requested fields (`*` = all). */
export function project(r: StoredRecord, fields: Fields, fallback: string[]): Out {
  // an empty list asks for no field but `_id` (which always comes); only an absent one takes the default
  const want = fields ?? fallback;
  if (want.includes('*')) {
    const { _id: _stored, ...rest } = r.data;
    return { _id: r.recordId, ...rest };
  }
  // `meta.color` returns `{meta: {color}}` as MongoDB does; `in` had read only top-level names (and inherited ones)
  return { _id: r.recordId, ...projectPaths(r.data, want.filter((f) => f !== '_id')) };
}

/** The tag field of each collection type (spec 2, visualTagsKNN). */
export const tagField = { photo: 'tags', product: '_tags_simple', custom: '_tags', fashion: '_tags_simple', homedecor: '_tags_simple' } as const;
export const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : []);
/** Absent, null, or a list of strings: what the spec's tag fields may hold. */
export const stringListOrNone = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.every((t) => typeof t === 'string'));
/** A query's tags; a tag field that is not a list of strings is refused, not read as no tags. */
export const tagsOf = (c: CollectionRecord, record: Record<string, unknown>) => {
  const field = tagField[c.type];
  const v = record[field];
  if (!stringListOrNone(v)) throw new ServiceError(400, 'invalid_request', `query_record.${field} must be an array of strings.`);
  return stringsOf(v);
};
export const recordTags = (c: CollectionRecord, r: StoredRecord) => stringsOf(r.data[tagField[c.type]]);

/** The attributes stored for a record: everything sent except the id and the image itself. */
export function attributes(record: InputRecord): Record<string, unknown> {
  const { _id: _i, _base64: _b, _url: url, _file: _f, ...rest } = record;
  // The URL is kept: clients show it; base64 data and server paths are not.
  return typeof url === 'string' ? { _url: url, ...rest } : rest;
}

/** What an `_id` must be, in every message that refuses one. */
export const ID_FORM = 'a string of 1 to 255 characters (counted in UTF-16 units, as JavaScript counts them: an emoji is 2) or an integer';

export function idOf(record: { _id?: unknown }): string | undefined {
  if (typeof record._id === 'string' && record._id.length > 0 && record._id.length <= 255) return record._id;
  if (typeof record._id === 'number' && Number.isSafeInteger(record._id)) return String(record._id);
  return undefined;
}

/** A skipped record's `_id` as it was sent: none when it sent none (it is not given one). */
export function sentId(record: { _id?: unknown }): { _id?: unknown } {
  return Object.hasOwn(record, '_id') ? { _id: record._id } : {};
}
