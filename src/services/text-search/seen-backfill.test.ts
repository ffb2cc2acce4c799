import { describe, expect, it } from 'vitest';
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
