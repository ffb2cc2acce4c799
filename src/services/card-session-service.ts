import { createHash, randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Limits } from '../config/config.ts';
import { decodeBase64ImageInSteps } from '../media/base64-image.ts';
import { prepareCardImage } from '../media/card-image.ts';
import { ImageLoadError } from '../media/image-load-error.ts';
import type { MediaLinks } from '../media/media-links.ts';
import type { MediaStore } from '../media/media-store.ts';
import type { CardSessionStore, IdentificationRow, IdentificationUpdate, IdentificationValues, MergeableRow, SessionRow } from '../store/card-session-store.ts';
import { priceMicros } from '../store/card-session-store.ts';
import { cardKey, cardKeyPart, foldCardNumber, gameKey, storedGame } from '../store/session-card-keys.ts';
import { decimalNumber, derivePrice, intervalDays, round2, type PriceBasis, type PriceStatistic } from '../store/session-card-prices.ts';
import { fromBool, fromJson, isForeignKeyViolation, isUniqueViolation, toIso } from '../store/database.ts';
import { canonicalJson as bodyJson } from '../util/canonical-json.ts';
import { inexactNumberAt } from '../util/exact-numbers.ts';
import { ServiceError, badRequest, isUuid, notFound, type FieldError } from './errors.ts';
import { insufficientCredits } from './account-service.ts';

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
  /** Create only: a session starts live, so `live` (or nothing) alone is taken. */
  status?: unknown;
  ended?: unknown;
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
  /** The session's own version (`sessionTag`): `If-Match` on its PATCH, close, reopen, delete and uploads. */
  etag: string;
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

export type CorrectionInput = Partial<Record<Exclude<MatchField, 'price'>, string | null>> & {
  price?: number | null;
  sold?: boolean | null;
  note?: string | null;
  links?: Record<string, string> | null;
  /** Document 3's name of `set_name`, as a recognition alternative carries it. */
  set?: string | null;
  price_stats?: unknown[] | null;
  grading?: Record<string, unknown> | null;
  /** When the card was seen, put right (a phone that sent its local clock without a zone, read as UTC, h121). */
  seen?: string | null;
};

/** What a correction takes: a body naming none of them changes nothing and is refused. */
const correctionFields = [...matchFields, 'set', 'price_stats', 'sold', 'note', 'grading', 'links', 'seen'] as const;

/** The fields that say which card a row is: a correction changing one makes the recognised card's links another card's. */
const identityFields = ['name', 'set_name', 'set_code', 'card_number'] as const;

/**
 * A field's value as it names a card: case, spacing and Unicode form (compatibility form, NFKC: width) aside, and a number's leading
 * zeros ("025/165" is "25/165"). A correction of how a name is written keeps the card's links, stats
 * and price (fixing "pikachu" to "Pikachu" lost them all).
 */
// as the card key folds it (cardKeyPart, migration 030): a name tidied from a phone's `Farfetch’d` to `Farfetch'd`, or
// ΠΙΚΑΤΣΟΥ written Πικάτσου, is the same card and keeps its links, stats and price (h156: they were cleared)
function namesCard(field: (typeof identityFields)[number] | 'year', v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const folded = cardKeyPart(v);
  if (folded === '') return null;
  return field === 'card_number' ? foldCardNumber(folded) : folded;
}

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
  price_derived: boolean;
  price_basis: PriceBasis | null;
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
  etag: string;
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

/**
 * A batch may be 1,000 rows with 64 KiB of grading each: its rows are checked and prepared a few
 * at a time, giving other requests a turn between (one 55 MiB batch held /health for 4.8 s).
 */
const rowsPerTurn = 25;
/** Bad rows a refused batch names, as the schema's check names them (src/http/errors.ts). */
const maxRowErrors = 100;
export const metaDataMaxBytes = 64 * 1024;
/**
 * `alternatives` and `price_stats`: the spec caps their items (10), not their size; uncapped, a few
 * rows of megabytes each made a list page too large to serialise (a 500 on every page), so each
 * takes at most what grading may take.
 */
export const sideListMaxBytes = 64 * 1024;
export const clientMaxBytes = 4 * 1024;

/** What the session list's `game` filter compares: one form for "Pokémon", "POKÉMON", " pokémon" and full-width "ＴＣＧ" (NFKC, migration 024). */
export { gameKey, storedGame };


/** `value` with object keys sorted at every level: itself when they already are (no copy). */
export function sortedKeys<T>(value: T): T {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((v, i) => {
      const s = sortedKeys(v);
      if (s !== v) (copy ??= [...value])[i] = s;
    });
    return (copy ?? value) as T;
  }
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  let changed = false;
  const out = entries.map(([k, v], i) => {
    const s = sortedKeys(v);
    if (s !== v || (i > 0 && entries[i - 1]![0] > k)) changed = true;
    return [k, s] as const;
  });
  if (!changed) return value;
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as T;
}

/** JSON with object keys sorted at every level, so equal values compare equal as text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

// extended (`2026-11-20T10:00:00.5Z`) and basic (`20261120T100000Z`) formats, to the hour or finer, either decimal sign
const isoShape = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?(z|[+-]\d{2}(?::?\d{2})?)?$/i;
const isoBasicShape = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(?:(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?)?)?(z|[+-]\d{2}(?:\d{2})?)?$/i;
// RFC 9557's zone name (and other suffixes) after a time's offset (`…T10:00+01:00[Europe/Paris]`, Java's ZonedDateTime):
// the offset says the instant; a date's own `-20` is no offset (h268: `2026-11-20[Europe/Paris]` was UTC midnight)
const zoneSuffix = /(?<=[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?(?:z|[+-]\d{2}(?::?\d{2})?))(?:\[[^\]]{1,64}\]){1,4}$/i;
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * A client's time as ISO 8601 in UTC with six fractional digits (`2026-11-23T23:53:00.969530Z`),
 * or undefined when it is not one. ISO 8601 only (the engine's Date.parse would also take "1" or
 * "March 7", and moves 30 February to March). Every field is checked against the calendar;
 * `24:00:00` is the end of the day. Naive times (no zone) are read as UTC, not as the server's
 * local time. Microseconds are what PostgreSQL keeps: digits past the sixth are dropped. The
 * time in UTC must fall in years 1–9999, which both backends store alike.
 */
export function normaliseTime(value: string): string | undefined {
  const bare = value.trim().replace(zoneSuffix, '');
  const m = isoShape.exec(bare) ?? isoBasicShape.exec(bare);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] ?? '';
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const endOfDay = hour === 24 && minute === 0 && second === 0 && /^0*$/.test(fraction);
  if ((hour > 23 && !endOfDay) || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  const zone = /^([+-])(\d{2}):?(\d{2})?$/.exec(m[8] ?? '');
  if (zone) {
    const [hours, minutes] = [Number(zone[2]), Number(zone[3] ?? 0)];
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (zone[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const t = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  t.setUTCFullYear(year, month - 1, day);
  t.setUTCHours(hour, minute - offsetMinutes, second, 0);
  if (t.getUTCFullYear() < 1 || t.getUTCFullYear() > 9999) return undefined;
  return `${t.toISOString().slice(0, 19)}.${fraction.padEnd(6, '0').slice(0, 6)}Z`;
}

const storedTime = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/;

/** A stored client time in the form normaliseTime makes; rows written before microseconds hold milliseconds. */
export function clientTime(stored: string | null): string | null {
  const m = stored === null ? null : storedTime.exec(stored);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(6, '0').slice(0, 6)}Z` : stored;
}


export const gradeMax = 10;

/** `grading.grades.final` when the grading has one (absent and null are "not graded"). */
function finalGradeOf(grading: Record<string, unknown> | null | undefined): unknown {
  const grades = grading?.grades;
  return grades && typeof grades === 'object' && !Array.isArray(grades) ? (grades as Record<string, unknown>).final : undefined;
}

/** `grading.grades.final` as a grade from 0 to 10 (a number or decimal text), else null. */
export function gradeOf(grading: Record<string, unknown> | null | undefined): number | null {
  const n = decimalNumber(finalGradeOf(grading));
  return n !== null && n >= 0 && n <= gradeMax ? n : null;
}

/** Whether an upload's grading holds a final grade that is not one: refused, since the summary averages grades. */
function badFinalGrade(grading: Record<string, unknown> | null | undefined): boolean {
  const final = finalGradeOf(grading);
  return final !== undefined && final !== null && gradeOf(grading) === null;
}



export { cardKey, decimalNumber, derivePrice, intervalDays, round2, type PriceBasis, type PriceStatistic };

const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);
const maxOf = (a: number | null, b: number | null | undefined): number | null => (b === null || b === undefined ? a : a === null ? b : Math.max(a, b));

/**
 * The fields a re-sent row may change: later data such as grading; call counts only grow. The
 * price only while the client has not given one: a derived price (or none) gives way to a price
 * the client sends; a price it sent, or a user's correction, stays.
 */
interface MutableState {
  calls: number | null;
  duration: number | null;
  grading: string | null;
  /** Follows `grading` (its `grades.final`), kept beside it so it is read from the object once. */
  grade: number | null;
  sold: boolean | null;
  note: string | null;
  price: number | null;
  /** Canonical JSON of the PriceBasis of a derived price, else null. */
  priceBasis: string | null;
  /** The client sent the price, or a user corrected the row. */
  priceFixed: boolean;
  /** `PreparedRow.sent` of the row's distinct uploads, the latest last. */
  sent: string[];
  /** Fields a user set by PATCH (migration 027): an upload leaves them as the user set them. */
  userSet: readonly string[];
}

const emptyState: MutableState = { calls: null, duration: null, grading: null, grade: null, sold: null, note: null, price: null, priceBasis: null, priceFixed: false, sent: [], userSet: [] };

/** The distinct uploads of a row remembered as sent (a retry of one older than these merges as new data). */
const sentKept = 32;
/** The images a row remembers it was sent (migration 026): a late retry of one of these is no new image. */
const imageSendsKept = 8;

/**
 * An uploaded row once checked: its time in UTC, and its grading as canonical JSON with the grade
 * it holds, made once per row (a batch may carry 64 MiB of grading).
 */
type PreparedRow = IdentificationInput & { seenIso: string | null; gradingJson: string | null; grade: number | null; sent: string };

/**
 * A short hash of what a row's upload sends of the fields a re-send may change. A re-send whose
 * hash the row already holds is a retry of an earlier upload (an app's queue sending a batch again
 * after the row was graded again, marked sold or noted): it changes nothing.
 */
function sentHash(row: IdentificationInput, gradingJson: string | null): string {
  const { calls, duration, sold, note, price } = row;
  return createHash('sha256').update(bodyJson({ calls, duration, sold, note, price })).update('\0').update(gradingJson ?? '').digest('base64url').slice(0, 16);
}

function mergeMutable(state: MutableState, row: PreparedRow): MutableState {
  // the price the server derived, sent back as read (a scanner re-uploading its copy of the session) is no price of the
  // app's: taken as one, it stayed on the row when a correction changed the card (Pikachu's price on a Raichu, h133)
  // (as read: it says `price_derived: true`; a partial row recording a sale at that price is the app's, h135)
  const echoed = state.priceBasis !== null && row.price === state.price && (row as { price_derived?: unknown }).price_derived === true;
  const sentPrice = !state.priceFixed && row.price !== undefined && row.price !== null && !echoed;
  return {
    calls: maxOf(state.calls, row.calls),
    duration: maxOf(state.duration, row.duration),
    // a user's grade, sold mark or note (set by PATCH) stays: a phone's later grading or its stale copy of the row
    // undid the host's correction (h93), as a corrected price never was
    grading: row.gradingJson === null || state.userSet.includes('grading') ? state.grading : row.gradingJson,
    grade: row.gradingJson === null || state.userSet.includes('grading') ? state.grade : row.grade,
    sold: row.sold === undefined || row.sold === null || state.userSet.includes('sold') ? state.sold : row.sold,
    note: row.note === undefined || row.note === null || state.userSet.includes('note') ? state.note : row.note,
    price: sentPrice ? row.price! : state.price,
    priceBasis: sentPrice ? null : state.priceBasis,
    priceFixed: state.priceFixed || sentPrice,
    sent: [...state.sent, row.sent].slice(-sentKept),
    userSet: state.userSet,
  };
}

/** A send known to be older than the row's state: its grading, sale mark and note only where the row has none. */
function olderThan(state: MutableState, row: PreparedRow): PreparedRow {
  return {
    ...row,
    ...(state.grading !== null ? { gradingJson: null, grade: null } : {}),
    ...(state.sold !== null ? { sold: undefined } : {}),
    ...(state.note !== null ? { note: undefined } : {}),
  };
}

const sameMutable = (a: MutableState, b: MutableState): boolean =>
  a.calls === b.calls && a.duration === b.duration && a.grading === b.grading && a.sold === b.sold && a.note === b.note && a.price === b.price && a.priceBasis === b.priceBasis;

/** A row's card fields as stored (rule 1): those it is counted and priced by. */
type CardValues = Pick<IdentificationValues, 'seen' | 'id_type' | 'name' | 'full_name' | 'set_name' | 'set_code' | 'card_number' | 'series' | 'year' | 'subcategory' | 'distance' | 'confidence' | 'links' | 'alternatives' | 'price_stats' | 'card_key'>;

/** Whether a row names a card at all (any of the fields a card key or a title is made of). */
const hasCard = (r: { name?: string | null; full_name?: string | null; set_name?: string | null; set_code?: string | null; card_number?: string | null }): boolean =>
  [r.name, r.full_name, r.set_name, r.set_code, r.card_number].some((v) => v !== undefined && v !== null && v !== '');

/**
 * Whether a row stored without a card may take the card a later send names: no correction set its card. A correction of
 * its price or links alone, while the card had not arrived, leaves the card open (h188: a streamer's price typed on the
 * row its grading had made dropped the card that came next, every answer 200 "updated"); a card a user cleared does not.
 */
const cardOpen = (stored: Pick<MergeableRow, 'corrected_at' | 'original' | 'user_set'>): boolean =>
  stored.corrected_at === null ||
  (!userSetOf(stored).includes('card') && !hasCard(fromJson<Partial<Record<'name' | 'full_name' | 'set_name' | 'set_code' | 'card_number', string | null>>>(stored.original) ?? {}));
const userSetOf = (row: Pick<MergeableRow, 'user_set'>): string[] => (row.user_set ? row.user_set.split(' ') : []);

const sessionClosed = () => new ServiceError(409, 'session_closed', 'The session is closed; reopen it before uploading cards.');

/** PostgreSQL asks to retry on these: a concurrent batch inserted the same event id, or a deadlock. */
class RetryBatch extends Error {}
const retryable = (err: unknown): boolean => err instanceof RetryBatch || ['40P01', '40001'].includes((err as { code?: string })?.code ?? '');

/** `fn` again, up to five times in all, while PostgreSQL asks for it ({@link retryable}); other errors go up at once. */
async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt < 5 && retryable(err)) continue;
      throw err;
    }
  }
}

export class CardSessionService {
  constructor(
    private readonly store: CardSessionStore,
    private readonly media: MediaStore,
    private readonly limits: Limits,
    private readonly links: MediaLinks,
  ) {}

  // ---- sessions ----

  /**
   * Starts a session. With an `Idempotency-Key` (docs/api-decisions.md "Retries of a session
   * create") a create sent again with that key and the same body answers the session the first one
   * made (`replayed`); with another body it is 422. A key is the workspace's while its session lives.
   */
  async createSession(ctx: CallContext, input: SessionInput, idempotencyKey?: string, charge?: { accountId: string; price: number; priceKey: string }): Promise<SessionView & { replayed?: true }> {
    // the create as it would be stored: a retry that spells it otherwise (a field null or empty, the game with spaces
    // around it, a field the create ignores such as a client's own `started`) is the same create (h241: 422)
    // a blank name is no name: it takes the default, as null does (h259: `""` and `"   "` made sessions with no name)
    if (typeof input.name === 'string' && !input.name.trim()) input = { ...input, name: null };
    // a session starts live (spec 1): one sent closed, or ended, was made live and said nothing (h277: an imported past
    // session); sent back whole, a live one passes
    // an empty one is none, as null is (h278: a form's blank `status`/`ended` was refused)
    if (input.status !== undefined && input.status !== null && input.status !== '' && input.status !== 'live') throw badRequest('A session starts live (spec 1): create it, then close it with POST …/session/<id>/close/.', [{ field: 'status', message: 'a new session is "live"' }]);
    if (input.ended !== undefined && input.ended !== null && input.ended !== '') throw badRequest('A session starts live, not ended: create it, then close it with POST …/session/<id>/close/ (which sets ended).', [{ field: 'ended', message: 'a new session has not ended' }]);
    const { status: _status, ended: _ended, ...own } = input;
    input = own;
    const stored = { name: input.name ?? null, description: input.description ?? '', game: storedGame(input.game ?? ''), platform: input.platform ?? '', client: input.client ?? {}, meta_data: input.meta_data ?? {} };
    // keys stored before the fifty-first session hashed the body's own fields, null ones left out: still taken
    const sent = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
    const hash = (v: unknown) => createHash('sha256').update(bodyJson(v)).digest('hex');
    const idempotency = idempotencyKey === undefined ? undefined : { key: idempotencyKey, bodyHash: hash(stored), earlierHash: hash(sent) };
    const prior = idempotency && (await this.priorCreate(ctx, idempotency));
    if (prior) return prior;
    // Free text up to 100 characters (the schema's limit): clients send a game's display name.
    const game = storedGame(input.game ?? '');
    exactNumbers(input);
    for (const [field, max] of [['meta_data', metaDataMaxBytes], ['client', clientMaxBytes]] as const) {
      if (input[field] && Buffer.byteLength(JSON.stringify(input[field])) > max) {
        throw badRequest(`${field} must be at most ${max} bytes of JSON.`, [{ field, message: `must be at most ${max} bytes of JSON` }]);
      }
    }
    const id = randomUUID();
    const started = new Date().toISOString();
    try {
      const paid = await this.store.insertSession({
        id,
        workspace_id: ctx.workspaceId,
        name: input.name ?? `Session ${started.slice(0, 16).replace('T', ' ')} UTC`,
        description: input.description ?? '',
        game,
        game_key: gameKey(game),
        platform: input.platform ?? '',
        client: JSON.stringify(input.client ?? {}),
        meta_data: JSON.stringify(input.meta_data ?? {}),
        started,
        idempotency,
      }, charge);
      if (!paid) throw insufficientCredits(charge!.priceKey, charge!.price);
    } catch (err) {
      // the same key sent twice at once: the session stored first is the answer to both
      const first = idempotency && isUniqueViolation(err) ? await this.priorCreate(ctx, idempotency) : undefined;
      if (first) return first;
      // its workspace erased between the token's check and the insert (`loupe workspace delete`): as one erased before
      // (h244: a 500)
      if (isForeignKeyViolation(err)) throw notFound(`Workspace ${ctx.workspaceId}`);
      throw err;
    }
    return this.getSession(ctx, id);
  }

  /** The live session an `Idempotency-Key` made in this workspace, replayed; 422 when the key came with another body. */
  private async priorCreate(ctx: CallContext, idempotency: { key: string; bodyHash: string; earlierHash?: string }): Promise<(SessionView & { replayed: true }) | undefined> {
    const prior = await this.store.sessionByIdempotencyKey(ctx.workspaceId, idempotency.key);
    if (!prior) return undefined;
    if (prior.bodyHash !== idempotency.bodyHash && prior.bodyHash !== idempotency.earlierHash) {
      throw new ServiceError(422, 'idempotency_key_reused', `Idempotency-Key "${idempotency.key}" was sent with another session create (session ${prior.row.id}); a retry sends the same body, a new session a new key.`, [{ field: 'idempotency-key', message: 'used with another body' }]);
    }
    return { ...this.sessionView(prior.row), replayed: true };
  }

  /** `upTo`: the sessions as they were at a walk's first page (`up_to` in its links): one made meanwhile repeats no row (h241). */
  async listSessions(ctx: CallContext, query: { page: number; pageSize?: number | undefined; search?: string | undefined; game?: string | undefined; upTo?: number | undefined }): Promise<Page<SessionView> & { upTo?: number }> {
    const pageSize = Math.min(query.pageSize ?? this.limits.sessionPageSize, this.limits.identificationPageSizeMax);
    const search = query.search?.trim() || undefined;
    // Empty is no filter, like `search`; otherwise the game as it is stored, in any case (`sport` is stored `Sports`, h268)
    const game = query.game === undefined || gameKey(query.game) === '' ? undefined : gameKey(storedGame(query.game));
    const { count, rows, upToSeq } = await this.store.listSessions(ctx.workspaceId, search, game, pageSize, (query.page - 1) * pageSize, query.upTo);
    return { count, page: query.page, pageSize, results: rows.map((r) => this.sessionView(r)), ...(upToSeq !== undefined ? { upTo: upToSeq } : {}) };
  }

  /** 404 unless the session exists in the workspace (an upload's check before its body is read). */
  async assertSession(ctx: CallContext, id: string): Promise<void> {
    if (!(await this.store.sessionExists(this.sessionId(id), ctx.workspaceId))) throw notFound(`Session ${id}`);
  }

  async getSession(ctx: CallContext, id: string): Promise<SessionView> {
    return this.sessionView(await this.sessionRow(ctx, id));
  }

  /** Spec 1's rename, and the session's description and meta_data: absent is unchanged, null clears. */
  async updateSession(ctx: CallContext, id: string, patch: Pick<SessionInput, 'name' | 'description' | 'meta_data' | 'game' | 'platform'> & { status?: unknown }, ifMatch?: string): Promise<SessionView> {
    exactNumbers(patch);
    // unknown fields are ignored (docs/api-decisions.md "Types"), so a body changing nothing would pass for a success
    if (patch.name === undefined && patch.description === undefined && patch.meta_data === undefined && patch.game === undefined && patch.platform === undefined) {
      // a client closing a session by PATCH is told the way, as when the status comes with other fields
      if (typeof patch.status === 'string') {
        throw badRequest(`A session's status is changed by POST …/session/${id}/close/ or …/reopen/, not by PATCH; nothing else to change was sent.`, [{ field: 'status', message: 'PATCH does not change it' }]);
      }
      throw badRequest('Nothing to change: send name, description, meta_data, game or platform (a field sent as null is taken as not sent: a session always has a name, which null cannot clear).', [{ field: 'body', message: 'names no field a session PATCH changes' }]);
    }
    if (patch.meta_data && Buffer.byteLength(JSON.stringify(patch.meta_data)) > metaDataMaxBytes) {
      throw badRequest(`meta_data must be at most ${metaDataMaxBytes} bytes of JSON.`, [{ field: 'meta_data', message: `must be at most ${metaDataMaxBytes} bytes of JSON` }]);
    }
    // a session always has a name (the console refuses a blank rename; the API took one, h259)
    if (typeof patch.name === 'string' && !patch.name.trim()) throw badRequest('name must not be blank: a session always has a name.', [{ field: 'name', message: 'is blank' }]);
    const sid = this.sessionId(id);
    // a whole session sent back carries its status: as it is, it passes; a change would be lost here, so it is refused
    if (patch.status !== undefined && patch.status !== null) {
      const current = await this.sessionRow(ctx, sid);
      if (patch.status !== current.status) throw badRequest(`A session's status is changed by POST …/session/${sid}/close/ or …/reopen/, not by PATCH.`, [{ field: 'status', message: `is "${current.status}"; PATCH does not change it` }]);
    }
    const game = patch.game !== undefined ? storedGame(patch.game ?? '') : undefined;
    const changes = {
      ...(patch.name !== undefined && patch.name !== null ? { name: patch.name } : {}),
      ...(game !== undefined ? { game, game_key: gameKey(game) } : {}),
      ...(patch.platform !== undefined ? { platform: patch.platform ?? '' } : {}),
      ...(patch.description !== undefined ? { description: patch.description ?? '' } : {}),
      ...(patch.meta_data !== undefined ? { meta_data: JSON.stringify(patch.meta_data ?? {}) } : {}),
    };
    // what the session says already: no write, so its version stays (h263: a rename form saved unchanged made every
    // other device's version stale)
    const unchanged = (row: SessionRow) =>
      Object.entries(changes).every(([k, v]) => (k === 'meta_data' ? bodyJson(fromJson(row.meta_data)) === bodyJson(patch.meta_data ?? {}) : (row as unknown as Record<string, unknown>)[k] === v));
    const held = await this.sessionIfMatch(ctx, sid, ifMatch, unchanged);
    const current = held?.row ?? (await this.sessionRow(ctx, sid));
    if (held?.done || unchanged(current)) return this.sessionView(current);
    if (!(await this.store.updateSession(sid, ctx.workspaceId, changes, held?.row.updated_at))) {
      if (held) throw sessionChanged(sessionTag(await this.sessionRow(ctx, sid)));
      throw notFound(`Session ${id}`);
    }
    return this.getSession(ctx, sid);
  }

  async deleteSession(ctx: CallContext, id: string, ifMatch?: string): Promise<void> {
    const sid = this.sessionId(id);
    await this.sessionIfMatch(ctx, sid, ifMatch);
    // a batch merging into the same rows locked them in another order (PostgreSQL chose this side of the deadlock)
    const keys = await retrying(() => this.store.deleteSession(sid, ctx.workspaceId));
    if (keys === undefined) throw notFound(`Session ${id}`);
    await this.removeMedia(keys);
  }

  /** Deletes every session of a workspace with its cards and files (an account's erasure); says how many of each went. */
  async eraseWorkspace(workspaceId: string): Promise<{ sessions: number; files: number; filesNotFound: number; filesLeft: number }> {
    const done = { sessions: 0, files: 0, filesNotFound: 0, filesLeft: 0 };
    for (;;) {
      const { rows } = await this.store.listSessions(workspaceId, undefined, undefined, 100, 0);
      if (!rows.length) return done;
      for (const row of rows) {
        const keys = await this.store.deleteSession(row.id, workspaceId);
        if (keys === undefined) continue;
        const named = keys.filter((k): k is string => k !== null);
        // a file not found here stays named in media_deletions, for the server's sweep to remove where it is (an
        // erasure run with another LOUPE_DATA_DIR than the server's answered its files removed and left them, h100)
        const { removed, failed } = await this.media.remove(named);
        await this.store.mediaRemoved(removed);
        done.sessions++;
        done.files += removed.length;
        done.filesNotFound += named.length - removed.length - failed.length;
        done.filesLeft += failed.length;
      }
    }
  }

  /** What {@link eraseWorkspace} would take (`--dry-run`): the workspace's sessions and the files their rows name. */
  workspaceHoldings(workspaceId: string): Promise<{ sessions: number; media: string[] }> {
    return this.store.workspaceHoldings(workspaceId);
  }

  /** Files no row names any more, and then their `media_deletions` entries (migration 016): the sweep has nothing left to do. */
  private async removeMedia(keys: readonly (string | null)[]): Promise<void> {
    const named = keys.filter((k): k is string => k !== null);
    // one that stays (a read-only disk) keeps its entry, for the sweep: the delete itself has committed
    const { failed } = await this.media.remove(named);
    await this.store.mediaRemoved(named.filter((k) => !failed.includes(k)));
  }

  /** Closing a closed session succeeds and keeps its first `ended`. */
  async closeSession(ctx: CallContext, id: string, ifMatch?: string): Promise<SessionView> {
    return this.setStatus(ctx, id, 'closed', ifMatch);
  }

  /** Reopening a live session succeeds and changes nothing; reopening clears `ended`. */
  async reopenSession(ctx: CallContext, id: string, ifMatch?: string): Promise<SessionView> {
    return this.setStatus(ctx, id, 'live', ifMatch);
  }

  private async setStatus(ctx: CallContext, id: string, status: 'live' | 'closed', ifMatch: string | undefined): Promise<SessionView> {
    const sid = this.sessionId(id);
    const held = await this.sessionIfMatch(ctx, sid, ifMatch, (row) => row.status === status);
    if (held?.done) return this.sessionView(held.row);
    if (!(await this.store.setStatus(sid, ctx.workspaceId, status, held?.row.updated_at))) throw sessionChanged(sessionTag(await this.sessionRow(ctx, sid)));
    return this.getSession(ctx, sid);
  }

  /**
   * An upload's `If-Match` on its session: checked as it starts (the cards it sends do not change the session's version).
   * A close that came after the batch arrived does not refuse it, as it does not refuse the batch itself (h278: its
   * version had moved, a 412); the version the session had before that close is not kept, so such a batch passes.
   */
  async assertSessionVersion(ctx: CallContext, id: string, ifMatch: string | undefined, arrived?: Date): Promise<void> {
    const closedSince = (row: SessionRow) => arrived !== undefined && row.status === 'closed' && row.ended !== null && new Date(row.ended).getTime() > arrived.getTime();
    await this.sessionIfMatch(ctx, this.sessionId(id), ifMatch, closedSince);
  }

  async summary(ctx: CallContext, id: string): Promise<SessionSummary> {
    const sid = this.sessionId(id);
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
    const s = await this.store.summary(sid);
    // deleted while it was read: its figures are those of no rows (PostgreSQL reads each statement on its own
    // connection: 116 of 300 summaries racing a delete were all zeros, h277), so it is the 404 a read after gets
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
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

  async recordCalls(ctx: CallContext, id: string, given: string | number, calls: number): Promise<{ run: string; calls: number }> {
    if (typeof given === 'number' && !Number.isSafeInteger(given)) throw badRequest(`run (${given}) cannot be kept exactly (an integer beyond 2^53); send it as a string.`, [{ field: 'run', message: 'an integer beyond 2^53' }]);
    const run = String(given);
    const sid = this.sessionId(id);
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
    try {
      return { run, calls: await this.store.recordRunCalls(sid, run, calls) };
    } catch (err) {
      // The session was deleted between the check and the write.
      if (isForeignKeyViolation(err)) throw notFound(`Session ${id}`);
      throw err;
    }
  }

  // ---- identifications ----

  /**
   * `arrived`: when the request came. A batch that came while the session was live is stored though a close came
   * after it and committed first (h277: an app flushing its last batch and then closing had the batch refused 409 and
   * lost, as the close overtook it while it was read and checked). A close in the same millisecond as the batch's arrival
   * (both kept to the millisecond) came before it: a close answered before the upload was sent refused it only now and
   * then (1 test run in 3 under `app.inject`, where both fall in one millisecond).
   */
  async uploadIdentifications(ctx: CallContext, id: string, rows: IdentificationInput[], arrived: Date = new Date()): Promise<UploadResult> {
    const sid = this.sessionId(id);
    const prepared = await this.validateBatch(rows);
    try {
      // Batches to one session go one after another (writeBatch); one that met another's new event
      // ids, or any deadlock or serialization failure, goes again.
      return await retrying(() => this.store.transaction((tx) => this.writeBatch(tx, ctx, sid, id, prepared, arrived)));
    } catch (err) {
      // the session was deleted after the batch found it
      if (isForeignKeyViolation(err)) throw notFound(`Session ${id}`);
      throw err;
    }
  }

  private async validateBatch(rows: IdentificationInput[]): Promise<PreparedRow[]> {
    if (rows.length > this.limits.batchRows) {
      throw badRequest(`A batch holds at most ${this.limits.batchRows} identifications; this one has ${rows.length}.`, [{ field: 'identifications', message: `at most ${this.limits.batchRows} rows` }]);
    }
    const errors: FieldError[] = [];
    let badRows = 0;
    const out: PreparedRow[] = [];
    for (const [i, sent] of rows.entries()) {
      if (i > 0 && i % rowsPerTurn === 0) await nextTurn();
      const row = specOneNames(sent, typeof sent.id_type === 'string' && sent.id_type.toLowerCase() === 'comics');
      const checked = checkRow(row, i);
      // each bad row once, by its first problem, and at most 100 rows (docs/api-decisions.md "Rejected batch")
      const problem = checked.errors[0];
      if (problem) {
        badRows++;
        if (errors.length < maxRowErrors) errors.push(problem);
      }
      out.push({ ...row, seenIso: checked.seenIso, gradingJson: checked.gradingJson, grade: gradeOf(row.grading), sent: sentHash(row, checked.gradingJson) });
    }
    const first = errors[0];
    // a capped list says it is one (a batch of 1,000 bad rows listed 100 with nothing said of the rest, h133)
    const more = badRows > errors.length ? ` ${badRows} rows are bad; errors lists the first ${errors.length}.` : '';
    if (first) throw badRequest(`Row ${first.row}: ${first.field} ${first.message}. The batch was not stored.${more}`, errors);
    return out;
  }

  private async writeBatch(tx: CardSessionStore, ctx: CallContext, sid: string, id: string, rows: PreparedRow[], arrived: Date): Promise<UploadResult> {
    // Uploads to one session go one after another (PostgreSQL: the session's advisory lock, before
    // any row). New rows take their list places from a sequence, which orders no commits: a batch
    // that took places later could commit first, and an app reading new rows page by page passed
    // places still to be filled (a tester missed 3 % of its cards). Taken first by every attempt:
    // taken after the rows' locks, it deadlocked against a retry that held it (a reviewer's race).
    await tx.holdUploads(sid);
    const session = await tx.sessionStatusAndEnd(sid, ctx.workspaceId);
    if (session === undefined) throw notFound(`Session ${id}`);
    // closed after this batch came: written as to the live session it came to
    const status = session.status === 'closed' && session.ended !== null && session.ended.getTime() > arrived.getTime() ? 'live' : session.status;

    const existing = new Map<string, MergeableRow>();
    for (const r of await tx.identificationsByEventIds(sid, [...new Set(rows.map((r) => r.event_id))])) existing.set(r.event_id, r);
    if (status !== 'live') {
      // A batch that changes nothing (an app's retry of rows already stored, sent again after the session closed)
      // is answered as the retry it is; one that would change or add a row is refused (h81: a sync queue's replay
      // after a close was a 409 it could not get past, while the rows were all there).
      const nothingNew = rows.every((row) => {
        const stored = existing.get(row.event_id);
        if (!stored || (!hasCard(stored) && hasCard(row) && cardOpen(stored))) return false;
        const before = this.stateOf(stored);
        return before.sent.includes(row.sent) || sameMutable(before, mergeMutable(before, row));
      });
      if (!nothingNew) throw sessionClosed();
      return { received: rows.length, created: 0, updated: 0, duplicates: rows.length };
    }

    const now = new Date().toISOString();
    const fresh = new Map<string, { values: IdentificationValues; state: MutableState }>();
    // `touched`: something a client sees changed (else only the hashes of what was sent, which leave `updated_at`)
    const changed = new Map<string, { row: MergeableRow; state: MutableState; touched: boolean; identity?: CardValues }>();
    const result: UploadResult = { received: rows.length, created: 0, updated: 0, duplicates: 0 };

    for (const [i, row] of rows.entries()) {
      if (i > 0 && i % rowsPerTurn === 0) await nextTurn();
      const pending = fresh.get(row.event_id);
      const stored = existing.get(row.event_id);
      if (!pending && !stored) {
        // A price the client sends wins over one derived from its price_stats.
        const derived = derivePrice(row.price_stats, row.id_type);
        const state = mergeMutable(derived ? { ...emptyState, price: derived.price, priceBasis: canonicalJson(derived.basis) } : emptyState, row);
        fresh.set(row.event_id, { values: this.newRowValues(sid, row, state, now), state });
        result.created++;
        continue;
      }
      const earlier = changed.get(row.event_id);
      let before = pending?.state ?? earlier?.state ?? this.stateOf(stored!);
      // Rule 1 keeps a row's card as first sent; a row first sent without any card (its grading arrived
      // before its create, an offline queue replayed out of order) takes the card a later send names:
      // nothing of it is changed, and the card was lost (h81).
      const cardBefore = pending?.values ?? { ...stored!, ...earlier?.identity };
      let identity = !hasCard(cardBefore) && hasCard(row) && (stored === undefined || cardOpen(stored)) ? this.cardFill(row, stored) : undefined;
      // the card as it now stands, a field the send left out kept as the row had it: its key and price basis are the
      // merged card's (h209: a kind sent first and the name later keyed the card without its kind, counted twice)
      if (identity) identity = { ...identity, card_key: cardKey({ ...cardBefore, ...identity }) };
      if (identity && !before.priceFixed && before.price === null) {
        const derived = derivePrice(row.price_stats, identity.id_type ?? cardBefore.id_type);
        if (derived) before = { ...before, price: derived.price, priceBasis: canonicalJson(derived.basis) };
      }
      const retry = !identity && before.sent.includes(row.sent);
      // A card that comes after later data for it (an update overtook its create on the network) is older than that
      // data: the grading, note and sale already on the row stay; the card's own fill only what the row lacks (h259:
      // the create arriving second put grade 6, "first" and unsold back over the regrade 9, its note and its sale)
      const after = mergeMutable(before, identity ? olderThan(before, row) : row);
      const news = !retry && (identity !== undefined || !sameMutable(before, after));
      if (news) result.updated++;
      else result.duplicates++;
      // a retry changes nothing; a send that changed nothing is remembered, so it is a retry when it comes
      // again after a later change (a request that timed out after it was stored)
      if (retry) continue;
      const state = news ? after : { ...before, sent: after.sent };
      if (pending) {
        pending.state = state;
        pending.values = { ...pending.values, ...identity, ...this.mutableValues(tx, state) };
      } else {
        const filled = identity ?? earlier?.identity;
        changed.set(row.event_id, { row: stored!, state, touched: news || (earlier?.touched ?? false), ...(filled ? { identity: filled } : {}) });
      }
    }

    const values = [...fresh.values()].map((f) => f.values);
    if (values.length > 0) {
      const inserted = await tx.insertIdentifications(values);
      // Another batch inserted one of these event ids after we looked: start again and merge into it.
      if (inserted.size !== values.length) throw new RetryBatch();
    }
    let price = values.reduce((sum, v) => sum + priceMicros(v.price), 0);
    for (const { row, state, touched, identity } of changed.values()) {
      await tx.updateIdentification(row.id, { ...identity, ...this.mutableValues(tx, state), ...(touched ? { updated_at: now } : {}) });
      price += priceMicros(state.price) - priceMicros(row.price);
    }
    if (!(await tx.addBatchToLiveSession(sid, ctx.workspaceId, values.length, price, arrived))) {
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
      grade: row.grade,
      sold: fromBool(row.sold),
      note: row.note,
      price: row.price,
      priceBasis: row.price_basis === null ? null : canonicalJson(fromJson(row.price_basis)),
      priceFixed: row.corrected_at !== null || (row.price !== null && row.price_basis === null),
      sent: row.sent_hashes ? row.sent_hashes.split(' ') : [],
      userSet: userSetOf(row),
    };
  }

  private mutableValues(tx: CardSessionStore, s: MutableState): Pick<IdentificationValues, 'calls' | 'duration' | 'grading' | 'grade' | 'sold' | 'note' | 'price' | 'price_basis' | 'sent_hashes'> {
    return {
      sent_hashes: s.sent.join(' '),
      calls: s.calls,
      duration: s.duration,
      grading: s.grading,
      grade: s.grade,
      sold: tx.bool(s.sold),
      note: s.note,
      price: s.price,
      price_basis: s.priceBasis,
    };
  }

  /** A later send's card for a row without one: what it says, a field it leaves out kept as the row has it (its `seen`). */
  /** The card a send names, for a row stored without one; links and price stats a user's correction set stay theirs (h188). */
  private cardFill(row: PreparedRow, stored?: Pick<MergeableRow, 'corrected_at' | 'links' | 'price_stats' | 'user_set'>): CardValues {
    const corrected = stored !== undefined && stored.corrected_at !== null;
    // set by the user (cleared too), or held where the user's corrections were not yet noted (rows corrected before 2026-12-02)
    const keep = (k: string) => corrected && (k === 'links' || k === 'price_stats') && (userSetOf(stored).includes(k) || stored[k] !== null);
    return Object.fromEntries(Object.entries(this.cardValues(row)).filter(([k, v]) => v !== null && !keep(k))) as CardValues;
  }

  /** What a row says of its card (rule 1's card fields), as stored. */
  private cardValues(row: PreparedRow): CardValues {
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    return {
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
      card_key: cardKey(row),
    };
  }

  private newRowValues(sid: string, row: PreparedRow, state: MutableState, now: string): IdentificationValues {
    return {
      id: randomUUID(),
      session_id: sid,
      event_id: row.event_id,
      ...this.cardValues(row),
      ...this.mutableValues(this.store, state),
      image_key: null,
      thumbnail_key: null,
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
    // no rows where the count promised some, or none found by event_id: the session may have been deleted meanwhile
    // (h277, PostgreSQL: 200 {count: 600, results: []} with a next link; a binder app took the card for absent)
    if (!rows.length && !(await this.store.sessionExists(session.id, ctx.workspaceId))) throw notFound(`Session ${query.session}`);
    // a page of 500 rows with 64 KiB of grading each is 30 MB of JSON to parse: a few rows a turn (one such
    // page held /health for up to 1.6 s on SQLite)
    const results: IdentificationView[] = [];
    for (const [i, r] of rows.entries()) {
      if (i > 0 && i % rowsPerTurn === 0) await nextTurn();
      results.push(this.identificationView(ctx, r));
    }
    return { count, page: query.page, pageSize, results };
  }

  /**
   * Deletes one card of a session with its image and thumbnail (not in the spec: a customer's erasure of one photo,
   * a card scanned by mistake; before, only the whole session went, h182). `If-Match` as for a correction. The
   * summary counts what is left. An app uploading the same `event_id` again makes the card again.
   */
  async deleteIdentification(ctx: CallContext, id: string, ifMatch?: string): Promise<void> {
    if (!isUuid(id)) throw notFound(`Identification ${id}`);
    const iid = id.toLowerCase();
    // a batch merging into the same row locked it first (PostgreSQL chose this side of the deadlock)
    const keys = await retrying(() =>
      this.store.deleteIdentification(iid, ctx.workspaceId, (row) => {
        if (ifMatch !== undefined && !ifMatchHolds(ifMatch, rowTag(row))) {
          throw new ServiceError(412, 'precondition_failed', `The card was changed since the version If-Match names (it is now ${rowTag(row)}): read it again before deleting it.`);
        }
      }),
    );
    if (keys === undefined) throw notFound(`Identification ${id}`);
    await this.removeMedia(keys);
  }

  /** `ifMatch`: the request's `If-Match`: the row is changed only while its version is one named (else 412). */
  async correctIdentification(ctx: CallContext, id: string, body: CorrectionInput, ifMatch?: string): Promise<IdentificationView> {
    exactNumbers(body);
    if (body.set !== undefined && body.set !== null && body.set_name !== undefined && body.set_name !== null && body.set !== body.set_name) {
      throw badRequest('set and set_name name the same field and differ: send one.', [{ field: 'set', message: 'differs from set_name' }]);
    }
    body = specOneNames(body, true);
    // unknown fields are ignored (docs/api-decisions.md "Types"), so a body changing nothing would pass for a success
    if (!correctionFields.some((f) => body[f] !== undefined)) {
      throw badRequest(`Nothing to change: send one of ${correctionFields.join(', ')}.`, [{ field: 'body', message: 'names no field a correction changes' }]);
    }
    if (body.grading !== undefined && body.grading !== null) {
      if (Buffer.byteLength(canonicalJson(body.grading)) > gradingMaxBytes) throw badRequest(`grading must be at most ${gradingMaxBytes} bytes of JSON.`, [{ field: 'grading', message: `must be at most ${gradingMaxBytes} bytes of JSON` }]);
      if (badFinalGrade(body.grading)) throw badRequest(`grading.grades.final must be a number from 0 to ${gradeMax}, or one written in decimal as text.`, [{ field: 'grading.grades.final', message: `must be a number from 0 to ${gradeMax}` }]);
    }
    if (body.price_stats && Buffer.byteLength(JSON.stringify(body.price_stats)) > sideListMaxBytes) {
      throw badRequest(`price_stats must be at most ${sideListMaxBytes} bytes of JSON.`, [{ field: 'price_stats', message: `must be at most ${sideListMaxBytes} bytes of JSON` }]);
    }
    // as an upload reads it; until now a wrong `seen` could be put right only by uploading the session again (h121)
    const seenIso = body.seen === undefined || body.seen === null ? body.seen : normaliseTime(body.seen);
    if (seenIso === undefined && body.seen !== undefined) throw badRequest('seen must be an ISO 8601 time that exists, in years 1 to 9999 in UTC (with its offset, as `2026-12-02T08:00:00+09:00`; one without is read as UTC).', [{ field: 'seen', message: 'must be an ISO 8601 time that exists' }]);
    const patch: CorrectionInput = body;
    if (!isUuid(id)) throw notFound(`Identification ${id}`);
    const iid = id.toLowerCase();
    return this.store.transaction(async (tx) => {
      // Locked: a concurrent correction waits and then applies its changes on top of ours.
      const row = await tx.identificationInWorkspace(iid, ctx.workspaceId, true);
      if (!row) throw notFound(`Identification ${id}`);
      const now = new Date().toISOString();
      const current = Object.fromEntries(matchFields.map((f) => [f, row[f]])) as MatchSnapshot;
      const values: IdentificationUpdate = {};
      // A price in a PATCH is the user's even when it equals the one derived from price_stats.
      // A field filled where the row had none completes the card rather than naming another (h209: a number added after a
      // stream cleared every price); a comic's year names another volume, as its key says (h209: the 1963 price stayed)
      // (completes only where the key's part it feeds was empty: a name given to a row named by its full name alone, or a
      // set code to a row with a set name, names another card, h218)
      const blank = (v: string | null | undefined) => namesCard('name', v) === null;
      const completes = (f: (typeof identityFields)[number] | 'year') => blank(current[f]) && (f === 'name' ? blank(current.full_name) : f === 'set_code' ? blank(current.set_name) : true);
      const identityChanged = [...identityFields, ...(cardKeyPart(row.id_type) === 'comics' ? (['year'] as const) : [])].some(
        (f) => patch[f] !== undefined && namesCard(f, patch[f]) !== namesCard(f, current[f]) && !completes(f),
      );
      // the recognised card's full name names the old card where the card changed and none is sent (h157: "Wartortle"
      // kept "Squirtle 007/165 Scarlet & Violet 151" in the export); kept in `original`, as its links and stats are
      // (only where a name stays: a comic's title or a row sent with a full name alone is the row's only name, h162)
      const nameAfter = patch.name !== undefined ? patch.name : current.name;
      const matchPatch: CorrectionInput = identityChanged && patch.full_name === undefined && current.full_name !== null && nameAfter ? { ...patch, full_name: null } : patch;
      const changed = matchFields.filter((f) => matchPatch[f] !== undefined && (matchPatch[f] !== current[f] || (f === 'price' && row.price_basis !== null)));
      // The links sent with a pick (an alternative carries its own), else none where the card changed: the
      // recognised card's marketplace pages are not the picked card's (kept in `original.links`)
      const linksBefore = row.links === null ? null : fromJson<Record<string, string>>(row.links);
      const links = patch.links !== undefined ? patch.links : identityChanged ? null : linksBefore;
      const linksChanged = JSON.stringify(links ?? null) !== JSON.stringify(linksBefore ?? null);
      if (linksChanged) values.links = links === null ? null : JSON.stringify(links);
      // the stats sent with a pick, else none where the card changed (the recognised card's, kept in `original`)
      const statsBefore = row.price_stats === null ? null : fromJson<unknown[]>(row.price_stats);
      const stats = patch.price_stats !== undefined ? patch.price_stats : identityChanged ? null : statsBefore;
      const statsChanged = JSON.stringify(stats ?? null) !== JSON.stringify(statsBefore ?? null);
      if (statsChanged) values.price_stats = stats === null ? null : JSON.stringify(stats);
      // A price no user set (derived from the stats, or none) follows the stats the row now holds: the picked
      // card's derive it again, and a card changed without them leaves it unknown (the old card's, in `original`).
      // A price the user or the app sent stays theirs.
      const serverPrice = patch.price === undefined && (row.price_basis !== null || row.price === null);
      let derived: ReturnType<typeof derivePrice> = null;
      let priceAfter = current.price;
      if (serverPrice && (statsChanged || identityChanged)) {
        derived = derivePrice(stats, row.id_type);
        priceAfter = derived?.price ?? null;
      } else if (changed.includes('price')) priceAfter = patch.price ?? null;
      const basisAfter = derived ? canonicalJson(derived.basis) : serverPrice ? (priceAfter === null ? null : row.price_basis) : null;
      const priceMoved = priceAfter !== current.price || basisAfter !== row.price_basis;
      if (priceMoved) {
        values.price = priceAfter;
        values.price_basis = basisAfter as string | null;
      }
      const matchChanged = changed.length > 0 || linksChanged;
      if (matchChanged) {
        const next: MatchSnapshot = { ...current, price: priceAfter };
        for (const f of changed) {
          if (f === 'price') continue;
          (next as Record<MatchField, unknown>)[f] = matchPatch[f];
          (values as Record<string, unknown>)[f] = matchPatch[f];
        }
        values.card_key = cardKey({ ...row, ...next });
        values.corrected_at = now;
      }
      // The first correction freezes the recognition service's match so it stays visible; stats refreshed alone are no
      // correction, but the match as uploaded is kept from them on, shown once one comes (h209: a stats edit and then a
      // change of card kept the user's stats and price as the `original`)
      if (row.original === null && (matchChanged || ((statsChanged || priceMoved) && hasCard(row)))) {
        values.original = JSON.stringify({ ...current, links: linksBefore, price_stats: statsBefore });
      }
      // written only where they change: a correction that changes nothing leaves the row, its time and its version
      // (`etag`) as they were, so other devices' forms do not go stale for nothing (h98)
      if (patch.sold !== undefined && (patch.sold ?? null) !== fromBool(row.sold)) values.sold = tx.bool(patch.sold);
      if (patch.note !== undefined && (patch.note ?? null) !== row.note) values.note = patch.note;
      if (seenIso !== undefined && (seenIso === null ? null : clientTime(seenIso)) !== clientTime(row.seen === null ? null : String(row.seen))) values.seen = seenIso;
      // a grade the user sets (the host's own, or one put back after a phone's grading replaced it, h93)
      const gradingJson = patch.grading === undefined || patch.grading === null ? null : canonicalJson(patch.grading);
      const gradingBefore = row.grading === null ? null : canonicalJson(fromJson(row.grading));
      if (patch.grading !== undefined && gradingJson !== gradingBefore) {
        values.grading = gradingJson;
        values.grade = gradeOf(patch.grading);
      }
      // what the user changed here, uploads leave alone from now on (a value sent as it was changes nothing, h99)
      const userSet: string[] = (['grading', 'sold', 'note'] as const).filter((f) => values[f] !== undefined);
      // and the card, its links and its price stats: a row still waiting for its card takes a late send's only where the
      // user set none of them (`cardOpen`, `cardFill`: a card typed and cleared came back, h200)
      if (changed.some((f) => f !== 'price')) userSet.push('card');
      if (linksChanged) userSet.push('links');
      if (statsChanged) userSet.push('price_stats');
      const before = userSetOf(row);
      if (userSet.some((f) => !before.includes(f))) values.user_set = [...new Set([...before, ...userSet])].join(' ');
      // a stale version refuses a change; a PATCH that would change nothing is answered as applied (RFC 9110 §13.1.1: a
      // phone's retry after its first answer was lost, with the If-Match it read before, was a 412 "changed", h206)
      if (ifMatch !== undefined && Object.keys(values).length > 0 && !ifMatchHolds(ifMatch, rowTag(row))) {
        throw new ServiceError(412, 'precondition_failed', `The card was changed since the version If-Match names (it is now ${rowTag(row)}): read it again, and send the correction on top of what it holds now.`);
      }
      if (Object.keys(values).length > 0) await tx.updateIdentification(row.id, { ...values, updated_at: now });
      // Row first, then the session: the order uploads lock them in, so the two cannot deadlock.
      if (priceMoved) await tx.bumpCounters(row.session_id, 0, priceMicros(priceAfter) - priceMicros(current.price));
      return this.identificationView(ctx, (await tx.identificationInWorkspace(iid, ctx.workspaceId))!);
    });
  }

  /** `ifMatch`: the card's `etag` the image replaces (412 when the card changed since; a retry of this image still succeeds). */
  async attachImage(ctx: CallContext, id: string, eventId: string, image: string, ifMatch?: string): Promise<IdentificationView> {
    const sid = this.sessionId(id);
    if (!(await this.store.sessionExists(sid, ctx.workspaceId))) throw notFound(`Session ${id}`);
    const row = await this.store.identificationByEventId(sid, eventId);
    if (!row) throw notFound(`Card with event_id "${eventId}" in session ${id}`);
    let prepared: Awaited<ReturnType<typeof prepareCardImage>>;
    try {
      prepared = await prepareCardImage(await decodeBase64ImageInSteps(image, this.limits.imageBytes), this.limits);
    } catch (err) {
      // naming the body's field, as every other field's 400 does (h315: a PDF sent as `image` had no `errors`)
      if (err instanceof ImageLoadError) throw new ServiceError(err.status, err.code, err.message, [{ field: 'image', message: err.reason }]);
      throw err;
    }
    // The image the row shows already, sent again (a retry, or a second phone): its links stay as
    // answered before, nothing is written, and the row is not changed. Only while both its files are
    // there: a lost one is written again.
    const shows = async (r: IdentificationRow) => !!r.image_key && (await this.media.holds(r.image_key, prepared.original)) && (await this.media.holds(r.thumbnail_key ?? '', prepared.thumbnail));
    if (await shows(row)) return this.identificationView(ctx, row);
    // An image the row was sent before another (an app's late retry of its older upload, arriving after the newer
    // one): a retry, answered with the row as it is; the newer image stays (it was replaced, h81). The same trade-off
    // as rows' retries: an older photo sent again on purpose is taken for one.
    const sent = createHash('sha256').update(prepared.original).digest('base64url').slice(0, 16);
    const earlier = (r: IdentificationRow) => (r.image_sends ?? '').split(' ').slice(0, -1).includes(sent);
    if (earlier(row)) return this.identificationView(ctx, row);
    // after the retries above: an image already stored answers as stored, whatever version it was sent against (h241)
    const stale = (r: IdentificationRow) =>
      ifMatch !== undefined && !ifMatchHolds(ifMatch, rowTag(r)) ? new ServiceError(412, 'precondition_failed', `The card was changed since the version If-Match names (it is now ${rowTag(r)}): read it again before replacing its image.`) : undefined;
    const before = stale(row);
    if (before) throw before;
    // named before they are written: a process killed before the row names them leaves them to the sweep
    const imageKey = this.media.newKey(prepared.originalExt);
    const thumbKey = this.media.newKey('jpg');
    await this.store.intendMedia([imageKey, thumbKey]);
    await this.media.write(imageKey, prepared.original);
    await this.media.write(thumbKey, prepared.thumbnail);
    let old: IdentificationRow | { same: IdentificationRow } | undefined;
    try {
      old = await this.store.transaction(async (tx): Promise<IdentificationRow | { same: IdentificationRow } | undefined> => {
        // Locked, so two uploads of an image for one card each see the other's files and remove them.
        const current = await tx.identificationByEventId(sid, eventId, true);
        // the same image stored meanwhile by an upload beside this one: keep its files, whose links it answered
        if (current && ((current.image_key !== row.image_key && (await shows(current))) || earlier(current))) return { same: current };
        const changed = current && stale(current);
        if (changed) throw changed;
        const updatedAt = new Date().toISOString();
        if (current) {
          const sends = [...(current.image_sends ?? '').split(' ').filter((h) => h && h !== sent), sent].slice(-imageSendsKept).join(' ');
          await tx.updateIdentification(current.id, { image_key: imageKey, thumbnail_key: thumbKey, image_sends: sends, updated_at: updatedAt });
          await tx.keepMedia([imageKey, thumbKey]);
          await tx.forgetMedia([current.image_key, current.thumbnail_key]);
        }
        return current && { ...current, updated_at: updatedAt };
      });
    } catch (err) {
      await this.removeMedia([imageKey, thumbKey]);
      throw err;
    }
    if (old && 'same' in old) {
      await this.removeMedia([imageKey, thumbKey]);
      return this.identificationView(ctx, old.same);
    }
    if (!old) {
      // The row or its session went away while the image was being prepared.
      await this.removeMedia([imageKey, thumbKey]);
      throw notFound(`Card with event_id "${eventId}" in session ${id}`);
    }
    await this.removeMedia([old.image_key, old.thumbnail_key]);
    // read again as stored: the answer's `etag` is then the row's version (one made from the row in hand, whose
    // `image_sends` the write changed, was refused as If-Match at once, h98)
    const stored = await this.store.identificationByEventId(sid, eventId);
    return this.identificationView(ctx, stored ?? { ...old, image_key: imageKey, thumbnail_key: thumbKey });
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
      etag: sessionTag(r),
    };
  }

  /**
   * `If-Match` on a session (RFC 9110 §13.1.1): `*`, or its `etag` as read; 412 otherwise, naming the version it is now.
   * Returns the row it holds for, whose `updated_at` a write then requires, so a change between the check and the write
   * is a 412 too (h259: a phone's late retry of close/ closed again a session a tablet had reopened meanwhile).
   */
  private async sessionIfMatch(ctx: CallContext, id: string, ifMatch: string | undefined, alreadySo?: (row: SessionRow) => boolean): Promise<{ row: SessionRow; done?: true } | undefined> {
    if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
    const row = await this.sessionRow(ctx, id);
    if (ifMatchHolds(ifMatch, sessionTag(row))) return { row };
    // what was asked is so already (a client's retry after its answer was lost): a success that writes nothing, as
    // rows answer it (RFC 9110 §13.1.1; h263: the retry was told another device had changed the session)
    if (alreadySo?.(row)) return { row, done: true };
    throw sessionChanged(sessionTag(row));
  }

  /** In a fixed key order (jsonb keeps its own). */
  private priceBasisView(stored: unknown): PriceBasis | null {
    if (stored === null) return null;
    const b = fromJson<PriceBasis>(stored);
    return { stats_type: b.stats_type, interval: b.interval, statistic: b.statistic };
  }

  private identificationView(ctx: CallContext, r: IdentificationRow): IdentificationView {
    const json = <T>(v: unknown): T | null => (v === null ? null : fromJson<T>(v));
    return {
      id: r.id,
      session: r.session_id,
      event_id: r.event_id,
      seen: clientTime(r.seen),
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
      price_derived: r.price_basis !== null,
      price_basis: this.priceBasisView(r.price_basis),
      // keys sorted, as stored since: PostgreSQL rows stored before migration 018 kept jsonb's order
      grading: sortedKeys(json(r.grading)),
      // Rows stored before grades were validated may hold one outside 0–10: that is no grade.
      grade: r.grade !== null && r.grade >= 0 && r.grade <= gradeMax ? r.grade : null,
      // Signed afresh on every read: a leaked link expires, the row always gives a working one.
      image: this.links.url(ctx.baseUrl, r.image_key),
      thumbnail: this.links.url(ctx.baseUrl, r.thumbnail_key),
      sold: fromBool(r.sold),
      note: r.note,
      corrected: r.corrected_at !== null,
      // kept from a stats edit on, shown from the first correction (the match as uploaded, before either)
      original: r.corrected_at === null ? null : json(r.original),
      corrected_at: toIso(r.corrected_at),
      created_at: toIso(r.created_at),
      updated_at: toIso(r.updated_at),
      etag: rowTag(r),
    };
  }
}

/**
 * A row's version (`etag`, the `ETag` of a PATCH answer): a hash of every stored column, so any write that changes
 * the row changes it, and one that changes nothing does not. Two devices correcting one row (a phone and the host's
 * laptop, h93) tell a stale form from a fresh one by it.
 */
export function rowTag(r: IdentificationRow): string {
  const row = r as unknown as Record<string, unknown>;
  const canonical = JSON.stringify(tagKeys(row).map((k) => [k, row[k] instanceof Date ? (row[k] as Date).toISOString() : row[k]]));
  return `"${createHash('sha256').update(canonical).digest('base64url').slice(0, 22)}"`;
}

/**
 * Columns a row's version leaves out: the server's own bookkeeping of what was sent (retries told apart) is no change
 * of the card (a phone's re-sent row, answered as a duplicate, made the host's version stale, h99); `seen_text` is how
 * `seen` was read.
 */
const untagged = new Set(['seen_text', 'sent_hashes', 'image_sends']);
let lastTagKeys: { keys: string[]; sorted: string[] } = { keys: [], sorted: [] };
/**
 * The columns a row's version hashes, sorted. The rows of one read share their keys, so the sorted list is kept for the
 * next row of the same keys: a page of 500 sorted and copied each row for its version (h354: with the copy of every row
 * without the three, 9 of a SQLite page's 45 ms).
 */
function tagKeys(row: Record<string, unknown>): string[] {
  const keys = Object.keys(row);
  const last = lastTagKeys;
  if (keys.length !== last.keys.length || keys.some((k, i) => k !== last.keys[i])) lastTagKeys = { keys, sorted: keys.filter((k) => !untagged.has(k)).sort() };
  return lastTagKeys.sorted;
}

/**
 * A session's own version: a hash of what it says of itself (name, description, game, platform, status, times, client,
 * meta_data and `updated_at`, which every change of those moves), not of its cards: uploads during a stream leave it
 * as it is, so a phone's close or rename is not refused for the cards it sent meanwhile.
 */
export function sessionTag(r: Pick<SessionRow, 'id' | 'name' | 'description' | 'game' | 'platform' | 'status' | 'started' | 'ended' | 'client' | 'meta_data' | 'updated_at'>): string {
  const canonical = JSON.stringify([r.id, r.name, r.description, r.game, r.platform, r.status, toIso(r.started), toIso(r.ended), bodyJson(fromJson(r.client)), bodyJson(fromJson(r.meta_data)), toIso(r.updated_at)]);
  return `"${createHash('sha256').update(canonical).digest('base64url').slice(0, 22)}"`;
}

const sessionChanged = (now: string) => new ServiceError(412, 'precondition_failed', `The session changed since it was read (renamed, closed, reopened or edited elsewhere): it is version ${now} now; read it again.`);

/** Whether an `If-Match` header (RFC 9110 §13.1.1: `*`, or a list of entity tags, strong comparison) names `tag`. */
export function ifMatchHolds(header: string, tag: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  return (value.match(/(W\/)?"[^"]*"/g) ?? []).some((t) => !t.startsWith('W/') && t === tag);
}

/**
 * Document 3's names of a match's fields, as a recognition result or alternative carries them, taken as this
 * document's where its own is not sent (or sent null): `set` and a slab label's `card_no` on any row; a comic's
 * `number`, `publisher`, `date` (its year) and `title` on a comic's (`id_type` comics; every PATCH, which a picked
 * alternative is). An upload dropped them (a row stored with no set or number), and a comic alternative picked by
 * PATCH left the old comic's number, publisher and year beside the new name (h133). Text only, within the field's
 * limit; anything else is left as the unknown field it was (a quantity `number: 1`, a scan time `date` broke whole
 * batches, h135): these names never refuse a row.
 */
const anyRowNames = [
  ['set', 'set_name', 255],
  ['card_no', 'card_number', 50],
] as const;
const comicNames = [
  ['publisher', 'set_name', 255],
  ['number', 'card_number', 50],
  ['date', 'year', 20],
  ['title', 'full_name', 500],
] as const;

export function specOneNames<T extends object>(sent: T, comic: boolean): T {
  const row = { ...sent } as Record<string, unknown>;
  for (const [alias, own, limit] of [...anyRowNames, ...(comic ? comicNames : [])]) {
    let value = row[alias];
    if (typeof value !== 'string' || (row[own] !== undefined && row[own] !== null)) continue;
    // a comic's date is its year (`1988`, `2019-10-02T00:00:00-0400`); another date is no year
    if (own === 'year') value = /^\d{4}(?:$|[-/T ])/.exec(value)?.[0].slice(0, 4);
    if (typeof value !== 'string' || [...value].length > limit) continue;
    row[own] = value;
  }
  return row as T;
}

/**
 * A batch row's rules past its schema (its time, its numbers, its grading's and side lists' sizes,
 * `grades.final`): the first problem found, and what was read. Pure: the route also runs it on the rows
 * its schema let through when another row failed the schema, so that `errors` names every bad row at once.
 */
export function checkRow(row: IdentificationInput, i: number): { errors: FieldError[]; seenIso: string | null; gradingJson: string | null } {
  const errors: FieldError[] = [];
  let seenIso: string | null = null;
  // an empty one is no time, as null is (h277: an app sending "" for "unknown" had its whole batch refused)
  if (row.seen !== undefined && row.seen !== null && !(typeof row.seen === 'string' && row.seen.trim() === '')) {
    seenIso = normaliseTime(row.seen) ?? null;
    if (seenIso === null) errors.push({ row: i, field: `identifications[${i}].seen`, message: 'must be an ISO 8601 time that exists, in years 1 to 9999 in UTC' });
  }
  const inexact = inexactNumberAt(row);
  if (inexact) errors.push({ row: i, field: `identifications[${i}].${inexact.path}`, message: `cannot be kept exactly (read as ${inexact.value}: beyond the double range, or an integer beyond 2^53 with more digits than a double keeps); send it as a string` });
  // Canonical JSON has the length of the JSON sent (only the key order differs).
  const gradingJson = row.grading === undefined || row.grading === null ? null : canonicalJson(row.grading);
  // one problem a row: an inexact number is that row's
  if (!inexact && gradingJson !== null && Buffer.byteLength(gradingJson) > gradingMaxBytes) {
    errors.push({ row: i, field: `identifications[${i}].grading`, message: `must be at most ${gradingMaxBytes} bytes of JSON` });
  } else if (!inexact && badFinalGrade(row.grading)) {
    errors.push({ row: i, field: `identifications[${i}].grading.grades.final`, message: `must be a number from 0 to ${gradeMax}, or one written in decimal as text` });
  } else if (!inexact) {
    const large = (['alternatives', 'price_stats'] as const).find((f) => row[f] !== undefined && row[f] !== null && Buffer.byteLength(JSON.stringify(row[f])) > sideListMaxBytes);
    if (large) errors.push({ row: i, field: `identifications[${i}].${large}`, message: `must be at most ${sideListMaxBytes} bytes of JSON` });
  }
  return { errors, seenIso, gradingJson };
}

/**
 * {@link checkRow}'s problems in a rejected batch's rows that its schema let through (the others are
 * named already), taking turns with other work as the upload's own check does: a batch is up to 64 MiB.
 */
export async function ruleErrorsOf(rows: unknown, schemaFailed: ReadonlySet<number>): Promise<FieldError[]> {
  if (!Array.isArray(rows)) return [];
  const errors: FieldError[] = [];
  for (const [i, row] of rows.entries()) {
    if (i > 0 && i % rowsPerTurn === 0) await nextTurn();
    if (!schemaFailed.has(i) && row !== null && typeof row === 'object') errors.push(...checkRow(row as IdentificationInput, i).errors);
  }
  return errors;
}

/** A session's fields as sent, or 400 naming the number JSON parsing could not keep (docs/api-decisions.md "Numbers"). */
function exactNumbers(input: object): void {
  const inexact = inexactNumberAt(input);
  if (inexact) throw badRequest(`${inexact.path} (read as ${inexact.value}) cannot be kept exactly (beyond the double range, or an integer beyond 2^53 with more digits than a double keeps); send it as a string.`, [{ field: inexact.path, message: 'cannot be kept exactly' }]);
}
