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
    if (path.startsWith('/media/')) continue;
    for (const op of Object.values(ops)) {
      const responses = op?.responses;
      if (!responses) continue;
      // the error shape this operation's declared errors use (a search envelope's, or the house one)
      // (a 401's or 404's first: a 400 may also stand for a batch whose every record failed)
      const shape = ['401', '404', '403'].map((c) => responses[c]?.content).find(Boolean) ?? Object.entries(responses).find(([code]) => Number(code) >= 400)?.[1]?.content ?? { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
      for (const code of ['500', '503']) responses[code] ??= { description: code === '500' ? 'Internal error (the detail quotes the request id; the log has the rest)' : 'Unavailable for now: the database, the storage, the server busy or stopping; retry after Retry-After', content: shape };
      for (const code of ['429', '503']) if (responses[code]) responses[code]!.headers = { ...retryAfter, ...(responses[code]!.headers ?? {}) };
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
