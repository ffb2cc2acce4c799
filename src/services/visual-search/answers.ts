import { CollectionGone, type CollectionRecord } from '../../store/collection-store.ts';
import type { EnvelopeStatus, SearchContext, Statistics } from '../envelope.ts';
import { ServiceError } from '../errors.ts';
import { notARecordOf } from '../../util/not-a-record.ts';
import { ID_FORM, sentId, type Out } from './record-fields.ts';

export interface Envelope {
  status: EnvelopeStatus;
  statistics: Statistics;
  [key: string]: unknown;
}

export const skipped = (ctx: SearchContext, record: Out, code: number, text: string, more: Record<string, unknown> = {}): Out => ({ ...record, _reason: { status: { code, text, request_id: ctx.requestId }, ...more } });

/** A record whose `_id` is not one: its own 400 (the request schemas leave `_id` to each record). */
export function badId(ctx: SearchContext, record: { _id?: unknown }): Out {
  return notAnObject(ctx, record, 'a record with an _id') ?? skipped(ctx, sentId(record), 400, `_id must be ${ID_FORM}`);
}

/**
 * A record of `records` that is no object (`null`, a number; src/util/not-a-record.ts): skipped with its own 400, which
 * names its place and what it was, nothing echoed (h336: the whole request's 400 `records[0] must be object`, as a
 * wrong `_id` beside good ones never was). `wanted` says what a record there is. Undefined for an object.
 */
export function notAnObject(ctx: SearchContext, record: object, wanted: string, list = 'records', more: Record<string, unknown> = {}): Out | undefined {
  const not = notARecordOf(record);
  return not && skipped(ctx, {}, 400, `${list}[${not.index}] must be an object (${wanted}), not ${not.sent}`, more);
}

/**
 * A query image the workers could not use: one that does not load is the client's (400); one
 * whose processing failed or ran out of time is the server's (500 / 504), which a client may retry.
 */
export function queryFailed(error: { code: number; text: string }): ServiceError {
  if (error.code < 500) return new ServiceError(400, 'invalid_image', `query_record: ${error.text}`);
  return new ServiceError(error.code, error.code === 504 ? 'vision_timeout' : 'vision_failed', `query_record: ${error.text}`);
}

export const mismatch = (held: string, made: string) => `the collection holds ${held} vectors; the server now makes ${made} (see docs/model-packs.md)`;

/** A write to a collection deleted while the call was under way is the collection's 404, as a call after the delete is. */
export async function whileExists<T>(c: CollectionRecord, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof CollectionGone) throw new ServiceError(404, 'collection_not_found', `Collection ${c.id} not found.`);
    throw err;
  }
}
