import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { takesOnly } from '../unknown-parameters.ts';
import { EnvelopeStatus, envelopeResponses, imageAnswers, ImageRecordInput, eachWithStatus, recordsAnsweredEach, Statistics, type Answers } from '../schemas/search.ts';

const security = [{ token: [] }];
// 404: a `workspace` query parameter naming none of the account's (h140: answered, not declared)
const errorStatuses = [400, 401, 402, 403, 404, 413, 415, 429, 503];
/** All records failed alike: their shared code (docs/api-decisions.md, vision). */
const answers: Answers = { ...imageAnswers, 500: 'Error Processing Image: every record failed in the vision worker', 504: 'Error Processing Image: every record ran past the time limit' };

const RecordStatus = Type.Object({ code: Type.Integer(), text: Type.String(), request_id: Type.Optional(Type.String()) });
const DetectedObject = Type.Object({
  name: Type.String(),
  prob: Type.Number({ minimum: 0, maximum: 1 }),
  bound_box: Type.Array(Type.Integer(), { minItems: 4, maxItems: 4, description: '[xmin, ymin, xmax, ymax] in pixels of the image as stored (EXIF orientation applied).' }),
});
const Detections = Type.Object({ status: EnvelopeStatus, records: Type.Array(Type.Object({ _status: RecordStatus, _width: Type.Optional(Type.Integer()), _height: Type.Optional(Type.Integer()), _objects: Type.Optional(Type.Array(DetectedObject)) }, { additionalProperties: true })), statistics: Statistics });

/** `/photo/v2/descriptor` and `/identity/v2/{face,person}` (spec 2 §4), on the vision engine. */
export async function visionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { vision, config } = app.loupe;
  const envelope = true;
  // a record that is no object is its own 400 `Error Loading Image: records[i] must be an object …` (h336: the request's 400)
  const records = recordsAnsweredEach(ImageRecordInput, config.limits.hashRecords, eachWithStatus(config.limits.hashRecords));
  const imagesBody = Type.Object({ records });
  const faceBody = Type.Object({
    records,
    small_faces: Type.Optional(Type.Boolean({ description: 'Not in the spec (Loupe): also look at a photo of 1,500 px or more in 3 × 3 tiles, for faces under about 6 % of its long side (a wide group shot). About 4× the time on a 12-MP photo. Default false.' })),
  });
  // Each route's preValidation (takesOnly): a name the endpoint does not take is 400 naming it, as on collections:
  // `small_face: true` or `fields_to_return` were ignored and the answer looked like one to the request meant (h341)

  app.post('/photo/v2/descriptor', {
    config: { service: 'descriptor', envelope, storesNothing: true, price: 'descriptor.descriptor' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['descriptor'],
      security,
      summary: 'Image embeddings (descriptors) of up to 10 images',
      description: 'Each record gets `_descriptor`, the L2-normalised embedding of the default model (see `descriptor_model` and docs/models.md); compare two with the dot product (cosine).',
      body: imagesBody,
      response: envelopeResponses(
        Type.Object({
          status: EnvelopeStatus,
          records: Type.Array(Type.Object({ _status: RecordStatus, _width: Type.Optional(Type.Integer()), _height: Type.Optional(Type.Integer()), _descriptor: Type.Optional(Type.Array(Type.Number())) }, { additionalProperties: true })),
          descriptor_model: Type.Optional(Type.Object({ name: Type.String(), dimension: Type.Integer() }, { description: 'Present when at least one record got a descriptor.' })),
          statistics: Statistics,
        }),
        answers,
        errorStatuses,
      ),
    },
    preValidation: takesOnly('photo/v2/descriptor', Object.keys(imagesBody.properties)),
    handler: async (request) => vision.descriptor({ requestId: request.id }, request.body.records),
  });

  app.post('/identity/v2/face', {
    config: { service: 'identity', envelope, storesNothing: true, price: 'identity.face' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: {
      tags: ['identity'],
      security,
      summary: 'Faces in up to 10 images (beta)',
      body: faceBody,
      response: envelopeResponses(Detections, answers, errorStatuses),
    },
    preValidation: takesOnly('identity/v2/face', Object.keys(faceBody.properties)),
    handler: async (request) => vision.faces({ requestId: request.id }, request.body.records, { smallFaces: request.body.small_faces === true }),
  });

  app.post('/identity/v2/person', {
    config: { service: 'identity', envelope, storesNothing: true, price: 'identity.person' },
    bodyLimit: config.limits.matchBodyBytes,
    schema: { tags: ['identity'], security, summary: 'People in up to 10 images (beta)', body: imagesBody, response: envelopeResponses(Detections, answers, errorStatuses) },
    preValidation: takesOnly('identity/v2/person', Object.keys(imagesBody.properties)),
    handler: async (request) => vision.persons({ requestId: request.id }, request.body.records),
  });
}
