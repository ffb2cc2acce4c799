import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { CollectionType } from '../../services/collection-service.ts';
import type { TextQueryBody } from '../../services/text-search/text-search-service.ts';
import { maxQueryChars } from '../../text-search/query.ts';
import { envelopeResponses, SearchEnvelope } from '../schemas/search.ts';
import { refuseUnknownParameters } from '../unknown-parameters.ts';

const security = [{ token: [] }];
const errorStatuses = [400, 401, 402, 403, 404, 409, 413, 415, 429, 503];

/** The text-search paths of spec 2 §4, each with the collection type it searches. */
export const textSearchPaths: { url: string; type: CollectionType }[] = [
  { url: '/similarity/text/photos/v2/text', type: 'photo' },
  { url: '/photo/text/v2/text', type: 'photo' },
  { url: '/similarity/text/products/v2/text', type: 'product' },
  { url: '/similarity/text/fashion/v2/text', type: 'fashion' },
  { url: '/similarity/text/homedecor/v2/text', type: 'homedecor' },
];

/** The text-search paths of a collection type, named when a collection of that type comes to another's path. */
const textPathsOf = (type: CollectionType) => textSearchPaths.filter((p) => p.type === type).map((p) => p.url);

const Luv = Type.Array(Type.Number(), { minItems: 3, maxItems: 3 });
const body = Type.Object({
  query_record: Type.Object(
    {
      _text_data: Type.Optional(Type.String({ maxLength: maxQueryChars, description: `The text query, in any language (at most ${maxQueryChars} characters; the first 32 words are searched).` })),
      _dominant_colors: Type.Optional(
        Type.Object(
          {
            luv_colors: Type.Array(Luv, { description: 'Up to 64 colours as [L, u, v] (CIE L*u*v*, L 0–100); the 8 with the largest percentages rank; empty lists are no colour query.' }),
            percentages: Type.Optional(Type.Array(Type.Number(), { description: 'Share of each colour, 0–100; one per colour (may be left out with an empty `luv_colors`).' })),
          },
          { description: 'Records whose dominant colours match these, in these shares, rank higher (docs/api-decisions.md).' },
        ),
      ),
    },
    { additionalProperties: true },
  ),
  k: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 30 })),
  from: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 0 })),
  fields_to_return: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200, description: 'Field names to return; `*` for all. `_id` is always returned.' })),
  filter: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'MongoDB-style query (docs/filters.md).' })),
  product_field: Type.Optional(Type.String({ maxLength: 200, description: 'Group answers by this field (one per product); "" for none. Default: the collection\'s product field.' })),
});

const answers = {
  200: 'OK (an empty list when the query was read but nothing matches)',
  422: 'Query not understood: no word is in the object and colour vocabulary or in the collection’s records (`query_records[0]._unread_terms`)',
};

/** Text search (spec 2 §1, §4): a natural-language query against a collection's images. */
export async function textSearchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { collections, textSearch } = app.loupe;
  for (const { url, type } of textSearchPaths) {
    app.post(url, {
      config: { service: 'text_search', envelope: true, storesNothing: true, price: 'text_search.text' },
      schema: {
        tags: ['text search'],
        security,
        summary: `Find ${type} collection images by a text query in any language`,
        headers: Type.Object({ 'collection-id': Type.Optional(Type.String()) }),
        body,
        response: envelopeResponses(Type.Ref(SearchEnvelope), answers, errorStatuses),
      },
      // a name the search does not take is 400 naming it, as on the collection methods (h343: `filters` searched the
      // whole collection, `limit` answered 30); spec 2 §4's common `records` and `cand_set_size` are taken, unread
      preValidation: async (request) => refuseUnknownParameters(url.slice(1), Object.keys(body.properties), request.body, ['records', 'cand_set_size']),
      handler: async (request: FastifyRequest) => {
        const header = request.headers['collection-id'];
        const c = await collections.forRequest(typeof header === 'string' ? header.trim() : undefined, request.principal!.account.id, [type], textPathsOf);
        return textSearch.search({ requestId: request.id }, c, request.body as TextQueryBody);
      },
    });
  }
}
