import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../schemas/common.ts';

/** Stored images, without the API token: the signed, expiring link is the credential. */
export async function mediaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/media/:key', {
    schema: {
      tags: ['media'],
      summary: 'A stored image or thumbnail',
      description: 'Reached through the signed links the API hands out; a link without its signature, altered or past its expiry is 404 like an unknown key.',
      params: Type.Object({ key: Type.String() }),
      querystring: Type.Object({
        expires: Type.Optional(Type.String({ description: 'Unix time (seconds) the link expires' })),
        sig: Type.Optional(Type.String({ description: 'The link\'s signature' })),
      }),
      response: {
        // the stored image's own type: OpenAPI 3 names a binary body by its media types, not as JSON
        200: { description: 'The image bytes', content: Object.fromEntries(['image/jpeg', 'image/png', 'image/webp'].map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) },
        ...errorResponses(404),
      },
    },
    handler: async (request, reply) => {
      const file = await app.loupe.media.open(request.params.key, request.query.expires, request.query.sig);
      return reply
        .type(file.contentType)
        .header('content-length', file.size)
        // Neither a shared cache nor the browser may keep the image past the link's expiry.
        .header('cache-control', `private, max-age=${file.secondsLeft}`)
        .header('x-content-type-options', 'nosniff')
        // a stored original is the bytes as sent: whatever follows the image (h185: an HTML page appended to a JPEG)
        // runs nothing, even opened as a page of this origin, which holds the console's token
        // (inline styles: the browser's own image viewer centres the image with them, h186)
        .header('content-security-policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox")
        .send(file.stream);
    },
  });
}
