import { refusal, type JobContext, type JobHandler, type JobOutcome, type Refusal, type RequestOptions } from '../../queue/job-handler.ts';
import { echoAnswer } from '../envelope.ts';
import { stopwatch } from '../envelope.ts';
import { COMICS, COMICS_OPTIONS, HINTS, hintProblem, meantName, misspeltMessage, notTakenHere, optionNotTakenInRecords, recordHints, searchesPokemon, SPORT, SPORT_OPTIONS, TCG, TCG_OPTIONS, type Family, type TcgOptions } from '../recognition/recognition-families.ts';
import type { RecognitionService } from '../recognition/recognition-service.ts';
import type { CardOutcome } from '../vision-service.ts';

/** The endpoints of `collectibles-recognition` built so far, with the records each takes (spec 3 §8). */
const endpoints: Record<string, { records: number; family?: Family; slab?: 'id' | 'grade' }> = {
  tcg_id: { records: 10, family: TCG },
  sport_id: { records: 10, family: SPORT },
  comics_id: { records: 10, family: COMICS },
  card_ocr_id: { records: 10 },
  slab_id: { records: 10, slab: 'id' },
  slab_grade: { records: 10, slab: 'grade' },
};

/** The options a record of each family may carry: those of its synchronous endpoint. */
const optionsOf = (family: Family): readonly string[] => (family === SPORT ? SPORT_OPTIONS : family === COMICS ? COMICS_OPTIONS : TCG_OPTIONS);

/** What a record may carry for any family: its options and hints, which a submit's body beside the records would not reach. */
const recordKeys = new Set([...TCG_OPTIONS, ...SPORT_OPTIONS, ...COMICS_OPTIONS, 'set_code', 'lang', ...HINTS]);

/** `tcg_id` and `/tcg_id` name the same endpoint: clients copy the path. */
const endpointOf = (endpoint: string) => endpoint.replace(/^\//, '');

/**
 * `type: collectibles-recognition` (spec 3 §4 "Asynchronous API"): the synchronous endpoints'
 * records, worked out by a queue worker. The options of §4 are read from each record (the spec:
 * "records may carry per-record options"); a record that does not say takes the default, false.
 */
export class CollectiblesJob implements JobHandler {
  readonly type = 'collectibles-recognition';
  readonly service = 'collectibles';
  /** Trading cards, the type's first and most asked endpoint: a submit naming none runs it. */
  readonly defaultEndpoint = 'tcg_id';

  constructor(private readonly recognition: RecognitionService) {}

  accepts(endpoint: string): boolean {
    return Object.hasOwn(endpoints, endpointOf(endpoint));
  }

  endpoints(): string[] {
    return Object.keys(endpoints);
  }

  /** A card, sport or comics endpoint answers every record 503 while no catalog of its kind is imported: no image read. */
  async readsImages(endpoint: string): Promise<boolean> {
    const { family, slab } = endpoints[endpointOf(endpoint)] ?? {};
    return slab !== undefined || !family || (await this.recognition.tcgCatalogs(family)).length > 0;
  }

  maxRecords(endpoint: string): number {
    return endpoints[endpointOf(endpoint)]?.records ?? 10;
  }

  validate(endpoint: string, options: RequestOptions): Refusal | undefined {
    // `mode` and `front_weight` say nothing to recognition: accepted and left be, as on every endpoint they say nothing
    // to (request builders send them always; h257: refused here alone)
    // a synchronous body copied as it is would lose its options without a word
    // `card_ocr_id` and the slab endpoints take no option at all (document 3 §4: "only records"), wherever it is sent
    if (!endpoints[endpointOf(endpoint)]?.family) {
      for (const key of options.rootKeys ?? []) {
        const why = notTakenHere(`/${endpointOf(endpoint)}`, key, key, true);
        if (why) return refusal(key, why);
      }
    }
    const misplaced = options.rootKeys?.find((k) => recordKeys.has(k));
    // analyze_all's own words: sent in a record it reads the largest card only, which the advice to move it there hid (h108)
    if (misplaced === 'analyze_all') {
      // a comic's request says comic (h249: a comics shop was pointed to binder pages and /tcg_id)
      const [item, every, path] = endpointOf(endpoint) === 'comics_id' ? ['comic', 'every comic of a photo', 'comics_id'] : ['card', 'every card of a binder page', endpointOf(endpoint) === 'sport_id' ? 'sport_id' : 'tcg_id'];
      return refusal('analyze_all', `\`analyze_all\` is not applied in asynchronous requests: each record is read for its largest ${item} (a request is paid per record at submit, and each further ${item} would be charged after). For ${every}, call /collectibles/v2/${path} with analyze_all, or send each ${item} as its own record (/collectibles/v2/detect gives their boxes).`);
    }
    if (misplaced) return refusal(misplaced, `\`${misplaced}\` is an option of each record in asynchronous requests (spec 3 §4: records carry their own options): send it in the records it applies to.`);
    // …and one written another way, which no record would have read either (h270)
    for (const key of options.rootKeys ?? []) {
      const meant = meantName(key, [...recordKeys]);
      if (meant) return refusal(key, misspeltMessage(key, meant, recordHints(endpoints[endpointOf(endpoint)]?.family ?? TCG), 'on each record it applies to (asynchronous requests take their options on each record)'));
    }
    return undefined;
  }

  /**
   * The options each record carries, held to the synchronous endpoints' types (docs/api-decisions.md,
   * "Submit errors": 400 before anything is stored or charged), and `magic_ai`'s limit of 2 records.
   */
  validateRecords(endpoint: string, records: readonly Record<string, unknown>[]): Refusal | undefined {
    const { family, slab } = endpoints[endpointOf(endpoint)] ?? {};
    if (!family || slab) {
      const asked = optionNotTakenInRecords(`/${endpointOf(endpoint)}`, records);
      return asked && refusal(asked.field, asked.message);
    }
    const flags = optionsOf(family);
    const hints = recordHints(family);
    const names = [...flags, ...hints];
    for (const [i, rec] of records.entries()) {
      // an option or hint written another way would be read as nothing, and the record charged as if not asked (h270)
      for (const key of Object.keys(rec)) {
        const meant = meantName(key, names);
        if (meant) return refusal(`records[${i}].${key}`, misspeltMessage(`records[${i}].${key}`, meant, hints, 'on the record'));
      }
      for (const flag of flags) {
        const v = rec[flag];
        if (v !== undefined && v !== null && typeof v !== 'boolean') return refusal(`records[${i}].${flag}`, `records[${i}].${flag} must be boolean.`);
      }
      // the hints as the synchronous endpoints check them (there, the record's own 400)
      const hint = hintProblem(rec, family);
      if (hint) return refusal(`records[${i}].${hint.field}`, `records[${i}].${hint.message}.`);
    }
    const magic = family === SPORT ? records.filter((r) => r.magic_ai === true).length : 0;
    // a record limit of spec 3 §8, refused with the code /sport_id gives it (it was `invalid_request` here)
    if (magic > 2) return { ...refusal('records', `magic_ai takes at most 2 records per request; ${magic} were sent.`), code: 'too_many_records' };
    return undefined;
  }

  async run(ctx: JobContext): Promise<JobOutcome> {
    const clock = stopwatch();
    const { family, slab } = endpoints[endpointOf(ctx.endpoint)]!;
    const load = () => (slab === 'grade' ? Promise.resolve([]) : slab ? this.recognition.slabCatalogs() : this.recognition.tcgCatalogs(family ?? TCG));
    // the catalogs as the last record found them: after an import during the job, the next record starts from them
    let catalogs = await load();
    const steady = <T>(answer: (using: typeof catalogs) => Promise<T>) =>
      this.recognition.onSteadyCatalogs(catalogs, load, (using) => {
        catalogs = using;
        return answer(using);
      });
    const records: Record<string, unknown>[] = [];
    for (let i = 0; i < ctx.records.length; i++) {
      // a worker stopping hands the job back: the next record would be work thrown away
      ctx.signal.throwIfAborted();
      const rec = ctx.records[i]!;
      const sctx = { requestId: ctx.requestId };
      let out;
      if (slab) {
        const label = await this.recognition.label(() => ctx.image(i), ctx.previewEdge);
        await keepPreview(ctx, i, label);
        out = await steady((using) => this.recognition.slabRecord(sctx, rec, label, using, echoAnswer(rec), slab === 'grade'));
      } else if (!family) {
        const read = await this.recognition.read(() => ctx.image(i), 'no-card', searchesPokemon(catalogs), ctx.previewEdge);
        await keepPreview(ctx, i, read);
        out = await steady((using) => this.recognition.ocrRecord(sctx, rec, read, using, echoAnswer(rec)));
      }
      else if (!catalogs.length) out = { ...echoAnswer(rec), _status: { code: 503, text: family.noCatalog } };
      else {
        // analyze_all is charged per card, which a request paid per record at submit cannot do: synchronous only;
        // the slab options are read and covered by the record's price (docs/api-decisions.md)
        const options: TcgOptions = Object.fromEntries(optionsOf(family).filter((o) => o !== 'analyze_all' && typeof rec[o] === 'boolean').map((o) => [o, rec[o] as boolean]));
        const read = await this.recognition.read(() => ctx.image(i), options.slab_id === true || options.slab_grade === true, searchesPokemon(catalogs), ctx.previewEdge);
        await keepPreview(ctx, i, read);
        out = await steady((using) => this.recognition.tcgRecord(sctx, rec, read, options, using, echoAnswer(rec), family));
        // said, not dropped silently: the client asked for every card and gets the largest
        if (rec.analyze_all === true && out._status.code === 200) out = { ...out, _status: { ...out._status, text: `${out._status.text}; analyze_all: not applied in asynchronous requests (the largest ${family === COMICS ? 'comic' : 'card'} only)` } };
      }
      records.push({ ...out, _status: { ...out._status, request_id: ctx.requestId } });
    }
    return { records, extra: { statistics: clock.done() } };
  }
}

/** The preview the vision worker made of record `index`'s photo, kept with the result (a photo it could not read has none). */
async function keepPreview(ctx: JobContext, index: number, outcome: CardOutcome): Promise<void> {
  const preview = 'ok' in outcome ? outcome.ok.preview : undefined;
  if (preview) await ctx.putPreview(index, Buffer.from(preview.jpeg), preview.width, preview.height);
}
