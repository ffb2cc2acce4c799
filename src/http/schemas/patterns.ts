/**
 * Patterns the schemas check, each with what it asks said in words: Ajv's own message quotes the regular expression
 * (`must match pattern "^(?:[Hh][Tt][Tt][Pp][Ss]?://.*)?$"`), which tells a client developer nothing (h310). The
 * error handler (src/http/errors.ts) answers the words.
 */

/** An `http://` or `https://` address (any case), or nothing: a card's marketplace link. */
export const webLinkPattern = '^(?:[Hh][Tt][Tt][Pp][Ss]?://.*)?$';

/** Printable ASCII without spaces: an `Idempotency-Key`. */
export const printableAsciiPattern = '^[\\x21-\\x7e]+$';

export const patternWords: ReadonlyMap<string, string> = new Map([
  [webLinkPattern, 'must be an http:// or https:// address, or empty'],
  [printableAsciiPattern, 'must be printable ASCII without spaces (the characters ! to ~)'],
]);
