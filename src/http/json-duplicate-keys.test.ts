import { describe, expect, it } from 'vitest';
import { keyProblemIn, maxRowKeys } from './json-duplicate-keys.ts';

/** The key named twice, whatever the counts. */
const duplicateKeyIn = (text: string) => {
  const found = keyProblemIn(text, Infinity, Infinity);
  return found && 'twice' in found ? found.twice : undefined;
};

describe('keyProblemIn: a key named twice', () => {
  it('finds a key named twice in one object, at any depth, escaped or not', () => {
    expect(duplicateKeyIn('{"name":"first","name":"second"}')).toBe('name');
    expect(duplicateKeyIn('{"filter":{"n":0,"n":{"$ne":0}}}')).toBe('n');
    expect(duplicateKeyIn('{"rows":[{"a":1},{"b":2,"c":[{"d":1,"d":2}]}]}')).toBe('d');
    expect(duplicateKeyIn('{"a":1,"\\u0061":2}')).toBe('a');
  });

  it('passes the same key in different objects, keys that are values, and quotes and brackets inside strings', () => {
    expect(duplicateKeyIn('{"a":{"a":1},"b":[{"a":1},{"a":2}]}')).toBeUndefined();
    expect(duplicateKeyIn('{"a":"a","b":"a","c":["a","a"]}')).toBeUndefined();
    expect(duplicateKeyIn('{"a":"x\\"y,\\"a\\":{","b":"\\\\","c":"]}{,"}')).toBeUndefined();
    expect(duplicateKeyIn('[1,{"a":1},"a",{"a":2}]')).toBeUndefined();
    expect(duplicateKeyIn('"just a string"')).toBeUndefined();
    expect(duplicateKeyIn('{}')).toBeUndefined();
  });
});

describe('keyProblemIn: rows and bodies with too many keys (h271)', () => {
  const row = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
  it('names the row over its limit, counting what is inside it', () => {
    expect(keyProblemIn(`{"records":[${row(3)},${row(5)}]}`, 4, 100)).toEqual({ crowded: 'records[1]', keys: 4 });
    expect(keyProblemIn(`[${row(1)},7,"x",${row(5)}]`, 4, 100)).toEqual({ crowded: '[3]', keys: 4 });
    // keys inside a row's nested objects and lists count for it: a million small objects in one record
    expect(keyProblemIn(`{"records":[{"_id":"a","x":[${Array(6).fill('{"a":1}').join(',')}]}]}`, 4, 100)).toEqual({ crowded: 'records[0]', keys: 4 });
    expect(keyProblemIn(`{"a":1,"records":[${row(4)},${row(4)}],"b":[${row(4)}]}`, 4, 100)).toBeUndefined();
  });
  it('names the body over its limit, and still finds a key named twice first', () => {
    expect(keyProblemIn(`{"records":[${row(3)},${row(3)}]}`, 4, 5)).toEqual({ crowded: 'The body', keys: 5 });
    expect(keyProblemIn(`{"meta":${row(8)}}`, 4, 5)).toEqual({ crowded: 'The body', keys: 5 });
    expect(keyProblemIn('{"records":[{"a":1,"a":2}]}', 1, 2)).toEqual({ twice: 'a' });
  });
  it('takes real rows as they are at the default limits', () => {
    expect(keyProblemIn(`{"records":[${Array(1000).fill(row(50)).join(',')}]}`)).toBeUndefined();
    expect(keyProblemIn(`{"records":[${row(maxRowKeys + 1)}]}`)).toEqual({ crowded: 'records[0]', keys: maxRowKeys });
  });
});
