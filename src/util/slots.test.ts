import { describe, expect, it } from 'vitest';
import { Slots } from './slots.ts';

describe('Slots', () => {
  it('runs at most its size at once, the rest in the order they came, and frees a slot when one fails', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const job = (i: number, fail = false) =>
      slots.run(async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        order.push(i);
        if (fail) throw new Error(`job ${i}`);
        return i;
      });
    const results = await Promise.allSettled([job(0), job(1, true), job(2), job(3), job(4)]);
    expect(most).toBe(2);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(order.slice(2).sort()).toEqual([2, 3, 4]);
    // all given back
    expect(await Promise.all([job(5), job(6)])).toEqual([5, 6]);
  });
});
