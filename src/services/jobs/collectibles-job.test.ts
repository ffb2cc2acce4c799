import { describe, expect, it } from 'vitest';
import type { RecognitionService } from '../recognition/recognition-service.ts';
import { CollectiblesJob } from './collectibles-job.ts';

describe('CollectiblesJob', () => {
  it('reads no image where every record would be answered 503 for want of a catalog of its kind (the queue then downloads none ahead, h290)', async () => {
    let imported: string[] = [];
    const recognition = { tcgCatalogs: async (family: { kinds: readonly string[] }) => imported.filter((k) => family.kinds.includes(k)).map((kind) => ({ kind })) } as unknown as RecognitionService;
    const job = new CollectiblesJob(recognition);
    expect(await job.readsImages('tcg_id')).toBe(false);
    expect(await job.readsImages('/comics_id')).toBe(false);
    // slabs and text need no catalog
    for (const endpoint of ['slab_id', 'slab_grade', 'card_ocr_id']) expect(await job.readsImages(endpoint), endpoint).toBe(true);
    imported = ['pokemon'];
    expect(await job.readsImages('tcg_id')).toBe(true);
    expect(await job.readsImages('sport_id')).toBe(false);
  });
});
