import { describe, expect, it } from 'vitest';
import { checkedFilter, filterFields, matchesEverything } from './filters.ts';

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

describe('checkedFilter and _id', () => {
  it('reads an integer _id as the text it is stored as', () => {
    expect(checkedFilter({ _id: 7 })).toEqual({ _id: '7' });
    expect(checkedFilter({ $or: [{ _id: { $in: [7, 'a'] } }, { _id: { $not: { $eq: 8 } } }] })).toEqual({ $or: [{ _id: { $in: ['7', 'a'] } }, { _id: { $not: { $eq: '8' } } }] });
  });

  it('refuses a range of numbers on _id, which matched nothing (and under $not every record) without a word (h311)', () => {
    for (const f of [{ _id: { $gt: 4 } }, { _id: { $lte: 10 } }, { $and: [{ _id: { $not: { $lt: 3 } } }] }]) {
      expect(() => checkedFilter(f), JSON.stringify(f)).toThrow(/_id is text/);
    }
    // strings compare as strings, and other fields' numbers as numbers
    expect(checkedFilter({ _id: { $gt: '4' } })).toEqual({ _id: { $gt: '4' } });
    expect(checkedFilter({ price: { $gt: 4 } })).toEqual({ price: { $gt: 4 } });
  });
});
