/**
 * JSON Schema keywords the route schemas validate with that OpenAPI 3.0's Schema Object lacks: a
 * strict 3.0 validator refuses the document over them, so the document carries them as `x-`
 * extensions (the request is still validated by them).
 */
const NOT_IN_OAS30 = new Set(['propertyNames']);

/** The document with those keywords renamed `x-<keyword>`, everywhere but as a property's name. */
export function oas30Keywords<T>(doc: T): T {
  const walk = (node: unknown, namesHere: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      // the keys of `properties` (and of the document's maps of paths and schemas) are names, not keywords
      const key = !namesHere && NOT_IN_OAS30.has(k) ? `x-${k}` : k;
      out[key] = walk(v, k === 'properties' || k === 'schemas' || k === 'paths');
    }
    return out;
  };
  return walk(doc, true) as T;
}

/**
 * The `collection-id` header as collection routes need it: required. The routes leave it optional
 * to their schemas so that a missing one is their own 400 `missing_collection_id` (not a schema
 * error); the document said optional, and a generated client let callers leave it out.
 */
export function requiredCollectionHeader<T>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, { parameters?: { in?: string; name?: string; required?: boolean; description?: string }[] }>> }).paths ?? {};
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops)) {
      for (const p of op?.parameters ?? []) {
        if (p.in !== 'header' || p.name !== 'collection-id') continue;
        p.required = true;
        p.description ??= "The collection's id (a missing one is a 400 `missing_collection_id`).";
      }
    }
  }
  return doc;
}

type Responses = Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }>;

/**
 * What any operation may answer whatever its schema says: 500 (a fault, its detail hiding
 * internals) and 503 (the database away, storage full or not writable, the server busy or
 * stopping), in the error shape the operation's other errors use; and the `Retry-After` header
 * every 429 and 503 carries. A generated client met them as "unexpected status" (card sessions,
 * asynchronous requests and image matching declared neither).
 */
export function serverErrors<T>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, { responses?: Responses }>> }).paths ?? {};
  const retryAfter = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'string' } } };
  for (const [path, ops] of Object.entries(paths)) {
    if (path.startsWith('/media/')) {
      // a link followed as given: its 400 (a key that does not decode, a parameter given twice), 405, 500 and 503 are
      // the house error shape (h167: only 200 and 404 were declared)
      for (const op of Object.values(ops)) if (op?.responses) op.responses.default ??= { description: 'Any other error, in the error shape (`code` says which: docs/api-decisions.md, "Error codes")', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
      continue;
    }
    for (const [method, op] of Object.entries(ops)) {
      const responses = op?.responses;
      if (!responses) continue;
      // the error shape this operation's declared errors use (a search envelope's, or the house one)
      // (a 401's or 404's first: a 400 may also stand for a batch whose every record failed)
      const shape = ['401', '404', '403'].map((c) => responses[c]?.content).find(Boolean) ?? Object.entries(responses).find(([code]) => Number(code) >= 400)?.[1]?.content ?? { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
      // every operation that reads a body may meet a body that is no JSON, too large or of another type (h231: the
      // session's PATCH, close/reopen, calls and the webhook resend declared none of them)
      if (['post', 'put', 'patch'].includes(method)) {
        responses['400'] ??= { description: 'The request is not valid: its body is no JSON (`invalid_json`) or does not fit the schema (`invalid_request`)', content: shape };
        responses['413'] ??= { description: 'The body is larger than the server takes (`body_too_large`)', content: shape };
        responses['415'] ??= { description: 'The body is not JSON (`unsupported_media_type`), or sent compressed', content: shape };
      }
      for (const code of ['500', '503']) responses[code] ??= { description: code === '500' ? 'Internal error (the detail quotes the request id; the log has the rest)' : 'Unavailable for now: the database, the storage, the server busy or stopping; retry after Retry-After', content: shape };
      // a query image whose processing ran out of time is 504 `vision_timeout` (h91: answered, not declared), on the
      // methods that search by an image, under every base (the /photo/search/v2 alias too, h98); inserts answer a
      // record's timeout in that record
      if (/\/(visualKNN|visualTagsKNN|visualKNNMulti|visualTagsKNNMulti|range|nearDuplicates|detectKNN)$/.test(path)) {
        responses['504'] ??= { description: 'The image took longer than the server allows (LOUPE_VISION_TIMEOUT_MS): `vision_timeout`; a retry may succeed', content: shape };
      }
      // what the HTTP layer may answer any operation (405 with Allow, 431, a URL that does not decode, a query
      // parameter given twice), in the same shape: a generated client met them as "unexpected status"
      responses.default ??= { description: 'Any other error, in the error shape (`code` says which: docs/api-decisions.md, "Error codes")', content: shape };
      for (const code of ['429', '503']) if (responses[code]) responses[code]!.headers = { ...retryAfter, ...(responses[code]!.headers ?? {}) };
    }
  }
  return doc;
}

/**
 * The image and id fields of request records typed in the document. The route schemas leave them untyped so that a
 * field of the wrong type is that record's own 400 rather than the whole request's; the document said nothing of
 * their type, and generated clients made them `unknown` / `Any?` (h91).
 */
export function typedRecordFields<T>(doc: T): T {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const props = (node as { properties?: Record<string, Record<string, unknown>> }).properties;
    if (props && typeof props === 'object') {
      for (const [name, field] of Object.entries(props)) {
        if (!field || typeof field !== 'object' || 'type' in field || '$ref' in field || 'oneOf' in field || 'anyOf' in field) continue;
        // a field typed per record by its service (a wrong one is that record's 400): documented with the type it takes
        const documented = field['x-document-as'];
        if (documented && typeof documented === 'object') {
          delete field['x-document-as'];
          Object.assign(field, documented);
          continue;
        }
        if (name === '_url' || name === '_base64' || name === '_file') Object.assign(field, { type: 'string' }, field['x-empty-is-absent'] ? { nullable: true } : {});
        else if (name === '_id' && /or an integer/.test(String(field.description ?? ''))) field.oneOf = [{ type: 'string', minLength: 1, maxLength: 255 }, { type: 'integer' }];
      }
    }
    for (const v of Object.values(node)) walk(v);
  };
  walk((doc as { paths?: unknown }).paths);
  return doc;
}

/**
 * `?workspace=` where the server reads it: every operation a token calls takes it (docs/api-decisions.md, "Workspaces"), and the
 * document declared it on card sessions and requests only, so a typed client could not send it elsewhere (h91).
 */
export function workspaceParameter<T>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, { security?: unknown[]; parameters?: { in?: string; name?: string }[] }>> }).paths ?? {};
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops)) {
      if (!op || typeof op !== 'object' || !op.security?.length) continue;
      const params = (op.parameters ??= []);
      if (params.some((p) => p.in === 'query' && p.name === 'workspace')) continue;
      params.push({ in: 'query', name: 'workspace', required: false, schema: { type: 'string' }, description: "Workspace id (UUID); the token's default workspace when absent." } as { in: string; name: string });
    }
  }
  return doc;
}

/**
 * An `operationId` for every operation, from its method and path (`post /similarity/photos/v2/insert`
 * → `postSimilarityPhotosV2Insert`): generators named methods from paths without one, near-identical
 * across the eight collection bases.
 */
export function operationIds<T>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, { operationId?: string }>> }).paths ?? {};
  const seen = new Set<string>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op || typeof op !== 'object' || op.operationId) continue;
      const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1));
      let id = `${method}${words.join('')}`;
      // `/session/` and `/session` are two paths of one name
      for (let n = 2; seen.has(id); n++) id = `${method}${words.join('')}${n}`;
      seen.add(id);
      op.operationId = id;
    }
  }
  return doc;
}

// an integer `_id` is stored and answered as its decimal text (h91: the document said "or an integer")
const anyId = { type: 'string', description: 'The record\'s `_id`, as text (one inserted as an integer comes back as its decimal digits).' };
// a record not taken echoes the `_id` as the client sent it, an integer as an integer (h98)
// any JSON value: a record skipped for its `_id` (1.5, true, an object) is named by the `_id` it was sent with (h204: a
// generated client's strict oneOf decoding lost the whole 206/211 answer)
const sentId = { description: 'The record\'s `_id` as it was sent: a string or an integer, or, for a record skipped because its `_id` is of another type, that value.' };
// a fashion or home-decor item found in an image (spec 2 §2, "Detected object"; h351: sent, not declared)
const detectedItem = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    id: { type: 'string' },
    prob: { type: 'number' },
    bound_box: { type: 'array', items: { type: 'number' }, description: '`[xmin, ymin, xmax, ymax]` in pixels.' },
    area: { type: 'number' },
    category_source: { type: 'string', description: 'Where its categories came from (`detector`, `neighbours`, or the record).' },
    category_filter: { type: 'boolean', description: 'A query item: whether the search kept to its `Top Category` and `Category`.' },
    'Top Category': { type: 'string' },
    Category: { type: 'string' },
    _tags: { type: 'object', additionalProperties: true },
    _tags_simple: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: true,
};
const items = { type: 'array', items: detectedItem, description: 'Fashion and home decor: the items found in the image.' };
// the fields the server adds to a stored record (spec 2 §2), beside the record's own
const answerRecord = {
  type: 'object',
  description: 'A stored record: `_id` and the fields `fields_to_return` asked for.',
  properties: { _id: anyId, _objects: items, _tags_simple: { type: 'array', items: { type: 'string' } }, 'Top Category': { type: 'string' }, Category: { type: 'string' } },
  additionalProperties: true,
};
const skippedRecord = {
  type: 'object',
  description: 'A record not taken: its `_id` (when it had one) and `_reason.status`, the record\'s own code and text.',
  properties: {
    _id: sentId,
    _reason: {
      type: 'object',
      properties: {
        status: { type: 'object', properties: { code: { type: 'integer' }, text: { type: 'string' }, request_id: { type: 'string', description: "The request's id, as the log's lines carry it (h167: sent, not declared)" } } },
        // spec 2, nearDupsInsert: a near duplicate names the stored records it is near (h351: sent, not declared)
        answer_records: { type: 'array', items: answerRecord, description: 'nearDupsInsert: the stored records this one is a near duplicate of.' },
        answer_distances: { type: 'array', items: { type: 'number' }, description: 'nearDupsInsert: their distances, in their order.' },
        query_index: { type: 'integer', description: 'visualKNNMulti, visualTagsKNNMulti: the place in `query_records` of the query skipped.' },
      },
      additionalProperties: true,
    },
  },
  additionalProperties: true,
};
const records = { type: 'array', items: answerRecord };
const skipped = { type: 'array', items: skippedRecord };
const count = { type: 'integer' };
const distances = { type: 'array', items: { type: 'number' }, description: 'One per answer record, in its order: lower is closer.' };
// what the server adds to a query it echoes (h351: sent, not declared; the query's own fields come back as sent)
const queryRead = {
  _width: { type: 'integer', description: 'A query image: its width.' },
  _height: { type: 'integer' },
  _objects: items,
};
const queryRecords = { type: 'array', items: { type: 'object', properties: queryRead, additionalProperties: true }, description: 'The query as read: its `_id` or image size, `_objects` where the collection detects items.' };
const knn = { query_records: queryRecords, answer_records: records, answer_distances: distances, answer_count: count, skipped_records: skipped };
// text search's echo of its query (docs/api-decisions.md, "Text search")
const textQuery = {
  _text_engine: { type: 'string', enum: ['keyword', 'clip'], description: 'The engine that answered.' },
  _query_language: { type: 'string', description: 'The language read in `_text_data` (ISO 639-1, or `simple`).' },
  _unmatched_terms: { type: 'array', items: { type: 'string' }, description: 'Object or garment words no record shows nor names.' },
  _unread_terms: { type: 'array', items: { type: 'string' }, description: 'Words the engine could not read.' },
};
const textSearchState = {
  type: 'object',
  description: "The keyword engine's progress over the collection's records (not custom collections).",
  properties: { engine: { type: 'string' }, seen: count, pending: count, no_image: count, failed: count, records: count, retokenising: count },
  additionalProperties: true,
};
const written = { answer_records: records, skipped_records: skipped, answer_count: count };

/** Each collection method's own answer fields (spec 2 §4, and docs/api-decisions.md where it shows none). */
const answerFields: Record<string, Record<string, unknown>> = {
  ping: { info: { type: 'string', description: 'The collection, its record count and index, and (not custom collections) its text search.' }, text_search: textSearchState },
  insert: written,
  nearDupsInsert: written,
  delete: written,
  get: written,
  update: written,
  find: { answer_records: records, answer_count: count },
  random: { answer_records: records, answer_count: count },
  allRecords: { answer_records: records, answer_count: count, page: count, size: count, next: { type: 'string', nullable: true, description: 'The next page\'s URL; null on the last.' } },
  getRecordCount: { count },
  deleteByFilter: { deleted_count: count },
  visualKNN: knn,
  visualTagsKNN: knn,
  visualKNNMulti: knn,
  visualTagsKNNMulti: knn,
  range: knn,
  nearDuplicates: knn,
  text: { ...knn, query_records: { ...queryRecords, items: { type: 'object', properties: textQuery, additionalProperties: true } } },
  detectKNN: {
    query_records: queryRecords,
    answer_objects: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, id: { type: 'string' }, prob: { type: 'number' }, bound_box: { type: 'array', items: { type: 'number' } }, answer_records: records, answer_distances: distances, answer_count: count } }, description: 'One per detected object; absent (and `answer_records`, `answer_distances` given for the whole image) when none is detected.' },
    answer_records: records,
    answer_distances: distances,
    answer_count: count,
  },
  allNearDupPairs: { answer_pairs: { type: 'array', items: { type: 'object', properties: { _id_a: anyId, _id_b: anyId, distance: { type: 'number' } } } }, answer_count: count },
};

/**
 * The success answers of collection methods declared field by field in the document (the routes
 * declare the envelope alone, so the serializer passes every field as it is): a generated client
 * saw `answer_records`, `answer_distances`, `skipped_records` as untyped extras.
 */
export function collectionAnswerFields<T>(doc: T): T {
  const d = doc as { paths?: Record<string, Record<string, { responses?: Responses }>>; components?: { schemas?: Record<string, unknown> } };
  const envelope = '#/components/schemas/SearchEnvelope';
  const schemas = ((d.components ??= {}).schemas ??= {});
  for (const [path, ops] of Object.entries(d.paths ?? {})) {
    const method = /\/v2\/([A-Za-z]+)$/.exec(path)?.[1];
    const fields = method ? answerFields[method] : undefined;
    if (!method || !fields) continue;
    // one named schema a method, shared by its paths (eight collection bases, text search's five)
    const name = `${method[0]!.toUpperCase()}${method.slice(1)}Answer`;
    schemas[name] ??= { title: name, allOf: [{ $ref: envelope }, { type: 'object', properties: fields }] };
    for (const op of Object.values(ops)) {
      for (const [code, response] of Object.entries(op?.responses ?? {})) {
        const json = response.content?.['application/json'];
        const schema = json?.schema as { $ref?: string; description?: string } | undefined;
        // a $ref's siblings are ignored in OpenAPI 3.0: the status's meaning stays on the response
        if (schema?.$ref === envelope) json!.schema = { $ref: `#/components/schemas/${name}` };
        // a batch none of whose records was taken (insert 400/411/412, get/update/delete 404) is the method's own answer,
        // `skipped_records` saying why for each: typed as the method's answer, beside the request error it may also be
        // (h351: a bare envelope, and a generated client saw no `skipped_records` where it matters most)
        const alternatives = (schema as { anyOf?: { $ref?: string }[] } | undefined)?.anyOf;
        if (Number(code) >= 400 && alternatives) for (const a of alternatives) if (a.$ref === envelope) a.$ref = `#/components/schemas/${name}`;
      }
    }
  }
  return doc;
}

/**
 * The operations the server runs without a body (its schema requiring nothing, and the service asking for nothing):
 * @fastify/swagger marks every body required, and a generated client had to invent `{}` for `allRecords`' next page, a
 * session create or a webhook resend (h204). Searches and corrections require nothing in their schemas either, but
 * answer 400 without a query or a change, so their bodies stay required.
 */
const runsWithoutBody = /\/(?:find|getRecordCount|random|allRecords|allNearDupPairs|webhook)$|^\/cardstream\/v2\/session\/$/;

export function optionalBodies<T>(doc: T): T {
  const d = doc as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string; required?: string[] } }> } }>>; components?: { schemas?: Record<string, { required?: string[] }> } };
  const resolve = (schema: { $ref?: string; required?: string[] } | undefined) => (schema?.$ref ? d.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] : schema);
  for (const [route, ops] of Object.entries(d.paths ?? {})) {
    if (!runsWithoutBody.test(route)) continue;
    for (const op of Object.values(ops)) {
      const body = op?.requestBody;
      if (!body?.content) continue;
      const schemas = Object.values(body.content).map((c) => resolve(c.schema));
      if (schemas.every((sc) => sc !== undefined && !(sc.required?.length))) body.required = false;
    }
  }
  return doc;
}

/**
 * The query-image methods need a query: `query_record`, or a one-item `records` (routes/collections.ts). Their schemas
 * make both optional, as either may come, so a generated client typed the query as optional and met a 400 "query_record
 * is required" (h231). Said in the document with `anyOf`, which the server enforces itself.
 */
export function queryRequired<T>(doc: T): T {
  type Schema = { $ref?: string; properties?: Record<string, unknown>; anyOf?: unknown[] };
  const d = doc as { paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>; components?: { schemas?: Record<string, Schema> } };
  for (const [route, ops] of Object.entries(d.paths ?? {})) {
    if (!/\/(visualKNN|visualTagsKNN|range|nearDuplicates|detectKNN)$/.test(route)) continue;
    for (const op of Object.values(ops)) {
      for (const media of Object.values(op?.requestBody?.content ?? {})) {
        const schema = media.schema?.$ref ? d.components?.schemas?.[media.schema.$ref.replace('#/components/schemas/', '')] : media.schema;
        if (schema?.properties?.query_record && schema.properties.records && !schema.anyOf) schema.anyOf = [{ required: ['query_record'] }, { required: ['records'] }];
      }
    }
  }
  return doc;
}
