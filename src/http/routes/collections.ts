import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deprecatedBases, deprecationHeaders } from '../deprecated-bases.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { basesOf, collectionTypes, type CollectionType } from '../../services/collection-service.ts';
import { badRequest, ServiceError } from '../../services/errors.ts';
import { baseUrlOf } from '../base-url.ts';
import { envelopeResponses, ImageRecordInput, okOnly, recordsAnsweredEach, SearchEnvelope, UpdateRecordInput, type Answers } from '../schemas/search.ts';
import { parseJsonBody } from '../json-body.ts';
import { refuseUnknownParameters } from '../unknown-parameters.ts';

const security = [{ token: [] }];
const errorStatuses = [400, 401, 402, 403, 404, 409, 413, 415, 429, 503];
const service = 'visual_search';
const envelope = true;

const Fields = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200, description: 'Field names to return; `*` for all. `_id` is always returned.' });
const Filter = Type.Object({}, { additionalProperties: true, description: 'MongoDB-style query (docs/filters.md).' });
/** A record that is no object (`null`, a number) is skipped with its own 400, as one of a wrong `_id` is (h336: the request's 400). */
const skippedEach = (lead: string) => `${lead} A record that is not an object is skipped with its own 400 (\`_reason.status\`, naming its place in \`records\`), the others done.`;
// `_id`'s form is checked per record by the service: one wrong id is that record's 400, not the request's.
const IdRecord = Type.Object({ _id: Type.Optional(Type.Unsafe<string | number>({ description: 'A string of 1 to 255 characters or an integer.' })) }, { additionalProperties: true });
const Envelope = Type.Ref(SearchEnvelope);
const K = Type.Integer({ minimum: 1, maximum: 1000, default: 30 });
const From = Type.Integer({ minimum: 0, maximum: 10_000, default: 0 });

/**
 * allRecords without `?size=`: pages large enough that a small collection comes whole, for clients
 * that read one page (docs/api-decisions.md). Ids are a few bytes each, so an ids-only page may be
 * as large as any page; whole records may each carry kilobytes of attributes.
 */
export const allRecordsMaxSize = 10_000;
/** Past any real page, and small enough that page × size stays an exact integer offset (as card sessions' pages). */
const allRecordsMaxPage = 1_000_000;
/** The longest filter (as JSON) a `next` link carries: encoded, it stays well inside a request line. */
const maxFilterInLink = 2000;
export const allRecordsDefaultSize = { ids: allRecordsMaxSize, records: 1000 };

const inserted: Answers = { 210: 'All records inserted', 211: 'Some records inserted, others skipped (`skipped_records`)', 411: 'None inserted: every `_id` exists already', 412: 'None inserted: the collection is full', 400: 'None inserted for other reasons (images that could not be loaded)' };
const found = (all: number, meaning: string): Answers => ({ [all]: meaning, 206: 'Some records were not found (`skipped_records`)', 404: 'No record was found' });
const multiAnswers: Answers = { 200: 'OK', 206: 'Some query records were not used (`skipped_records`: each with its `_reason.status` and `_reason.query_index`); the answers are those of the others' };
/** The `status.code`s of the methods that answer more than 200 (spec 2 §4). */
/** The methods that change a collection; every other one reads it. */
const WRITES = new Set(['/insert', '/nearDupsInsert', '/update', '/delete', '/deleteByFilter']);

const answersOf: Record<string, Answers> = {
  '/insert': inserted,
  '/nearDupsInsert': inserted,
  '/get': { ...found(205, 'All records found'), 400: 'None found: every `_id` was of the wrong form, or those that were not are not stored (each record says why in `skipped_records`)' },
  '/update': {
    ...found(205, 'All records updated'),
    400: 'None updated: the new images could not be loaded (each record says why in `skipped_records`)',
    409: "None updated: the new images' descriptors come from another model than the collection's",
    413: 'None updated: the new images are too large',
    500: 'None updated: the new images could not be processed',
    504: 'None updated: the new images took too long to process',
  },
  '/thumbnails': { ...found(205, 'Every record found (each with `_thumbnail`, a link or null)'), 400: 'None found: every `_id` was of the wrong form, or those that were not are not stored' },
  '/delete': { ...found(220, 'All records deleted'), 400: 'None deleted: every `_id` was of the wrong form, or those that were not are not stored (each record says why in `skipped_records`)' },
  '/visualKNNMulti': multiAnswers,
  '/visualTagsKNNMulti': multiAnswers,
};
const responses = (url: string) => envelopeResponses(Envelope, answersOf[url] ?? okOnly, errorStatuses);

/**
 * Spec 2 §4's common parameters: any method may be sent them, whether it reads them or not; and two a client may send
 * every search alike: `cand_set_size` (spec 2: "internal, should not be changed") and `product_field` (range and
 * nearDuplicates do not read it, h265).
 */
const commonParameters = ['query_record', 'k', 'from', 'records', 'fields_to_return', 'filter', 'cand_set_size', 'product_field'];

/** A body's top-level names that are neither the method's own nor common are 400 naming them (h273). */
function unknownParameters(url: string, schema: ReturnType<typeof Type.Object>, body: unknown): void {
  refuseUnknownParameters(url.slice(1), Object.keys(schema.properties), body, commonParameters);
}

/** Every base of every collection type, each with the types it serves. */
function bases(): { prefix: string; types: CollectionType[] }[] {
  const out = new Map<string, CollectionType[]>();
  for (const t of collectionTypes) for (const b of basesOf(t)) out.set(b, [...(out.get(b) ?? []), t]);
  return [...out].map(([prefix, types]) => ({ prefix, types }));
}

/** The collection methods of spec 2 §4 under every collection base. */
export async function collectionRoutes(fastify: FastifyInstance): Promise<void> {
  for (const { prefix, types } of bases()) {
    await fastify.register(
      async (scope) => {
        const app = scope.withTypeProvider<TypeBoxTypeProvider>();
        const { collections, visualSearch, config } = app.loupe;
        const tags = [`collections ${prefix}`];
        // Spec 2 §9: the old fashion and home-decor bases "will be removed; the -new bases replace
        // them". They serve the same methods and say so on every answer.
        const successor = deprecatedBases[prefix];
        if (successor) {
          scope.addHook('onSend', async (request, reply, payload) => {
            deprecationHeaders(request.url, reply);
            return payload;
          });
        }
        const deprecated = successor ? { deprecated: true } : {};
        const collectionOf = (request: FastifyRequest) => {
          const header = request.headers['collection-id'];
          return collections.forRequest(typeof header === 'string' ? header.trim() : undefined, request.principal!.account.id, types);
        };
        const extraPrices = { 'visual_search.extract_colors': config.prices['visual_search.extract_colors'] ?? 0, 'visual_search.extract_tags': config.prices['visual_search.extract_tags'] ?? 0 };
        const ctx = (request: FastifyRequest) => ({ requestId: request.id, ...(request.principal ? { extras: { accountId: request.principal.account.id, prices: extraPrices, ...(request.serviceCharge ? { call: { price: request.serviceCharge.price, priceKey: request.serviceCharge.priceKey } } : {}) } } : {}) });
        // fashion and home-decor inserts charge their price with the extras of the records they take, in one debit (h92)
        const items = types.every((t) => t === 'fashion' || t === 'homedecor');
        const post = (url: string, summary: string, body: ReturnType<typeof Type.Object>, handler: (request: FastifyRequest<{ Body: never }>) => Promise<unknown>, bodyLimit = config.limits.bodyBytes) =>
          app.post(url, {
            // reads and searches keep nothing: a client that hangs up before the answer is not charged (h236), as text
            // search and recognition are not
            config: { service, envelope, price: `visual_search.${url.slice(1)}`, storesNothing: !WRITES.has(url), ...(items && (url === '/insert' || url === '/nearDupsInsert') ? { chargedInService: true } : {}) },
            bodyLimit,
            schema: { tags, security, summary, ...deprecated, headers: Type.Object({ 'collection-id': Type.Optional(Type.String()) }), body, response: responses(url) },
            preValidation: async (request) => unknownParameters(url, body, request.body),
            handler: handler as never,
          });

        for (const method of ['GET', 'POST'] as const) {
          app.route({
            method,
            url: '/ping',
            config: { service, envelope },
            schema: { tags, security, summary: 'Information about the collection and its index', ...deprecated, headers: Type.Object({ 'collection-id': Type.Optional(Type.String()) }), response: responses('/ping') },
            handler: async (request) => visualSearch.ping(ctx(request), await collectionOf(request)),
          });
        }

        post(
          '/insert',
          'Insert up to 10 records (images with metadata)',
          Type.Object({ records: recordsAnsweredEach(ImageRecordInput, config.limits.hashRecords, skippedEach(`At most ${config.limits.hashRecords}.`)), fields_to_return: Type.Optional(Fields) }),
          async (request) => {
            const body = request.body as { records: never[]; fields_to_return?: string[] };
            return visualSearch.insert(ctx(request), await collectionOf(request), body.records, body.fields_to_return);
          },
          config.limits.matchBodyBytes,
        );
        post('/delete', 'Delete records by _id', Type.Object({ records: recordsAnsweredEach(IdRecord, 1000, skippedEach('At most 1000.')) }), async (request) => {
          const body = request.body as { records: { _id: string }[] };
          return visualSearch.delete(ctx(request), await collectionOf(request), body.records);
        });
        post('/get', 'Records by _id', Type.Object({ records: recordsAnsweredEach(IdRecord, 1000, skippedEach('At most 1000.')), fields_to_return: Type.Optional(Fields) }), async (request) => {
          const body = request.body as { records: { _id: string }[]; fields_to_return?: string[] };
          return visualSearch.get(ctx(request), await collectionOf(request), body.records, body.fields_to_return);
        });
        // not in the spec: the console's search results' pictures, a method of its own so that no spec method's answer grows
        // a field (docs/api-decisions.md, "Record thumbnails"); free unless LOUPE_PRICES names visual_search.thumbnails
        post(
          '/thumbnails',
          "Links to records' thumbnails (not in the spec; the console's)",
          Type.Object({ records: recordsAnsweredEach(IdRecord, 1000, skippedEach('At most 1000.')) }, { description: 'Each record found is answered `{_id, _thumbnail}`: a signed link to a JPEG of long edge 256 px made from the image the record was inserted or last updated with, or null for a record stored without one (before thumbnails were made, or with LOUPE_RECORD_THUMBNAILS off).' }),
          async (request) => {
            const body = request.body as { records: { _id: string }[] };
            return visualSearch.thumbnailLinks(ctx(request), await collectionOf(request), body.records, baseUrlOf(request));
          },
        );
        post(
          '/update',
          'Update attributes (null removes a field; an image replaces the vector)',
          Type.Object({ records: recordsAnsweredEach(UpdateRecordInput, 1000, skippedEach(`Up to 1000 records, as get and delete take; at most ${config.limits.hashRecords} of them with a new image (as insert).`)), fields_to_return: Type.Optional(Fields) }),
          async (request) => {
            const body = request.body as { records: Record<string, unknown>[]; fields_to_return?: string[] };
            // attributes alone are cheap; each new image is embedded, as an insert's are
            const images = body.records.filter((r) => typeof r._url === 'string' || r._base64 !== undefined || r._file !== undefined).length;
            if (images > config.limits.hashRecords) throw badRequest(`update takes at most ${config.limits.hashRecords} records with a new image; ${images} were sent.`, [{ field: 'records', message: `at most ${config.limits.hashRecords} with an image` }]);
            return visualSearch.update(ctx(request), await collectionOf(request), body.records as never[], body.fields_to_return);
          },
          config.limits.matchBodyBytes,
        );
        // spec 2 §2's common parameter `k` ("number of records to return"), where a method names its count otherwise:
        // taken as that count (it was ignored without a word), both sent must agree; so the counts have no schema default
        const kAs = (name: string, max: number) => Type.Optional(Type.Integer({ minimum: 1, maximum: max, description: `The common parameter's name for \`${name}\` (spec 2 §2); both sent must agree.` }));
        const countOf = (body: { k?: number }, name: string, value: number | undefined): number | undefined => {
          if (body.k !== undefined && value !== undefined && body.k !== value) throw badRequest(`k and ${name} name the same number and differ: send one.`, [{ field: 'k', message: `differs from ${name}` }]);
          return value ?? body.k;
        };
        post('/find', 'Records matching a filter', Type.Object({ filter: Type.Optional(Filter), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Default 10.' })), k: kAs('limit', 10_000), from: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 0, description: 'Records to skip (spec 2 §2\'s common parameter), in insertion order; at most 10,000 (`allRecords` pages further).' })), fields_to_return: Type.Optional(Fields) }), async (request) => {
          const body = request.body as { filter?: object; limit?: number; k?: number; from?: number; fields_to_return?: string[] };
          return visualSearch.find(ctx(request), await collectionOf(request), body.filter, countOf(body, 'limit', body.limit) ?? 10, body.fields_to_return, body.from ?? 0);
        });
        post('/getRecordCount', 'Number of records (matching a filter, when given)', Type.Object({ filter: Type.Optional(Filter) }), async (request) => {
          const body = request.body as { filter?: object };
          return visualSearch.count(ctx(request), await collectionOf(request), body.filter);
        });
        post(
          '/random',
          'Random records',
          Type.Object({ count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 10.' })), k: kAs('count', 1000), filter: Type.Optional(Filter), fields_to_return: Type.Optional(Fields) }),
          async (request) => {
            const body = request.body as { count?: number; k?: number; filter?: object; fields_to_return?: string[] };
            return visualSearch.random(ctx(request), await collectionOf(request), countOf(body, 'count', body.count) ?? 10, body.filter, body.fields_to_return);
          },
        );
        post('/deleteByFilter', 'Delete every record matching a filter', Type.Object({ filter: Filter, all: Type.Optional(Type.Boolean({ description: 'true: delete also when the filter matches every record of the collection by a field none of them has (refused without it: a misspelt field matches every record)' })) }), async (request) => {
          const body = request.body as { filter: object; all?: boolean };
          return visualSearch.deleteByFilter(ctx(request), await collectionOf(request), body.filter, body.all === true);
        });

        app.post('/allRecords', {
          config: { service, envelope, price: 'visual_search.allRecords', storesNothing: true },
          schema: {
            tags,
            security,
            summary: 'All records, a page at a time (`?size=&page=`)',
            ...deprecated,
            description: `Without \`size\`, a page holds ${allRecordsDefaultSize.records} records, or ${allRecordsDefaultSize.ids} with \`only_ids\`. \`next\` is the URL of the next page while more remain, else null.`,
            headers: Type.Object({ 'collection-id': Type.Optional(Type.String()) }),
            querystring: Type.Object({
              size: Type.Optional(Type.Integer({ minimum: 1, maximum: allRecordsMaxSize, description: `Default ${allRecordsDefaultSize.records}; ${allRecordsDefaultSize.ids} with \`only_ids\`.` })),
              // no schema default: a page sent in the body must be seen (the default, 1, is the handler's)
              page: Type.Optional(Type.Integer({ minimum: 1, maximum: allRecordsMaxPage, description: 'Default 1.' })),
              only_ids: Type.Optional(Type.Boolean()),
              after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'What `next` carries: the place of the last record of the page before. With it, a page holds the records after that one, so records deleted meanwhile shift nothing past the pages read.' })),
              filter: Type.Optional(Type.String({ maxLength: 8192, description: 'The body\'s `filter` as JSON: what `next` carries, so a client that follows it without a body keeps to the filter (the body\'s wins when both are sent).' })),
              fields_to_return: Type.Optional(Type.String({ maxLength: 8192, description: 'The body\'s `fields_to_return` as JSON: what `next` carries (the body\'s wins when both are sent).' })),
            }),
            body: Type.Object({
              filter: Type.Optional(Filter),
              only_ids: Type.Optional(Type.Boolean()),
              // the rest of the API takes its parameters in the body: so do clients here
              size: Type.Optional(Type.Integer({ minimum: 1, maximum: allRecordsMaxSize, description: 'As the query string\'s `size` (which wins when both are sent).' })),
              page: Type.Optional(Type.Integer({ minimum: 1, maximum: allRecordsMaxPage, description: 'As the query string\'s `page` (which wins when both are sent).' })),
              after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'As the query string\'s `after` (which wins when both are sent).' })),
              // spec 2 §4's common parameter (h161: every record came whole, a page of 1,000 by default)
              fields_to_return: Type.Optional(Fields),
              // spec 2 §4's common k and from (h311: both were taken and ignored: k 50 answered 1,000 records, from 100 the first page)
              k: Type.Optional(Type.Integer({ minimum: 1, maximum: allRecordsMaxSize, description: 'The common parameter\'s name for `size` (spec 2 §2); size and k sent must agree.' })),
              from: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'Records to skip before the page (spec 2 §2\'s common parameter), in insertion order; the page\'s `next` goes on from its last record.' })),
            }),
            response: responses('/allRecords'),
          },
          handler: async (request) => {
            const idsOnly = request.query.only_ids ?? request.body.only_ids ?? false;
            const sizeSent = request.query.size ?? request.body.size;
            if (request.body.k !== undefined && sizeSent !== undefined && request.body.k !== sizeSent) throw badRequest('k and size name the same number and differ: send one.', [{ field: 'k', message: 'differs from size' }]);
            const size = sizeSent ?? request.body.k ?? (idsOnly ? allRecordsDefaultSize.ids : allRecordsDefaultSize.records);
            const page = request.query.page ?? request.body.page ?? 1;
            let filter: object | undefined = request.body.filter;
            if (filter === undefined && request.query.filter !== undefined) {
              // the rules a body's JSON passes (duplicate keys, lone surrogates, prototype keys, depth, numbers): a
              // filter in the query is refused as the same filter in a body is
              const parsed = parseJsonBody(new TextEncoder().encode(request.query.filter));
              if ('error' in parsed) throw badRequest(`The filter query parameter must be a JSON object (the filter a next link carries): ${parsed.error.detail.replace(/^The body/, 'it')}`);
              if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) throw badRequest('The filter query parameter must be a JSON object (the filter a next link carries).');
              filter = parsed.value;
            }
            let fields: string[] | undefined = request.body.fields_to_return;
            if (fields === undefined && request.query.fields_to_return !== undefined) {
              const parsed = parseJsonBody(new TextEncoder().encode(request.query.fields_to_return));
              // the body's limits (200 names of 200 characters), as a list sent in the body is held to them
              if ('error' in parsed || !Array.isArray(parsed.value) || parsed.value.length > 200 || !parsed.value.every((x) => typeof x === 'string' && x.length <= 200)) throw badRequest('The fields_to_return query parameter must be a JSON list of at most 200 field names of at most 200 characters (what a next link carries).');
              fields = parsed.value as string[];
            }
            const c = await collectionOf(request);
            // The next page keeps the request's other query parameters (only_ids, workspace) and
            // names the size, so a client that follows it gets pages of the same size and kind.
            const next = (p: number, after: number) => {
              const url = new URL(`${baseUrlOf(request)}${request.url}`);
              url.searchParams.set('size', String(size));
              url.searchParams.set('page', String(p));
              url.searchParams.set('after', String(after));
              // only_ids sent in the body is named in the next page's query, which a client follows without a body
              if (idsOnly) url.searchParams.set('only_ids', 'true');
              // so does the filter: following next without a body must not give unfiltered pages. A filter
              // too long for a URL is left out: such a client sends it again in each page's body
              const f = filter === undefined ? '' : JSON.stringify(filter);
              if (f && f.length <= maxFilterInLink) url.searchParams.set('filter', f);
              // (one too long for a link is left out, as the filter is: such a client sends it in each page's body)
              url.searchParams.delete('fields_to_return');
              if (fields !== undefined && JSON.stringify(fields).length <= maxFilterInLink) url.searchParams.set('fields_to_return', JSON.stringify(fields));
              return url.toString();
            };
            return visualSearch.allRecords(ctx(request), c, page, size, idsOnly, filter, next, request.query.after ?? request.body.after, fields, request.body.from ?? 0);
          },
        });

        type KnnBody = { query_record?: never; records?: never[]; k?: number; from?: number; fields_to_return?: string[]; filter?: object };
        const queryOf = (body: KnnBody) => {
          // One query record, however sent: a list of several is the decision's too_many_records.
          if ((body.records?.length ?? 0) > 1) throw new ServiceError(400, 'too_many_records', `This method takes exactly one query record; ${body.records!.length} were sent.`);
          // both sent would leave one unread, whichever it is
          if (body.query_record !== undefined && body.records !== undefined) throw badRequest('Send the query in query_record, or in records as older clients do; not in both.');
          const query = body.query_record ?? body.records?.[0];
          if (!query) throw badRequest('query_record is required.');
          return query;
        };
        const knnBody = Type.Object({
          query_record: Type.Optional(ImageRecordInput),
          records: Type.Optional(Type.Array(ImageRecordInput, { minItems: 1, maxItems: 1000, description: 'Older clients send the query as a one-record list (one record: more is 400 too_many_records).' })),
          k: Type.Optional(K),
          from: Type.Optional(From),
          fields_to_return: Type.Optional(Fields),
          filter: Type.Optional(Filter),
          product_field: Type.Optional(Type.String({ maxLength: 200 })),
          cand_set_size: Type.Optional(Type.Integer({ minimum: 1 })),
        });
        post(
          '/visualKNN',
          'Visually similar records to a stored record (_id) or an image',
          knnBody,
          async (request) => {
            const body = request.body as KnnBody & { product_field?: string };
            const c = await collectionOf(request);
            return visualSearch.visualKnn(ctx(request), c, queryOf(body), { k: body.k ?? 30, from: body.from ?? 0, fields: body.fields_to_return, filter: body.filter, productField: body.product_field ?? c.productField ?? undefined });
          },
          config.limits.matchBodyBytes,
        );
        post(
          '/visualTagsKNN',
          'Visually similar records, re-ranked by shared tags (docs/api-decisions.md)',
          knnBody,
          async (request) => {
            const body = request.body as KnnBody & { product_field?: string };
            const c = await collectionOf(request);
            return visualSearch.visualTagsKnn(ctx(request), c, queryOf(body), { k: body.k ?? 30, from: body.from ?? 0, fields: body.fields_to_return, filter: body.filter, productField: body.product_field ?? c.productField ?? undefined });
          },
          config.limits.matchBodyBytes,
        );
        const multiBody = Type.Object({
          query_records: recordsAnsweredEach(ImageRecordInput, items ? 1000 : config.limits.hashRecords, 'A query record that is not an object is skipped with its own 400 (`_reason.status`, `_reason.query_index`), as one whose image does not load; when no query is left, that is the request\'s 400.'),
          k: Type.Optional(K),
          from: Type.Optional(From),
          fields_to_return: Type.Optional(Fields),
          filter: Type.Optional(Filter),
          product_field: Type.Optional(Type.String({ maxLength: 200, description: 'As visualKNN\'s: one record per product (the collection\'s own product field when not sent; `""` for none).' })),
          cand_set_size: Type.Optional(Type.Integer({ minimum: 1 })),
        });
        for (const [url, tagsToo] of [['/visualKNNMulti', false], ['/visualTagsKNNMulti', true]] as const) {
          post(
            url,
            tagsToo ? 'Similar to a list of images, re-ranked by their tags' : 'Similar to a list of images (nearest to their mean descriptor)',
            multiBody,
            async (request) => {
              const body = request.body as { query_records: never[]; k?: number; from?: number; fields_to_return?: string[]; filter?: object; product_field?: string };
              const c = await collectionOf(request);
              return visualSearch.visualKnnMulti(ctx(request), c, body.query_records, { k: body.k ?? 30, from: body.from ?? 0, fields: body.fields_to_return, filter: body.filter, tags: tagsToo, productField: body.product_field ?? c.productField ?? undefined });
            },
            config.limits.matchBodyBytes,
          );
        }
        const Radius = Type.Number({ minimum: 0, maximum: 200, description: 'Largest distance (100 × (1 − cos)).' });
        for (const [url, defaultRadius] of [['/range', 10], ['/nearDuplicates', 5]] as const) {
          post(
            url,
            url === '/range' ? 'Records within a radius of the query' : 'Exact and near duplicates of the query image',
            Type.Object({
              query_record: Type.Optional(ImageRecordInput),
              records: Type.Optional(Type.Array(ImageRecordInput, { minItems: 1, maxItems: 1000, description: 'Older clients send the query as a one-record list (one record: more is 400 too_many_records).' })),
              radius: Type.Optional({ ...Radius, default: defaultRadius }),
              // no schema default: a default would stand for a limit the client did not send beside its k
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100.' })),
              k: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The common parameter\'s name for `limit` (spec 2 §2); both sent must agree.' })),
              from: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 0, description: 'Records to skip, nearest first.' })),
              fields_to_return: Type.Optional(Fields),
              filter: Type.Optional(Filter),
            }),
            async (request) => {
              const body = request.body as KnnBody & { radius?: number; limit?: number };
              if (body.k !== undefined && body.limit !== undefined && body.k !== body.limit) throw badRequest('k and limit name the same number and differ: send one.', [{ field: 'k', message: 'differs from limit' }]);
              return visualSearch.range(ctx(request), await collectionOf(request), queryOf(body), { radius: body.radius ?? defaultRadius, limit: body.limit ?? body.k ?? 100, from: body.from ?? 0, fields: body.fields_to_return, filter: body.filter, nearDuplicates: url === '/nearDuplicates' });
            },
            config.limits.matchBodyBytes,
          );
        }
        post(
          '/nearDupsInsert',
          'Insert records that are not near duplicates of stored ones',
          Type.Object({
            records: recordsAnsweredEach(ImageRecordInput, config.limits.hashRecords, skippedEach(`At most ${config.limits.hashRecords}.`)),
            fields_to_return: Type.Optional(Fields),
            radius: Type.Optional({ ...Radius, default: 5 }),
            cand_set_size: Type.Optional(Type.Integer({ minimum: 1 })),
          }),
          async (request) => {
            const body = request.body as { records: never[]; fields_to_return?: string[]; radius?: number };
            // spec 2 §4: nearDupsInsert's fields_to_return defaults to [*]
            return visualSearch.nearDupsInsert(ctx(request), await collectionOf(request), body.records, body.radius ?? 5, body.fields_to_return ?? ['*']);
          },
          config.limits.matchBodyBytes,
        );
        post(
          '/detectKNN',
          'Detect objects in the query image, then search with each',
          Type.Object({
            query_record: Type.Optional(ImageRecordInput),
            records: Type.Optional(Type.Array(ImageRecordInput, { minItems: 1, maxItems: 1000, description: 'Older clients send the query as a one-record list (one record: more is 400 too_many_records).' })),
            detection_task_id: Type.Optional(Type.String({ maxLength: 100, default: 'objects', description: '`objects` (COCO-80), `person` or `face`.' })),
            k: Type.Optional(K),
            from: Type.Optional(From),
            fields_to_return: Type.Optional(Fields),
            filter: Type.Optional(Filter),
            product_field: Type.Optional(Type.String({ maxLength: 200, description: 'As visualKNN\'s: one record per product within each object\'s answers (the collection\'s own product field when not sent; `""` for none).' })),
          }),
          async (request) => {
            const body = request.body as KnnBody & { detection_task_id?: string; product_field?: string };
            const c = await collectionOf(request);
            return visualSearch.detectKnn(ctx(request), c, queryOf(body), { task: body.detection_task_id ?? 'objects', k: body.k ?? 30, from: body.from ?? 0, fields: body.fields_to_return, filter: body.filter, productField: body.product_field ?? c.productField ?? undefined });
          },
          config.limits.matchBodyBytes,
        );
        post(
          '/allNearDupPairs',
          'Every pair of records within a radius of each other',
          // spec 2 §4's common `from` (h311: it was taken and ignored, so a client paging with k and from got the first page again)
          Type.Object({ radius: Type.Optional({ ...Radius, default: 5 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Default 1000.' })), k: kAs('limit', 100_000), from: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'Pairs to skip, closest first (spec 2 §2\'s common parameter).' })), filter: Type.Optional(Filter) }),
          async (request) => {
            const body = request.body as { radius?: number; limit?: number; k?: number; from?: number; filter?: object };
            return visualSearch.allNearDupPairs(ctx(request), await collectionOf(request), body.radius ?? 5, countOf(body, 'limit', body.limit) ?? 1000, body.filter, body.from ?? 0);
          },
        );
      },
      { prefix },
    );
  }
}
