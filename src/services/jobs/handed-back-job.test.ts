import { describe, expect, it } from 'vitest';
import type { JobContext } from '../../queue/job-handler.ts';
import type { VisionService } from '../vision-service.ts';
import { UpscalerJob } from './upscaler-job.ts';

describe('a job its worker hands back (stopping, or its lease lost)', () => {
  it('stops before its next record: the work would be thrown away', async () => {
    const abort = new AbortController();
    let calls = 0;
    const vision = {
      upscale: async () => {
        calls++;
        // the worker is told to stop while the first image is upscaled
        abort.abort();
        return { image: new ArrayBuffer(4), format: 'png', width: 1, height: 1, upscaledWidth: 2, upscaledHeight: 2, model: 'm' };
      },
    } as unknown as VisionService;
    const ctx: JobContext = {
      id: 'r', accountId: 'a', workspaceId: 'w', type: 'upscaler', endpoint: 'upscale_2x', options: {}, requestId: 'r',
      records: [{ _id: '1' }, { _id: '2' }, { _id: '3' }],
      image: async () => Buffer.alloc(1),
      putMedia: async () => 'http://x/media/k.png',
      previewEdge: 0,
      putPreview: async () => undefined,
      signal: abort.signal,
    };
    await expect(new UpscalerJob(vision).run(ctx)).rejects.toThrow();
    expect(calls).toBe(1);
  });
});
