import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../schemas/common.ts';

/** Stored images, without the API token: the unguessable key is the credential. */
export async function mediaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/media/:key', {
    schema: {
      tags: ['media'],
      summary: 'A stored image or thumbnail',
      params: Type.Object({ key: Type.String() }),
      response: { 200: Type.Unsafe({ description: 'The image bytes', type: 'string', format: 'binary' }), ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const file = await app.loupe.media.open(request.params.key);
      return reply
        .type(file.contentType)
        .header('content-length', file.size)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(file.stream);
    },
  });
}
