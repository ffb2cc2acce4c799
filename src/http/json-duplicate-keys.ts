/**
 * The most keys one row of a batch may hold (an element of a top-level list, `records[3]`, with everything inside it),
 * and the whole body. One object of many keys is what costs: a record of a million keys held every other request for
 * 15–40 s in the passes after parsing (exact numbers, the echo, validation, serialisation; h271), where a million keys
 * over 100 rows of a card upload held `/health` 0.4 s. A collection record's own fields are at most 64 KiB (some
 * 6,000 keys), a card row with its grading, alternatives and price statistics several hundred; a batch of 1,000 such
 * rows is under the body's limit.
 */
export const maxRowKeys = 10_000;
export const maxBodyKeys = 1_000_000;

/** What `keyProblemIn` finds: a key named twice in one object, or a row or body with more keys than it may hold. */
export type KeyProblem = { twice: string } | { crowded: string; keys: number };

/**
 * The first key a JSON text names twice in one object, or a row (`records[3]`) or the body holding more keys than
 * `maxRowKeys` / `maxBodyKeys`; undefined when neither. JSON.parse keeps the last value of a key named twice and drops
 * the other without a word (`{"name":"a","name":"b"}` is `{"name":"b"}`; a filter `{"n":0,"n":{"$ne":0}}` lost a
 * condition), so a body that does it is refused. The text is valid JSON already (it parsed): strings are skipped with
 * indexOf, so an image's base64 costs one native scan, and only object keys are kept, in a set per open object.
 */
export function keyProblemIn(text: string, rowLimit = maxRowKeys, bodyLimit = maxBodyKeys): KeyProblem | undefined {
  // null for an array; objects' key sets, innermost last
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  let total = 0;
  // the row being read: the top-level key it is listed under, its index there, its keys so far; `rowDepth` 0 outside one
  let topKey = '';
  let index = 0;
  let rowKeys = 0;
  let rowDepth = 0;
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
        if (keys.has(key)) return { twice: key };
        keys.add(key);
        keyNext = false;
        if (open.length === 1) topKey = key;
        if (++total > bodyLimit) return { crowded: 'The body', keys: bodyLimit };
        if (rowDepth > 0 && ++rowKeys > rowLimit) return { crowded: topKey ? `${topKey}[${index}]` : `[${index}]`, keys: rowLimit };
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      // a row: an object element of the list that is the body, or of a list that is a field of the body's object
      if (c === 0x7b && rowDepth === 0 && listOfRows(open)) {
        rowDepth = open.length + 1;
        rowKeys = 0;
      }
      open.push(c === 0x7b ? new Set() : null);
      if (c === 0x5b && listOfRows(open)) index = 0;
      keyNext = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      if (open.length === rowDepth) rowDepth = 0;
      open.pop();
      keyNext = false;
    } else if (c === 0x2c) {
      keyNext = open.length > 0 && open[open.length - 1] !== null;
      if (rowDepth === 0 && listOfRows(open)) index++;
    }
  }
  return undefined;
}

/** Whether the innermost open value is the list whose elements are rows: the body, or a field of the body's object. */
const listOfRows = (open: readonly (Set<string> | null)[]) => open[open.length - 1] === null && (open.length === 1 || (open.length === 2 && open[0] !== null));

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
