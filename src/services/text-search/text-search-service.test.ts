import { describe, expect, it } from 'vitest';
import type { CollectionQueries } from '../../index/collection-queries.ts';
import type { CollectionRecord, CollectionStore } from '../../store/collection-store.ts';
import { parseQuery, type ParsedQuery } from '../../text-search/query.ts';
import type { VisionService } from '../vision-service.ts';
import { TextSearchService } from './text-search-service.ts';

describe('German compounds in a query', () => {
  // a collection whose records hold these words
  const words = new Set(['holz', 'tisch', 'straßenbahn']);
  const queries = { present: async (_c: CollectionRecord, q: ParsedQuery) => new Set(q.terms.filter((t) => words.has(t))) } as unknown as CollectionQueries;
  const service = new TextSearchService({} as CollectionStore, queries, {} as VisionService) as unknown as { splitCompounds(c: CollectionRecord, q: ParsedQuery, legacy: boolean): Promise<ParsedQuery> };

  it('keeps the words as an earlier release folded them while rows await re-tokenising (h178: lost when a compound was split)', async () => {
    const parsed = parseQuery('Holztisch Straßenbahn', undefined, { legacyKana: true });
    if (!parsed.ok) throw new Error('not parsed');
    expect(parsed.query.legacy).toEqual({ straßenbahn: 'strassenbahn' });
    const split = await service.splitCompounds({ id: 'c' } as CollectionRecord, parsed.query, true);
    expect(split.terms).toEqual(expect.arrayContaining(['holz', 'strassenbahn', 'straßenbahn']));
    expect(split.terms).not.toContain('holztisch');
    expect(split.legacy).toEqual({ straßenbahn: 'strassenbahn' });
  });

  it('reads a compound apart when its head is a German word other languages share, and English words not (h281)', async () => {
    const known = new Set(['wohnzimmer', 'board', 'tooth', 'walk']);
    const own = { present: async (_c: CollectionRecord, q: ParsedQuery) => new Set(q.terms.filter((t) => known.has(t))) } as unknown as CollectionQueries;
    const s = new TextSearchService({} as CollectionStore, own, {} as VisionService) as unknown as typeof service;
    const split = async (text: string) => {
      const parsed = parseQuery(text);
      if (!parsed.ok) throw new Error('not parsed');
      return (await s.splitCompounds({ id: 'c' } as CollectionRecord, parsed.query, false)).terms;
    };
    expect(await split('Wohnzimmersofa')).toContain('wohnzimmer');
    // English words made of an English colour or object and a word of the records stay whole (h283: black board, blue
    // tooth, cat walk found black things, blue things and cats)
    for (const word of ['blackboard', 'bluetooth', 'catwalk']) expect(await split(word), word).toEqual([word]);
  });
});
