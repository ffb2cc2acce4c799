/**
 * docs/api-decisions.md, "Types": optional fields accept `null` as "not given". Clients built on
 * typed models send every optional field, unset ones as null (`"k": null`); a body schema's
 * optional, non-nullable properties are therefore removed when null, before validation, at every
 * level the schema declares. Values the schema does not declare (a record's own attributes) are
 * the client's data and are never touched.
 */
import { emptiedFields, type WithEmptied } from '../util/emptied-fields.ts';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  nullable?: boolean;
  /** An empty string is "not given" too (an image field a typed client sends as ""). */
  'x-empty-is-absent'?: boolean;
  /**
   * `null` is the client's value, not "not given" (an update's `_url: null` removes the stored link), unless one of
   * these sibling keys is sent too: a typed client sends every image field, unset ones as null (h262).
   */
  'x-null-is-value-unless'?: string[];
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// a union lets null through when one of its branches does (`Type.Union([Type.String(), Type.Null()])`)
const allowsNull = (s: Schema): boolean => s.nullable === true || s['x-null-is-value-unless'] !== undefined || s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(allowsNull);

export function dropNullOptionals(schema: unknown, value: unknown, depth = 0): void {
  if (depth > 16 || !isObject(schema)) return;
  const s = schema as Schema;
  for (const part of s.allOf ?? []) dropNullOptionals(part, value, depth + 1);
  if (Array.isArray(value) && s.items) {
    for (const v of value) dropNullOptionals(s.items, v, depth + 1);
    return;
  }
  if (!isObject(value) || !s.properties) return;
  const required = new Set(s.required ?? []);
  for (const [key, prop] of Object.entries(s.properties)) {
    if (!(key in value)) continue;
    if (value[key] === null || (value[key] === '' && prop['x-empty-is-absent'] === true)) {
      const typedNoise = value[key] === null && (prop['x-null-is-value-unless'] ?? []).some((k) => k in value);
      if (!required.has(key) && (value[key] === '' || !allowsNull(prop) || typedNoise)) {
        if (value[key] === '') ((value as WithEmptied)[emptiedFields] ??= []).push(key);
        delete value[key];
      }
    } else dropNullOptionals(prop, value[key], depth + 1);
  }
}
