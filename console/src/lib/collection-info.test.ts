import { describe, expect, it } from 'vitest';
import { collectionLine } from './collection-info.ts';

describe('collectionLine', () => {
  it("says the collection's name and size in plain words, whatever the index details after them", () => {
    expect(collectionLine('photo collection "Shop photos": 12 records, HNSW index over 1792-d descriptors (cosine distance × 100); text search: keyword engine')).toBe('“Shop photos” is open: 12 items stored.');
    expect(collectionLine('custom collection "a": 1 records, HNSW index, its descriptors\' size set by the first record (cosine distance × 100)')).toBe('“a” is open: 1 item stored.');
    // a line of another form (another server) says only that it opened; its text stays under the details
    expect(collectionLine('OK')).toBe('Collection open.');
  });
});
