import { refuseUnknownParameters } from '../services/unknown-parameters.ts';

export { refuseUnknownParameters };

/** A route's `preValidation` that refuses the names {@link refuseUnknownParameters} refuses, for an endpoint taking `own`. */
export const takesOnly =
  (endpoint: string, own: readonly string[]) =>
  async (request: { body: unknown }): Promise<void> =>
    refuseUnknownParameters(endpoint, own, request.body);
