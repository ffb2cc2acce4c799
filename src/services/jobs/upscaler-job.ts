import { MediaWriteError, type JobContext, type JobHandler, type JobOutcome } from '../../queue/job-handler.ts';
import { pick } from '../../queue/job-runner.ts';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { failure, type VisionService } from '../vision-service.ts';

const factors = { upscale_2x: 2, upscale_3x: 3, upscale_4x: 4, upscale_8x: 8 } as const;
type UpscaleEndpoint = keyof typeof factors;
/** A leading `/` is accepted, as card-grader's and collectibles-recognition's endpoints take it (h340: 400 here alone). */
const endpointOf = (endpoint: string) => endpoint.replace(/^\//, '');

/**
 * `type: upscaler`: super-resolution of each record's image with ESRGAN (slim, from
 * @upscalerjs/esrgan-slim). Results are stored as media kept as long as the request.
 */
export class UpscalerJob implements JobHandler {
  readonly type = 'upscaler';
  // one image at a time on the long pool's one thread: a second upscale job at once would only wait there
  readonly long = true;

  constructor(private readonly vision: VisionService) {}

  accepts(endpoint: string): boolean {
    return Object.hasOwn(factors, endpointOf(endpoint));
  }

  endpoints(): string[] {
    return Object.keys(factors);
  }

  async run(ctx: JobContext): Promise<JobOutcome> {
    const factor = factors[endpointOf(ctx.endpoint) as UpscaleEndpoint];
    const records: Record<string, unknown>[] = [];
    // One image at a time: each already keeps a whole long-task thread busy.
    for (let i = 0; i < ctx.records.length; i++) {
      // a worker stopping hands the job back: the next record would be work thrown away
      ctx.signal.throwIfAborted();
      const base = pick(ctx.records[i]!);
      try {
        const r = await this.vision.upscale(await ctx.image(i), factor, ctx.signal);
        const url = await ctx.putMedia(Buffer.from(r.image), r.format);
        records.push({ ...base, _width: r.width, _height: r.height, _upscaled_width: r.upscaledWidth, _upscaled_height: r.upscaledHeight, _upscaled_image_url: url, _model: r.model, _status: { code: 200, text: okText(r.frames), request_id: ctx.requestId } });
      } catch (err) {
        // stopping, or a result the disk would not take: the job goes back to the queue (h139)
        if (ctx.signal.aborted || err instanceof MediaWriteError) throw err;
        // Loaded fine but past what the upscaler takes: not a loading error.
        const { code, text } = err instanceof ImageLoadError && err.code === 'too_large_to_process' ? { code: 413, text: `Error Processing Image: ${err.reason}` } : failure(err);
        records.push({ ...base, _status: { code, text, request_id: ctx.requestId } });
      }
    }
    return { records };
  }
}

/** An animated input is upscaled as its first frame: said, not left to a plain OK (h340). */
function okText(frames: number | undefined): string {
  return frames ? `OK; the first of its ${frames} frames was upscaled: the result is a still image` : 'OK';
}
