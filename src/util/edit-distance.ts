/** Levenshtein distance, for names of a few dozen letters; `alike` letters substitute for free. */
export function editDistance(a: string, b: string, alike?: (x: string, y: string) => boolean): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] || alike?.(a[i - 1]!, b[j - 1]!) ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The words one edit from a word, among many: every word is filed under each of its one-letter
 * deletions (a symmetric-deletion index), so a lookup costs a dozen map reads rather than a pass
 * over thousands of names.
 */
export function oneEditIndex(words: Iterable<string>): (word: string) => string[] {
  const deletions = (w: string) => [w, ...Array.from(w, (_, k) => w.slice(0, k) + w.slice(k + 1))];
  const near = new Map<string, Set<string>>();
  for (const w of words) for (const d of deletions(w)) near.set(d, (near.get(d) ?? new Set()).add(w));
  return (word) => {
    const out = new Set<string>();
    for (const d of deletions(word)) for (const n of near.get(d) ?? []) if (editDistance(word, n) === 1) out.add(n);
    return [...out];
  };
}
