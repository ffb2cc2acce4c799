import { Type, type TSchema } from '@sinclair/typebox';
import { httpStatusOf } from '../envelope-status.ts';
import { StringEnum } from './common.ts';
import { RECORDS_ANSWERED_EACH } from '../../util/not-a-record.ts';

/** Shapes shared by the search-style services of spec document 2. */

export const ImageRecordInput = Type.Object(
  {
    // Checked per record by the services, not here: a record of the wrong form is that record's own 400, never the request's.
    _id: Type.Optional(Type.Unsafe<string | number>({ description: 'A string of 1 to 255 characters or an integer.' })),
    // "" is not given, as null is (a typed client sends the image field it does not use so): `x-empty-is-absent`, src/http/null-optional.ts
    _url: Type.Optional(Type.Unsafe<string>({ description: 'http(s) URL of a PNG, JPEG, TIFF, WebP or GIF image, at most 8192 characters (as asynchronous requests take). Empty or null: not given.', 'x-empty-is-absent': true })),
    _base64: Type.Optional(Type.Unsafe<string>({ description: 'Base64 image, with or without a `data:image/<type>;base64,` prefix. Empty or null: not given.', 'x-empty-is-absent': true })),
    _file: Type.Optional(Type.Unsafe<string>({ description: 'Path inside the server\'s file folder (LOUPE_FILE_ROOT), at most 1024 characters. Empty or null: not given.', 'x-empty-is-absent': true })),
  },
  { additionalProperties: true },
);

/**
 * A `records` list answered record by record: an item that is no object (`null`, a number, a list) is that record's own
 * 400 and the others are answered (src/util/not-a-record.ts; h333, h336: the schema refused the whole request). `records`
 * missing, of another type, empty or over `maxItems` is still the request's 400. `description` says where that 400 is.
 */
export const recordsAnsweredEach = <T extends TSchema>(item: T, maxItems: number, description: string) => Type.Array(item, { minItems: 1, maxItems, [RECORDS_ANSWERED_EACH]: true, description });

/** The description of an image endpoint's `records` so answered, each record with a `_status` of its own. */
export const eachWithStatus = (maxItems: number, more = '') => `At most ${maxItems}. A record that is not an object is answered with its own 400 \`_status\`${more}, the others read.`;

/**
 * An update's record: as an image record, but `_url: null` removes the stored link (spec 2, update: "a field set to
 * null is removed"; h251: it was dropped as "not given" and the link stayed). The vector stays; `""` is still not given.
 */
export const UpdateRecordInput = Type.Object(
  {
    _id: ImageRecordInput.properties._id,
    _url: Type.Optional(Type.Unsafe<string | null>({ description: 'http(s) URL of a new image (it replaces the vector), at most 8192 characters. `null` alone (no `_base64` or `_file` sent beside it, as a typed client sends every image field) removes the stored link and keeps the vector; empty: not given.', 'x-null-is-value-unless': ['_base64', '_file'], 'x-empty-is-absent': true })),
    _base64: ImageRecordInput.properties._base64,
    _file: ImageRecordInput.properties._file,
  },
  { additionalProperties: true },
);

export const EnvelopeStatus = Type.Object({
  code: Type.Integer(),
  text: Type.String(),
  request_id: Type.Optional(Type.String()),
  proc_id: Type.Optional(Type.String()),
});

export const Statistics = Type.Object({
  'processing time': Type.Number({ description: 'Seconds.' }),
  OperationTime: Type.Number({ description: 'Milliseconds.' }),
});

export const OutputRecord = Type.Object({}, { additionalProperties: true });

export const HashType = StringEnum(['bmh1', 'phash']);

/** The answer of a collection method: the envelope plus the method's own fields (docs/api-decisions.md). */
export const SearchEnvelope = Type.Object({ status: EnvelopeStatus, statistics: Statistics }, { additionalProperties: true, $id: 'SearchEnvelope', title: 'SearchEnvelope' });

/** Errors of search-style routes also carry the envelope's `status`, which their clients read. */
export const SearchError = Type.Object(
  {
    detail: Type.String(),
    code: Type.String(),
    status: Type.Optional(EnvelopeStatus),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'SearchError', title: 'SearchError' },
);

/** What a `status.code` means, by code: the answers a search-style route can give. */
export type Answers = Record<number, string>;

export const okOnly: Answers = { 200: 'OK' };

/** Requests over images sent in the body (image matching, descriptor, identity detection). */
export const imageAnswers: Answers = { 200: 'OK: every record succeeded', 300: 'MIXED_RESULT: some records failed (see each `_status`). A success: the records that could be done are answered, and the call is charged; the status is HTTP 300 as the API has always sent it (spec 2 §7), which many generated clients (fetch `ok`, axios) treat as an error: read its body as the 200\'s', 400: 'Error Loading Image: every record failed' };

/**
 * The responses of a search-style route (`config.envelope`): its answer `ok` under the HTTP status
 * of every `status.code` it can give (httpStatusOf: the code itself, 205 as 200), and the shared
 * error under `errors`. A status that is both (404: no record found, or no such collection) takes
 * either shape. Every answered status is listed so the serializer has a schema for it and the
 * OpenAPI document shows it.
 */
export function envelopeResponses(ok: TSchema, answers: Answers, errors: number[], mixedIsSuccess = false): Record<number, TSchema> {
  const byStatus = new Map<number, string[]>();
  for (const [code, meaning] of Object.entries(answers)) {
    const http = httpStatusOf(Number(code), mixedIsSuccess);
    byStatus.set(http, [...(byStatus.get(http) ?? []), http === Number(code) ? meaning : `status.code ${code} (sent as HTTP ${http}): ${meaning}`]);
  }
  const out: Record<number, TSchema> = {};
  for (const s of [...new Set([...byStatus.keys(), ...errors])].sort((a, b) => a - b)) {
    const meanings = byStatus.get(s);
    if (!meanings) out[s] = Type.Ref(SearchError);
    // a 5xx the answer gives (every record failed so) may also be a request that failed as a whole
    else if (!errors.includes(s) && s < 500) out[s] = { ...ok, description: meanings.join('; ') };
    else out[s] = Type.Union([Type.Ref(SearchError), ok], { description: `${meanings.join('; ')}; or a request error (\`detail\`, \`code\`)` });
  }
  return out;
}
