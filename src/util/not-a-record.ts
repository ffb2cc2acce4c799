/**
 * A record of an image endpoint's `records` that is no object (`null`, a number, a string, a list), kept in its place as
 * an empty object carrying what was sent under a symbol (never serialised, never echoed), so that it is that record's
 * own 400 and the records beside it are answered (h333: the schema refused the whole request, `records[0] must be
 * object`, and the good records went unread).
 */
export const notARecord = Symbol('notARecord');

export type NotARecord = { [notARecord]?: { index: number; sent: string; value: unknown } };

/** Where the record stood and what it was, for its status; undefined for a record that is an object. */
export const notARecordOf = (record: object): { index: number; sent: string; value: unknown } | undefined => (record as NotARecord)[notARecord];

/** The records as sent, each placeholder the value it stands for (what an idempotent submit's body is compared by). */
export const recordsAsSent = (records: object[]): unknown[] => records.map((r) => (notARecordOf(r) ? notARecordOf(r)!.value : r));

/** A value's kind in a message's words (`null`, `a number`, `a list`). */
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** The schema keyword that marks an array whose items are so answered each (`records` of the image endpoints). */
export const RECORDS_ANSWERED_EACH = 'x-non-object-is-its-own-400';

/**
 * The arrays at the body's top level whose schema carries {@link RECORDS_ANSWERED_EACH}: each item that is no object
 * becomes its placeholder. The array itself missing, of another type, empty or too long is still the schema's 400.
 */
export function placeNonObjectRecords(schema: unknown, data: unknown): void {
  const props = (schema as { properties?: Record<string, Record<string, unknown>> } | null)?.properties;
  if (!props || !data || typeof data !== 'object' || Array.isArray(data)) return;
  for (const [key, prop] of Object.entries(props)) {
    const list = (data as Record<string, unknown>)[key];
    if (prop?.[RECORDS_ANSWERED_EACH] !== true || !Array.isArray(list)) continue;
    list.forEach((item, index) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) list[index] = { [notARecord]: { index, sent: kindOf(item), value: item } };
    });
  }
}
