/** The median of numbers (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: ArrayLike<number>): number {
  return medianInPlace(Float64Array.from(values));
}

/** {@link median} of a typed array the caller no longer needs in its order: sorted in place, no copy (per-block medians of an image). */
export function medianInPlace(values: Float64Array): number {
  values.sort();
  const m = values.length >> 1;
  return values.length % 2 ? values[m]! : (values[m - 1]! + values[m]!) / 2;
}
