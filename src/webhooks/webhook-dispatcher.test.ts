import { describe, expect, it } from 'vitest';
import { retryAfterOf } from './webhook-dispatcher.ts';

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(retryAfterOf('120', now)).toBe(120_000);
    expect(retryAfterOf('Sat, 28 Nov 2026 12:01:30 GMT', now)).toBe(90_000);
    // a date already past waits for nothing more than the schedule's own delay
    expect(retryAfterOf('Sat, 28 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterOf(undefined, now)).toBeNull();
    expect(retryAfterOf('soon', now)).toBeNull();
    expect(retryAfterOf('1.5', now)).toBeNull();
  });
});
