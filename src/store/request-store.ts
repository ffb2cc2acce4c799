import { randomBytes } from 'node:crypto';
import { forgetMedia, intendMedia, keepMedia } from './media-deletions.ts';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { AsyncRequestsTable, Store } from './database.ts';
import { fromJson, toIso } from './database.ts';

export const requestStates = ['CREATED', 'PROCESSING', 'DONE'] as const;

/**
 * An uploaded image is kept in parts of this size, each read and deleted by its own statement and written a few a
 * transaction ({@link STAGE_SLICE_BYTES}), the event loop let go between (migration 043): written, read and deleted
 * whole, a 16 MiB image held the loop for a statement of 100–200 ms on SQLite.
 */
export const INPUT_PART_BYTES = 1024 * 1024;

/**
 * A submit whose images are larger than this writes them this much a transaction before the one that makes its request
 * (migration 044): SQLite has one writer, and a 44 MB submit's parts in one transaction held every other write of the
 * process for 254–406 ms (h288). Smaller ones are written in the request's own transaction, as before.
 */
export const STAGE_SLICE_BYTES = 2 * INPUT_PART_BYTES;

/**
 * A submit touches its `async_request_uploads` row with each slice (milliseconds apart): one untouched for this long
 * belongs to a submit whose process died, and the sweep removes it and its parts.
 */
export const ABANDONED_UPLOAD_MS = 10 * 60_000;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
export type RequestState = (typeof requestStates)[number];
export type WebhookState = 'pending' | 'delivered' | 'failed';

export interface WebhookTarget {
  url: string;
  headers: Record<string, string>;
}

export interface AsyncRequestRow {
  seq: number;
  id: string;
  accountId: string;
  workspaceId: string;
  type: string;
  endpoint: string;
  status: RequestState;
  request: Record<string, unknown>;
  options: Record<string, unknown>;
  response: Record<string, unknown> | null;
  charged: number;
  attempts: number;
  leaseToken: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  media: string[];
  /** Each input image's preview (migration 049); its keys are in `media` too. Empty when none was made. */
  previews: RequestPreview[];
  webhook: WebhookTarget | null;
  webhookState: WebhookState | null;
  webhookAttempts: number;
  webhookNextAt: number | null;
  /** When the lease of the delivery being sent ends: its claim's own mark ({@link RequestStore.webhookAttempt}). */
  webhookLeaseUntil: number | null;
  webhookLastError: string | null;
  /** When the delivery ended: delivered, or failed for good (see `webhookState`). */
  webhookDeliveredAt: string | null;
  expiresAt: number;
  createdAt: string;
  modifiedAt: string;
}

/** A JPEG of an input image the handler read (record `index`), `width` × `height` px, in the media folder under `key`. */
export interface RequestPreview {
  index: number;
  key: string;
  width: number;
  height: number;
}

export interface NewRequest {
  id: string;
  accountId: string;
  workspaceId: string;
  type: string;
  endpoint: string;
  request: Record<string, unknown>;
  options: Record<string, unknown>;
  charged: number;
  webhook: WebhookTarget | null;
  expiresAt: number;
  /** Uploaded image bytes by record index. */
  inputs: Map<number, Buffer>;
  /** The submit's `Idempotency-Key` and a hash of what was sent with it. */
  idempotency?: { key: string; bodyHash: string } | undefined;
}

export interface RequestListQuery {
  accountId: string;
  workspaceId?: string | undefined;
  type?: string | undefined;
  status?: RequestState | undefined;
  /** Only requests whose webhook is in this state; `waiting`: not due yet (the request not DONE). */
  webhookState?: 'waiting' | WebhookState | undefined;
  /** Only requests whose retention has not ended by then (epoch ms): the sweeper deletes the others every few minutes. */
  liveAt?: number | undefined;
  /** Only requests submitted up to this one (its `seq`): a walk through the pages sees the list as it was at its start. */
  upToSeq?: number | undefined;
  limit: number;
  offset: number;
}

/** A claimed job: the row plus the token that proves the lease when finishing it. */
export interface Claim {
  row: AsyncRequestRow;
  token: string;
}

/**
 * Asynchronous requests and their queue state, on SQLite or PostgreSQL. Claiming is one
 * UPDATE … RETURNING: SQLite serialises writers, PostgreSQL skips rows another worker has
 * locked, so two workers never claim the same row with the same lease.
 */
export class RequestStore {
  constructor(readonly store: Store) {}

  private get db() {
    return this.store.db;
  }

  private get skipLocked() {
    return this.store.dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  }

  /**
   * Stores a request and debits its charge (`charged`) from the account in one transaction; null,
   * with nothing stored or debited, when the account cannot pay. One transaction, so a submit that
   * finds the credits gone has the request that took them already committed: two submits with one
   * `Idempotency-Key` from an account that can pay for one are a request and its replay, never a
   * request and a 402, whatever the backend or the timing. Images of more than {@link STAGE_SLICE_BYTES} are written
   * before that transaction, a slice a transaction (`stageInputs`), and removed again when it stores nothing.
   */
  async insert(r: NewRequest, now?: Date): Promise<AsyncRequestRow | null> {
    let bytes = 0;
    for (const b of r.inputs.values()) bytes += b.length;
    const staged = bytes > STAGE_SLICE_BYTES;
    if (staged) {
      // an account that cannot pay is told so before its images are written (the debit below still decides); one that
      // does not exist goes on to meet the foreign key, as before
      if (r.charged > 0) {
        const account = await this.db.selectFrom('accounts').select('credits').where('id', '=', r.accountId).executeTakeFirst();
        if (account && Number(account.credits) < r.charged) return null;
      }
      try {
        await this.stageInputs(r.id, r.inputs);
      } catch (err) {
        await this.unstage(r.id).catch(() => undefined);
        throw err;
      }
    }
    let stored: AsyncRequestRow | null;
    try {
      stored = await this.commitRequest(r, staged, now);
    } catch (err) {
      if (staged) await this.unstage(r.id).catch(() => undefined);
      throw err;
    }
    if (!stored && staged) await this.unstage(r.id).catch(() => undefined);
    return stored;
  }

  /**
   * Writes a submit's image parts `STAGE_SLICE_BYTES` a transaction, the event loop let go between, under its row in
   * `async_request_uploads` (made by the first, touched by each after): other writers of the process wait for a slice,
   * not the whole submit. Nothing reads parts whose request does not exist, so no worker sees them yet.
   */
  private async stageInputs(id: string, inputs: Map<number, Buffer>): Promise<void> {
    const slices: { idx: number; part: number; bytes: Buffer }[][] = [[]];
    let size = 0;
    for (const [idx, bytes] of inputs) {
      for (let part = 0; part === 0 || part * INPUT_PART_BYTES < bytes.length; part++) {
        const piece = bytes.subarray(part * INPUT_PART_BYTES, (part + 1) * INPUT_PART_BYTES);
        if (size > 0 && size + piece.length > STAGE_SLICE_BYTES) {
          slices.push([]);
          size = 0;
        }
        slices.at(-1)!.push({ idx, part, bytes: piece });
        size += piece.length;
      }
    }
    for (const [i, slice] of slices.entries()) {
      await this.db.transaction().execute(async (trx) => {
        const at = Date.now();
        if (i === 0) await trx.insertInto('async_request_uploads').values({ id, touched_at: at }).execute();
        else {
          const touched = await trx.updateTable('async_request_uploads').set({ touched_at: at }).where('id', '=', id).executeTakeFirst();
          // swept as abandoned (this process stalled for longer than ABANDONED_UPLOAD_MS): its parts may be gone
          if (Number(touched.numUpdatedRows) === 0) throw new Error(`request ${id}'s images were removed as abandoned while they were written`);
        }
        for (const p of slice) await trx.insertInto('async_request_inputs').values({ request_id: id, idx: p.idx, part: p.part, bytes: p.bytes }).execute();
      });
      await nextTurn();
    }
  }

  /** A staged submit's parts, a part at a time (see {@link dropInputs}), then its row; a process that stops meanwhile leaves them to the sweep. */
  private async unstage(id: string): Promise<void> {
    await this.dropInputs(id);
    await this.db.deleteFrom('async_request_uploads').where('id', '=', id).execute();
  }

  /** The request and its debit; its images' parts too when not staged, or its upload's row deleted when they were. */
  private async commitRequest(r: NewRequest, staged: boolean, now?: Date): Promise<AsyncRequestRow | null> {
    return this.db.transaction().execute(async (trx) => {
      if (r.charged > 0) {
        const debited = await trx
          .updateTable('accounts')
          .set({ credits: sql`credits - ${r.charged}` })
          .where('id', '=', r.accountId)
          .where('credits', '>=', r.charged)
          .executeTakeFirst();
        if (Number(debited.numUpdatedRows) === 0) return null;
      } else if (this.store.dialect === 'postgres') {
        await sql`SELECT id FROM accounts WHERE id = ${r.accountId} FOR UPDATE`.execute(trx);
      }
      // the time is read once the account's row is held (the debit holds it): an account's requests then get their
      // `seq`, which lists them newest first, in the order of their `created` (on PostgreSQL a time read before the
      // transaction put 60 concurrent submits' `created` out of the list's order by up to 63 ms, h94)
      const iso = (now ?? new Date()).toISOString();
      await trx
        .insertInto('async_requests')
        .values({
          id: r.id,
          account_id: r.accountId,
          workspace_id: r.workspaceId,
          type: r.type,
          endpoint: r.endpoint,
          status: 'CREATED',
          request: JSON.stringify(r.request),
          options: JSON.stringify(r.options),
          response: null,
          charged: r.charged,
          lease_token: null,
          lease_until: null,
          last_error: null,
          webhook: r.webhook ? JSON.stringify(r.webhook) : null,
          webhook_state: null,
          webhook_next_at: null,
          webhook_lease_until: null,
          webhook_last_error: null,
          webhook_delivered_at: null,
          expires_at: r.expiresAt,
          created_at: iso,
          modified_at: iso,
          idempotency_key: r.idempotency?.key ?? null,
          body_hash: r.idempotency?.bodyHash ?? null,
        })
        .execute();
      if (staged) {
        // the parts become the request's here, all at once, with the row that makes them readable
        const gone = await trx.deleteFrom('async_request_uploads').where('id', '=', r.id).executeTakeFirst();
        if (Number(gone.numDeletedRows) === 0) throw new Error(`request ${r.id}'s images were removed as abandoned before its submit ended`);
      } else {
        for (const [idx, bytes] of r.inputs) {
          for (let part = 0; part === 0 || part * INPUT_PART_BYTES < bytes.length; part++) {
            await trx.insertInto('async_request_inputs').values({ request_id: r.id, idx, part, bytes: bytes.subarray(part * INPUT_PART_BYTES, (part + 1) * INPUT_PART_BYTES) }).execute();
          }
        }
      }
      // read in the transaction, as stored: read after it, a queue worker could have claimed it already, and the submit's
      // 201 said PROCESSING (a run of the suite on PostgreSQL)
      return toRow(await trx.selectFrom('async_requests').selectAll().where('id', '=', r.id).executeTakeFirstOrThrow());
    });
  }

  /** The account's request submitted with this `Idempotency-Key`, and the hash of what was sent with it. */
  async byIdempotencyKey(accountId: string, key: string): Promise<{ row: AsyncRequestRow; bodyHash: string | null } | undefined> {
    const row = await this.db.selectFrom('async_requests').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();
    return row && { row: toRow(row), bodyHash: row.body_hash };
  }

  /** Frees a request's `Idempotency-Key` (its retention has ended: the key may name a new request). */
  async releaseIdempotencyKey(id: string): Promise<void> {
    await this.db.updateTable('async_requests').set({ idempotency_key: null }).where('id', '=', id).execute();
  }

  async get(id: string): Promise<AsyncRequestRow | undefined> {
    const row = await this.db.selectFrom('async_requests').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRow(row);
  }

  async status(id: string): Promise<{ accountId: string; status: RequestState; expiresAt: number } | undefined> {
    const row = await this.db.selectFrom('async_requests').select(['account_id', 'status', 'expires_at']).where('id', '=', id).executeTakeFirst();
    return row && { accountId: row.account_id, status: row.status as RequestState, expiresAt: Number(row.expires_at) };
  }

  /** A page of the list, and the `seq` of its newest request (for the next pages' `upToSeq`; undefined when none). */
  async list(q: RequestListQuery): Promise<{ count: number; rows: AsyncRequestRow[]; upToSeq?: number }> {
    let base = this.db.selectFrom('async_requests').where('account_id', '=', q.accountId);
    if (q.workspaceId) base = base.where('workspace_id', '=', q.workspaceId);
    if (q.type) base = base.where('type', '=', q.type);
    if (q.status) base = base.where('status', '=', q.status);
    if (q.webhookState === 'waiting') base = base.where('webhook', 'is not', null).where('webhook_state', 'is', null);
    else if (q.webhookState) base = base.where('webhook_state', '=', q.webhookState);
    if (q.liveAt !== undefined) base = base.where('expires_at', '>', q.liveAt);
    if (q.upToSeq !== undefined) base = base.where('seq', '<=', q.upToSeq);
    const [{ n, newest }] = (await base.select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.max('seq').as('newest')]).execute()) as [{ n: number | string; newest: number | string | null }];
    const rows = await base.selectAll().orderBy('seq', 'desc').limit(q.limit).offset(q.offset).execute();
    return { count: Number(n), rows: rows.map(toRow), ...(newest !== null ? { upToSeq: Number(newest) } : {}) };
  }

  /** A request's uploaded images by record index, read a part at a time (see {@link INPUT_PART_BYTES}). */
  async inputs(id: string): Promise<Map<number, Buffer>> {
    const parts = await this.db.selectFrom('async_request_inputs').select(['idx', 'part', sql<number | string>`length(bytes)`.as('size')]).where('request_id', '=', id).orderBy('idx').orderBy('part').execute();
    const sizes = new Map<number, number>();
    for (const p of parts) sizes.set(p.idx, (sizes.get(p.idx) ?? 0) + Number(p.size));
    const out = new Map([...sizes].map(([idx, size]) => [idx, Buffer.allocUnsafe(size)]));
    const filled = new Map<number, number>();
    for (const p of parts) {
      const row = await this.db.selectFrom('async_request_inputs').select('bytes').where('request_id', '=', id).where('idx', '=', p.idx).where('part', '=', p.part).executeTakeFirst();
      // deleted meanwhile (its request finished or was erased): what is left is no image
      if (!row) throw new Error(`request ${id}'s uploaded image ${p.idx} was deleted while it was read`);
      const at = filled.get(p.idx) ?? 0;
      filled.set(p.idx, at + Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength).copy(out.get(p.idx)!, at));
      if (parts.length > 1) await nextTurn();
    }
    return out;
  }

  /**
   * Leases up to `n` runnable requests (CREATED, or PROCESSING whose lease ran out because its
   * worker died), counting an attempt on each; none of the types in `skipTypes` (a runner's long
   * jobs, while one runs). Accounts take turns: the account with the fewest requests running now
   * goes first, its oldest request; oldest first among equals. So an account that submits ten
   * thousand requests does not make another's wait behind all of them, and one account's requests
   * run in submission order. A request whose worker died is taken again before its account's others.
   */
  async claim(n: number, leaseMs: number, now = Date.now(), skipTypes: readonly string[] = []): Promise<Claim[]> {
    const token = randomBytes(12).toString('hex');
    const claims: Claim[] = [];
    for (let i = 0; i < n; i++) {
      const row = await this.claimOne(token, leaseMs, now, skipTypes);
      if (!row) break;
      claims.push({ row, token });
    }
    return claims.sort((a, b) => a.row.seq - b.row.seq);
  }

  private async claimOne(token: string, leaseMs: number, now: number, skipTypes: readonly string[]): Promise<AsyncRequestRow | undefined> {
    const iso = new Date(now).toISOString();
    const skip = skipTypes.length ? sql`AND type NOT IN (${sql.join(skipTypes)})` : sql``;
    // Each account's first waiting requests (a seek in async_requests_waiting: the accounts are
    // the operator's, few) and every request whose lease ran out, ranked by their account's
    // requests running now plus their place in its line. SQLite's one writer sees what it ranked,
    // so each account's first is enough; PostgreSQL locks in that order, checking each row again
    // and passing over those another worker holds, so it ranks each account's first 16, and
    // concurrent claims each find one.
    const pg = this.store.dialect === 'postgres';
    const waiting = pg
      ? sql`
        SELECT a.id AS account_id, 1 AS first, w.seq, w.place FROM accounts a
        CROSS JOIN LATERAL (
          SELECT c.seq, ROW_NUMBER() OVER (ORDER BY c.seq) - 1 AS place FROM async_requests c
          WHERE c.account_id = a.id AND c.status = 'CREATED' ${skip} ORDER BY c.seq LIMIT 16
        ) w`
      : sql`
        SELECT a.id AS account_id, 1 AS first,
          (SELECT c.seq FROM async_requests c WHERE c.account_id = a.id AND c.status = 'CREATED' ${skip} ORDER BY c.seq LIMIT 1) AS seq,
          0 AS place
        FROM accounts a`;
    // (account_id, first, seq, place) in this order on both sides of the UNION.
    const ranked = sql`
      SELECT k.seq, k.first, COALESCE(b.running, 0) + k.place AS turn
      FROM (
        ${waiting}
        UNION ALL
        SELECT account_id, 0 AS first, seq, 0 AS place FROM async_requests
        WHERE status = 'PROCESSING' AND lease_until < ${now} ${skip}
      ) k
      LEFT JOIN (
        SELECT account_id, COUNT(*) AS running FROM async_requests
        WHERE status = 'PROCESSING' AND lease_until >= ${now} GROUP BY account_id
      ) b ON b.account_id = k.account_id
      WHERE k.seq IS NOT NULL`;
    const chosen = pg
      ? sql`
        SELECT r.seq FROM async_requests r
        JOIN (${ranked} ORDER BY turn, first, seq LIMIT 64) f ON f.seq = r.seq
        WHERE (r.status = 'CREATED' OR (r.status = 'PROCESSING' AND r.lease_until < ${now}))
        ORDER BY f.turn, f.first, r.seq LIMIT 1 FOR UPDATE OF r SKIP LOCKED`
      : sql`SELECT f.seq FROM (${ranked}) f ORDER BY f.turn, f.first, f.seq LIMIT 1`;
    const result = await sql<Selectable<AsyncRequestsTable>>`
      UPDATE async_requests
      SET status = 'PROCESSING', lease_token = ${token}, lease_until = ${now + leaseMs}, attempts = attempts + 1, modified_at = ${iso}
      WHERE seq IN (${chosen})
      RETURNING *`.execute(this.db);
    const [row] = result.rows;
    return row ? toRow(row) : undefined;
  }

  /** Extends the leases still held with `token`; returns the ids whose lease was lost. */
  async extend(ids: string[], token: string, until: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const kept = await this.db
      .updateTable('async_requests')
      .set({ lease_until: until })
      .where('id', 'in', ids)
      .where('lease_token', '=', token)
      .where('status', '=', 'PROCESSING')
      .returning('id')
      .execute();
    const held = new Set(kept.map((r) => r.id));
    return ids.filter((id) => !held.has(id));
  }

  /** Result files about to be written by a job's attempt: removed by the sweep unless `complete` commits them. */
  intendMedia(keys: readonly string[]): Promise<void> {
    // due in a day: a job of ten long upscales may run for more than an hour before it completes
    return intendMedia(this.db, keys, 24 * 60 * 60_000);
  }

  /**
   * Writes the response and moves the request to DONE, only while the lease is still this
   * worker's: a worker that lost its lease (it stalled past it and another took over) writes
   * nothing, so a result is written once. The uploaded inputs go after it (dropInputs).
   */
  async complete(id: string, token: string, done: { response: Record<string, unknown>; media: string[]; previews?: readonly RequestPreview[]; refund: number; webhookAt: number | null }, now = Date.now()): Promise<boolean> {
    const completed = await this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('async_requests')
        .set({
          status: 'DONE',
          response: JSON.stringify(done.response),
          media: JSON.stringify(done.media),
          previews: done.previews?.length ? JSON.stringify(done.previews) : null,
          lease_token: null,
          lease_until: null,
          charged: sql`charged - ${done.refund}`,
          webhook_state: sql<string | null>`CASE WHEN webhook IS NULL THEN NULL ELSE 'pending' END`,
          webhook_next_at: done.webhookAt,
          modified_at: new Date(now).toISOString(),
        })
        .where('id', '=', id)
        .where('lease_token', '=', token)
        .where('status', '=', 'PROCESSING')
        .returning(['account_id'])
        .executeTakeFirst();
      if (!updated) return false;
      // the attempt's result files are this row's now (written under intent: migration 016)
      await keepMedia(trx, done.media);
      // Records that failed are not charged for.
      if (done.refund > 0) await trx.updateTable('accounts').set({ credits: sql`credits + ${done.refund}` }).where('id', '=', updated.account_id).execute();
      return true;
    });
    // the request is DONE whatever happens to its inputs now: one not dropped goes with the request at retention
    if (completed) await this.dropInputs(id).catch(() => undefined);
    return completed;
  }

  /**
   * A finished request's uploaded images, a part at a time after the commit: SQLite overwrites what it
   * deletes (secure_delete), and three 15-MiB inputs deleted in the completing transaction held the
   * server's event loop for 180–250 ms. One left by a crash goes with its request at retention.
   */
  private async dropInputs(id: string): Promise<void> {
    const rows = await this.db.selectFrom('async_request_inputs').select(['idx', 'part']).where('request_id', '=', id).execute();
    for (const r of rows) {
      await this.db.deleteFrom('async_request_inputs').where('request_id', '=', id).where('idx', '=', r.idx).where('part', '=', r.part).execute();
      await nextTurn();
    }
  }

  /**
   * Hands a leased request back to the queue (its handler failed as a whole, or its worker is
   * stopping). `giveBack`: the claim's attempt is returned too (a worker stopped on purpose, a
   * rolling deploy: the request did nothing wrong, so three restarts must not fail it as a
   * poisonous one; no handler can hang for ever, each image task and download having its own
   * timeout); a crash, whose lease simply expires, keeps its attempt. `retryAt`: not taken again
   * before then (the server's storage refusing its results: a disk is freed in minutes, not at once).
   */
  async release(id: string, token: string, error: string, now = Date.now(), giveBack = false, retryAt = 0): Promise<boolean> {
    // It stays PROCESSING (the spec's states only go forward: CREATED → PROCESSING → DONE), its
    // lease run out at once, so the next claim takes it as it takes a dead worker's.
    const r = await this.db
      .updateTable('async_requests')
      .set({
        lease_token: null,
        lease_until: retryAt,
        last_error: error.slice(0, 2000),
        modified_at: new Date(now).toISOString(),
        ...(giveBack ? { attempts: sql<number>`CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END` } : {}),
      })
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .where('status', '=', 'PROCESSING')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Claims up to `n` due deliveries, of each account no more than bring it to `perAccount` in flight (leased, on any
   * node): one account's slow receivers must not hold every delivery slot. A claim took up to `n` of an account below
   * its share, so 3 in flight and a claim of 4 made 7 for as long as they lasted (h239).
   * The attempt is counted as it is claimed: one cut short by a crash was made all the same (its
   * receiver may have had it), so the next says it is the next.
   */
  async claimWebhooks(n: number, leaseMs: number, now = Date.now(), perAccount = Number.MAX_SAFE_INTEGER): Promise<AsyncRequestRow[]> {
    const share = Math.min(perAccount, Number.MAX_SAFE_INTEGER - 1);
    // each account's first due deliveries that fit beside those it has in flight are the candidates, before any limit:
    // a window taken first filled with one account's backlog, at its share or one below it, and held back every
    // other account's deliveries until it drained (h243, h246); then the earliest candidates are locked, due still
    // when locked. The candidates are walked account by account along the pending index, no account past its share or
    // the claim's size: numbering every due delivery cost 313–527 ms a claim at 100,000 of them (040; bench queue). Its
    // cost grows with the accounts holding pending deliveries instead (5,000 accounts with 10,000 due: 35–68 ms on
    // SQLite, 100 ms on PostgreSQL, against 24–30 and 13 ms for the numbering, h255).
    // SQLite, without statistics, took the older (state, due time) index for each and walked every pending delivery
    const lite = this.store.dialect === 'sqlite';
    const by = (index: string) => (lite ? sql.raw(`INDEXED BY ${index}`) : sql``);
    // nothing due (deliveries waiting out their retries, the usual state): answered by the (state, due time) index alone;
    // the walk below visits every account holding a pending delivery (h255: 20,000 accounts waiting cost 60 ms a claim)
    const anyDue = await sql<{ x: number }>`
      SELECT 1 AS x FROM async_requests ${by('async_requests_webhook')}
      WHERE webhook_state = 'pending' AND webhook_next_at <= ${now} AND (webhook_lease_until IS NULL OR webhook_lease_until < ${now}) LIMIT 1`.execute(this.db);
    if (!anyDue.rows.length) return [];
    const due = (t: string) => sql`${sql.ref(`${t}.webhook_state`)} = 'pending' AND ${sql.ref(`${t}.webhook_next_at`)} <= ${now} AND (${sql.ref(`${t}.webhook_lease_until`)} IS NULL OR ${sql.ref(`${t}.webhook_lease_until`)} < ${now})`;
    const result = await sql<Selectable<AsyncRequestsTable>>`
      UPDATE async_requests SET webhook_lease_until = ${now + leaseMs}, webhook_attempts = webhook_attempts + 1
      WHERE seq IN (
        SELECT q.seq FROM async_requests q ${lite ? sql`NOT INDEXED` : sql``}
        WHERE ${due('q')} AND q.seq IN (
          WITH RECURSIVE
            accounts_pending(id) AS (
              SELECT (SELECT a.account_id FROM async_requests a ${by('async_requests_webhook_due')} WHERE a.webhook_state = 'pending' ORDER BY a.account_id LIMIT 1)
              UNION ALL
              SELECT (SELECT a.account_id FROM async_requests a ${by('async_requests_webhook_due')} WHERE a.webhook_state = 'pending' AND a.account_id > p.id ORDER BY a.account_id LIMIT 1)
              FROM accounts_pending p WHERE p.id IS NOT NULL
            ),
            flying(account_id, n) AS (
              SELECT f.account_id, COUNT(*) FROM async_requests f ${by('async_requests_webhook_flying')}
              WHERE f.webhook_state = 'pending' AND f.webhook_lease_until >= ${now}
              GROUP BY f.account_id
            ),
            walk(account_id, k, taken, seq) AS (
              SELECT p.id, 1 + COALESCE(f.n, 0), 1,
                (SELECT d.seq FROM async_requests d ${by('async_requests_webhook_due')} WHERE d.account_id = p.id AND ${due('d')} ORDER BY d.webhook_next_at, d.seq LIMIT 1)
              FROM accounts_pending p LEFT JOIN flying f ON f.account_id = p.id
              WHERE p.id IS NOT NULL
              UNION ALL
              SELECT w.account_id, w.k + 1, w.taken + 1,
                (SELECT d.seq FROM async_requests d ${by('async_requests_webhook_due')}, async_requests b
                 WHERE b.seq = w.seq AND d.account_id = w.account_id AND ${due('d')}
                   AND (d.webhook_next_at > b.webhook_next_at OR (d.webhook_next_at = b.webhook_next_at AND d.seq > b.seq))
                 ORDER BY d.webhook_next_at, d.seq LIMIT 1)
              FROM walk w WHERE w.seq IS NOT NULL AND w.k < ${share} AND w.taken < ${n}
            )
          SELECT w.seq FROM walk w WHERE w.seq IS NOT NULL AND w.k <= ${share}
        )
        ORDER BY q.webhook_next_at LIMIT ${n} ${this.skipLocked}
      )
      RETURNING *`.execute(this.db);
    return result.rows.map(toRow);
  }

  /**
   * Records how a delivery attempt (counted when claimed) ended: delivered, failed for good, or due again at `nextAt`.
   * With `leaseUntil` (the claim's mark), only while that claim still holds the delivery: a node that stalled past its
   * lease, the delivery claimed again elsewhere, must not write over the newer attempt's outcome (h180). Answers
   * whether it was written.
   */
  async webhookAttempt(id: string, outcome: { state: WebhookState; error: string | null; nextAt: number | null }, now = Date.now(), leaseUntil?: number | null): Promise<boolean> {
    // the client's headers (a receiver's bearer token) are kept no longer than deliveries need them: once delivered or
    // failed for good, the URL stays (the detail's record) and the headers go (h100: kept in plain text for 7 days)
    let webhook: string | undefined;
    if (outcome.state !== 'pending') {
      const row = await this.db.selectFrom('async_requests').select('webhook').where('id', '=', id).executeTakeFirst();
      const w = row?.webhook ? fromJson<{ url: string; headers?: Record<string, string> }>(row.webhook) : null;
      if (w?.headers && Object.keys(w.headers).length) webhook = JSON.stringify({ ...w, headers: {} });
    }
    let update = this.db
      .updateTable('async_requests')
      .set({
        ...(webhook ? { webhook } : {}),
        webhook_state: outcome.state,
        webhook_last_error: outcome.error?.slice(0, 2000) ?? null,
        webhook_next_at: outcome.nextAt,
        webhook_lease_until: null,
        // when the delivery ended, delivered or failed for good (the detail names it by its state, h180)
        webhook_delivered_at: outcome.state === 'pending' ? null : new Date(now).toISOString(),
      })
      .where('id', '=', id);
    if (leaseUntil !== undefined && leaseUntil !== null) update = update.where('webhook_lease_until', '=', leaseUntil).where('webhook_state', '=', 'pending');
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Sends a finished delivery again (delivered or failed for good): due now, its attempts counted afresh, to `target`
   * where one is given (else the URL it had; its headers went when it ended). Null when the account has no such
   * request; otherwise the webhook state it was found in (`delivered` or `failed`: done now; any other: left as it was).
   */
  async resendWebhook(accountId: string, id: string, target: WebhookTarget | null, now = Date.now(), minGapMs = 0): Promise<{ state: WebhookState | 'waiting' | 'none'; waitMs?: number } | null> {
    const row = await this.db.selectFrom('async_requests').select(['webhook', 'webhook_state', 'status', 'webhook_delivered_at']).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return null;
    const state = row.webhook_state as WebhookState | null;
    if (state === 'pending') return { state };
    // a delivery just ended is not made again at once: the resend is free, and was a relay of POSTs to any address (h258);
    // a failed one too, which a receiver answering 3xx or 410 ends after one POST (h262)
    const ended = (state === 'delivered' || state === 'failed') && row.webhook_delivered_at !== null ? Date.parse(toIso(row.webhook_delivered_at)) : undefined;
    const since = ended === undefined ? Infinity : now - ended;
    // (another node's clock ahead of this one: at most the gap)
    if (minGapMs > 0 && since < minGapMs) return { state: state!, waitMs: Math.min(minGapMs, minGapMs - since) };
    if (row.status !== 'DONE') return { state: 'waiting' };
    if (!row.webhook && !target) return { state: 'none' };
    const result = await this.db
      .updateTable('async_requests')
      .set({ ...(target ? { webhook: JSON.stringify(target) } : {}), webhook_state: 'pending', webhook_attempts: 0, webhook_next_at: now, webhook_lease_until: null, webhook_last_error: null, webhook_delivered_at: null })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'DONE')
      .where((eb) => eb.or([eb('webhook_state', 'is', null), eb('webhook_state', 'in', ['delivered', 'failed'])]))
      .executeTakeFirst();
    // a delivery claimed between the read and the write (another re-send) is pending now
    return Number(result.numUpdatedRows) > 0 ? { state: state ?? 'none' } : { state: 'pending' };
  }

  /** Earliest time something becomes runnable (a lease running out or a webhook falling due). */
  async nextWakeAt(): Promise<number | null> {
    const r = await this.db
      .selectFrom('async_requests')
      // a job handed back (PROCESSING, no lease holder, lease 0) is runnable now, not a lease to wait
      // for: counted, it would make every waiter's next wake "now" until a worker takes the job
      .select((eb) => [eb.fn.min(eb.case().when('lease_token', 'is not', null).then(eb.ref('lease_until')).end()).as('lease'), eb.fn.min('webhook_next_at').as('hook')])
      .where((eb) => eb.or([eb('status', '=', 'PROCESSING'), eb('webhook_state', '=', 'pending')]))
      .executeTakeFirst();
    const times = [r?.lease, r?.hook].filter((t) => t !== null && t !== undefined).map(Number);
    return times.length ? Math.min(...times) : null;
  }

  /**
   * Deletes requests past their retention (`retentionMs`, where given, shortening what an earlier, longer one set);
   * returns the media keys they held, and the credits given
   * back for those that never finished (queued or running when their time ran out: no worker for
   * their type, or one stopped for days), which were deleted still charged.
   */
  async sweep(now = Date.now(), batch = 500, retentionMs?: number): Promise<{ deleted: number; media: string[]; refunded: number; shortened: number; abandoned: number }> {
    // a retention shortened since (LOUPE_RETENTION_DAYS) holds for requests submitted before it too: an expiry later
    // than any request submitted now could have was set under a longer one, and is brought to submission + retention
    // (h142: requests kept, and served, for the old 7 days after a policy asked for 1)
    let shortened = 0;
    if (retentionMs !== undefined) {
      const createdMs = this.store.dialect === 'postgres' ? sql`(extract(epoch from created_at) * 1000)::bigint` : sql`CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER)`;
      const r = await sql`UPDATE async_requests SET expires_at = ${createdMs} + ${retentionMs} WHERE expires_at > ${now + retentionMs}`.execute(this.db);
      shortened = Number(r.numAffectedRows ?? 0);
    }
    // a finished request's images a process stopped before deleting (they go after its completion
    // commits): looked for from the inputs, which only requests not yet done hold, not from every request kept
    await this.db
      .deleteFrom('async_request_inputs')
      .where((eb) => eb.exists(eb.selectFrom('async_requests as r').select('r.id').whereRef('r.id', '=', 'async_request_inputs.request_id').where('r.status', '=', 'DONE')))
      .execute();
    const abandoned = await this.removeAbandonedUploads(now);
    return { ...(await this.deleteRequests(sql`expires_at <= ${now}`, sql`expires_at`, batch)), shortened, abandoned };
  }

  /**
   * Image parts of submits that never made their request (a kill mid-submit): those of uploads untouched for
   * {@link ABANDONED_UPLOAD_MS}, and any whose request and upload are both gone, a part at a time. Returns how many.
   * A submit still writing keeps its upload touched, and its request's transaction deletes the upload, so a part
   * seen with neither belongs to no submit that can still finish.
   */
  async removeAbandonedUploads(now = Date.now()): Promise<number> {
    await this.db.deleteFrom('async_request_uploads').where('touched_at', '<', now - ABANDONED_UPLOAD_MS).execute();
    const orphans = await this.db
      .selectFrom('async_request_inputs as i')
      .select(['i.request_id', 'i.idx', 'i.part'])
      .where((eb) => eb.not(eb.exists(eb.selectFrom('async_requests as r').select('r.id').whereRef('r.id', '=', 'i.request_id'))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('async_request_uploads as u').select('u.id').whereRef('u.id', '=', 'i.request_id'))))
      .execute();
    for (const o of orphans) {
      await this.db.deleteFrom('async_request_inputs').where('request_id', '=', o.request_id).where('idx', '=', o.idx).where('part', '=', o.part).execute();
      await nextTurn();
    }
    return orphans.length;
  }

  /**
   * What deleting these requests would take (`--dry-run`): how many, the media keys they hold and the credits given back
   * (those not done), as {@link deleteRequests} counts them.
   */
  async holdings(match: { id: string } | { accountId: string } | { workspaceId: string }): Promise<{ requests: number; media: string[]; refunded: number }> {
    let q = this.db.selectFrom('async_requests').select(['media', 'status', 'charged']);
    if ('id' in match) q = q.where('id', '=', match.id);
    else if ('accountId' in match) q = q.where('account_id', '=', match.accountId);
    else q = q.where('workspace_id', '=', match.workspaceId);
    const rows = await q.execute();
    const refunded = rows.reduce((sum, r) => sum + (r.status !== 'DONE' && Number(r.charged) > 0 ? Number(r.charged) : 0), 0);
    return { requests: rows.length, media: rows.flatMap((r) => fromJson<string[]>(r.media)), refunded };
  }

  /** Deletes one request, whatever its state (`loupe request delete`: a customer asking for one photo's removal); a request not done is refunded. */
  deleteOne(id: string): Promise<{ deleted: number; media: string[]; refunded: number }> {
    return this.deleteRequests(sql`id = ${id}`, sql`seq`, 1);
  }

  /** Deletes every request of an account, whatever its state (its erasure); returns the media keys they held. */
  deleteForAccount(accountId: string, batch = 500): Promise<{ deleted: number; media: string[]; refunded: number }> {
    return this.deleteRequests(sql`account_id = ${accountId}`, sql`seq`, batch);
  }

  /** Deletes every request of a workspace, whatever its state (`loupe workspace delete`); returns the media keys they held. */
  deleteForWorkspace(workspaceId: string, batch = 500): Promise<{ deleted: number; media: string[]; refunded: number }> {
    return this.deleteRequests(sql`workspace_id = ${workspaceId}`, sql`seq`, batch);
  }

  /**
   * Deletes the requests `where` says, `batch` at a time in `order`, their inputs with them: the
   * media keys they held (to remove after the commit; a process that stops before leaves them to
   * the next sweep), and what they still charged given back to their accounts when not done.
   */
  private async deleteRequests(where: RawBuilder<unknown>, order: RawBuilder<unknown>, batch: number): Promise<{ deleted: number; media: string[]; refunded: number }> {
    let deleted = 0;
    let refunded = 0;
    const media: string[] = [];
    for (;;) {
      const rows = await this.db.transaction().execute(async (trx) => {
        const gone = await sql<{ id: string; media: unknown; account_id: string; status: string; charged: number | string }>`
          DELETE FROM async_requests WHERE seq IN (
            SELECT seq FROM async_requests WHERE ${where} ORDER BY ${order} LIMIT ${batch}
          ) RETURNING id, media, account_id, status, charged`.execute(trx);
        // their images with them, as the foreign key's cascade did before migration 044
        if (gone.rows.length) await trx.deleteFrom('async_request_inputs').where('request_id', 'in', gone.rows.map((r) => r.id)).execute();
        await forgetMedia(trx, gone.rows.flatMap((r) => fromJson<string[]>(r.media)));
        for (const r of gone.rows) {
          const back = Number(r.charged);
          if (r.status === 'DONE' || !(back > 0)) continue;
          await trx.updateTable('accounts').set({ credits: sql`credits + ${back}` }).where('id', '=', r.account_id).execute();
          refunded += back;
        }
        return gone.rows;
      });
      deleted += rows.length;
      for (const r of rows) media.push(...fromJson<string[]>(r.media));
      if (rows.length < batch) return { deleted, media, refunded };
    }
  }

  async webhookSecret(accountId: string): Promise<string> {
    const row = await this.db.selectFrom('accounts').select('webhook_secret').where('id', '=', accountId).executeTakeFirst();
    if (row?.webhook_secret) return row.webhook_secret;
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    // Two workers racing here must end up signing with the same secret.
    await this.db.updateTable('accounts').set({ webhook_secret: secret }).where('id', '=', accountId).where('webhook_secret', 'is', null).execute();
    const again = await this.db.selectFrom('accounts').select('webhook_secret').where('id', '=', accountId).executeTakeFirstOrThrow();
    return again.webhook_secret!;
  }

  async rotateWebhookSecret(accountId: string): Promise<string> {
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    await this.db.updateTable('accounts').set({ webhook_secret: secret }).where('id', '=', accountId).execute();
    return secret;
  }

  async getFlow(name: string): Promise<{ name: string; definition: unknown; createdAt: string; updatedAt: string } | undefined> {
    const row = await this.db.selectFrom('flows').selectAll().where('name', '=', name).executeTakeFirst();
    return row && { name: row.name, definition: fromJson(row.definition), createdAt: toIso(row.created_at), updatedAt: toIso(row.updated_at) };
  }

  async listFlows(): Promise<{ name: string; definition: unknown; createdAt: string; updatedAt: string }[]> {
    const rows = await this.db.selectFrom('flows').selectAll().orderBy('name').execute();
    return rows.map((row) => ({ name: row.name, definition: fromJson(row.definition), createdAt: toIso(row.created_at), updatedAt: toIso(row.updated_at) }));
  }

  async putFlow(name: string, definition: unknown): Promise<'created' | 'updated'> {
    const now = new Date().toISOString();
    const json = JSON.stringify(definition);
    const r = await this.db.updateTable('flows').set({ definition: json, updated_at: now }).where('name', '=', name).executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return 'updated';
    await this.db.insertInto('flows').values({ name, definition: json, created_at: now, updated_at: now }).execute();
    return 'created';
  }

  async deleteFlow(name: string): Promise<boolean> {
    const r = await this.db.deleteFrom('flows').where('name', '=', name).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}

function toRow(r: Selectable<AsyncRequestsTable>): AsyncRequestRow {
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    seq: Number(r.seq),
    id: r.id,
    accountId: r.account_id,
    workspaceId: r.workspace_id,
    type: r.type,
    endpoint: r.endpoint,
    status: r.status as RequestState,
    request: fromJson(r.request),
    options: fromJson(r.options),
    response: r.response === null ? null : fromJson(r.response),
    charged: Number(r.charged),
    attempts: Number(r.attempts),
    leaseToken: r.lease_token,
    leaseUntil: num(r.lease_until),
    lastError: r.last_error,
    media: fromJson<string[]>(r.media),
    previews: r.previews === null || r.previews === undefined ? [] : fromJson<RequestPreview[]>(r.previews),
    webhook: r.webhook === null ? null : fromJson(r.webhook),
    webhookState: r.webhook_state as WebhookState | null,
    webhookAttempts: Number(r.webhook_attempts),
    webhookNextAt: num(r.webhook_next_at),
    webhookLeaseUntil: num(r.webhook_lease_until),
    webhookLastError: r.webhook_last_error,
    webhookDeliveredAt: toIso(r.webhook_delivered_at),
    expiresAt: Number(r.expires_at),
    createdAt: toIso(r.created_at),
    modifiedAt: toIso(r.modified_at),
  };
}
