/**
 * The one error type services raise. `code` is stable and documented (docs/api-decisions.md);
 * `detail` is a sentence a client may show to a person. The HTTP layer maps it to the response.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ServiceError';
  }
}

export interface FieldError {
  field: string;
  message: string;
  row?: number;
}

export const notFound = (what: string): ServiceError => new ServiceError(404, 'not_found', `${what} not found.`);
export const badRequest = (detail: string, errors?: FieldError[]): ServiceError => new ServiceError(400, 'invalid_request', detail, errors);

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => uuidPattern.test(value);
