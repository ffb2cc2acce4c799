/**
 * The first key a JSON text names twice in one object, or undefined. JSON.parse keeps the last
 * value and drops the other without a word (`{"name":"a","name":"b"}` is `{"name":"b"}`; a filter
 * `{"n":0,"n":{"$ne":0}}` lost a condition), so a body that does it is refused. The text is
 * valid JSON already (it parsed): strings are skipped with indexOf, so an image's base64 costs
 * one native scan, and only object keys are kept, in a set per open object.
 */
export function duplicateKeyIn(text: string): string | undefined {
  // null for an array; objects' key sets, innermost last
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (keyNext) {
        const inner = text.slice(i + 1, end);
        const key = inner.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : inner;
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return key;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === 0x7b) {
      open.push(new Set());
      keyNext = true;
    } else if (c === 0x5b) {
      open.push(null);
      keyNext = false;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      keyNext = false;
    } else if (c === 0x2c) {
      keyNext = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return undefined;
}

/**
 * Where the JSON string opening at `start` (a quote) ends: the next quote not escaped by an odd run
 * of backslashes; -1 when the text ends first. One native scan per quote, so a string of megabytes
 * (an image's base64) costs no more than `indexOf`.
 */
export function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end >= 0) {
    let b = end - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((end - 1 - b) % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}
