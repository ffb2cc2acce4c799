import { describe, expect, it } from 'vitest';
import { inexactNumber, inexactNumberAt } from './exact-numbers.ts';

describe('inexact numbers', () => {
  it('finds a number JSON parsing could not keep, by its path', () => {
    expect(inexactNumberAt(JSON.parse('{"a":[1,{"b":1e309}]}'))).toEqual({ path: 'a.1.b', value: Infinity });
    expect(inexactNumber(JSON.parse('{"cert":12345678901234567890}'))).toBe('cert (read as 12345678901234567000)');
    expect(inexactNumberAt({ a: 2 ** 53 - 1, b: 0.1, c: -0, d: 'Infinity' })).toBeUndefined();
  });
});
