import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateOpenapi } from '../../src/http/openapi.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { caltechPhotos, photoBase64 } from '../helpers/photos.ts';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: Record<string, unknown> };

/**
 * Real answers of every collection method checked against the document's declared answer: a
 * generated client types `answer_records`, `answer_distances`, `skipped_records` from it (they
 * were untyped extras of a bare envelope), so a field declared wrong would fail such a client.
 */
describe('collection answers as the OpenAPI document declares them', () => {
  let h: Harness;
  let doc: Doc;
  let collection: string;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const base = '/similarity/photos/v2';
  const photos = caltechPhotos().slice(0, 4);

  beforeAll(async () => {
    h = await startHarness('sqlite');
    doc = JSON.parse(await generateOpenapi()) as Doc;
    ajv.addSchema({ $id: 'doc', components: doc.components });
    collection = (await h.app.loupe.collections.create({ accountId: h.account.account, type: 'photo', name: 'answers' })).id;
  }, 120_000);
  afterAll(() => h?.close());

  /** The call's answer, checked against the schema the document gives its HTTP status. */
  async function checked(method: string, body?: unknown): Promise<Record<string, unknown>> {
    const verb = body === undefined ? 'GET' : 'POST';
    const res = await h.request(verb, `${base}/${method}`, { body, headers: { 'collection-id': collection } });
    const response = doc.paths[`${base}/${method}`]![verb.toLowerCase()]!.responses[String(res.statusCode)];
    expect(response, `${method}: HTTP ${res.statusCode} is not declared`).toBeDefined();
    const schema = JSON.parse(JSON.stringify(response!.content!['application/json']!.schema).replaceAll('"#/components/', '"doc#/components/'));
    const valid = ajv.validate(schema, res.json());
    expect(valid, `${method} ${res.statusCode}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    return res.json() as Record<string, unknown>;
  }

  it('declares each method its own answer, by name', () => {
    const insert = doc.paths[`${base}/insert`]!.post!.responses['211']!.content!['application/json']!.schema;
    expect(insert).toEqual({ $ref: '#/components/schemas/InsertAnswer' });
    const knn = (doc.components as { schemas: Record<string, { allOf: { properties?: Record<string, unknown> }[] }> }).schemas.VisualKNNAnswer!;
    expect(Object.keys(knn.allOf[1]!.properties!)).toEqual(expect.arrayContaining(['query_records', 'answer_records', 'answer_distances', 'answer_count']));
  });

  it('every method answers within its declared schema', async () => {
    const inserted = await checked('insert', { records: [...photos.map((p, i) => ({ _id: `p${i}`, _base64: photoBase64(p), tags: ['t'], n: i })), { _id: 'p0', _base64: photoBase64(photos[0]!) }] });
    expect(inserted.answer_count).toBe(4);
    expect(inserted.skipped_records).toHaveLength(1);
    expect((await checked('ping')).info).toMatch(/4 records/);
    expect((await checked('get', { records: [{ _id: 'p1' }, { _id: 'nope' }] })).answer_count).toBe(1);
    expect((await checked('update', { records: [{ _id: 'p1', colour: 'red' }] })).answer_count).toBe(1);
    expect((await checked('find', { filter: { n: { $gte: 1 } } })).answer_count).toBe(3);
    expect((await checked('random', { count: 2 })).answer_count).toBe(2);
    expect((await checked('getRecordCount', {})).count).toBe(4);
    expect((await checked('allRecords', {})).answer_count).toBe(4);
    const knn = await checked('visualKNN', { query_record: { _id: 'p0' }, k: 3 });
    expect(knn.answer_distances).toHaveLength(3);
    await checked('visualTagsKNN', { query_record: { _id: 'p0', tags: ['t'] }, k: 3 });
    await checked('visualKNNMulti', { query_records: [{ _id: 'p0' }, { _id: 'nope' }], k: 2 });
    await checked('range', { query_record: { _id: 'p0' }, radius: 100 });
    await checked('nearDuplicates', { query_record: { _base64: photoBase64(photos[2]!) } });
    await checked('allNearDupPairs', { radius: 100 });
    expect((await checked('delete', { records: [{ _id: 'p3' }] })).answer_count).toBe(1);
    expect((await checked('deleteByFilter', { filter: { n: 2 } })).deleted_count).toBe(1);
  }, 120_000);
});
