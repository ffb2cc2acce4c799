import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { printableAsciiPattern } from './patterns.ts';

/** A value that may also be JSON null. Uses the OpenAPI `nullable` keyword, which Ajv and the serializer both understand. */
export const Nullable = <T extends TSchema>(schema: T) =>
  // Ajv checks `enum` before `nullable` lets null through, so a nullable enum must list null itself.
  Type.Unsafe<Static<T> | null>({ ...schema, nullable: true, ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) });

/** A string from a fixed list, as a plain `enum` (so it can also be made nullable). */
export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const FieldErrorSchema = Type.Object({
  field: Type.String(),
  message: Type.String(),
  row: Type.Optional(Type.Integer()),
});

export const ErrorSchema = Type.Object(
  {
    detail: Type.String({ description: 'A sentence for people.' }),
    code: Type.String({ description: 'Stable machine-readable code; see docs/api-decisions.md.' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: 'Error', title: 'Error' },
);

/** Error responses by reference to the one shared schema (registered in app.ts), not a copy per status and route. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, Type.Ref(ErrorSchema)]));

/** A client's key for one create or submit, so that sending it again cannot make a second one (retries after a lost answer). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: printableAsciiPattern, description: 'Printable ASCII, no spaces, at most 255 characters.' })),
});

/** The header of an answer that replays an earlier call with the same `Idempotency-Key` (read by @fastify/swagger into the response's OpenAPI headers). */
export const replayedHeader = (what: string) => ({
  headers: { 'Idempotent-Replayed': { type: 'string', enum: ['true'], description: `Present when this answer is the replay of an earlier ${what} with the same Idempotency-Key and body: nothing new was made or charged.` } },
});

export const WorkspaceQuery = Type.Object({
  workspace: Type.Optional(Type.String({ description: 'Workspace id (UUID); the token\'s default workspace when absent.' })),
});

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
});

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    count: Type.Integer(),
    next: Nullable(Type.String({ format: 'uri' })),
    previous: Nullable(Type.String({ format: 'uri' })),
    results: Type.Array(item),
  });

export const AnyObject = Type.Object({}, { additionalProperties: true });

/**
 * Marks a body schema whose validation reports every error, not the first (a batch's rows): an
 * OpenAPI extension keyword, which the validator compiler in src/app.ts reads.
 */
export const allErrorsMark = 'x-all-errors';
