/**
 * The media types a request body is read as JSON under: `application/json`, and a `+json` type (RFC 6839:
 * `application/merge-patch+json`, `application/vnd.api+json`; a 415 until h264). One test for the parser (app.ts) and
 * the `Expect: 100-continue` check made before the body is asked for (expect-continue.ts; h268: it still said 415).
 */
export const plusJsonType = /^application\/[\w.-]+\+json(?:\s*;|$)/i;

/** Whether a Content-Type header names JSON. */
export const isJsonType = (header: string | undefined): boolean => {
  const type = String(header ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || plusJsonType.test(type);
};
