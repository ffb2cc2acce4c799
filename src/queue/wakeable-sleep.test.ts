import { describe, expect, it } from 'vitest';
import { WakeableSleep } from './wakeable-sleep.ts';

describe('wakeable sleep', () => {
  it('a wake ends the sleep at once', async () => {
    const s = new WakeableSleep();
    const t0 = performance.now();
    const slept = s.sleep(5000);
    s.wake();
    await slept;
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('a wake while nobody sleeps is kept for the next sleep, once', async () => {
    const s = new WakeableSleep();
    s.wake();
    const t0 = performance.now();
    await s.sleep(5000);
    expect(performance.now() - t0).toBeLessThan(1000);
    const t1 = performance.now();
    await s.sleep(60);
    expect(performance.now() - t1).toBeGreaterThanOrEqual(50);
  });
});
