/**
 * The path of a number in a record that JSON parsing could not keep as sent (an integer beyond
 * 2^53, which was rounded, or one beyond the double range, parsed as Infinity and stored as null),
 * so that a record is refused rather than stored altered; undefined when every number is exact.
 */
export function inexactNumber(value: unknown, at = '', depth = 0): string | undefined {
  if (typeof value === 'number') return !Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)) ? `${at || 'the value'} (${value})` : undefined;
  if (depth > 40 || value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const found = inexactNumber(v, at ? `${at}.${k}` : String(k), depth + 1);
    if (found) return found;
  }
  return undefined;
}
