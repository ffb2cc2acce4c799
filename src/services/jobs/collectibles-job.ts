import type { JobContext, JobHandler, JobOutcome } from '../../queue/job-handler.ts';
import { pick } from '../../queue/job-runner.ts';
import { stopwatch } from '../envelope.ts';
import { COMICS, SPORT, TCG, TCG_OPTIONS, type Family, type RecognitionService, type TcgOptions } from '../recognition/recognition-service.ts';

/** The endpoints of `collectibles-recognition` built so far, with the records each takes (spec 3 §8). */
const endpoints: Record<string, { records: number; family?: Family; slab?: 'id' | 'grade' }> = {
  tcg_id: { records: 10, family: TCG },
  sport_id: { records: 10, family: SPORT },
  comics_id: { records: 10, family: COMICS },
  card_ocr_id: { records: 10 },
  slab_id: { records: 10, slab: 'id' },
  slab_grade: { records: 10, slab: 'grade' },
};

/** `tcg_id` and `/tcg_id` name the same endpoint: clients copy the path. */
const endpointOf = (endpoint: string) => endpoint.replace(/^\//, '');

/**
 * `type: collectibles-recognition` (spec 3 §4 "Asynchronous API"): the synchronous endpoints'
 * records, worked out by a queue worker. The options of §4 are read from each record (the spec:
 * "records may carry per-record options"); a record that does not say takes the default, false.
 */
export class CollectiblesJob implements JobHandler {
  readonly type = 'collectibles-recognition';

  constructor(private readonly recognition: RecognitionService) {}

  accepts(endpoint: string): boolean {
    return Object.hasOwn(endpoints, endpointOf(endpoint));
  }

  endpoints(): string[] {
    return Object.keys(endpoints);
  }

  maxRecords(endpoint: string): number {
    return endpoints[endpointOf(endpoint)]?.records ?? 10;
  }

  validate(_endpoint: string, options: { mode?: string | undefined; frontWeight?: number | undefined }): string | undefined {
    if (options.mode !== undefined || options.frontWeight !== undefined) return '`mode` and `front_weight` apply to card grading only.';
    return undefined;
  }

  async run(ctx: JobContext): Promise<JobOutcome> {
    const clock = stopwatch();
    const { family, slab } = endpoints[endpointOf(ctx.endpoint)]!;
    const catalogs = slab === 'grade' ? [] : slab ? await this.recognition.slabCatalogs() : await this.recognition.tcgCatalogs(family ?? TCG);
    const records: Record<string, unknown>[] = [];
    for (let i = 0; i < ctx.records.length; i++) {
      const rec = ctx.records[i]!;
      const sctx = { requestId: ctx.requestId };
      let out;
      if (slab) out = await this.recognition.slabRecord(sctx, rec, await this.recognition.label(() => ctx.image(i)), catalogs, pick(rec), slab === 'grade');
      else if (!family) out = await this.recognition.ocrRecord(sctx, rec, await this.recognition.read(() => ctx.image(i)), catalogs, pick(rec));
      else if (!catalogs.length) out = { ...pick(rec), _status: { code: 503, text: family.noCatalog } };
      else {
        // analyze_all is charged per card, which a request paid per record at submit cannot do: synchronous only;
        // the slab options are read and covered by the record's price (docs/api-decisions.md)
        const options: TcgOptions = Object.fromEntries(TCG_OPTIONS.filter((o) => o !== 'analyze_all' && typeof rec[o] === 'boolean').map((o) => [o, rec[o] as boolean]));
        out = await this.recognition.tcgRecord(sctx, rec, await this.recognition.read(() => ctx.image(i), options.slab_id === true || options.slab_grade === true), options, catalogs, pick(rec), family);
      }
      records.push({ ...out, _status: { ...out._status, request_id: ctx.requestId } });
    }
    return { records, extra: { statistics: clock.done() } };
  }
}
