import { describe, expect, it, vi } from 'vitest';
import type { CollectionStore } from '../../store/collection-store.ts';
import type { VisionService } from '../vision-service.ts';
import { SeenBackfill } from './seen-backfill.ts';

// a store any read of which fails the pass: what the pass touches shows in the error
const untouchable = new Proxy({}, { get: (_t, name) => { throw new Error(`the store was read (${String(name)})`); } }) as CollectionStore;

describe('SeenBackfill on a database a newer release upgraded', () => {
  it('writes nothing, says why once, and stays stopped', async () => {
    const said: string[] = [];
    const backfill = new SeenBackfill(untouchable, {} as VisionService, ['objects'], (_level, message) => said.push(message), async () => 'the database was upgraded by a newer Loupe release');
    expect(await backfill.pass()).toEqual({ written: 0, seen: 0, noImage: 0, failed: 0, retokenised: 0, reseen: 0 });
    expect(await backfill.pass()).toMatchObject({ written: 0 });
    expect(said).toEqual(['text search backfill stopped: the database was upgraded by a newer Loupe release']);
  });

  it('works the store when nothing blocks it', async () => {
    const backfill = new SeenBackfill(untouchable, {} as VisionService, ['objects'], () => {}, async () => undefined);
    await expect(backfill.pass()).rejects.toThrow(/the store was read/);
  });
});

describe('SeenBackfill after a failed pass', () => {
  it('tries again after a minute, then twice as long, and not once stopped (a database overloaded a moment stopped it until the next start)', async () => {
    vi.useFakeTimers();
    try {
      const said: { message: string; retry?: unknown }[] = [];
      let calls = 0;
      const backfill = new SeenBackfill(untouchable, {} as VisionService, ['objects'], (_level, message, details) => said.push({ message, retry: details?.retry_in_s }), async () => undefined);
      backfill.pass = async () => {
        calls++;
        if (calls <= 2) throw new Error('out of shared memory');
        return { written: 0, seen: 0, noImage: 0, failed: 0, retokenised: 0, reseen: 0 };
      };
      backfill.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toBe(1);
      expect(said).toEqual([{ message: 'text search backfill stopped', retry: 60 }]);
      await vi.advanceTimersByTimeAsync(59_000);
      expect(calls).toBe(1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(calls).toBe(2);
      expect(said[1]).toEqual({ message: 'text search backfill stopped', retry: 120 });
      await vi.advanceTimersByTimeAsync(120_000);
      expect(calls).toBe(3);
      // it worked: no more tries
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(calls).toBe(3);

      // a stop cancels the try to come
      calls = 0;
      backfill.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toBe(1);
      await backfill.stop();
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
