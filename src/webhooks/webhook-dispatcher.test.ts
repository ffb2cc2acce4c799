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

  it("reads every HTTP date form as GMT whatever the server's zone (the asctime form names none, h198)", () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const zone = process.env.TZ;
    try {
      for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
        process.env.TZ = tz;
        expect(retryAfterOf('Sat Nov 28 12:02:00 2026', now), tz).toBe(120_000);
        expect(retryAfterOf('Saturday, 28-Nov-26 12:02:00 GMT', now), tz).toBe(120_000);
        expect(retryAfterOf('Sat, 28 Nov 2026 12:02:00 GMT', now), tz).toBe(120_000);
        expect(retryAfterOf('2026-11-28T12:02:00', now), tz).toBe(120_000);
        expect(retryAfterOf('2026-11-28T13:02:00+01:00', now), tz).toBe(120_000);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});
