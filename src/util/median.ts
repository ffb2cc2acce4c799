/** The median of numbers (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: ArrayLike<number>): number {
  return medianInPlace(Float64Array.from(values));
}

/**
 * {@link median} of a typed array the caller no longer needs in its order: partly reordered in
 * place, no copy (per-block medians of an image). Selection rather than a sort: the same value for
 * numbers without NaN (a sort would put NaN last and -0 before 0; here NaN compares with nothing
 * and -0 equals 0), and a native sort per 64-value block was most of a card's layout look.
 */
export function medianInPlace(values: Float64Array): number {
  const n = values.length;
  if (n === 0) return NaN;
  const m = n >> 1;
  selectInPlace(values, m);
  if (n % 2) return values[m]!;
  // the (m-1)-th smallest is the largest of those selection left below the m-th
  let below = values[0]!;
  for (let i = 1; i < m; i++) if (values[i]! > below) below = values[i]!;
  return (below + values[m]!) / 2;
}

/** Reorders `a` so that a[k] is its k-th smallest, those before it no larger and those after no smaller (Hoare's selection). */
function selectInPlace(a: Float64Array, k: number): void {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}
