import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonBody } from './json-body.ts';
import { JsonParser } from './json-parser.ts';

const parser = new JsonParser(1024);
afterAll(() => parser.close());
const body = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('JsonParser', () => {
  it('parses a large body that is no batch (an image inline) on its thread, to what the loop would make of it', async () => {
    const image = { records: [{ _id: 'a', _base64: 'QUJD'.repeat(2000), n: 1e300, z: -0.5, deep: { list: [1, 'two', null, true] } }] };
    const before = parser.onThread;
    const parsed = await parser.parse(body(image), false);
    expect(parser.onThread).toBe(before + 1);
    expect(parsed).toEqual(parseJsonBody(body(image)));
    expect(parsed).toEqual({ value: image });
  });

  it('refuses on the thread what the loop refuses, with the same answer', async () => {
    const pad = 'x'.repeat(2000);
    for (const raw of [`{"a":"${pad}","a":1}`, `{"__proto__":{"p":1},"pad":"${pad}"}`, `{"pad":"${pad}","bad":\n`, `{"pad":"${pad}","s":"\\ud800"}`]) {
      const parsed = await parser.parse(Buffer.from(raw), false);
      expect('error' in parsed, raw.slice(-30)).toBe(true);
      expect(parsed).toEqual(parseJsonBody(Buffer.from(raw)));
    }
  });

  it('parses a small body on the loop, and a large batch row by row as before', async () => {
    const before = parser.onThread;
    expect(await parser.parse(body({ a: 1 }), false)).toEqual({ value: { a: 1 } });
    expect(parser.onThread).toBe(before);
    const rows = { identifications: Array.from({ length: 50 }, (_, i) => ({ event_id: `e${i}`, name: 'Card '.repeat(10) })) };
    expect(await parser.parse(body(rows), true)).toEqual({ value: rows });
    expect(parser.onThread).toBe(before + 1);
  });

  it("moves a large body it owns to the thread rather than copy it; one in Node's shared pool of small buffers is copied, its neighbours left whole (h286)", async () => {
    const owned = body({ records: [{ _base64: 'QUJD'.repeat(5000) }] });
    expect(owned.byteLength).toBe(owned.buffer.byteLength);
    expect(await parser.parse(owned, false)).toEqual({ value: { records: [{ _base64: 'QUJD'.repeat(5000) }] } });
    expect(owned.byteLength).toBe(0);
    // two views of one pool: the first sent, the second must keep its bytes
    const [pooled, neighbour] = [Buffer.from(JSON.stringify({ pad: 'y'.repeat(1500) })), Buffer.from('neighbour')];
    expect(pooled.buffer).toBe(neighbour.buffer);
    expect(await parser.parse(pooled, false)).toEqual({ value: { pad: 'y'.repeat(1500) } });
    expect(pooled.toString()).toBe(JSON.stringify({ pad: 'y'.repeat(1500) }));
    expect(neighbour.toString()).toBe('neighbour');
  });
});
