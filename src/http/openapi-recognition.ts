import { COMICS_OPTIONS, SPORT_OPTIONS, TCG_OPTIONS } from '../services/recognition/recognition-families.ts';

/**
 * The recognition result record (spec 3 §2) typed in the OpenAPI document, as OpenAPI 3.0 schemas. The routes declare
 * the envelope and untyped objects, so the serializer writes every field as the service made it (a typed field would be
 * coerced: a null grade written 0); the document is where a generated client learns `_objects`, `_identification`'s
 * match shapes and `price_stats` (they were untyped). test/http/openapi-recognition.test.ts checks real answers of every
 * endpoint against these schemas with every object closed, so a field added to an answer and not here fails it.
 */

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const nstr = (description?: string): Schema => ({ type: 'string', nullable: true, ...(description ? { description } : {}) });
const nnum = (description?: string): Schema => ({ type: 'number', nullable: true, ...(description ? { description } : {}) });
const object = (properties: Record<string, Schema>, required: string[] = [], more: Schema = {}): Schema => ({ type: 'object', ...(required.length ? { required } : {}), properties, ...more });
const nullOnly: Schema = { type: 'object', nullable: true, enum: [null] };

/** What a slab's grade adds to the match of the card inside it (`slab_grade`, or a slab label read). */
const gradeFields: Record<string, Schema> = {
  company: str('The grading company (`PSA`, `BGS`, `CGC`, `SGC`, …).'),
  grade: nnum('The grade as a number (`10`, `9.5`); null where the label gives words only.'),
  verbal_grade: nstr('The grade in the company\'s words (`GEM MT`).'),
  qualifier: nstr('A qualifier the label prints (`OC`, `MK`, `AUTHENTIC`), or null.'),
  subgrades: { type: 'object', nullable: true, description: 'BGS-style subgrades where the label prints them.', properties: { centering: nnum(), corners: nnum(), edges: nnum(), surface: nnum() } },
};
const cjkNull = 'Null only with `ignore_non_ascii`, where it holds CJK text (as any other text field of the match).';
const priceStats: Schema = { type: 'array', items: ref('PriceStat'), description: 'With `price_stats`: the card\'s price statistics (docs/prices.md); absent where no price is known.' };
const links: Schema = { type: 'object', additionalProperties: { type: 'string' }, description: 'Marketplace and reference pages the catalog carries: `{site: url}`.' };

export const recognitionSchemas: Record<string, Schema> = {
  RecognitionTag: object({ id: { type: 'integer' }, name: str(), prob: { type: 'number' }, 'pre-filled': { type: 'boolean', description: 'The value came from a hint sent with the record, not from the image.' } }, ['id', 'name', 'prob']),
  RecognitionTags: { type: 'array', items: ref('RecognitionTag') },
  RecognitionOcrText: object({ polygon: { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 }, description: 'Four points `[x, y]` in the image.' }, text: str(), prob: { type: 'number' } }, ['polygon', 'text']),
  RecognitionOcr: object({ full_text: str(), lang: nstr('The text\'s language code, with the `lang` option.'), lang_name: nstr('Its name.'), texts: { type: 'array', items: ref('RecognitionOcrText') } }, ['full_text', 'texts']),
  PriceStat: object(
    {
      stats_type: str('`overall`, `graded` or `ungraded` (docs/prices.md).'),
      interval: str('The period the figures cover (`30d`, `90d`, `all`, …).'),
      start_date: nstr('The first day of the period; null for all of it.'),
      value: object({
        q1: nnum(), q3: nnum(), max: nnum(), min: nnum(), std: nnum('Null with a single price.'), mean: nnum(), range: nnum(), median: nnum(),
        latest: nnum(), oldest: nnum(), latest_date: nstr(), oldest_date: nstr(),
        trend: object({ r_squared: nnum(), volatility: nnum(), forecast_30d: nnum(), trimmed_mean: nnum(), slope_per_day: nnum(), slope_per_day_pct: nnum() }),
      }),
    },
    ['stats_type', 'interval', 'value'],
  ),
  TradingCardMatch: object(
    {
      id: str('The card\'s id in its catalog.'), name: nstr(cjkNull), full_name: nstr(cjkNull), set: nstr(), set_code: nstr(), set_series_code: nstr(), series: nstr(),
      card_number: nstr(), out_of: { type: 'integer', nullable: true }, rarity: nstr(), year: nstr(), color: nstr(), type: nstr(), subcategory: str(),
      links, catalog: str('The catalog it was found in.'), price_stats: priceStats, ...gradeFields,
    },
    ['id', 'name', 'full_name', 'set_code', 'subcategory', 'catalog'],
    { description: 'A trading card (Pokémon, Magic, Yu-Gi-Oh!, a CSV catalog): docs/recognition.md "Match fields". A field the catalog lacks is null.' },
  ),
  SportCardMatch: object(
    {
      id: str(), name: nstr(cjkNull), full_name: nstr(cjkNull), year: nstr(), set_name: nstr(), card_type: nstr(), card_number: nstr(), sub_set: nstr(), company: nstr(), subcategory: nstr(),
      links, catalog: str(), teams: { type: 'array', items: str() }, attributes: { type: 'array', items: str(), description: '`Rookie Card`, `Rookie Debut`, … as the checklist says.' }, price_stats: priceStats,
      ...Object.fromEntries(Object.entries(gradeFields).filter(([k]) => k !== 'company')),
    },
    ['id', 'name', 'full_name', 'sub_set', 'catalog'],
    { description: 'A sport card of an imported checklist.' },
  ),
  ComicsMatch: object(
    { id: str(), name: nstr(`The series. ${cjkNull}`), title: nstr(), date: nstr('The publication year.'), number: nstr('The issue.'), publisher: nstr(), origin_date: nstr('The series\' first year.'), links, catalog: str(), subcategory: nullOnly, price_stats: priceStats, ...gradeFields },
    ['id', 'name', 'publisher', 'catalog'],
    { description: 'A comic issue.' },
  ),
  SlabLabelMatch: object(
    {
      name: nstr(), full_name: nstr(), brand: nstr('The set line\'s brand (`POKEMON`).'), ...gradeFields, score: { type: 'integer', nullable: true, description: 'TAG labels only: the TAG score (0–1000).' }, year: nstr(), card_no: nstr(), certificate_number: nstr(), lang: nstr(), set: nstr(), rarity: nstr(), links,
      card: { anyOf: [ref('TradingCardMatch'), ref('SportCardMatch'), ref('ComicsMatch'), nullOnly], description: 'The catalog card the label names, or null.' },
      price_stats: priceStats,
    },
    ['certificate_number', 'brand', 'card'],
    { description: 'A graded slab\'s label as read (`Slab Label` objects, `slab_id`).' },
  ),
  SlabGradeMatch: object(gradeFields, ['company', 'grade'], { description: '`/slab_grade`: the grade a slab\'s label gives.' }),
  CardTextMatch: object(
    { name: nstr(), full_name: nstr(), year: nstr(), grade: nnum(), certificate_number: nstr(), subcategory: nstr() },
    ['name', 'full_name', 'year', 'grade', 'certificate_number', 'subcategory'],
    { description: '`/card_ocr_id`: what the text alone says; a field the text lacks is null.' },
  ),
  RecognitionIdentification: object(
    {
      best_match: { anyOf: [ref('TradingCardMatch'), ref('SportCardMatch'), ref('ComicsMatch'), ref('SlabLabelMatch'), ref('SlabGradeMatch'), ref('CardTextMatch'), nullOnly], description: 'Null when nothing in the catalogs matches.' },
      alternatives: { type: 'array', items: { anyOf: [ref('TradingCardMatch'), ref('SportCardMatch'), ref('ComicsMatch'), ref('SlabLabelMatch')] } },
      distances: { type: 'array', items: { type: 'number' }, description: 'The best match\'s distance, then each alternative\'s (0 is certain). Empty where the best match is what a label or the text says rather than a catalog card compared (`/slab_grade`, `/card_ocr_id`, a label naming no catalog card).' },
    },
    ['best_match', 'alternatives', 'distances'],
  ),
  RecognizedObject: object(
    {
      name: str('`Card`, `Slab Label` or `Comics`.'),
      id: { type: 'integer' },
      bound_box: { type: 'array', items: { type: 'integer' }, minItems: 4, maxItems: 4, description: '`[xmin, ymin, xmax, ymax]` in pixels.' },
      prob: { type: 'number' },
      area: { type: 'number', description: 'The share of the image it covers.' },
      'Top Category': ref('RecognitionTags'),
      _tags: { type: 'object', additionalProperties: ref('RecognitionTags'), description: '`Category`, `Side`, `Subcategory`, `Foil/Holo`, `Alphabet`, `Autograph`, `Graded`, `Company`, `Grade`, `Language`, `Qualifier`, … (`/detect` gives none).' },
      _tags_simple: { type: 'array', items: str() },
      _ocr: ref('RecognitionOcr'),
      _identification: ref('RecognitionIdentification'),
    },
    ['name', 'id', 'bound_box', 'prob', 'area'],
  ),
  RecognitionRecord: object(
    {
      // echoed whatever its form (docs/api-decisions.md, "Image record fields"): typed string-or-integer and string, a list
      // sent as `_id`, or a number as `_url`, came back against the document (h315's fuzzer)
      _id: { description: 'As sent: a string of 1 to 255 characters or an integer is expected, and any other JSON value is echoed as it came.' },
      _url: { description: 'As sent: an http(s) URL is expected; another value is the record\'s 400, and echoed as it came.' },
      _status: object({ code: { type: 'integer' }, text: str(), request_id: str() }, ['code', 'text']),
      _width: { type: 'integer' },
      _height: { type: 'integer' },
      Category: str('The record\'s category path (`Trading Card Game/Pokemon`).'),
      'Graded Slab': ref('RecognitionTags'),
      _objects: { type: 'array', items: ref('RecognizedObject') },
    },
    ['_status'],
    { additionalProperties: true, description: 'A record as sent (its hints and own fields come back), without its image, with what was recognised.' },
  ),
  RecognitionAnswer: object(
    {
      status: object({ code: { type: 'integer' }, text: str(), request_id: str(), proc_id: str() }, ['code', 'text']),
      records: { type: 'array', items: ref('RecognitionRecord') },
      statistics: object({ 'processing time': { type: 'number', description: 'Seconds.' }, OperationTime: { type: 'number', description: 'Milliseconds.' } }, ['processing time', 'OperationTime']),
      ...Object.fromEntries([...new Set([...TCG_OPTIONS, ...SPORT_OPTIONS, ...COMICS_OPTIONS])].map((o) => [o, { type: 'boolean', description: 'The option as sent.' }])),
    },
    ['status', 'records', 'statistics'],
  ),
};

const point: Schema = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: '`[x, y]` in pixels of the image.' };
const quad: Schema = { type: 'array', items: point, description: 'Four points.' };
const box: Schema = { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4, description: '`[xmin, ymin, xmax, ymax]` in pixels.' };
const part = (names: string[]): Schema => ({ type: 'string', enum: names });
const damage = { grade: { type: 'number', description: '`grade` only.' }, loss: { type: 'number', description: 'Grade points lost here (`grade`).' }, whitening: { type: 'number', description: 'The share of the part showing white wear (`grade`).' } };

/** The grading result record (spec 3 §2), the `card-grader` type's records. */
export const gradingSchemas: Record<string, Schema> = {
  GradingConditionEntry: object(
    { id: { type: 'integer' }, name: str(), label: str(), value: { type: 'number' }, scale: { type: 'array', items: str() }, scale_value: { type: 'integer' }, max_scale_value: { type: 'integer' }, mode: str() },
    ['id', 'name', 'value'],
    { description: '`condition`: the card\'s condition on a named scale (docs/grading.md).' },
  ),
  GradingObject: object(
    {
      id: { type: 'integer' }, name: str('`Card`, or `Slab Label` for a slab\'s label.'), prob: { type: 'number' }, bound_box: box,
      kind: str('`raw`, `holder` (a sleeve or top-loader) or `slab` (docs/card-detector.md).'),
      label_box: { ...box, description: 'A slab\'s label, where the card is in a slab.' },
      measured: { type: 'boolean', description: 'False where the card was graded from an outline it could not measure itself.' },
      polygon: quad, area: { type: 'number' }, 'Top Category': ref('RecognitionTags'), Category: ref('RecognitionTags'),
      Condition: { type: 'array', items: ref('GradingConditionEntry') },
    },
    ['id', 'name', 'bound_box'],
  ),
  GradingCorner: object({ name: part(['UPPER_LEFT', 'UPPER_RIGHT', 'DOWN_RIGHT', 'DOWN_LEFT']), bound_box: box, point, ...damage }, ['name', 'bound_box', 'point']),
  GradingEdge: object({ name: part(['UPPER', 'RIGHT', 'DOWN', 'LEFT']), polygon: quad, ...damage }, ['name', 'polygon']),
  GradingCentering: object(
    {
      'left/right': str('Percentages, `55/45`.'), 'top/bottom': str(), bound_box: box,
      pixels: { type: 'array', items: { type: 'number' }, description: 'Margins `[left, top, right, bottom]` in pixels of the upright card.' },
      offsets: { type: 'array', items: { type: 'number' }, description: 'The margins as fractions of the card\'s width or height.' },
      grade: nnum('Null where the design has no measurable border.'),
      detail: str('Why there is no figure, where there is none.'),
    },
    ['grade'],
  ),
  GradingCardEntry: object(
    {
      name: part(['CARD']), polygon: quad, bound_box: box,
      _tags: { type: 'object', additionalProperties: ref('RecognitionTags'), description: '`Category`, `Damaged` (`grade`), `Autograph`, `Side`.' },
      surface: object({ grade: { type: 'number' }, creases: { type: 'number' }, glare: { type: 'number' }, lines: { type: 'number' }, stains: nnum() }, ['grade']),
      centering: ref('GradingCentering'),
    },
    ['name', 'polygon', 'bound_box'],
  ),
  GradingGrades: object({ corners: { type: 'number' }, edges: { type: 'number' }, surface: { type: 'number' }, centering: nnum(), final: { type: 'number' }, condition: str() }, [], { description: '`grade`: every part\'s grade and the final one; `centering`: its grade alone.' }),
  GradingRecord: object(
    {
      // echoed whatever its form (docs/api-decisions.md, "Image record fields"): typed string-or-integer and string, a list
      // sent as `_id`, or a number as `_url`, came back against the document (h315's fuzzer)
      _id: { description: 'As sent: a string of 1 to 255 characters or an integer is expected, and any other JSON value is echoed as it came.' },
      _url: { description: 'As sent: an http(s) URL is expected; another value is the record\'s 400, and echoed as it came.' },
      _status: object({ code: { type: 'integer' }, text: str(), request_id: str() }, ['code', 'text']),
      _width: { type: 'integer' }, _height: { type: 'integer' },
      _objects: { type: 'array', items: ref('GradingObject') },
      _points: { type: 'array', items: point, description: 'The card\'s corners: upper-left, upper-right, down-right, down-left.' },
      corners: { type: 'array', items: ref('GradingCorner') },
      edges: { type: 'array', items: ref('GradingEdge') },
      card: { type: 'array', items: ref('GradingCardEntry') },
      grades: ref('GradingGrades'),
      versions: { type: 'object', additionalProperties: { type: 'string' }, description: 'The models used, by part.' },
      _full_url_card: str('`grade`: the image with what was found and graded drawn on it.'),
      _exact_url_card: str('`grade`, `centering`: the upright card with its centering drawn.'),
      _clean_url_card: str('`centering`: the upright card.'),
      _img_url: str('`crop_level`: the upright card, WebP.'),
    },
    ['_status'],
    { additionalProperties: true, description: 'A `card-grader` request\'s record (spec 3 §2): its fields by endpoint (`localize`, `centering`, `grade`, `condition`, `crop_level`), docs/grading.md.' },
  ),
};

/** Collectibles answers (`/collectibles/v2/*`) by reference to the typed record, where the routes declare it untyped. */
export function recognitionAnswerFields<T>(doc: T): T {
  const d = doc as { paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>; components?: { schemas?: Record<string, unknown> } };
  const schemas = ((d.components ??= {}).schemas ??= {});
  const isRecognized = (s: unknown) => !!s && typeof s === 'object' && !('$ref' in s) && !!(s as { properties?: Record<string, unknown> }).properties?.records;
  let used = false;
  for (const [path, ops] of Object.entries(d.paths ?? {})) {
    if (!path.startsWith('/collectibles/v2/')) continue;
    for (const op of Object.values(ops)) {
      for (const response of Object.values(op?.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (!json?.schema) continue;
        if (isRecognized(json.schema)) {
          json.schema = ref('RecognitionAnswer');
          used = true;
        } else if (Array.isArray(json.schema.anyOf)) {
          json.schema.anyOf = (json.schema.anyOf as unknown[]).map((s) => (isRecognized(s) ? ((used = true), ref('RecognitionAnswer')) : s));
        }
      }
    }
  }
  if (used) Object.assign(schemas, recognitionSchemas);
  // an asynchronous request's records, by its type, in its detail and in the webhook resend's answer
  if (used) {
    Object.assign(schemas, gradingSchemas);
    schemas.RequestRecord = {
      anyOf: [
        ref('RecognitionRecord'),
        ref('GradingRecord'),
        object(
          {
            _status: object({ code: { type: 'integer' }, text: str(), request_id: str() }, ['code', 'text']),
            // spec 3 §2's upscaler record (h351: sent, not declared)
            _width: { type: 'integer' },
            _height: { type: 'integer' },
            _upscaled_width: { type: 'integer', description: '`upscaler`: the upscaled image\'s width.' },
            _upscaled_height: { type: 'integer' },
            _upscaled_image_url: str('`upscaler`: a signed link to the upscaled image.'),
            _model: str('`upscaler`: the model and scale used.'),
          },
          ['_status'],
          { additionalProperties: true },
        ),
      ],
      description: 'By the request\'s type: `collectibles-recognition` a RecognitionRecord, `card-grader` a GradingRecord (spec 3 §2), `upscaler` and `flows` their own records with their `_status` (docs/flows.md).',
    };
    schemas.RequestResponse = object(
      {
        records: { type: 'array', items: ref('RequestRecord') },
        type: str('`card-grader`: the request\'s type.'),
        endpoint: str('`card-grader`: the endpoint.'),
        statistics: object({ 'processing time': { type: 'number', description: 'Seconds.' }, OperationTime: { type: 'number', description: 'Milliseconds.' } }, ['processing time']),
        grades: { anyOf: [ref('GradingGrades'), nullOnly], description: '`card-grader` `grade`: the card\'s grades, its front and back weighed where both were sent; null where no card was graded.' },
        front_weight: { type: 'number', description: '`grade` with a front and a back: the front\'s weight.' },
        graded_side: { type: 'string', enum: ['front', 'back'], description: '`grade` with two records whose top-level `grades` are one side\'s (the other not graded, or both records one side): that side.' },
        grades_note: str('`grade` with two records whose top-level `grades` are one side\'s, or no record graded (`grades` null): a sentence saying so.'),
      },
      ['records'],
      { additionalProperties: true, description: 'What the request answered (spec 3 §2): its records, and for grading its type, endpoint and statistics.' },
    );
    for (const path of ['/account/v2/request/{id}', '/account/v2/request/{id}/webhook']) {
      for (const op of Object.values(d.paths?.[path] ?? {})) {
        const detail = op?.responses?.['200']?.content?.['application/json']?.schema as { properties?: Record<string, Schema> } | undefined;
        if (detail?.properties?.response) detail.properties.response = ref('RequestResponse');
      }
    }
    webhookCallback(d);
  }
  return doc;
}

/**
 * The completion webhook as an OpenAPI callback of the submit (docs/webhooks.md): what the server POSTs to the
 * request's `webhook.endpoint` (or `url`) when it is DONE, its headers and what the receiver's answers mean. The
 * document said nothing of it, so a generated client had no type for the payload its receiver parses.
 */
function webhookCallback(d: { paths?: Record<string, Record<string, Record<string, unknown>>>; components?: { schemas?: Record<string, unknown> } }): void {
  const submit = d.paths?.['/account/v2/request']?.post;
  if (!submit) return;
  d.components!.schemas!.WebhookPayload = object(
    { status: { type: 'string', enum: ['DONE'] }, id: { type: 'string', format: 'uuid' }, type: str('The request\'s type.'), response: ref('RequestResponse') },
    ['status', 'id', 'type', 'response'],
    { description: 'As the request\'s detail gives it once DONE (media links signed when each attempt is made).' },
  );
  const header = (name: string, description: string, schema: Schema = { type: 'string' }) => ({ name, in: 'header', required: true, description, schema });
  const delivery = {
    post: {
      summary: 'The request is DONE',
      description: 'Sent to `webhook.endpoint`, or to `webhook.url` where the submit named it so. Retried on a network error, a timeout or an answer other than 2xx, a redirect (not followed) or 410 Gone (both final), on the server\'s schedule, up to its limit (docs/webhooks.md); the request\'s detail says how delivery went (`webhook`). Signed, not authenticated: the receiver checks `Loupe-Signature`.',
      security: [],
      parameters: [
        header('Loupe-Signature', '`t=<unix seconds>,v1=<hex HMAC-SHA256>` of `"<t>.<raw body>"` with the account\'s webhook secret (docs/webhooks.md, "Verifying the signature").'),
        header('Loupe-Request-Id', 'The request\'s id.', { type: 'string', format: 'uuid' }),
        header('Loupe-Delivery-Attempt', '1, 2, …: the attempt\'s number.', { type: 'string', pattern: '^[1-9][0-9]*$' }),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookPayload') } } },
      responses: { '2XX': { description: 'Delivered: not sent again.' }, default: { description: 'Not delivered: sent again later, up to the server\'s limit.' } },
    },
  };
  submit.callbacks = { completion: { '{$request.body#/webhook/endpoint}': delivery }, completionToUrl: { '{$request.body#/webhook/url}': delivery } };
  // the resend delivers the same, to the address its answer names: the body's `endpoint` or `url` where it gave one,
  // otherwise the one the request was given (an expression on the request's body cannot name a stored address)
  const resend = d.paths?.['/account/v2/request/{id}/webhook']?.post;
  if (resend) resend.callbacks = { completion: { '{$response.body#/webhook/url}': delivery } };
  // the webhook as the server takes it: any other key is refused (by the service, naming it; the route leaves it open)
  const webhook = (submit.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, Schema> } }> } | undefined)?.content?.['application/json']?.schema?.properties?.webhook;
  if (webhook?.properties) {
    webhook.additionalProperties = false;
    const properties = webhook.properties as Record<string, Schema>;
    properties.method = { type: 'string', pattern: '^[Pp][Oo][Ss][Tt]$', description: 'POST (in any case), the only method a delivery uses.' };
    // a request's detail sent back as its webhook (h186): its delivery fields are taken and ignored
    const detail = (d.paths?.['/account/v2/request/{id}']?.get as { responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, Schema> } }> }> } | undefined)?.responses?.['200']?.content?.['application/json']?.schema?.properties?.webhook;
    for (const [name, schema] of Object.entries((detail?.properties ?? {}) as Record<string, Schema>)) {
      if (name in properties) continue;
      properties[name] = { ...schema, description: 'A request\'s own delivery field (its detail\'s `webhook`): taken when sent back, and ignored.' };
    }
  }
}
