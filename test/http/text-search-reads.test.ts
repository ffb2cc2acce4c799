import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.ts';
import { backends, startHarness, type Harness } from '../helpers/harness.ts';

/**
 * A record inserted is found by a text search sent at once after the insert's answer: on SQLite the search reads on a
 * worker's own connection (sqlite-read-pool.ts), whose snapshot must begin after the insert's commit.
 */
describe.each(backends)('text search right after an insert (%s)', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(backend, { seen: [], vision: { threads: 1, maxQueue: 16, taskTimeoutMs: 30_000, warm: [], embedder: '' } });
  });
  afterAll(() => h?.close());

  it('finds each record by its own word in the search sent after its insert, and the one updated by its new word', async () => {
    const png = (await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 90, g: 100, b: 20 } } }).png().toBuffer()).toString('base64');
    const { id } = await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'at once' });
    const headers = { 'collection-id': id };
    const search = async (q: string) => (await h.request('POST', '/similarity/text/photos/v2/text', { body: { query_record: { _text_data: q }, k: 5 }, headers })).json();
    // a search first, so the index is loaded and (SQLite) a worker holds a connection that read the table before
    expect((await h.request('POST', '/similarity/photos/v2/insert', { body: { records: [{ _id: 'first', _base64: png, title: 'plain wooden table' }] }, headers })).json().status.code).toBe(210);
    expect((await search('wooden table')).answer_records.map((r: { _id: string }) => r._id)).toEqual(['first']);
    for (const word of ['quokka', 'axolotl', 'narwhal', 'pangolin', 'okapi']) {
      expect((await h.request('POST', '/similarity/photos/v2/insert', { body: { records: [{ _id: word, _base64: png, title: `a ${word} on a wooden table` }] }, headers })).json().status.code).toBe(210);
      expect((await search(word)).answer_records.map((r: { _id: string }) => r._id), word).toEqual([word]);
    }
    expect((await h.request('POST', '/similarity/photos/v2/update', { body: { records: [{ _id: 'first', title: 'plain wooden table with a wombat' }] }, headers })).json().status.code).toBe(205);
    expect((await search('wombat')).answer_records.map((r: { _id: string }) => r._id)).toEqual(['first']);
    if (backend === 'sqlite') expect((h.app.loupe as unknown as { store: Store }).store.reads!.started).toBeGreaterThan(0);
  }, 60_000);
});
