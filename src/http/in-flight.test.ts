import { describe, expect, it } from 'vitest';
import { InFlight } from './in-flight.ts';

describe('InFlight', () => {
  it('drains when the last piece of work settles, even if it fails', async () => {
    const f = new InFlight();
    let release!: () => void;
    const slow = f.run(() => new Promise<void>((r) => (release = r)));
    const failing = f.run(async () => {
      throw new Error('boom');
    }).catch(() => 'failed');
    expect(await failing).toBe('failed');
    expect(f.count).toBe(1);
    const drained = f.drained(1000);
    release();
    await slow;
    expect(await drained).toBe(true);
    expect(f.count).toBe(0);
  });

  it('gives up after the timeout', async () => {
    const f = new InFlight();
    void f.run(() => new Promise(() => undefined));
    expect(await f.drained(20)).toBe(false);
  });
});
