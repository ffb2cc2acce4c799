import { describe, expect, it } from 'vitest';
import { inexactNumber, inexactNumberAt } from './exact-numbers.ts';

describe('inexact numbers', () => {
  it('finds a number JSON parsing could not keep, by its path', () => {
    expect(inexactNumberAt(JSON.parse('{"a":[1,{"b":1e309}]}'))).toEqual({ path: 'a[1].b', value: Infinity });
    expect(inexactNumber(JSON.parse('{"cert":12345678901234567890}'))).toBe('cert (read as 12345678901234567000)');
    expect(inexactNumberAt({ a: 2 ** 53 - 1, b: 0.1, c: -0, d: 'Infinity' })).toBeUndefined();
    expect(inexactNumber(JSON.parse('{"n":9007199254740993}'))).toBe('n (read as 9007199254740992)');
    expect(inexactNumber(JSON.parse('{"m":-123456789012345678}'))).toBe('m (read as -123456789012345680)');
  });

  it('keeps large numbers whose shortest form is what was sent (1e21, 6.022e23, 9.1e18): they come back as sent', () => {
    for (const text of ['1e21', '6.022e23', '9.1e18', '-4.5e300', '123456789012345e10']) {
      expect(inexactNumberAt(JSON.parse(`{"x":${text}}`)), text).toBeUndefined();
    }
  });
});
