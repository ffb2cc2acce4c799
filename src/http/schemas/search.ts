import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.ts';

/** Shapes shared by the search-style services of spec document 2. */

export const ImageRecordInput = Type.Object(
  {
    _id: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Integer()])),
    _url: Type.Optional(Type.String({ maxLength: 4096, description: 'http(s) URL of a PNG, JPEG, TIFF, WebP or GIF image.' })),
    _base64: Type.Optional(Type.String({ description: 'Base64 image, with or without a `data:image/<type>;base64,` prefix.' })),
    _file: Type.Optional(Type.String({ maxLength: 1024, description: 'Path inside the server\'s file folder (LOUPE_FILE_ROOT).' })),
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

/** Error responses of search-style routes, by reference to the one shared schema (registered in app.ts). */
export const searchErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, Type.Ref(SearchError)]));
