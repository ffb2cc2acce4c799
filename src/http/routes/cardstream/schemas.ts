import { Type } from '@sinclair/typebox';
import { AnyObject, Nullable, StringEnum, allErrorsMark, replayedHeader } from '../../schemas/common.ts';
import { webLinkPattern } from '../../schemas/patterns.ts';
import { sideListMaxBytes } from '../../../services/card-session-service.ts';
import { defaultLimits } from '../../../config/config.ts';

const text = (max: number, description?: string) => Type.Optional(Nullable(Type.String({ maxLength: max, ...(description ? { description } : {}) })));

export const noteMaxLength = 10_000;
/** Past any real page, and small enough that page × size stays an exact integer offset. */
const maxPage = 1_000_000;
/** Both backends store these in 32-bit integers and doubles. */
const maxCalls = 1_000_000_000;
const maxPrice = 1_000_000_000;

export const Session = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  game: Type.String({ description: '`TCG`, `Sports`, `Comics`, `Slabs`, empty for a mix, or any other game as the client sent it (for example "Pokémon").' }),
  platform: Type.String(),
  status: StringEnum(['live', 'closed']),
  started: Type.String({ format: 'date-time' }),
  ended: Nullable(Type.String({ format: 'date-time' })),
  identification_count: Type.Integer(),
  total_price: Type.Number(),
  client: AnyObject,
  meta_data: AnyObject,
  etag: Type.String({ description: "The session's version (not in the spec; as rows carry theirs): send it as `If-Match` on its PATCH, close, reopen, delete or a card upload, 412 when the session changed since. Cards sent do not change it." }),
});

/** A create's answer: the session, with `Idempotent-Replayed` when a retry found the one made before. */
export const SessionCreated = Type.Object(Session.properties, replayedHeader('session create'));

/** Apps send their version as a number too (`"version": 2.1`): kept as sent. */
const textOrNumber = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Number(), Type.Null()]));
export const ClientInfo = Type.Object(
  {
    name: textOrNumber(255),
    version: textOrNumber(255),
    // and the os as a device reports it, `{"name": "iOS", "version": "17.1"}` (h264: a 400 that made no session)
    os: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Number(), Type.Null(), Type.Object({}, { additionalProperties: true })])),
  },
  { additionalProperties: true, description: 'The app that made the session.' },
);

/**
 * Marketplace name → URL. Not `Type.Record`: its key pattern `^(.*)$` matches no name holding a line break, and the
 * answer's serializer dropped such a link that was stored (h181: `"TCG\nplayer"` was saved and never shown).
 */
// an http(s) address or nothing: every client app shows these as links, and a `javascript:` one ran there (h271)
const LinksIn = Type.Object({}, { additionalProperties: Type.String({ maxLength: 2048, pattern: webLinkPattern }), maxProperties: 50, propertyNames: { maxLength: 200 }, description: 'Marketplace name → URL (`http://` or `https://`, or empty): at most 50, names of at most 200 characters.' });
const LinksOut = (description?: string) => Type.Object({}, { additionalProperties: Type.String(), ...(description ? { description } : {}) });

export const SessionCreateBody = Type.Object({
  name: text(255),
  description: text(noteMaxLength),
  game: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'Free text up to 100 characters, such as the game\'s display name ("Pokémon", "Magic The Gathering"). The documented values `TCG`, `Sports`, `Comics`, `Slabs` (any case) are stored as spelled here; empty means a mix; anything else is kept as sent.' }))),
  platform: text(100, 'Where the cards were identified, e.g. a streaming platform; `other` for anything else.'),
  client: Type.Optional(Nullable(ClientInfo)),
  meta_data: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'Any JSON object, up to 64 KiB.' }))),
  status: Type.Optional(Type.Unknown({ description: 'A session starts live (spec 1): `live`, null or empty passes (a session object sent back whole), another value is 400; close it with `close/` after creating it.' })),
  ended: Type.Optional(Type.Unknown({ description: 'A session starts live, not ended: null or empty passes, a time is 400.' })),
});

/** Spec 1: "Renames a session. Body: name". `description` and `meta_data` too, as a user editing a session expects; absent is unchanged. */
export const SessionPatchBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255 })),
  game: SessionCreateBody.properties.game,
  platform: SessionCreateBody.properties.platform,
  status: Type.Optional(Type.Unknown({ description: 'Not changed here (use `close/` and `reopen/`): sent as the session has it (a whole session sent back) it passes, another value is 400.' })),
  description: Type.Optional(Nullable(Type.String({ maxLength: noteMaxLength, description: 'null clears it ("").' }))),
  meta_data: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'Replaces the whole object, up to 64 KiB; null clears it ({}).' }))),
});

export const SessionListQuery = Type.Object({
  workspace: Type.Optional(Type.String()),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, description: 'Default 50; values above 500 are treated as 500.' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive text in name, description, platform or game.' })),
  game: Type.Optional(Type.String({ maxLength: 100, description: 'Only sessions of this game, compared with the stored `game` ignoring case and surrounding spaces (`tcg` finds `TCG`, `pokémon` finds `Pokémon`); not a substring search. Empty: no filter.' })),
  up_to: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Set by the server in `next` and `previous` (not in the spec): the pages after the first list the sessions as they were at the first, so sessions created meanwhile repeat no row.' })),
});

export const SessionParams = Type.Object({ session_id: Type.String() });

export const Summary = Type.Object({
  identifications: Type.Integer(),
  distinct_cards: Type.Integer(),
  total_price: Type.Number(),
  paid_calls: Type.Integer(),
  average_grade: Nullable(Type.Number()),
});

export const CallsBody = Type.Object({
  run: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Integer()], { description: 'The app run (launch) the count belongs to.' }),
  calls: Type.Integer({ minimum: 0, maximum: maxCalls, description: 'Calls made so far in this run; the highest count per run is kept.' }),
});

export const CallsResponse = Type.Object({ run: Type.String(), calls: Type.Integer() });

/** Any case is accepted and stored lower-case (a batch is not dropped over "High"). */
const IdType = Type.String({ pattern: '^(?:[Tt][Cc][Gg]|[Ss][Pp][Oo][Rr][Tt]|[Cc][Oo][Mm][Ii][Cc][Ss]|[Ss][Ll][Aa][Bb])$', description: '`tcg`, `sport`, `comics` or `slab` (any case).' });
const Confidence = Type.String({ pattern: '^(?:[Hh][Ii][Gg][Hh]|[Mm][Ee][Dd][Ii][Uu][Mm]|[Ll][Oo][Ww])$', description: '`high`, `medium` or `low` (any case).' });

export const IdentificationInput = Type.Object(
  {
    event_id: Type.String({ minLength: 1, maxLength: 255, description: 'Client-chosen key, unique within the session.' }),
    seen: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ISO 8601; a time without zone is read as UTC. Kept to the microsecond and returned in UTC with six fractional digits.' }))),
    calls: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: maxCalls }))),
    duration: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1e9, description: 'Seconds spent identifying the card.' }))),
    id_type: Type.Optional(Nullable(IdType)),
    name: text(255),
    full_name: text(500),
    set_name: text(255),
    set_code: text(50),
    card_number: text(50),
    series: text(255),
    year: text(20),
    subcategory: text(100),
    distance: Type.Optional(Nullable(Type.Number({ minimum: -1e12, maximum: 1e12, description: 'Distance of the best match; lower is closer.' }))),
    confidence: Type.Optional(Nullable(Confidence)),
    links: Type.Optional(Nullable(LinksIn)),
    alternatives: Type.Optional(Nullable(Type.Array(Type.Unknown(), { maxItems: 10, description: `At most 10 items and ${sideListMaxBytes / 1024} KiB of JSON.` }))),
    price_stats: Type.Optional(Nullable(Type.Array(Type.Unknown(), { maxItems: 10, description: `At most 10 items and ${sideListMaxBytes / 1024} KiB of JSON.` }))),
    price: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: maxPrice, description: 'USD. Without it, a price is derived from `price_stats` (see `price_derived`).' }))),
    grading: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'At most 64 KiB of JSON; `grades.final`, when present and not null, must be a number from 0 to 10 or such a number in decimal text ("9.5"), and becomes `grade`.' }))),
    sold: Type.Optional(Nullable(Type.Boolean())),
    note: text(noteMaxLength),
  },
  { additionalProperties: true, description: '`id`, `grade`, `image` and `thumbnail` are set by the service and ignored here.' },
);

// every bad row is named, not the first only (src/app.ts reads the mark): a client fixes a batch in one round trip
// at most the default batch (a smaller configured one is the service's 400), checked before the rows are (src/http/array-limits.ts)
export const UploadBody = Type.Object({ identifications: Type.Array(IdentificationInput, { maxItems: defaultLimits.batchRows }) }, { [allErrorsMark]: true });

export const UploadResult = Type.Object({
  received: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer({ description: 'Rows whose event_id existed and whose grading, calls, duration, sold, note or price (one the client had not given) changed.' }),
  duplicates: Type.Integer({ description: 'Rows whose event_id existed and that changed nothing.' }),
});

export const ImageBody = Type.Object({
  event_id: Type.String({ minLength: 1, maxLength: 255 }),
  image: Type.String({ minLength: 1, description: 'Base64 JPEG, PNG, WebP, HEIC or AVIF, with or without a data: prefix (the bytes: a URL is not fetched here).' }),
});

const MatchSnapshot = Type.Object({
  name: Nullable(Type.String()),
  full_name: Nullable(Type.String()),
  set_name: Nullable(Type.String()),
  set_code: Nullable(Type.String()),
  card_number: Nullable(Type.String()),
  series: Nullable(Type.String()),
  year: Nullable(Type.String()),
  subcategory: Nullable(Type.String()),
  price: Nullable(Type.Number()),
  links: Type.Optional(Nullable(LinksOut('The links the row had (rows first corrected before 2026-11-30 lack it).'))),
  price_stats: Type.Optional(Nullable(Type.Array(Type.Unknown(), { description: 'The price_stats the row had (rows first corrected before the thirtieth session lack it).' }))),
});

export const Identification = Type.Object({
  id: Type.String({ format: 'uuid' }),
  session: Type.String({ format: 'uuid' }),
  event_id: Type.String(),
  seen: Nullable(Type.String({ format: 'date-time', description: 'UTC, to the microsecond: `2026-11-23T23:53:00.969530Z`.' })),
  calls: Nullable(Type.Integer()),
  duration: Nullable(Type.Number()),
  id_type: Nullable(Type.String()),
  name: Nullable(Type.String()),
  full_name: Nullable(Type.String()),
  set_name: Nullable(Type.String()),
  set_code: Nullable(Type.String()),
  card_number: Nullable(Type.String()),
  series: Nullable(Type.String()),
  year: Nullable(Type.String()),
  subcategory: Nullable(Type.String()),
  distance: Nullable(Type.Number()),
  confidence: Nullable(Type.String()),
  links: Nullable(LinksOut()),
  alternatives: Nullable(Type.Array(Type.Unknown())),
  price_stats: Nullable(Type.Array(Type.Unknown())),
  price: Nullable(Type.Number()),
  price_derived: Type.Boolean({ description: 'True when `price` was derived from `price_stats` (the row was sent without a price); false for a price the client sent or a user corrected.' }),
  price_basis: Nullable(
    Type.Object(
      { stats_type: Type.String(), interval: Nullable(Type.String()), statistic: StringEnum(['median', 'mean', 'latest']) },
      { description: 'The `price_stats` entry and statistic a derived price is; null when `price_derived` is false.' },
    ),
  ),
  grading: Nullable(AnyObject),
  grade: Nullable(Type.Number({ description: 'Read-only: grading.grades.final.' })),
  image: Nullable(Type.String({ format: 'uri' })),
  thumbnail: Nullable(Type.String({ format: 'uri' })),
  sold: Nullable(Type.Boolean()),
  note: Nullable(Type.String()),
  corrected: Type.Boolean({ description: 'True once a PATCH changed the match.' }),
  original: Nullable({ ...MatchSnapshot, description: 'The match as first uploaded, kept from the first correction on.' }),
  corrected_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  etag: Type.String({ description: "The row's version, as the `ETag` header of a PATCH answer carries it (quotes included): send it as `If-Match` with a PATCH, and a row another device changed since is 412 `precondition_failed` rather than overwritten. It changes with every change of the row." }),
});

export const IdentificationListQuery = Type.Object({
  workspace: Type.Optional(Type.String()),
  session: Type.String({ minLength: 1, description: 'Session id.' }),
  event_id: Type.Optional(Type.String({ description: 'The row with this event_id; empty means no filter, as for a session list\'s `search` and `game`.' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, description: 'Default 100; values above 500 are treated as 500.' })),
});

export const IdentificationParams = Type.Object({ id: Type.String() });

export const CorrectionBody = Type.Object({
  name: text(255),
  full_name: text(500),
  set_name: text(255),
  set: text(255, 'Document 3\'s name for `set_name` (a recognition alternative sent as it came): taken when `set_name` is not sent, 400 when both are sent and differ.'),
  price_stats: Type.Optional(Nullable(Type.Array(Type.Unknown(), { maxItems: 10, description: 'The picked card\'s price statistics (an alternative carries its own): where the row\'s price was derived from the recognised card\'s and no `price` is sent, the price is derived again from these; without them a correction of the card clears a derived price.' }))),
  set_code: text(50),
  card_number: text(50),
  series: text(255),
  year: text(20),
  subcategory: text(100),
  price: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: maxPrice }))),
  sold: Type.Optional(Nullable(Type.Boolean())),
  note: text(noteMaxLength),
  seen: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'When the card was seen, put right (ISO 8601, as an upload sends it; a time without zone is read as UTC); null clears it. Not a correction of the card: `original` and `corrected` are left as they are.' }))),
  grading: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description: 'The grading the user gives the card, as an upload sends it (at most 64 KiB; `grades.final` becomes `grade`); null clears it. Like `sold` and `note` set here, a later upload no longer changes it.' }))),
  links: Type.Optional(Nullable({ ...LinksIn, description: 'The picked card\'s marketplace links (an alternative carries its own). Not sent, a correction of name, set_name, set_code or card_number clears the links, which named the recognised card (kept in `original.links`).' })),
});

export const Ping = Type.Object({
  detail: Type.String(),
  service: Type.String(),
  account: Type.String({ format: 'uuid' }),
  workspace: Type.String({ format: 'uuid' }),
  credits: Type.Integer(),
  services: Type.Record(Type.String(), Type.Boolean(), { description: "Each of the server's services, and whether this account may use it (not in the spec: the console read it from seven refused calls)." }),
});
