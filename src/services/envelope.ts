import { randomUUID } from 'node:crypto';

/** The status object of search-style responses (spec 2 §2): code aligned with HTTP codes. */
export interface EnvelopeStatus {
  code: number;
  text: string;
  request_id?: string;
  proc_id?: string;
}

export interface Statistics {
  'processing time': number;
  OperationTime: number;
}

export interface SearchContext {
  requestId: string;
  /**
   * Who pays for what a call adds per record (fashion's `extract_colors` and `extract_tags`,
   * "additionally billed"), and at what price each.
   */
  extras?: { accountId: string; prices: Record<string, number>; /** The call's price, for the service to charge with its records' extras in one debit. */ call?: { price: number; priceKey: string } };
}

export function status(ctx: SearchContext, code: number, text: string): Required<EnvelopeStatus> {
  return { code, text, request_id: ctx.requestId, proc_id: randomUUID() };
}

/** Measures one operation; `done()` gives the statistics object. */
export function stopwatch(): { done(): Statistics } {
  const t0 = performance.now();
  return {
    done: () => {
      const ms = performance.now() - t0;
      return { 'processing time': Math.round(ms) / 1000, OperationTime: Math.round(ms) };
    },
  };
}

/** Per-record status of a record whose image could not be used (or, with `code`, processed). */
export function recordError(ctx: SearchContext, text: string, code = 400): { code: number; text: string; request_id: string } {
  return { code, text, request_id: ctx.requestId };
}

/** A record as echoed back: everything the client sent except the image data itself. */
export function echo(record: Record<string, unknown>): Record<string, unknown> {
  const { _base64: _omitted, ...rest } = record;
  return rest;
}

/**
 * The fields an analysed image's record answers in (the vision, image-matching and collectibles endpoints): the
 * server's own, never the client's. A record that answered carries the server's; one that failed carried what the
 * client had put there, as if the server said it, and one of another type (`"_objects": "x"`) made the whole call a 500
 * and lost the good records beside it (h271).
 */
const answerFields = ['_status', '_width', '_height', '_objects', '_descriptor'] as const;

/** `echo`, without the fields the answer's record is the server's own in (`answerFields`). */
export function echoAnswer(record: Record<string, unknown>): Record<string, unknown> {
  const rest = echo(record);
  for (const k of answerFields) delete rest[k];
  return rest;
}

/**
 * The overall status of a request over images: all good 200, some records failed 300
 * MIXED_RESULT, all failed 400 (or the failures' own code when they all share one).
 */
export function overall(ctx: SearchContext, failures: { code: number; text?: string }[], total: number): Required<EnvelopeStatus> {
  if (failures.length === 0) return status(ctx, 200, 'OK');
  if (failures.length < total) return status(ctx, 300, 'MIXED_RESULT');
  const code = sharedCode(failures);
  return status(ctx, code, overallText(code, failures));
}

/**
 * What a request whose every record failed says: the records' own text when they all say the same
 * ("No card was found in the image"), `Error Loading Image` when images could not be loaded (spec 3
 * §7), `Error Processing Image` when the work on them failed, else a pointer to the records.
 */
function overallText(code: number, failures: { code: number; text?: string }[]): string {
  const texts = failures.map((f) => f.text);
  if (texts.every((t) => t === undefined)) return code === 400 ? 'Error Loading Image' : 'Error Processing Image';
  if (texts.every((t) => t === texts[0])) return texts[0]!.split(':')[0]!.startsWith('Error ') ? texts[0]!.split(':')[0]! : texts[0]!;
  if (texts.every((t) => t?.startsWith('Error Loading Image'))) return 'Error Loading Image';
  if (code >= 500 && texts.every((t) => t?.startsWith('Error Processing Image'))) return 'Error Processing Image';
  return "Every record failed: see each record's _status";
}

/** The code of a request whose every record failed: theirs when they all share one, else 400. */
export function sharedCode(failures: { code: number }[]): number {
  return failures.length > 0 && failures.every((f) => f.code === failures[0]!.code) ? failures[0]!.code : 400;
}

/** Like Promise.all over `items`, with at most `limit` calls of `fn` running at once; order kept. */
export async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
