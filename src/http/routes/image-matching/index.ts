import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../services/errors.ts';
import { takesOnly } from '../../unknown-parameters.ts';
import { EnvelopeStatus, envelopeResponses, HashType, imageAnswers, ImageRecordInput, okOnly, eachWithStatus, recordsAnsweredEach, Statistics } from '../../schemas/search.ts';

const service = 'image_matching';
const tags = ['image matching'];
const security = [{ token: [] }];
const errorStatuses = [400, 401, 402, 403, 404, 413, 415, 429];

// the fields each answer record carries beside the record's own (its `_id` and `_url` as sent), spec 2 §4: a generated
// client saw `records` as objects of nothing and had no `bmh1`, `_status` or `removed_records` to read (h351)
const RecordStatus = Type.Object({ code: Type.Integer(), text: Type.String(), request_id: Type.Optional(Type.String()) });
const Size = { _width: Type.Optional(Type.Integer()), _height: Type.Optional(Type.Integer()) };
const open = { additionalProperties: true };
const HashRecord = Type.Object({ ...Size, bmh1: Type.Optional(Type.String({ description: '256 binary digits.' })), phash: Type.Optional(Type.String({ description: '64 binary digits.' })), _status: RecordStatus }, open);
const Removed = Type.Object({ ...Size, _distance: Type.Optional(Type.Integer({ description: 'Hamming distance (bits) to the record kept.' })) }, open);
const KeptRecord = Type.Object({ ...Size, _status: RecordStatus, removed_records: Type.Optional(Type.Array(Removed, { description: 'The duplicates of this record, moved here.' })) }, open);
const RankedRecord = Type.Object(Size, open);
const SkippedRecord = Type.Object({ _status: RecordStatus }, open);

/** `/image_matching/v2/…`: hashes, duplicate removal and ranking of images sent in the request (spec 2 §4). */
export async function imageMatchingRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { imageMatching, config } = app.loupe;
  const ctx = (requestId: string) => ({ requestId });
  const envelope = true;
  // a name the endpoint does not take is 400 naming it (takesOnly), as on collections and the vision endpoints: `hash_typ`
  // was ignored and both hashes came back, an answer like one to the request the client meant (h341)

  const Ping = Type.Object({ status: EnvelopeStatus, _service_info: Type.Object({ _name: Type.String(), _info: Type.String() }) });
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/ping',
      config: { service, envelope },
      schema: { tags, security, summary: 'Check that the token can use image matching', response: envelopeResponses(Ping, okOnly, errorStatuses) },
      handler: async (request) => imageMatching.ping(ctx(request.id)),
    });
  }

  app.post('/visual_hash', {
    config: { service, envelope, storesNothing: true, price: 'image_matching.visual_hash' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags,
      security,
      summary: 'bmh1 and phash visual hashes of up to 10 images',
      body: Type.Object({
        records: recordsAnsweredEach(ImageRecordInput, config.limits.hashRecords, eachWithStatus(config.limits.hashRecords)),
        hash_type: Type.Optional({ ...HashType, description: 'One hash; both when absent.' }),
      }),
      response: envelopeResponses(Type.Object({ status: EnvelopeStatus, records: Type.Array(HashRecord), statistics: Statistics }), imageAnswers, errorStatuses),
    },
    preValidation: takesOnly('image_matching/v2/visual_hash', ['records', 'hash_type']),
    handler: async (request) => imageMatching.visualHash(ctx(request.id), request.body.records, request.body.hash_type),
  });

  app.post('/remove_duplicates', {
    config: { service, envelope, storesNothing: true, price: 'image_matching.remove_duplicates' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags,
      security,
      summary: 'Group duplicate and near-duplicate images',
      body: Type.Object({
        records: recordsAnsweredEach(ImageRecordInput, config.limits.matchRecords, eachWithStatus(config.limits.matchRecords, ' (its `_id` its place, as a record sent without one has)')),
        hash_type: Type.Optional({ ...HashType, default: 'bmh1' }),
        range: Type.Optional(Type.Number({ minimum: 0, maximum: 256, default: 0, description: 'Largest Hamming distance (bits) between duplicates: at most 256 with bmh1, 64 with phash.' })),
      }),
      response: envelopeResponses(Type.Object({ status: EnvelopeStatus, records: Type.Array(KeptRecord), statistics: Statistics }), imageAnswers, errorStatuses),
    },
    preValidation: takesOnly('image_matching/v2/remove_duplicates', ['records', 'hash_type', 'range']),
    handler: async (request) => {
      const hashType = request.body.hash_type ?? 'bmh1';
      const range = request.body.range ?? 0;
      // a phash is 64 bits: a range past them made every image a duplicate of the first (a range meant for bmh1's
      // 256 bits, h311), and remove_duplicates answered one record holding all the others
      if (hashType === 'phash' && range > 64) throw badRequest(`range ${range} is more bits than a phash has (64): every image would be a duplicate of the first. Send at most 64 with phash (17 takes re-encoded copies: docs/visual-hashes.md).`, [{ field: 'range', message: 'at most 64 with hash_type phash' }]);
      return imageMatching.removeDuplicates(ctx(request.id), request.body.records, hashType, range);
    },
  });

  app.post('/rank_images', {
    config: { service, envelope, storesNothing: true, price: 'image_matching.rank_images' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags,
      security,
      summary: 'Rank images by visual-hash distance to a query image',
      body: Type.Object({
        query_record: ImageRecordInput,
        records: recordsAnsweredEach(ImageRecordInput, config.limits.matchRecords, `At most ${config.limits.matchRecords}. A record that is not an object is skipped with its own 400 \`_status\` in \`skipped_records\` (its \`_id\` its place), the others ranked.`),
        hash_type: Type.Optional({ ...HashType, default: 'bmh1' }),
      }),
      response: envelopeResponses(
        Type.Object({
          status: EnvelopeStatus,
          query_records: Type.Array(RankedRecord),
          answer_records: Type.Array(RankedRecord),
          answer_distances: Type.Array(Type.Integer()),
          answer_count: Type.Integer(),
          skipped_records: Type.Array(SkippedRecord),
          statistics: Statistics,
        }),
        imageAnswers,
        errorStatuses,
      ),
    },
    preValidation: takesOnly('image_matching/v2/rank_images', ['query_record', 'records', 'hash_type']),
    handler: async (request) => imageMatching.rankImages(ctx(request.id), request.body.query_record, request.body.records, request.body.hash_type ?? 'bmh1'),
  });
}
