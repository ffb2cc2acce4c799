import { randomUUID } from 'node:crypto';
import type { Limits } from '../config/config.ts';
import { decodeBase64Image } from '../media/base64-image.ts';
import { prepareCardImage } from '../media/card-image.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import { MediaStore } from '../media/media-store.ts';
import type { CardSessionStore, IdentificationRow, IdentificationUpdate, IdentificationValues, MergeableRow, SessionRow } from '../store/card-session-store.ts';
import { fromBool, fromJson, toIso } from '../store/database.ts';
import { ServiceError, badRequest, isUuid, notFound, type FieldError } from './errors.ts';

export interface CallContext {
  workspaceId: string;
  /** Absolute base of URLs handed out (media). */
  baseUrl: string;
}

export interface SessionInput {
  name?: string | null;
  description?: string | null;
  game?: string | null;
  platform?: string | null;
  client?: Record<string, unknown> | null;
  meta_data?: Record<string, unknown> | null;
}

export interface SessionView {
  id: string;
  name: string;
  description: string;
  game: string;
  platform: string;
  status: 'live' | 'closed';
  started: string;
  ended: string | null;
  identification_count: number;
  total_price: number;
  client: Record<string, unknown>;
  meta_data: Record<string, unknown>;
}

/** Fields naming the matched card: fixed once uploaded, changed only by a correction (PATCH). */
export const matchFields = ['name', 'full_name', 'set_name', 'set_code', 'card_number', 'series', 'year', 'subcategory', 'price'] as const;
type MatchField = (typeof matchFields)[number];
export type MatchSnapshot = Record<Exclude<MatchField, 'price'>, string | null> & { price: number | null };

export interface IdentificationInput {
  event_id: string;
  seen?: string | null;
  calls?: number | null;
  duration?: number | null;
  id_type?: string | null;
  name?: string | null;
  full_name?: string | null;
  set_name?: string | null;
  set_code?: string | null;
  card_number?: string | null;
  series?: string | null;
  year?: string | null;
  subcategory?: string | null;
  distance?: number | null;
  confidence?: string | null;
  links?: Record<string, string> | null;
  alternatives?: unknown[] | null;
  price_stats?: unknown[] | null;
  price?: number | null;
  grading?: Record<string, unknown> | null;
  sold?: boolean | null;
  note?: string | null;
}

export type CorrectionInput = Partial<Record<Exclude<MatchField, 'price'>, string | null>> & { price?: number | null; sold?: boolean | null; note?: string | null };

export interface IdentificationView {
  id: string;
  session: string;
  event_id: string;
  seen: string | null;
  calls: number | null;
  duration: number | null;
  id_type: string | null;
  name: string | null;
  full_name: string | null;
  set_name: string | null;
  set_code: string | null;
  card_number: string | null;
  series: string | null;
  year: string | null;
  subcategory: string | null;
  distance: number | null;
  confidence: string | null;
  links: Record<string, string> | null;
  alternatives: unknown[] | null;
  price_stats: unknown[] | null;
  price: number | null;
  grading: Record<string, unknown> | null;
  grade: number | null;
  image: string | null;
  thumbnail: string | null;
  sold: boolean | null;
  note: string | null;
  corrected: boolean;
  original: MatchSnapshot | null;
  corrected_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionSummary {
  identifications: number;
  distinct_cards: number;
  total_price: number;
  paid_calls: number;
  average_grade: number | null;
}

export interface UploadResult {
  received: number;
  created: number;
  updated: number;
  duplicates: number;
}

export interface Page<T> {
  count: number;
  page: number;
  pageSize: number;
  results: T[];
}

export const gradingMaxBytes = 64 * 1024;
export const metaDataMaxBytes = 64 * 1024;
export const clientMaxBytes = 4 * 1024;

/** The spec's spellings; clients may send any case. */
const games: Record<string, string> = { '': '', tcg: 'TCG', sports: 'Sports', comics: 'Comics', slabs: 'Slabs' };

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** JSON with object keys sorted at every level, so equal values compare equal as text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

const isoShape = /^(\d{4})-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * ISO 8601 only (the engine's Date.parse would also take "1" or "March 7"); years 1–9999, which
 * both backends store. Naive times (no zone) are read as UTC, not as the server's local time.
 */
export function normaliseTime(value: string): string | undefined {
  const v = value.trim();
  const m = isoShape.exec(v);
  if (!m) return undefined;
  const year = Number(m[1]);
  if (year < 1 || year > 9999) return undefined;
  const withZone = !m[2] && /\d{2}:\d{2}/.test(v) ? `${v}Z` : v;
  const ms = Date.parse(withZone.replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `grading.grades.final` as a number, when it is one (numeric strings such as "9.5" count). */
export function gradeOf(grading: Record<string, unknown> | null | undefined): number | null {
  const grades = grading?.grades;
  if (!grades || typeof grades !== 'object') return null;
  const final = (grades as Record<string, unknown>).final;
  const n = typeof final === 'number' ? final : typeof final === 'string' && final.trim() !== '' ? Number(final) : NaN;
  return Number.isFinite(n) ? n : null;
}

/**
 * Two rows are the same card when kind, name, set and number agree, ignoring case and spaces.
 * The set is its code when known, else its name; the name falls back to the full name.
 * Rows with neither name nor full name are unidentified and not counted as cards.
 */
export function cardKey(row: { id_type?: string | null; name?: string | null; full_name?: string | null; set_code?: string | null; set_name?: string | null; card_number?: string | null }): string | null {
  const norm = (s: string | null | undefined) => (s ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
  const name = norm(row.name) || norm(row.full_name);
  if (!name) return null;
  return [norm(row.id_type), name, norm(row.set_code) || norm(row.set_name), norm(row.card_number)].join('|');
}

const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);
const maxOf = (a: number | null, b: number | null | undefined): number | null => (b === null || b === undefined ? a : a === null ? b : Math.max(a, b));

/** The fields a re-sent row may change: later data such as grading; call counts only grow. */
interface MutableState {
  calls: number | null;
  duration: number | null;
  grading: string | null;
  sold: boolean | null;
  note: string | null;
}

function mergeMutable(state: MutableState, row: IdentificationInput): MutableState {
  return {
    calls: maxOf(state.calls, row.calls),
    duration: maxOf(state.duration, row.duration),
    grading: row.grading === undefined || row.grading === null ? state.grading : canonicalJson(row.grading),
    sold: row.sold === undefined || row.sold === null ? state.sold : row.sold,
    note: row.note === undefined || row.note === null ? state.note : row.note,
  };
}

const sameMutable = (a: MutableState, b: MutableState): boolean =>
  a.calls === b.calls && a.duration === b.duration && a.grading === b.grading && a.sold === b.sold && a.note === b.note;

const sessionClosed = () => new ServiceError(409, 'session_closed', 'The session is closed; reopen it before uploading cards.');

/** PostgreSQL asks to retry on these: a concurrent batch inserted the same event id, or a deadlock. */
class RetryBatch extends Error {}
const retryable = (err: unknown): boolean => err instanceof RetryBatch || ['40P01', '40001'].includes((err as { code?: string })?.code ?? '');

export class CardSessionService {
  constructor(
    private readonly store: CardSessionStore,
    private readonly media: MediaStore,
    private readonly limits: Limits,
  ) {}

  // ---- sessions ----

  async createSession(ctx: CallContext, input: SessionInput): Promise<SessionView> {
    const gameKey = (input.game ?? '').trim().toLowerCase();
    const game = Object.hasOwn(games, gameKey) ? games[gameKey] : undefined;
    if (game === undefined) throw badRequest(`game must be one of TCG, Sports, Comics, Slabs or empty; got "${input.game}".`, [{ field: 'game', message: 'must be TCG, Sports, Comics, Slabs or empty' }]);
    for (const [field, max] of [['meta_data', metaDataMaxBytes], ['client', clientMaxBytes]] as const) {
      if (input[field] && Buffer.byteLength(JSON.stringify(input[field])) > max) {
        throw badRequest(`${field} must be at most ${max} bytes of JSON.`, [{ field, message: `must be at most ${max} bytes of JSON` }]);
      }
    }
    const id = randomUUID();
    const started = new Date().toISOString();
    await this.store.insertSession({
      id,
      workspace_id: ctx.workspaceId,
      name: input.name ?? `Session ${started.slice(0, 16).replace('T', ' ')} UTC`,
      description: input.description ?? '',
      game,
      platform: input.platform ?? '',
      client: JSON.stringify(input.client ?? {}),
      meta_data: JSON.stringify(input.meta_data ?? {}),
      started,
    });
    return this.getSession(ctx, id);
  }

  async listSessions(ctx: CallContext, query: { page: number; pageSize?: number | undefined; search?: string | undefined }): Promise<Page<SessionView>> {
    const pageSize = Math.min(query.pageSize ?? this.limits.sessionPageSize, this.limits.identificationPageSizeMax);
    const search = query.search?.trim() || undefined;
    const { count, rows } = await this.store.listSessions(ctx.workspaceId, search, pageSize, (query.page - 1) * pageSize);
    return { count, page: query.page, pageSize, results: rows.map((r) => this.sessionView(r)) };
  }

  async getSession(ctx: CallContext, id: string): Promise<SessionView> {
    return this.sessionView(await this.sessionRow(ctx, id));
  }

  async renameSession(ctx: CallContext, id: string, name: string): Promise<SessionView> {
    const sid = this.sessionId(id);
    if (!(await this.store.renameSession(sid, ctx.workspaceId, name))) throw notFound(`Session ${id}`);
    return this.getSession(ctx, sid);
  }

  async deleteSession(ctx: CallContext, id: string): Promise<void> {
    const keys = await this.store.deleteSession(this.sessionId(id), ctx.workspaceId);
    if (keys === undefined) throw notFound(`Session ${id}`);
    await this.media.remove(keys);
  }

  /** Closing a closed session succeeds and keeps its first `ended`. */
  async closeSession(ctx: CallContext, id: string): Promise<SessionView> {
    const sid = this.sessionId(id);
    await this.store.setStatus(sid, ctx.workspaceId, 'closed');
    return this.getSession(ctx, sid);
  }

  /** Reopening a live session succeeds and changes nothing; reopening clears `ended`. */
  async reopenSession(ctx: CallContext, id: string): Promise<SessionView> {
    const sid = this.sessionId(id);
    await this.store.setStatus(sid, ctx.workspaceId, 'live');
    return this.getSession(ctx, sid);
  }

  async summary(ctx: CallContext, id: string): Promise<SessionSummary> {
    const sid = this.sessionId(id);
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
    const s = await this.store.summary(sid);
    const rowCalls = Number(s.row_calls ?? 0);
    const runCalls = Number(s.run_calls ?? 0);
    return {
      identifications: Number(s.identifications),
      distinct_cards: Number(s.distinct_cards),
      total_price: round2(Number(s.total_price ?? 0)),
      // Runs report every call the app paid for, rows only those that found a card; the larger is the spend.
      paid_calls: Math.max(rowCalls, runCalls),
      average_grade: s.average_grade === null ? null : round2(Number(s.average_grade)),
    };
  }

  async recordCalls(ctx: CallContext, id: string, run: string, calls: number): Promise<{ run: string; calls: number }> {
    const sid = this.sessionId(id);
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
    try {
      return { run, calls: await this.store.recordRunCalls(sid, run, calls) };
    } catch (err) {
      // The session was deleted between the check and the write.
      if (['23503', 'SQLITE_CONSTRAINT_FOREIGNKEY'].includes((err as { code?: string }).code ?? '')) throw notFound(`Session ${id}`);
      throw err;
    }
  }

  // ---- identifications ----

  async uploadIdentifications(ctx: CallContext, id: string, rows: IdentificationInput[]): Promise<UploadResult> {
    const sid = this.sessionId(id);
    const prepared = this.validateBatch(rows);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.transaction((tx) => this.writeBatch(tx, ctx, sid, id, prepared));
      } catch (err) {
        if (attempt < 5 && retryable(err)) continue;
        throw err;
      }
    }
  }

  private validateBatch(rows: IdentificationInput[]): Array<IdentificationInput & { seenIso: string | null }> {
    if (rows.length > this.limits.batchRows) {
      throw badRequest(`A batch holds at most ${this.limits.batchRows} identifications; this one has ${rows.length}.`, [{ field: 'identifications', message: `at most ${this.limits.batchRows} rows` }]);
    }
    const errors: FieldError[] = [];
    const out = rows.map((row, i) => {
      let seenIso: string | null = null;
      if (row.seen !== undefined && row.seen !== null) {
        seenIso = normaliseTime(row.seen) ?? null;
        if (seenIso === null) errors.push({ row: i, field: `identifications[${i}].seen`, message: 'must be an ISO 8601 time' });
      }
      if (row.grading && Buffer.byteLength(JSON.stringify(row.grading)) > gradingMaxBytes) {
        errors.push({ row: i, field: `identifications[${i}].grading`, message: `must be at most ${gradingMaxBytes} bytes of JSON` });
      }
      return { ...row, seenIso };
    });
    const first = errors[0];
    if (first) throw badRequest(`Row ${first.row}: ${first.field} ${first.message}. The batch was not stored.`, errors);
    return out;
  }

  private async writeBatch(tx: CardSessionStore, ctx: CallContext, sid: string, id: string, rows: Array<IdentificationInput & { seenIso: string | null }>): Promise<UploadResult> {
    const status = await tx.sessionStatus(sid, ctx.workspaceId);
    if (status === undefined) throw notFound(`Session ${id}`);
    if (status !== 'live') throw sessionClosed();

    const existing = new Map<string, MergeableRow>();
    for (const r of await tx.identificationsByEventIds(sid, [...new Set(rows.map((r) => r.event_id))])) existing.set(r.event_id, r);

    const now = new Date().toISOString();
    const fresh = new Map<string, { values: IdentificationValues; state: MutableState }>();
    const changed = new Map<string, { row: MergeableRow; state: MutableState }>();
    const result: UploadResult = { received: rows.length, created: 0, updated: 0, duplicates: 0 };

    for (const row of rows) {
      const pending = fresh.get(row.event_id);
      const stored = existing.get(row.event_id);
      if (!pending && !stored) {
        const state = mergeMutable({ calls: null, duration: null, grading: null, sold: null, note: null }, row);
        fresh.set(row.event_id, { values: this.newRowValues(sid, row, state, now), state });
        result.created++;
        continue;
      }
      const before = pending?.state ?? changed.get(row.event_id)?.state ?? this.stateOf(stored!);
      const after = mergeMutable(before, row);
      if (sameMutable(before, after)) {
        result.duplicates++;
        continue;
      }
      result.updated++;
      if (pending) {
        pending.state = after;
        pending.values = { ...pending.values, ...this.mutableValues(tx, after) };
      } else {
        changed.set(row.event_id, { row: stored!, state: after });
      }
    }

    const values = [...fresh.values()].map((f) => f.values);
    if (values.length > 0) {
      const inserted = await tx.insertIdentifications(values);
      // Another batch inserted one of these event ids after we looked: start again and merge into it.
      if (inserted.size !== values.length) throw new RetryBatch();
    }
    for (const { row, state } of changed.values()) {
      await tx.updateIdentification(row.id, { ...this.mutableValues(tx, state), updated_at: now });
    }
    const price = values.reduce((sum, v) => sum + (v.price ?? 0), 0);
    if (!(await tx.addBatchToLiveSession(sid, ctx.workspaceId, values.length, price))) {
      // Closed or deleted while this batch was being written: the transaction rolls back.
      if ((await tx.sessionStatus(sid, ctx.workspaceId)) === undefined) throw notFound(`Session ${id}`);
      throw sessionClosed();
    }
    return result;
  }

  private stateOf(row: MergeableRow): MutableState {
    return {
      calls: row.calls,
      duration: row.duration,
      // PostgreSQL's jsonb reorders keys; compare in one canonical form on both backends.
      grading: row.grading === null ? null : canonicalJson(fromJson(row.grading)),
      sold: fromBool(row.sold),
      note: row.note,
    };
  }

  private mutableValues(tx: CardSessionStore, s: MutableState): Pick<IdentificationValues, 'calls' | 'duration' | 'grading' | 'grade' | 'sold' | 'note'> {
    return {
      calls: s.calls,
      duration: s.duration,
      grading: s.grading,
      grade: s.grading === null ? null : gradeOf(JSON.parse(s.grading) as Record<string, unknown>),
      sold: tx.bool(s.sold),
      note: s.note,
    };
  }

  private newRowValues(sid: string, row: IdentificationInput & { seenIso: string | null }, state: MutableState, now: string): IdentificationValues {
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    return {
      id: randomUUID(),
      session_id: sid,
      event_id: row.event_id,
      seen: row.seenIso,
      id_type: row.id_type ? row.id_type.toLowerCase() : null,
      name: orNull(row.name),
      full_name: orNull(row.full_name),
      set_name: orNull(row.set_name),
      set_code: orNull(row.set_code),
      card_number: orNull(row.card_number),
      series: orNull(row.series),
      year: orNull(row.year),
      subcategory: orNull(row.subcategory),
      distance: orNull(row.distance),
      confidence: row.confidence ? row.confidence.toLowerCase() : null,
      links: json(row.links),
      alternatives: json(row.alternatives),
      price_stats: json(row.price_stats),
      price: orNull(row.price),
      ...this.mutableValues(this.store, state),
      image_key: null,
      thumbnail_key: null,
      card_key: cardKey(row),
      original: null,
      corrected_at: null,
      created_at: now,
      updated_at: now,
    };
  }

  async listIdentifications(ctx: CallContext, query: { session: string; eventId?: string | undefined; page: number; pageSize?: number | undefined }): Promise<Page<IdentificationView>> {
    const session = await this.sessionRow(ctx, query.session);
    const pageSize = Math.min(query.pageSize ?? this.limits.identificationPageSize, this.limits.identificationPageSizeMax);
    const knownCount = query.eventId === undefined ? Number(session.identification_count) : undefined;
    const { count, rows } = await this.store.listIdentifications(session.id, query.eventId, pageSize, (query.page - 1) * pageSize, knownCount);
    return { count, page: query.page, pageSize, results: rows.map((r) => this.identificationView(ctx, r)) };
  }

  async correctIdentification(ctx: CallContext, id: string, patch: CorrectionInput): Promise<IdentificationView> {
    if (!isUuid(id)) throw notFound(`Identification ${id}`);
    const iid = id.toLowerCase();
    return this.store.transaction(async (tx) => {
      // Locked: a concurrent correction waits and then applies its changes on top of ours.
      const row = await tx.identificationInWorkspace(iid, ctx.workspaceId, true);
      if (!row) throw notFound(`Identification ${id}`);
      const now = new Date().toISOString();
      const current = Object.fromEntries(matchFields.map((f) => [f, row[f]])) as MatchSnapshot;
      const values: IdentificationUpdate = {};
      const changed = matchFields.filter((f) => patch[f] !== undefined && patch[f] !== current[f]);
      if (changed.length > 0) {
        const next: MatchSnapshot = { ...current };
        for (const f of changed) {
          (next as Record<MatchField, unknown>)[f] = patch[f];
          (values as Record<string, unknown>)[f] = patch[f];
        }
        values.card_key = cardKey({ ...row, ...next });
        values.corrected_at = now;
        // The first correction freezes the recognition service's match so it stays visible.
        if (row.original === null) values.original = JSON.stringify(current);
      }
      if (patch.sold !== undefined) values.sold = tx.bool(patch.sold);
      if (patch.note !== undefined) values.note = patch.note;
      if (Object.keys(values).length > 0) await tx.updateIdentification(row.id, { ...values, updated_at: now });
      // Row first, then the session: the order uploads lock them in, so the two cannot deadlock.
      if (changed.includes('price')) await tx.bumpCounters(row.session_id, 0, (patch.price ?? 0) - (current.price ?? 0));
      return this.identificationView(ctx, (await tx.identificationInWorkspace(iid, ctx.workspaceId))!);
    });
  }

  async attachImage(ctx: CallContext, id: string, eventId: string, image: string): Promise<IdentificationView> {
    const sid = this.sessionId(id);
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
    const row = await this.store.identificationByEventId(sid, eventId);
    if (!row) throw notFound(`Card with event_id "${eventId}" in session ${id}`);
    let prepared: Awaited<ReturnType<typeof prepareCardImage>>;
    try {
      prepared = await prepareCardImage(decodeBase64Image(image, this.limits.imageBytes), this.limits);
    } catch (err) {
      if (err instanceof ImageLoadError) throw new ServiceError(err.status, err.code, err.message);
      throw err;
    }
    const imageKey = await this.media.put(prepared.original, prepared.originalExt);
    const thumbKey = await this.media.put(prepared.thumbnail, 'jpg');
    let old: IdentificationRow | undefined;
    try {
      old = await this.store.transaction(async (tx) => {
        // Locked, so two uploads of an image for one card each see the other's files and remove them.
        const current = await tx.identificationByEventId(sid, eventId, true);
        if (current) await tx.updateIdentification(current.id, { image_key: imageKey, thumbnail_key: thumbKey, updated_at: new Date().toISOString() });
        return current;
      });
    } catch (err) {
      await this.media.remove([imageKey, thumbKey]);
      throw err;
    }
    if (!old) {
      // The row or its session went away while the image was being prepared.
      await this.media.remove([imageKey, thumbKey]);
      throw notFound(`Card with event_id "${eventId}" in session ${id}`);
    }
    await this.media.remove([old.image_key, old.thumbnail_key].filter((k): k is string => k !== null));
    return this.identificationView(ctx, { ...old, image_key: imageKey, thumbnail_key: thumbKey });
  }

  // ---- helpers ----

  private sessionId(id: string): string {
    if (!isUuid(id)) throw notFound(`Session ${id}`);
    return id.toLowerCase();
  }

  private async sessionRow(ctx: CallContext, id: string): Promise<SessionRow> {
    const row = await this.store.getSession(this.sessionId(id), ctx.workspaceId);
    if (!row) throw notFound(`Session ${id}`);
    return row;
  }

  private sessionView(r: SessionRow): SessionView {
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      game: r.game,
      platform: r.platform,
      status: r.status === 'closed' ? 'closed' : 'live',
      started: toIso(r.started),
      ended: toIso(r.ended),
      identification_count: Number(r.identification_count),
      total_price: round2(Number(r.total_price ?? 0)),
      client: fromJson(r.client),
      meta_data: fromJson(r.meta_data),
    };
  }

  private identificationView(ctx: CallContext, r: IdentificationRow): IdentificationView {
    const json = <T>(v: unknown): T | null => (v === null ? null : fromJson<T>(v));
    return {
      id: r.id,
      session: r.session_id,
      event_id: r.event_id,
      seen: toIso(r.seen),
      calls: r.calls,
      duration: r.duration,
      id_type: r.id_type,
      name: r.name,
      full_name: r.full_name,
      set_name: r.set_name,
      set_code: r.set_code,
      card_number: r.card_number,
      series: r.series,
      year: r.year,
      subcategory: r.subcategory,
      distance: r.distance,
      confidence: r.confidence,
      links: json(r.links),
      alternatives: json(r.alternatives),
      price_stats: json(r.price_stats),
      price: r.price,
      grading: json(r.grading),
      grade: r.grade,
      image: MediaStore.url(ctx.baseUrl, r.image_key),
      thumbnail: MediaStore.url(ctx.baseUrl, r.thumbnail_key),
      sold: fromBool(r.sold),
      note: r.note,
      corrected: r.corrected_at !== null,
      original: json(r.original),
      corrected_at: toIso(r.corrected_at),
      created_at: toIso(r.created_at),
      updated_at: toIso(r.updated_at),
    };
  }
}
