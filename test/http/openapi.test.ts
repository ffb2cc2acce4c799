import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateOpenapi, openapiFile } from '../../src/http/openapi.ts';

describe('OpenAPI', () => {
  it('docs/openapi.json matches the routes (run `npm run openapi` after changing a schema)', async () => {
    const generated = await generateOpenapi();
    const kept = await fs.readFile(openapiFile, 'utf8').catch(() => '');
    expect(kept, 'docs/openapi.json is stale: run `npm run openapi`').toBe(generated);
  });

  it('documents every card sessions endpoint', async () => {
    const doc = JSON.parse(await generateOpenapi());
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/cardstream/v2/ping/',
      '/cardstream/v2/session/',
      '/cardstream/v2/session/{session_id}/',
      '/cardstream/v2/session/{session_id}/close/',
      '/cardstream/v2/session/{session_id}/reopen/',
      '/cardstream/v2/session/{session_id}/summary/',
      '/cardstream/v2/session/{session_id}/identifications/',
      '/cardstream/v2/session/{session_id}/images/',
      '/cardstream/v2/session/{session_id}/calls/',
      '/cardstream/v2/identification/',
      '/cardstream/v2/identification/{id}/',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('declares the Idempotent-Replayed header of a replayed submit', async () => {
    const doc = JSON.parse(await generateOpenapi());
    const created = doc.paths['/account/v2/request'].post.responses['201'];
    expect(created.headers['Idempotent-Replayed'].schema).toEqual({ type: 'string', enum: ['true'] });
    expect(created.content['application/json'].schema.properties).not.toHaveProperty('headers');
  });
});
