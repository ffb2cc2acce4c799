/**
 * A record's own fields, as JSON without its image: metadata a collection filters and searches on,
 * or what a queued request echoes in every read and webhook; not a document store.
 */
export const maxRecordFieldBytes = 64 * 1024;
