import { describe, expect, it } from 'vitest';
import { assembleBody, parseAndSplitBody, parseJsonBody, underflowIn } from './json-body.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('NUL in a body', () => {
  it('is refused naming where it is; the text \\u0000 (an escaped backslash) is no NUL', () => {
    const err = (text: string) => ('error' in parseJsonBody(bytes(text)) ? (parseJsonBody(bytes(text)) as { error: { detail: string } }).error.detail : undefined);
    expect(err('{"identifications":[{"name":"a"},{"name":"Pika\\u0000chu"}]}')).toBe('NUL characters (\\u0000) are not accepted: identifications[1].name holds one.');
    expect(err('{"records":[{"meta":{"a b":["x","\\u0000"]}}]}')).toBe('NUL characters (\\u0000) are not accepted: records[0].meta["a b"][1] holds one.');
    expect(err('{"records":[{"k\\u0000":1}]}')).toBe('NUL characters (\\u0000) are not accepted: a key of records[0] holds one ("k\\u0000").');
    expect(err('"\\u0000"')).toBe('NUL characters (\\u0000) are not accepted: the body holds one.');
    expect(parseJsonBody(bytes('{"note":"C:\\\\u0000 is a path"}'))).toEqual({ value: { note: 'C:\\u0000 is a path' } });
    expect(err('{"note":"a\u0000b"}')).toBe('NUL characters (\\u0000) are not accepted.');
    // a long key is cut in the path named (h144: a 300 KB key made a 600 KB answer)
    expect(err(`{"${'k'.repeat(300_000)}":"\\u0000"}`)!.length).toBeLessThan(200);
  });
});

describe('parseAndSplitBody', () => {
  it('refuses a top-level list longer than any endpoint takes before splitting it into rows', () => {
    const split = parseAndSplitBody(bytes(`{"identifications":[${Array.from({ length: 100_001 }, () => '{}').join(',')}]}`));
    expect(split).toEqual({ error: { status: 400, code: 'invalid_request', detail: 'The list "identifications" holds 100001 items; no endpoint takes more than 100000 (a card upload takes 1000).' } });
    expect('rows' in parseAndSplitBody(bytes(`{"identifications":[${Array.from({ length: 100_000 }, () => '{}').join(',')}]}`))).toBe(true);
  });

  it('hands rows back as text, and rebuilds the same body', async () => {
    const body = { identifications: [{ event_id: 'a', price: 1.5 }, { event_id: 'b', meta: { x: [1, 2] } }], workspace: 'w' };
    const split = parseAndSplitBody(bytes(JSON.stringify(body)));
    if ('error' in split) throw new Error(split.error.detail);
    expect(split.rows.identifications).toHaveLength(2);
    expect(await assembleBody(split, 10)).toEqual(body);
  });

  it('keeps a body whole where row text would lose a number (1e400 read as Infinity, -0), so validators see it as sent', async () => {
    for (const n of ['1e400', '-1e400', '-0']) {
      const split = parseAndSplitBody(bytes(`{"identifications":[{"event_id":"a"},{"event_id":"b","price":${n}}]}`));
      if ('error' in split) throw new Error(split.error.detail);
      expect(split.rows).toEqual({});
      const price = ((await assembleBody(split, 10)) as { identifications: { price?: number }[] }).identifications[1]!.price;
      expect(Object.is(price, Number(n))).toBe(true);
    }
  });
});

describe('numbers too small for a double', () => {
  it('refuses a body whose number would be read as 0 (1e-400), naming it; zero, subnormals and strings are kept', () => {
    for (const n of ['1e-400', '-2.5E-330', '2e-324', '0.' + '0'.repeat(330) + '1']) {
      const parsed = parseJsonBody(bytes(`{"meta_data":{"tiny":${n}}}`));
      expect(parsed).toMatchObject({ error: { status: 400, code: 'invalid_json' } });
      expect('error' in parsed && parsed.error.detail).toContain('too small for a double');
    }
    for (const text of ['{"a":0e-400}', '{"a":5e-324}', '{"a":"1e-400"}', '{"a":"x\\"1e-400"}', '{"a":1e-99,"b":-0.0}']) expect(underflowIn(text), text).toBeUndefined();
    expect(parseJsonBody(bytes('{"a":5e-324}'))).toEqual({ value: { a: 5e-324 } });
    // digits split over a long run of zeros and an exponent of two digits
    expect(underflowIn('{"a":0.' + '0'.repeat(280) + '1e-50}')).toBe('0.' + '0'.repeat(280) + '1e-50');
  });

  it('scans a body with a string of megabytes without running out of stack (a regex did: a 500 for an _id "shoe-2023" beside an image)', () => {
    const big = `{"records":[{"_id":"shoe-2023","_base64":"${'QUJD'.repeat(3_000_000)}","n":1e-400}]}`;
    expect(underflowIn(big)).toBe('1e-400');
    expect(underflowIn(big.replace('1e-400', '1e-4'))).toBeUndefined();
    const parsed = parseJsonBody(bytes(`{"records":[{"_id":"shoe-2023","_base64":"${'QUJD'.repeat(3_000_000)}"}]}`));
    expect('value' in parsed).toBe(true);
  });
});
