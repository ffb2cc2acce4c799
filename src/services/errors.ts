/**
 * The one error type services raise. `code` is stable and documented (docs/api-decisions.md);
 * `detail` is a sentence a client may show to a person. The HTTP layer maps it to the response.
 */
export class ServiceError extends Error {
  readonly detail: string;
  readonly errors?: FieldError[];
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    const whole = wholeCharacters(detail);
    super(whole);
    this.name = 'ServiceError';
    this.detail = whole;
    if (errors) this.errors = errors.map((e) => ({ ...e, field: wholeCharacters(e.field), message: wholeCharacters(e.message) }));
  }
}

const halfPair = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text without half of a UTF-16 pair: a client's text quoted in a message is cut to a length in
 * code units (`slice(0, 40)`), which can split an emoji and leave a lone surrogate, which a strict
 * JSON parser refuses (bodies with one are refused on the way in, so only a cut makes one).
 */
export const wholeCharacters = (text: string): string => text.replace(halfPair, '');

export interface FieldError {
  field: string;
  message: string;
  row?: number;
}

export const notFound = (what: string): ServiceError => new ServiceError(404, 'not_found', `${what} not found.`);
export const badRequest = (detail: string, errors?: FieldError[]): ServiceError => new ServiceError(400, 'invalid_request', detail, errors);

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => uuidPattern.test(value);
