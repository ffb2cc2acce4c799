/**
 * A collection's ping line in a shop's words: its name and how many items it holds. The server's own line
 * (`photo collection "x": 12 records, HNSW index over 1792-d … (cosine distance × 100); text search: …`) is a
 * developer's, shown under "Technical details" beside this one.
 */
export function collectionLine(info: string): string {
  const m = /^\w+ collection "(.*)": (\d+) records?\b/.exec(info);
  if (!m) return 'Collection open.';
  const n = Number(m[2]);
  return `“${m[1]}” is open: ${n} ${n === 1 ? 'item' : 'items'} stored.`;
}
