import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { arrayOverLimit, limitedArrays } from './array-limits.ts';
import { dropNullOptionals } from './null-optional.ts';
import { placeNonObjectRecords } from '../util/not-a-record.ts';
import { allErrorsMark } from './schemas/common.ts';

// A route's validator and serializer are compiled once per process, for every app built in it: compiling the routes'
// schemas cost 2–4 s of CPU per app, and the test suite builds hundreds (half its setup time). A schema is known by
// its JSON (every app builds its own schema objects); a compiled function keeps no state between calls.
type Validator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };
const compiledValidators = new Map<string, Validator>();
const compiledSerializers = new Map<string, (data: unknown) => string>();

/**
 * Bodies are validated strictly (a string is never turned into a number); query strings and
 * path parameters are text by nature, so they are coerced. Each app has its Ajv instances (a schema's `$id` is one
 * per instance); the validators they compile are shared (above).
 */
export function validators() {
  const make = (coerce: boolean, allErrors = false) => {
    const ajv = new Ajv({ coerceTypes: coerce, useDefaults: true, removeAdditional: false, allErrors, strict: false });
    addFormats.default(ajv);
    return ajv;
  };
  const body = make(false);
  const bodyAllErrors = make(false, true);
  const text = make(true);
  const compile = (schema: object, httpPart: string | undefined): Validator => {
    if (httpPart === 'querystring') return withQueryBooleans(schema, text.compile(schema));
    if (httpPart !== 'body') return text.compile(schema);
    const validate = ((schema as Record<string, unknown>)[allErrorsMark] === true ? bodyAllErrors : body).compile(schema);
    const limited = limitedArrays(schema);
    // Optional fields sent as null are "not given" (docs/api-decisions.md, Types).
    const checked = (data: unknown) => {
      const over = arrayOverLimit(limited, data);
      if (over) {
        checked.errors = [over];
        return false;
      }
      // a record that is no object is its own 400 (not-a-record.ts), before the schema would refuse the whole body
      placeNonObjectRecords(schema, data);
      dropNullOptionals(schema, data);
      const ok = validate(data);
      checked.errors = validate.errors;
      return ok;
    };
    checked.errors = validate.errors;
    return checked;
  };
  return ({ schema, httpPart }: { schema: object; httpPart?: string }): Validator => {
    const key = `${httpPart ?? ''}\u0000${JSON.stringify(schema)}`;
    let compiled = compiledValidators.get(key);
    if (!compiled) compiledValidators.set(key, (compiled = compile(schema, httpPart)));
    return compiled;
  };
}

/**
 * A query string's booleans as clients spell them: Ajv coerces only `true` and `false`, while Python's
 * `requests` sends `True` and many clients `1`; any case of true/false, 1/0, yes/no, on/off is taken. An empty one is
 * not given, as an empty `page=` is (`only_ids=` was a 400 "must be boolean", h220).
 */
function withQueryBooleans(schema: object, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const flags = Object.keys(properties).filter((k) => properties[k]!.type === 'boolean');
  if (flags.length === 0) return validate;
  const spelled: Record<string, boolean> = { true: true, '1': true, yes: true, on: true, false: false, '0': false, no: false, off: false };
  const checked = ((data: unknown) => {
    if (data && typeof data === 'object') {
      const query = data as Record<string, unknown>;
      for (const k of flags) {
        const v = query[k];
        if (typeof v !== 'string') continue;
        if (v.trim() === '') delete query[k];
        else if (Object.hasOwn(spelled, v.trim().toLowerCase())) query[k] = spelled[v.trim().toLowerCase()];
      }
    }
    const ok = validate(data);
    checked.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return checked;
}

/** Fastify's own serializers (fast-json-stringify), each compiled once per process (above). */
export function cachedSerializers(externalSchemas: unknown, serializerOpts: unknown) {
  const build = SerializerSelector()(externalSchemas as never, serializerOpts as never);
  const context = JSON.stringify([externalSchemas, serializerOpts ?? null]);
  return (route: Parameters<typeof build>[0]) => {
    const key = `${context}\u0000${JSON.stringify(route.schema)}`;
    let serialize = compiledSerializers.get(key);
    if (!serialize) compiledSerializers.set(key, (serialize = build(route) as (data: unknown) => string));
    return serialize;
  };
}
