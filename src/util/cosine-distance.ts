/** 1 − cos(a, b), as the indexes measure descriptors; 1 where either vector is zero. */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? 1 - dot / Math.sqrt(na * nb) : 1;
}
