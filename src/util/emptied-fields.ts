/**
 * The optional fields a request sent empty ("" is "not given", docs/api-decisions.md "Types"), kept beside the record
 * under a symbol (never serialised, never echoed) so that "no image" can say which was empty (h272: `_base64: ""` was
 * told the record had no `_base64`).
 */
export const emptiedFields = Symbol('emptiedFields');

export type WithEmptied = { [emptiedFields]?: string[] };

export const emptiedOf = (record: object): string[] => (record as WithEmptied)[emptiedFields] ?? [];
