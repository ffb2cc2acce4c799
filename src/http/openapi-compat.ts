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
