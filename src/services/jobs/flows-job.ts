import sharp from 'sharp';
import type { JobContext, JobHandler, JobOutcome } from '../../queue/job-handler.ts';
import { pick } from '../../queue/job-runner.ts';
import type { RequestStore } from '../../store/request-store.ts';
import { ImageLoadError } from '../../media/image-load-error.ts';
import { decodeHeic, isHeic } from '../../media/heic-decode.ts';
import { serviceEnabled } from '../account-service.ts';
import { ServiceError } from '../errors.ts';
import { FlowDefinitionError, flowStepService, flowToJson, parseFlow, type FlowDefinition, type FlowStep } from '../flow-definition.ts';
import type { ImageMatchingService } from '../image-matching-service.ts';
import type { VisionService } from '../vision-service.ts';
import type { SearchContext } from '../envelope.ts';

type StepRecord = Record<string, unknown> & { _status?: { code: number; text: string } };

/** Flows administrators define (`loupe flow create|list|show|delete`). */
export class FlowService {
  constructor(private readonly requests: RequestStore) {}

  async put(name: string, definition: unknown): Promise<{ flow: Record<string, unknown>; outcome: 'created' | 'updated' }> {
    let def: FlowDefinition;
    try {
      def = parseFlow(name, definition);
    } catch (err) {
      if (err instanceof FlowDefinitionError) throw new ServiceError(400, 'invalid_flow', err.message);
      throw err;
    }
    const json = flowToJson(def);
    return { flow: json, outcome: await this.requests.putFlow(name, json) };
  }

  async get(name: string): Promise<FlowDefinition | undefined> {
    const row = await this.requests.getFlow(name);
    return row && parseFlow(row.name, row.definition);
  }

  async list(): Promise<Record<string, unknown>[]> {
    return (await this.requests.listFlows()).map((f) => f.definition as Record<string, unknown>);
  }

  async delete(name: string): Promise<boolean> {
    return this.requests.deleteFlow(name);
  }
}

/**
 * `type: flows`: each record goes through the flow's steps in order; a step's result is stored
 * under its `as` key. A failing step ends that record's chain with the step's own status.
 */
export class FlowsJob implements JobHandler {
  readonly type = 'flows';

  constructor(
    private readonly flows: FlowService,
    private readonly vision: VisionService,
    private readonly matching: ImageMatchingService,
  ) {}

  async accepts(endpoint: string): Promise<boolean> {
    return endpoint !== '' && (await this.flows.get(endpoint)) !== undefined;
  }

  async endpoints(): Promise<string[]> {
    return (await this.flows.list()).map((f) => String(f.name));
  }

  // every step's service: an account refused face detection was given faces through a flow (h150)
  async servicesFor(endpoint: string): Promise<readonly string[]> {
    const flow = await this.flows.get(endpoint);
    return [...new Set((flow?.steps ?? []).map((s) => flowStepService[s.endpoint]))];
  }

  async run(ctx: JobContext): Promise<JobOutcome> {
    const flow = await this.flows.get(ctx.endpoint);
    const refused = flow && refusedService(flow, ctx.options.services);
    const search: SearchContext = { requestId: ctx.requestId };
    const records: Record<string, unknown>[] = [];
    for (let i = 0; i < ctx.records.length; i++) {
      // a worker stopping hands the job back: the next record would be work thrown away
      ctx.signal.throwIfAborted();
      const base = pick(ctx.records[i]!);
      if (!flow) {
        records.push({ ...base, _status: { code: 404, text: `The flow ${ctx.endpoint} was deleted before the request ran`, request_id: ctx.requestId } });
        continue;
      }
      if (refused) {
        records.push({ ...base, _status: { code: 403, text: `The flow ${ctx.endpoint} was changed after the request was submitted: it now runs ${refused.step}, and the ${refused.service} service is not enabled for this account`, request_id: ctx.requestId } });
        continue;
      }
      records.push(await this.runRecord(ctx, search, flow, i, base));
    }
    return { records };
  }

  private async runRecord(ctx: JobContext, search: SearchContext, flow: FlowDefinition, index: number, base: Record<string, unknown>): Promise<Record<string, unknown>> {
    let bytes: Buffer;
    try {
      bytes = await ctx.image(index);
    } catch (err) {
      const text = err instanceof ImageLoadError ? err.message : 'Error Loading Image: the image could not be loaded';
      return { ...base, _status: { code: 400, text, request_id: ctx.requestId } };
    }
    const out: Record<string, unknown> = { ...base };
    const results = new Map<string, StepRecord>();
    for (const step of flow.steps) {
      if (step.over === undefined) {
        const r = await this.step(ctx, search, step, bytes);
        // spec 3 §7: a record whose image cannot be loaded has a text *beginning* "Error Loading Image" (a
        // step that first decodes it found the bytes are no image): the step is named after it
        if (failedStep(r)) return { ...out, _status: { code: r._status!.code, text: stepFailure(step.as, r._status!.text), request_id: ctx.requestId } };
        if (out._width === undefined && r._width !== undefined) Object.assign(out, { _width: r._width, _height: r._height });
        results.set(step.as, r);
        out[step.as] = fieldsOf(r);
      } else {
        const objects = ((results.get(step.over)?._objects as { bound_box: number[] }[] | undefined) ?? []).slice(0, step.maxObjects);
        const each: Record<string, unknown>[] = [];
        for (const object of objects) {
          // a crop that cannot be made is its entry's status (docs/flows.md), not the request's: it failed every record
          let part: Buffer;
          try {
            part = await crop(bytes, object.bound_box);
          } catch {
            each.push({ bound_box: object.bound_box, _status: { code: 400, text: `Error Loading Image: ${step.as}: the object's crop could not be made from the image` } });
            continue;
          }
          const r = await this.step(ctx, search, step, part);
          each.push({ bound_box: object.bound_box, ...(failedStep(r) ? { _status: r._status } : fieldsOf(r)) });
        }
        out[step.as] = each;
      }
    }
    return { ...out, _status: { code: 200, text: 'OK', request_id: ctx.requestId } };
  }

  /** One endpoint over one image; a busy vision pool is waited out rather than failing the job. */
  private async step(ctx: JobContext, search: SearchContext, step: FlowStep, bytes: Buffer): Promise<StepRecord> {
    const record = { _base64: bytes.toString('base64') };
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        switch (step.endpoint) {
          case 'photo/descriptor': {
            const r = await this.vision.descriptor(search, [record]);
            return { ...r.records[0]!, ...(r.descriptor_model ? { descriptor_model: r.descriptor_model } : {}) };
          }
          case 'identity/face':
            return (await this.vision.faces(search, [record])).records[0]!;
          case 'identity/person':
            return (await this.vision.persons(search, [record])).records[0]!;
          case 'image_matching/visual_hash':
            return (await this.matching.visualHash(search, [record], step.hashType)).records[0] as StepRecord;
        }
      } catch (err) {
        if (!(err instanceof ServiceError && err.status === 503) || ctx.signal.aborted) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}

/**
 * A step of the flow as it is now whose service the account did not have at submit: the submit checked the flow as it
 * was then, and an administrator may have replaced it since. Requests stored before h340 kept no services: not checked.
 */
function refusedService(flow: FlowDefinition, services: unknown): { step: string; service: string } | undefined {
  if (!Array.isArray(services)) return undefined;
  for (const step of flow.steps) {
    const service = flowStepService[step.endpoint];
    if (!serviceEnabled(services as string[], service)) return { step: step.endpoint, service };
  }
  return undefined;
}

function failedStep(r: StepRecord): boolean {
  return (r._status?.code ?? 200) >= 400;
}

/** A step's own result without the envelope fields the flow record already carries. */
function fieldsOf(r: StepRecord): Record<string, unknown> {
  const { _status: _s, _width: _w, _height: _h, _base64: _b, ...rest } = r;
  return rest;
}

/** The box of an object, in the pixels the detector reported (EXIF orientation applied). */
export async function crop(bytes: Buffer, box: number[]): Promise<Buffer> {
  const [x0, y0, x1, y1] = box.map((v) => Math.max(0, Math.round(v))) as [number, number, number, number];
  // The image already passed the detector's pixel limit; orientation must match its boxes.
  let meta = await sharp(bytes).metadata();
  let open = () => sharp(bytes);
  if (isHeic(meta)) {
    // an iPhone photo: sharp's libvips has no HEVC decoder (every record of the flow failed, h118); libheif applies
    // the file's rotation itself, as the detector saw it
    const heic = await decodeHeic(bytes);
    open = () => sharp(heic.data, { raw: { width: heic.width, height: heic.height, channels: 4 } });
    meta = { ...meta, width: heic.width, height: heic.height, orientation: 1 };
  }
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? 1;
  const height = (swap ? meta.width : meta.height) ?? 1;
  const left = Math.min(x0, width - 1);
  const top = Math.min(y0, height - 1);
  return open()
    .rotate()
    .extract({ left, top, width: Math.max(1, Math.min(x1, width) - left), height: Math.max(1, Math.min(y1, height) - top) })
    // on white, as every step sees a whole image (decode-rgb.ts): JPEG's own flattening made a cut-out's crop black (h340)
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** A step's failure as the record's status text: the step named, after "Error Loading Image:" when that is what it was. */
export function stepFailure(step: string, text: string): string {
  const load = /^Error Loading Image:\s*/.exec(text);
  return load ? `Error Loading Image: ${step}: ${text.slice(load[0].length)}` : `${step}: ${text}`;
}
