import { setImmediate as nextTurn } from 'node:timers/promises';
import sjson from 'secure-json-parse';
import { hasLoneSurrogate, maxJsonDepth, nestsDeeperThan } from './json-depth.ts';
import { keyProblemIn, stringEnd } from './json-duplicate-keys.ts';

/** A parsed body, or why it is refused (plain data, so it can come back from a worker thread). */
export type ParsedBody = { value: unknown } | { error: { status: number; code: string; detail: string } };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const refuse = (status: number, code: string, detail: string): ParsedBody => ({ error: { status, code, detail } });

/**
 * Every rule a JSON body passes, in one place for the event loop and the parsing thread: strict
 * UTF-8 (a client's text is never silently altered), no NUL, no prototype keys, at most
 * `maxJsonDepth` levels, no lone surrogates. An empty body is "no body".
 */
export function parseJsonBody(raw: Uint8Array): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(raw).trim();
  } catch {
    return refuse(400, 'invalid_json', 'The body is not valid UTF-8.');
  }
  if (text === '') return { value: undefined };
  // Neither backend stores NUL in text; refuse it here rather than fail in the database. indexOf,
  // not a regex: this runs over every body, and image bodies are megabytes. A raw NUL is no JSON
  // either; an escaped one is looked for in the parsed values, where its path can be named (a batch
  // of 500 rows was refused naming none), and an escaped backslash before `u0000` (the six
  // characters \u0000 as text) is no NUL.
  if (text.includes('\0')) return refuse(400, 'invalid_request', 'NUL characters (\\u0000) are not accepted.');
  const escapedNul = text.includes('\\u0000');
  let value: unknown;
  try {
    // A body with no "proto", no "constructor" and no \u escape cannot spell either key, so it
    // skips secure-json-parse's regex scans (a large share of an image request's CPU).
    const plain = !text.includes('proto') && !text.includes('constructor') && !text.includes('\\u');
    value = plain ? JSON.parse(text) : sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    // Refused, not dropped: dropped, {"$or":[{"__proto__":1}]} became {"$or":[{}]}, a filter matching every record.
    if (/forbidden prototype property/i.test((err as Error).message)) return refuse(400, 'invalid_request', 'The body has a "__proto__" key, or a "constructor" key holding "prototype": neither is accepted as a field name anywhere in a body.');
    return refuse(400, 'invalid_json', `The body is not valid JSON: ${(err as Error).message}`);
  }
  if (nestsDeeperThan(value, maxJsonDepth)) return refuse(400, 'invalid_json', `The JSON body nests objects or arrays deeper than ${maxJsonDepth} levels.`);
  if (escapedNul) {
    const at = nulAt(value, '');
    if (at !== undefined) return refuse(400, 'invalid_request', `NUL characters (\\u0000) are not accepted: ${at}.`);
  }
  const tiny = underflowIn(text);
  if (tiny !== undefined) return refuse(400, 'invalid_json', `The body holds the number ${tiny.length > 40 ? tiny.slice(0, 40) + '…' : tiny}, too small for a double: it would be read and stored as 0. Send it as a string.`);
  // only an object can name a key twice: bodies that are one string or number skip the scan
  const keys = text.startsWith('{') || text.startsWith('[') ? keyProblemIn(text) : undefined;
  if (keys && 'twice' in keys) return refuse(400, 'invalid_json', `The body names the key "${keys.twice.slice(0, 100)}" twice in one object; JSON keeps only the last, so the other value would be dropped.`);
  // refused here, on the parsing thread for a large body: each key costs the event loop in every pass after (h271)
  if (keys && 'crowded' in keys)
    return refuse(
      400,
      'invalid_request',
      keys.crowded === 'The body'
        ? `The body holds more than ${keys.keys} keys: send fewer rows a call.`
        : `${keys.crowded} holds more than ${keys.keys} keys, with what is inside it: no record of any endpoint takes as many (a collection record's own fields are at most 64 KiB).`,
    );
  // A \uD800-\uDFFF escape can leave half a character, which neither backend stores alike.
  if (/\\u[dD][89a-fA-F]/.test(text) && hasLoneSurrogate(value)) {
    // where, as a NUL's is named (h181: a client cutting names with String.slice could not find the row of 500)
    const at = surrogateAt(value, '');
    return refuse(400, 'invalid_json', `The body has a lone surrogate escape (half of a UTF-16 pair), which is not a character${at ? `: ${at}` : ''}. A text cut by UTF-16 units (String.slice) can split an emoji so.`);
  }
  return { value };
}

const ZEROS = '.' + '0'.repeat(250);

/**
 * The first number the text writes that is not zero but too small for a double (`1e-400`, parsed as 0),
 * or undefined. A number too large is Infinity after parsing and refused where it would be kept;
 * one too small cannot be told from a zero sent, so it is looked for in the text, and only when the
 * text has a negative exponent of two digits or more or a long run of zeros after a point.
 */
export function underflowIn(text: string): string | undefined {
  // native substring searches first: an image's base64 (no "-") passes in a few milliseconds
  if (text.indexOf('e-') < 0 && text.indexOf('E-') < 0 && text.indexOf(ZEROS) < 0) return undefined;
  // a scan by hand: a regex over a string of megabytes (an image's base64) ran out of stack in V8
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) j++;
        else break;
      }
      const token = text.slice(i, j);
      if (Number(token) === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return token;
      i = j - 1;
    }
  }
  return undefined;
}

/**
 * A large body as it travels back from the parsing thread: the top level as a value, and each
 * top-level array of objects (the rows of a batch) as one JSON text per element. Strings cross
 * threads for the price of a copy, where a cloned tree of a million properties cost the event
 * loop a second to rebuild; the rows are then parsed a few at a time (`assembleBody`).
 */
export type SplitBody = { error: { status: number; code: string; detail: string } } | { value: unknown; rows: Record<string, string[]> };

/**
 * The most items a top-level list of a large body may hold: no endpoint takes more than a few thousand
 * (a card upload 1,000), and splitting ten million rows into texts, sending them across and parsing
 * them again cost seconds and gigabytes before the schema refused the length.
 */
export const maxTopLevelItems = 100_000;

export function parseAndSplitBody(raw: Uint8Array): SplitBody {
  const parsed = parseJsonBody(raw);
  if ('error' in parsed) return parsed;
  const { value } = parsed;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { value, rows: {} };
  // JSON text cannot carry what JSON.parse made of 1e400 (Infinity; stringified, null) or -0: such a body travels
  // whole, so the validators see the number as sent and refuse it, as they do a small body's.
  if (hasNumberJsonLoses(value)) return { value, rows: {} };
  const top: Record<string, unknown> = {};
  const rows: Record<string, string[]> = {};
  for (const [key, field] of Object.entries(value)) {
    if (Array.isArray(field) && field.length > maxTopLevelItems) {
      return refuse(400, 'invalid_request', `The list "${key.slice(0, 100)}" holds ${field.length} items; no endpoint takes more than ${maxTopLevelItems} (a card upload takes 1000).`) as SplitBody;
    }
    if (Array.isArray(field) && field.length > 0 && field.every((e) => e !== null && typeof e === 'object')) rows[key] = field.map((e) => JSON.stringify(e));
    else top[key] = field;
  }
  return { value: top, rows };
}

/** Whether `value` holds a number JSON.stringify would write as another (Infinity, NaN → null; -0 → 0); iterative. */
export function hasNumberJsonLoses(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'number') {
      if (!Number.isFinite(node) || Object.is(node, -0)) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (node !== null && typeof node === 'object') {
      for (const v of Object.values(node)) stack.push(v);
    }
  }
  return false;
}

/** Rebuilds a split body, yielding to other work after about `bytesPerTurn` of row text. */
export async function assembleBody(split: { value: unknown; rows: Record<string, string[]> }, bytesPerTurn: number): Promise<unknown> {
  const entries = Object.entries(split.rows);
  if (entries.length === 0) return split.value;
  const out = split.value as Record<string, unknown>;
  let since = 0;
  for (const [key, texts] of entries) {
    const list: unknown[] = [];
    for (const text of texts) {
      // Parsed already on the thread and checked there: the text is what JSON.stringify wrote.
      list.push(JSON.parse(text));
      since += text.length;
      if (since >= bytesPerTurn) {
        since = 0;
        await nextTurn();
      }
    }
    out[key] = list;
  }
  return out;
}

const plainKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// a key cut at 60 characters: a 300 KB key made a 600 KB refusal (h144)
const shown = (key: string) => ([...key].length > 60 ? `${[...key].slice(0, 60).join('')}…` : key);
const step = (path: string, key: string) => (plainKey.test(key) && key.length <= 60 ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(shown(key))}]`);

/** Where the first U+0000 of a parsed body is, in the paths batch errors name (`identifications[3].name`), or undefined. */
export const nulAt = (value: unknown, path: string): string | undefined => textAt(value, path, (t) => t.includes('\u0000'), true);

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Where the first lone surrogate of a parsed body is, as {@link nulAt} names a NUL's place, or undefined. */
const surrogateAt = (value: unknown, path: string): string | undefined => textAt(value, path, (t) => LONE_SURROGATE.test(t), false);

/** Where the first string or key of a parsed body that `has` what is looked for is; `showKey`: the key itself named too. */
function textAt(value: unknown, path: string, has: (text: string) => boolean, showKey: boolean): string | undefined {
  if (typeof value === 'string') return has(value) ? `${path || 'the body'} holds one` : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = textAt(value[i], `${path}[${i}]`, has, showKey);
      if (at !== undefined) return at;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (has(k)) return `a key of ${path || 'the body'} holds one${showKey ? ` (${JSON.stringify(k.slice(0, 60))})` : ''}`;
      const at = textAt(v, step(path, k), has, showKey);
      if (at !== undefined) return at;
    }
  }
  return undefined;
}
