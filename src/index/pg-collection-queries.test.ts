import { describe, expect, it } from 'vitest';
import { efSearch } from './pg-collection-queries.ts';

describe('PostgreSQL HNSW beam', () => {
  it('is one for every page up to 128 deep, unfiltered, so pages walked with `from` share one ordering', () => {
    // each page had its own beam (64, 120, 180…), and pages at 50,000 records repeated and skipped records
    expect(new Set([30, 60, 90, 120, 128].map((k) => efSearch(k, false)))).toEqual(new Set([256]));
    expect(efSearch(300, false)).toBe(600);
    expect(efSearch(30, true)).toBe(200);
    expect(efSearch(2000, false)).toBe(1000);
  });
});
