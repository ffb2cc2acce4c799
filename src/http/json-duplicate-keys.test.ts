import { describe, expect, it } from 'vitest';
import { duplicateKeyIn } from './json-duplicate-keys.ts';

describe('duplicateKeyIn', () => {
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
