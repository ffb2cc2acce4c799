/**
 * Where in a value JSON parsing could not keep a number as sent (an integer beyond 2^53, which was
 * rounded, or one beyond the double range, parsed as Infinity and stored as null), so that the
 * value is refused rather than stored altered; undefined when every number is exact.
 */
/**
 * An integer beyond 2^53 whose shortest form still has more digits than a double keeps (15): an id
 * such as 12345678901234567891 read as 12345678901234567000. One whose shortest form is short
 * (`1e21`, `6.022e23`) is what the client sent, and comes back so; only the text sent could tell
 * 1e21 from 1000000000000000000001, and JSON.parse does not keep it.
 */
function lostDigits(value: number): boolean {
  if (!Number.isInteger(value) || Number.isSafeInteger(value)) return false;
  const digits = String(Math.abs(value)).replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length > 15;
}

export function inexactNumberAt(value: unknown, at = '', depth = 0): { path: string; value: number } | undefined {
  if (typeof value === 'number') return !Number.isFinite(value) || lostDigits(value) ? { path: at || 'the value', value } : undefined;
  if (depth > 40 || value === null || typeof value !== 'object') return undefined;
  // paths written as the schema's errors write them (`alternatives[0].id`): the same batch named one `alternatives.0.id` (h133)
  const list = Array.isArray(value);
  for (const [k, v] of list ? value.entries() : Object.entries(value)) {
    const found = inexactNumberAt(v, list ? `${at}[${k}]` : at ? `${at}.${k}` : String(k), depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Why a record of an image endpoint cannot be answered as sent, or undefined: a field (the image
 * aside) holding a number JSON could not keep. Every such field is echoed or stored, and would
 * come back altered.
 */
export function inexactRecordProblem(record: Record<string, unknown>): string | undefined {
  const { _base64: _image, ...fields } = record;
  const inexact = inexactNumber(fields);
  return inexact && `${inexact} cannot be kept exactly: JSON numbers beyond ±2^53 lose digits and those beyond ±1.8e308 become null; send it as a string`;
}

/** {@link inexactNumberAt} as text for a message: `price (read as Infinity)`: the value parsed, not the digits sent. */
export function inexactNumber(value: unknown): string | undefined {
  const found = inexactNumberAt(value);
  return found && `${found.path} (read as ${found.value})`;
}
