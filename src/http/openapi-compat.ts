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
