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

/** Per-record status of a record whose image could not be used. */
export function recordError(ctx: SearchContext, text: string): { code: number; text: string; request_id: string } {
  return { code: 400, text, request_id: ctx.requestId };
}
