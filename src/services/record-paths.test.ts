import { describe, expect, it } from 'vitest';
import { projectPaths, valueAtPath } from './record-paths.ts';

const record = { name: 'dress', meta: { color: 'red', size: { eu: 38, us: 8 }, note: null }, variants: [{ sku: 'a', price: 1 }, { sku: 'b', price: 2 }, 7], 'a.b': 'literal' };

describe('projectPaths', () => {
  it('keeps top-level fields and nests dotted ones as the record has them', () => {
    expect(projectPaths(record, ['name', 'meta.color', 'meta.size.eu'])).toEqual({ name: 'dress', meta: { color: 'red', size: { eu: 38 } } });
    expect(projectPaths(record, ['meta.note'])).toEqual({ meta: { note: null } });
  });

  it('applies the rest of a path to each object of an array, element by element', () => {
    expect(projectPaths(record, ['variants.sku'])).toEqual({ variants: [{ sku: 'a' }, { sku: 'b' }] });
    expect(projectPaths(record, ['variants.sku', 'variants.price'])).toEqual({ variants: [{ sku: 'a', price: 1 }, { sku: 'b', price: 2 }] });
  });

  it('a key holding the dotted name wins; missing paths, built-in names and a whole field beside its part are handled', () => {
    expect(projectPaths(record, ['a.b'])).toEqual({ 'a.b': 'literal' });
    expect(projectPaths(record, ['meta.nope', 'nope.x', 'name.length', 'constructor', 'meta.toString'])).toEqual({});
    expect(projectPaths(record, ['meta', 'meta.color'])).toEqual({ meta: record.meta });
  });
});

describe('valueAtPath', () => {
  it('reads a top-level, literal dotted or nested value through objects only', () => {
    expect(valueAtPath(record, 'name')).toBe('dress');
    expect(valueAtPath(record, 'a.b')).toBe('literal');
    expect(valueAtPath(record, 'meta.size.us')).toBe(8);
    expect(valueAtPath(record, 'variants.sku')).toBeUndefined();
    expect(valueAtPath(record, 'toString')).toBeUndefined();
    expect(valueAtPath(record, 'meta.size.eu.x')).toBeUndefined();
  });
});
