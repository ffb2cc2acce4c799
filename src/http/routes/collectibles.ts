import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { COMICS, COMICS_OPTIONS, meantName, misspeltMessage, notTakenHere, optionNotTakenInRecords, recordHints, SPORT, SPORT_OPTIONS, TCG, TCG_OPTIONS, type Family } from '../../services/recognition/recognition-families.ts';
import { ServiceError } from '../../services/errors.ts';
import { refuseUnknownParameters } from '../unknown-parameters.ts';
import { EnvelopeStatus, envelopeResponses, imageAnswers, ImageRecordInput, eachWithStatus, recordsAnsweredEach, Statistics, type Answers } from '../schemas/search.ts';

const security = [{ token: [] }];
const errorStatuses = [400, 401, 402, 403, 404, 413, 415, 429, 503];
const answers: Answers = {
  ...imageAnswers,
  // sent as HTTP 200 here (spec 3 §7 counts any 2xx as success): the search routes' wording said HTTP 300 (h245)
  300: 'MIXED_RESULT: some records failed (see each `_status`). A success: the records that could be done are answered, and the call is charged',
  404: 'No card was found in the image (in every record)',
  500: 'Error Processing Image: every record failed in the vision worker',
  504: 'Error Processing Image: every record ran past the time limit',
};

/**
 * A route's `preValidation`: the body's names beside `records` must be the endpoint's own options. A record's hint sent
 * beside the records, or an option or hint written another way (`priceStats`, `analyzeAll`, `setcode`), is refused
 * naming what was meant (h175, h270: ignored, and the call charged as if not asked); any other name is refused as
 * collections, image matching and the vision endpoints refuse one (h343: `/detect`'s `analyze_all`, `/card_ocr_id`'s
 * `set_code` or `price_stats`, `/tcg_id`'s `magic_ai`, `/comics_id`'s `slab_grade` were ignored without a word). Before
 * validation, so before the catalog check and the charge: a refused call costs nothing.
 */
function takesOptions(endpoint: string, keys: readonly string[], family?: Family) {
  return async (request: { body: unknown }): Promise<void> => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const rest = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'records'));
    if (family) refuseMisnamed(rest, keys, family);
    refuseUnknownParameters(`collectibles/v2/${endpoint}`, ['records', ...keys], body);
  };
}

/** A record's hint beside the records, or an option or hint written another way: 400 naming what was meant. */
function refuseMisnamed(body: Record<string, unknown>, keys: readonly string[], family: Family): void {
  // a record's hint sent beside the records reaches none of them: the call ran, and was charged, unfiltered (h175), as
  // an asynchronous submit refuses it; a comic's `lang` is its record's (h270: ignored beside the records)
  const hints = recordHints(family).filter((h) => !keys.includes(h));
  const hint = hints.find((k) => Object.hasOwn(body, k));
  if (hint !== undefined) throw new ServiceError(400, 'invalid_request', `${hint} is a record's hint: send it on each record it is for, not beside "records".`);
  for (const key of Object.keys(body)) {
    const meant = meantName(key, [...keys, ...hints]);
    if (meant) throw new ServiceError(400, 'invalid_request', misspeltMessage(key, meant, hints, hints.includes(meant) ? 'on each record it is for' : 'beside "records"'));
  }
}

/** The endpoint's boolean options as sent (the names were checked by {@link takesOptions}). */
function declaredOptions<K extends string>(body: Record<string, unknown>, keys: readonly K[]): Partial<Record<K, boolean>> {
  return Object.fromEntries(keys.filter((k) => typeof body[k] === 'boolean').map((k) => [k, body[k] as boolean])) as Partial<Record<K, boolean>>;
}

/**
 * `/card_ocr_id`, `/slab_id`, `/slab_grade`, `/detect` and `/process` take only `records` (document 3 §4): an
 * identification endpoint's option or hint beside the records, or an option asked in one, is refused naming the
 * endpoints that take it, and any other name beside the records as {@link takesOptions} refuses one, before anything is
 * read or charged: the answer would look like one to it (price_stats came back without prices). A record's other
 * fields are the shop's own and left be.
 */
const onlyRecords =
  (path: string) =>
  async (request: { body: unknown }): Promise<void> => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
    for (const key of Object.keys(body)) {
      // whatever its value: these endpoints take no option at all
      const why = key === 'records' ? undefined : notTakenHere(path, key, key, true);
      if (why) throw new ServiceError(400, 'invalid_request', why, [{ field: key, message: `not taken by ${path}` }]);
    }
    refuseUnknownParameters(`collectibles/v2${path}`, ['records'], body);
    const records: unknown = (body as { records?: unknown }).records;
    const asked = Array.isArray(records) ? optionNotTakenInRecords(path, records) : undefined;
    if (asked) throw new ServiceError(400, 'invalid_request', asked.message, [{ field: asked.field, message: `not taken by ${path}` }]);
  };

/** What the document says of an option (docs/api-decisions.md "Options" has the whole of it). */
const OPTION_NOTES: Record<string, string> = {
  analyze_all: 'Every card of the image, each its own object, charged at the call\'s price a card (at most 12 read); one record per request (400 `too_many_records` with more).',
  price_stats: 'The best match\'s price statistics (`PriceStat`), where prices are imported.',
  lang: 'The language of the text read (`_ocr.lang`, `lang_name`).',
  slab_id: 'A slab\'s label read and matched (`Slab Label` object), charged once a call at `/slab_id`\'s price where a label is read.',
  slab_grade: 'A slab\'s company and grade on the card\'s match, charged once a call at `/slab_grade`\'s price where a label is read.',
  ignore_non_ascii: 'Match fields holding CJK text are null (`id` and `catalog` kept), and `_ocr` lines in CJK left out.',
  magic_ai: 'Accepted and echoed; changes nothing (at most 2 records carry it).',
};

// typed per record by the service (a hint of another type or length is that record's own 400, as an image field is, h258)
const Hint = Type.Optional(Type.Unsafe<string>({ 'x-document-as': { type: 'string', maxLength: 100 } }));
const TcgRecord = Type.Intersect([
  ImageRecordInput,
  Type.Object(
    {
      set_code: Type.Optional(Type.Unsafe<string>({ 'x-document-as': { type: 'string', maxLength: 50 }, description: 'Limits identification to one set: its code (`sv3pt5`, `DOM`) or the code printed on its cards (`MEW`); for sport cards and comics, whose catalogs carry no set codes, the set name.' })),
      'Top Category': Hint,
      Category: Hint,
      Side: Hint,
      Alphabet: Hint,
      Subcategory: Hint,
      'Foil/Holo': Hint,
      Rotation: Hint,
      Autograph: Type.Optional(Type.Unsafe<string | boolean>({ 'x-document-as': { oneOf: [{ type: 'string', maxLength: 100 }, { type: 'boolean' }] }, description: 'A sport card signed (`true`, or words such as `on card`): returned as the pre-filled `Autograph` tag; no model here sees a signature.' })),
    },
    { additionalProperties: true },
  ),
]);
/** `records`: a record that is no object (`null`, a number) is that record's own 400, the others answered (h333: the request's 400). */
const recordList = <T extends TSchema>(item: T, max = 10) => recordsAnsweredEach(item, max, eachWithStatus(max));
const RecordStatus = Type.Object({ code: Type.Integer(), text: Type.String(), request_id: Type.Optional(Type.String()) });
const Recognized = Type.Object(
  {
    status: EnvelopeStatus,
    records: Type.Array(Type.Object({ _status: RecordStatus, _width: Type.Optional(Type.Integer()), _height: Type.Optional(Type.Integer()), _objects: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))) }, { additionalProperties: true })),
    statistics: Statistics,
  },
  { additionalProperties: true },
);

/** `/collectibles/v2/*` (document 3 §4): recognition of collectibles against the imported catalogs. */
export async function collectiblesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { recognition, config } = app.loupe;
  /** Who pays for analyze_all's further cards, at the call's price each (the first is the call's own), and for a slab option, at its endpoint's price. */
  const slabPrices = { slab_id: config.prices['collectibles.slab_id'] ?? 0, slab_grade: config.prices['collectibles.slab_grade'] ?? 0 };
  const billing = (request: FastifyRequest) => {
    const priceKey = request.routeOptions.config.price;
    return request.charged && priceKey ? { accountId: request.charged.accountId, priceKey, price: request.charged.price, slabPrices } : undefined;
  };
  const option = (o: string) => Type.Optional(Type.Boolean(OPTION_NOTES[o] ? { description: OPTION_NOTES[o] } : {}));
  const options = Object.fromEntries(TCG_OPTIONS.map((o) => [o, option(o)]));

  app.post('/tcg_id', {
    config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: 'collectibles.tcg_id' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['collectibles'],
      security,
      summary: 'Identifies the largest trading card (Pokémon, MTG, Yu-Gi-Oh!) in each of up to 10 images',
      description: 'Reads each card\'s name and collector line and identifies it in the imported catalogs (`loupe catalog import`); see docs/recognition.md for how, and for the distances. A card that is not in a catalog gets `best_match: null`, never a guess.',
      body: Type.Object({ records: recordList(TcgRecord), ...options }),
      response: envelopeResponses(Recognized, answers, errorStatuses, true),
    },
    preValidation: takesOptions('tcg_id', TCG_OPTIONS, TCG),
    handler: async (request) => {
      const { records, ...rest } = request.body;
      const given = declaredOptions(rest, TCG_OPTIONS);
      return recognition.tcgId({ requestId: request.id, billing: billing(request) }, records, given);
    },
  });

  const sportOptions = Object.fromEntries(SPORT_OPTIONS.map((o) => [o, option(o)]));
  app.post('/sport_id', {
    config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: 'collectibles.sport_id' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['collectibles'],
      security,
      summary: 'Identifies the largest sport card in each of up to 10 images against the imported checklists',
      description: 'Reads the card\'s name and number lines and identifies it in the imported sport checklists (`loupe catalog import --kind sports`). `magic_ai` is accepted (2 records at most) and does nothing: no such model ships. See docs/recognition.md.',
      body: Type.Object({ records: recordList(TcgRecord), ...sportOptions }),
      response: envelopeResponses(Recognized, answers, errorStatuses, true),
    },
    preValidation: takesOptions('sport_id', SPORT_OPTIONS, SPORT),
    handler: async (request) => {
      const { records, ...rest } = request.body;
      const given = declaredOptions(rest, SPORT_OPTIONS);
      return recognition.sportId({ requestId: request.id, billing: billing(request) }, records, given);
    },
  });

  const comicsOptions = Object.fromEntries(COMICS_OPTIONS.map((o) => [o, option(o)]));
  app.post('/comics_id', {
    config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: 'collectibles.comics_id' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['collectibles'],
      security,
      summary: 'Identifies the largest comic in each of up to 10 images against the imported comics catalogs',
      description: 'Reads the cover\'s title and issue number (`#5`) and identifies the issue (`loupe catalog import --kind comics`). A record may carry `lang` (`en`, `de`…): the catalogs here are English, so another language finds no match. See docs/recognition.md.',
      body: Type.Object({ records: recordList(Type.Intersect([TcgRecord, Type.Object({ lang: Type.Optional(Type.Unsafe<string>({ 'x-document-as': { type: 'string', maxLength: 20 }, description: 'The language of the edition (`en`, `de`); another type or length is that record\'s own 400.' })) }, { additionalProperties: true })])), ...comicsOptions }),
      response: envelopeResponses(Recognized, answers, errorStatuses, true),
    },
    preValidation: takesOptions('comics_id', COMICS_OPTIONS, COMICS),
    handler: async (request) => {
      const { records, ...rest } = request.body;
      const given = declaredOptions(rest, COMICS_OPTIONS);
      return recognition.comicsId({ requestId: request.id, billing: billing(request) }, records, given);
    },
  });

  app.post('/card_ocr_id', {
    config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: 'collectibles.card_ocr_id' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['collectibles'],
      security,
      summary: 'Reads the largest card and the largest slab label in each of up to 10 images, and identifies them from their text',
      description: 'Objects `Card` and, on a slab, `Slab Label`, each with `_ocr`, `_tags`, `_tags_simple` and `_identification` (`name`, `full_name`, `year`, `grade`, `certificate_number`, `subcategory`; null where the text does not say). See docs/recognition.md.',
      body: Type.Object({ records: recordList(ImageRecordInput) }),
      response: envelopeResponses(Recognized, answers, errorStatuses, true),
    },
    preValidation: onlyRecords('/card_ocr_id'),
    handler: async (request) => recognition.cardOcrId({ requestId: request.id }, request.body.records),
  });

  for (const [path, simple, summary, description] of [
    [
      '/slab_id',
      false,
      'Reads the grading label of the slab in each of up to 10 images, and the card it names',
      'One `Slab Label` object per image: `bound_box`, `_ocr`, `_tags` (`Company`: PSA, BGS, CGC, SGC, TAG, ACE, HGA or OTHER; `Grade`; `Qualifier`), `_tags_simple` and `_identification.best_match` with `name`, `brand`, `verbal_grade`, `grade`, `year`, `card_no`, `certificate_number`, `lang`, `set`, `rarity`, `links`, `company`, `qualifier`, `subgrades`, `full_name` and `card` (the catalog card the label names, when an imported catalog has it). Fields the label does not give are null. No label: the record\'s 404. See docs/recognition.md "Slab labels".',
    ],
    [
      '/slab_grade',
      true,
      'Reads the grading company and grade of the slab in each of up to 10 images',
      'The spec shows no shape for this path; ours is in docs/api-decisions.md "Slab labels": one `Slab Label` object per image with `bound_box`, `_tags` (`Company`, `Grade`, `Qualifier`), `_tags_simple` and `_identification.best_match` `{company, grade, verbal_grade, qualifier}`.',
    ],
  ] as const) {
    app.post(path, {
      config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: `collectibles.${path.slice(1)}` },
      bodyLimit: config.limits.matchBodyBytes,
      schema: {
        tags: ['collectibles'],
        security,
        summary,
        description,
        body: Type.Object({ records: recordList(ImageRecordInput) }),
        response: envelopeResponses(Recognized, { ...answers, 404: 'No grading label was found in any image' }, errorStatuses, true),
      },
      preValidation: onlyRecords(path),
      handler: async (request) => recognition.slabId({ requestId: request.id }, request.body.records, simple),
    });
  }

  for (const [path, withTags, summary] of [
    ['/detect', false, 'Localizes every card (and a slab\'s label) in each of up to 10 images'],
    ['/process', true, 'Localizes every card (and a slab\'s label) in each of up to 10 images, with the tags measured without reading (Graded)'],
  ] as const) {
    app.post(path, {
      config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: `collectibles.${path.slice(1)}` },
      bodyLimit: config.limits.matchBodyBytes,
      schema: {
        tags: ['collectibles'],
        security,
        summary,
        description: 'The spec shows no shape for this path; ours is in docs/api-decisions.md "Collectibles recognition".',
        body: Type.Object({ records: recordList(ImageRecordInput) }),
        response: envelopeResponses(Recognized, answers, errorStatuses, true),
      },
      preValidation: onlyRecords(path),
      handler: async (request) => recognition.detect({ requestId: request.id }, request.body.records, withTags),
    });
  }

  app.post('/analyze', {
    config: { service: 'collectibles', envelope: true, mixedIsSuccess: true, storesNothing: true, price: 'collectibles.analyze' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['collectibles'],
      security,
      summary: 'Reads and identifies every card in one image, with language and price statistics',
      description: '`/tcg_id` with `analyze_all`, `lang` and `price_stats`; one record. The spec shows no shape for this path; ours is in docs/api-decisions.md.',
      body: Type.Object({ records: recordList(TcgRecord, 1), ...options }),
      response: envelopeResponses(Recognized, answers, errorStatuses, true),
    },
    preValidation: takesOptions('analyze', TCG_OPTIONS, TCG),
    handler: async (request) => {
      // /tcg_id's options and its refusal of a record's hint beside the records (h246: run unfiltered and charged)
      const { records, ...rest } = request.body;
      return recognition.analyze({ requestId: request.id, billing: billing(request) }, records, rest, declaredOptions(rest, TCG_OPTIONS));
    },
  });
}
