import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.ts';

describe('RateLimiter', () => {
  it('allows a burst, then asks to wait, then refills at the sustained rate', () => {
    let now = 0;
    const rl = new RateLimiter(2, 3, () => now);
    expect([rl.take('a'), rl.take('a'), rl.take('a')]).toEqual([0, 0, 0]);
    expect(rl.take('a')).toBe(1);
    expect(rl.take('b')).toBe(0);
    now += 500; // half a second at 2/s refills one request
    expect(rl.take('a')).toBe(0);
    expect(rl.take('a')).toBeGreaterThanOrEqual(1);
  });

  it('reports a wait of whole seconds, never zero, when the rate is below one per second', () => {
    let now = 0;
    const rl = new RateLimiter(0.1, 1, () => now);
    expect(rl.take('k')).toBe(0);
    expect(rl.take('k')).toBe(10);
    now += 10_000;
    expect(rl.take('k')).toBe(0);
  });

  it('is off when the rate is 0', () => {
    const rl = new RateLimiter(0, 0);
    for (let i = 0; i < 1000; i++) expect(rl.take('x')).toBe(0);
  });
});
