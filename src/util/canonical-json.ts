import { createHash } from 'node:crypto';

/**
 * JSON with every object's keys in order: a retry serialised by another library (keys in another
 * order) is the same body. Used for the hash an `Idempotency-Key` is checked against.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The SHA-256 (hex) of {@link canonicalJson}'s text, the same digest, made a piece at a time with the event loop let go
 * after every `stepChars` characters hashed: a submit's 44 MB of images inline, written out whole and hashed at once,
 * held the server's event loop for their whole length (h286). Long strings are written slice by slice, never splitting
 * a surrogate pair, so each slice's JSON is the whole's. The loop is also let go every 20,000 pieces written: small
 * values cost far more than their characters, and a list of 5 million numbers in a record (the schema lets any field
 * through; the 64 KiB limit of a record's fields is checked after the hash) held the loop about 1 s at a time, 32 ms
 * since (h288).
 */
export async function canonicalJsonSha256(value: unknown, stepChars = 1 << 20): Promise<string> {
  const hash = createHash('sha256');
  let pending = '';
  let sinceTurn = 0;
  let piecesSinceTurn = 0;
  const put = async (text: string) => {
    pending += text;
    if (++piecesSinceTurn >= 20_000) {
      piecesSinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (pending.length < Math.min(stepChars, 64 * 1024)) return;
    hash.update(pending);
    sinceTurn += pending.length;
    pending = '';
    if (sinceTurn >= stepChars) {
      sinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const walk = async (v: unknown): Promise<void> => {
    if (Array.isArray(v)) {
      await put('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) await put(',');
        if (v[i] === undefined) await put('null');
        else await walk(v[i]);
      }
      return put(']');
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      await put('{');
      for (const [i, [k, x]] of entries.entries()) {
        await put(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
        await walk(x);
      }
      return put('}');
    }
    if (typeof v === 'string' && v.length > stepChars) {
      await put('"');
      for (let at = 0; at < v.length; ) {
        let end = Math.min(v.length, at + stepChars);
        const c = v.charCodeAt(end - 1);
        if (end < v.length && end - 1 > at && c >= 0xd800 && c <= 0xdbff) end--;
        await put(JSON.stringify(v.slice(at, end)).slice(1, -1));
        at = end;
      }
      return put('"');
    }
    // as the template literal above writes it (`undefined` for what JSON has no text for)
    return put(String(JSON.stringify(v)));
  };
  await walk(value);
  hash.update(pending);
  return hash.digest('hex');
}
