import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.ts';

const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe('JSON nesting depth', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan(nested(3), 3)).toBe(false);
    expect(nestsDeeperThan(nested(4), 3)).toBe(true);
    expect(nestsDeeperThan({ a: [1, 2, { b: 'x' }], c: null }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, 2, { b: {} }], c: null }, 3)).toBe(true);
  });

  it('checks a value 20,000 deep without overflowing the stack', () => {
    expect(nestsDeeperThan(nested(20_000), 32)).toBe(true);
  });
});
