/**
 * A request body the server takes, for every operation that has one: the documentation page's "Try it out" fills the
 * body from the document's `example`, and without one it made a body of every field ("string" for each), which the
 * server refuses (h272: `query_record` and `records` both, `seen: "string"`, `id_type: "string"`, an image "string").
 * test/http/openapi-examples.test.ts sends each one to the server, on both backends.
 */

/** A 48 × 64 JPEG (403 bytes): a real image every image endpoint decodes, small enough to repeat on every path. */
export const exampleImage =
  '/9j/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAARCABAADADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABAYD/8QAFhAAAwAAAAAAAAAAAAAAAAAAAAED/8QAFQEBAQAAAAAAAAAAAAAAAAAABAX/xAAWEQEBAQAAAAAAAAAAAAAAAAACAAH/2gAMAwEAAhEDEQA/AMZsRNhJsRNkt5WW5k2Jmwc2JmwzyI3LmxM2DmxM2GeRG6RmxE2EmxE2VXk1uZNiZsHNiZsM8iNy5sTNg5sTNhnkNukZsTNg5sTNlV5OblzYmbBzYmbDPIjcybETYSbETYZ5DbpGbEzYObEzZVeTm5c2Jmwc2JmwzyI3MmxE2EmxE2GeQ27/2Q==';

const image = { _base64: exampleImage };
const photo = { _id: 'photo-1', ...image };
const item = { _id: 'item-1', ...image, product_id: 'sku-1001', color: 'red', price: 25 };
const filter = { price: { $lte: 50 } };

/** The examples of one collection's methods (every collection base path takes the same bodies). */
const collectionExamples: Record<string, unknown> = {
  insert: { records: [item, { ...item, _id: 'item-2', product_id: 'sku-1002', color: 'blue' }] },
  delete: { records: [{ _id: 'item-2' }] },
  get: { records: [{ _id: 'item-1' }], fields_to_return: ['*'] },
  thumbnails: { records: [{ _id: 'item-1' }] },
  update: { records: [{ _id: 'item-1', product_id: 'sku-1001', price: 20 }] },
  find: { filter, limit: 10 },
  getRecordCount: { filter },
  random: { count: 5 },
  deleteByFilter: { filter: { color: 'blue' } },
  allRecords: { size: 100, only_ids: true },
  visualKNN: { query_record: image, k: 10, filter },
  visualTagsKNN: { query_record: image, k: 10 },
  visualKNNMulti: { query_records: [image], k: 10 },
  visualTagsKNNMulti: { query_records: [image], k: 10 },
  range: { query_record: image, radius: 20, limit: 50 },
  nearDuplicates: { query_record: image, radius: 5 },
  nearDupsInsert: { records: [{ ...item, _id: 'item-3' }], radius: 5 },
  detectKNN: { query_record: image, k: 10 },
  allNearDupPairs: { radius: 5, limit: 100 },
  text: { query_record: { _text_data: 'red dress' }, k: 10 },
};

const recognition = { records: [{ _id: 'card-1', ...image }], price_stats: true };
const images = { records: [photo] };

/** The other operations' examples, by method and path. */
const examples: Record<string, unknown> = {
  'post /cardstream/v2/session/': { name: 'Friday stream', game: 'TCG', platform: 'whatnot' },
  'patch /cardstream/v2/session/{session_id}/': { name: 'Friday stream (evening)' },
  'post /cardstream/v2/session/{session_id}/calls/': { run: 'launch-1', calls: 12 },
  'post /cardstream/v2/session/{session_id}/identifications/': {
    identifications: [{ event_id: 'e1', seen: '2026-12-05T20:15:00Z', id_type: 'tcg', name: 'Charizard', set_name: 'Base Set', card_number: '4/102', price: 350 }],
  },
  'post /cardstream/v2/session/{session_id}/images/': { event_id: 'e1', image: exampleImage },
  'patch /cardstream/v2/identification/{id}/': { price: 320, note: 'light play' },
  'post /image_matching/v2/visual_hash': { ...images, hash_type: 'bmh1' },
  'post /image_matching/v2/remove_duplicates': { records: [photo, { ...photo, _id: 'photo-2' }], hash_type: 'bmh1' },
  'post /image_matching/v2/rank_images': { query_record: image, records: [photo, { ...photo, _id: 'photo-2' }] },
  'post /photo/v2/descriptor': images,
  'post /identity/v2/face': images,
  'post /identity/v2/person': images,
  'post /collectibles/v2/tcg_id': recognition,
  'post /collectibles/v2/sport_id': recognition,
  'post /collectibles/v2/comics_id': recognition,
  'post /collectibles/v2/analyze': recognition,
  'post /collectibles/v2/card_ocr_id': { records: [{ _id: 'card-1', ...image }] },
  'post /collectibles/v2/slab_id': { records: [{ _id: 'slab-1', ...image }] },
  'post /collectibles/v2/slab_grade': { records: [{ _id: 'slab-1', ...image }] },
  'post /collectibles/v2/detect': { records: [{ _id: 'card-1', ...image }] },
  'post /collectibles/v2/process': { records: [{ _id: 'card-1', ...image }] },
  'post /account/v2/request': { type: 'upscaler', endpoint: 'upscale_2x', records: [photo] },
  'post /account/v2/request/{id}/webhook': { url: 'https://shop.example/loupe-hook' },
};

/** The example of one operation, or undefined where none is written (the test says which). */
export function requestExampleOf(method: string, route: string): unknown {
  const own = examples[`${method.toLowerCase()} ${route}`];
  if (own !== undefined) return own;
  const collection = /^\/(?:similarity|photo)\/.+\/v2\/([A-Za-z]+)$/.exec(route);
  return collection ? collectionExamples[collection[1]!] : undefined;
}

type Doc = { paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown; examples?: unknown }> } }>> };

/** Each operation's JSON body with its example (`example` of the media type, which "Try it out" fills in). */
export function requestExamples<T>(doc: T): T {
  for (const [route, ops] of Object.entries((doc as Doc).paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const media = op?.requestBody?.content?.['application/json'];
      if (!media || media.example !== undefined || media.examples !== undefined) continue;
      const example = requestExampleOf(method, route);
      if (example !== undefined) media.example = example;
    }
  }
  return doc;
}
