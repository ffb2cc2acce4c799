import { describe, expect, it } from 'vitest';
import { filterFields, matchesEverything } from './filters.ts';

describe('matchesEverything', () => {
  it('tells a filter that matches every record by its shape, which deleteByFilter refuses', () => {
    for (const f of [{}, { $or: [{}] }, { $or: [{ a: 1 }, {}] }, { $and: [{}] }, { $and: [{ $or: [{}] }] }]) expect(matchesEverything(f), JSON.stringify(f)).toBe(true);
    for (const f of [{ a: 1 }, { $or: [{ a: 1 }] }, { $and: [{}, { a: 1 }] }, { $or: [] }, { $nor: [{}] }]) expect(matchesEverything(f), JSON.stringify(f)).toBe(false);
  });
});

describe('filterFields', () => {
  it('names the fields a filter tests, through $and, $or and $nor, not inside an operator', () => {
    expect(filterFields({ a: 1, 'b.c': { $exists: false }, $or: [{ d: 2 }, { $nor: [{ e: 3 }] }], $and: [{ a: 2 }], f: { $elemMatch: { g: 1 } } }).sort()).toEqual(['a', 'b.c', 'd', 'e', 'f']);
  });
});
