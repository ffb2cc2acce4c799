import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.ts';

/** A query image whose processing runs out of time is the server's 504 `vision_timeout` on every query method (h91). */
describe('query images that take longer than the server allows', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite', { vision: { taskTimeoutMs: 1 } });
  });
  afterAll(() => h?.close());

  it('visualKNN and detectKNN answer 504 vision_timeout (detectKNN answered a bare 500 internal_error), as the document declares', async () => {
    const { id } = await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'slow' });
    const photo = (await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3a6' } }).jpeg().toBuffer()).toString('base64');
    const doc = (await h.request('GET', '/docs/json', { token: null })).json() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const method of ['visualKNN', 'detectKNN']) {
      const res = await h.request('POST', `/similarity/photos/v2/${method}`, { body: { query_record: { _base64: photo } }, headers: { 'collection-id': id } });
      expect([res.statusCode, res.json().code], method).toEqual([504, 'vision_timeout']);
      expect(res.json().detail, method).toMatch(/^query_record: Error Processing Image/);
      expect(Object.keys(doc.paths[`/similarity/photos/v2/${method}`]!.post!.responses), method).toContain('504');
    }
  });
});
