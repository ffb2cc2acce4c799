import { describe, expect, it } from 'vitest';
import { pathConflict, projectPaths, setPath, valueAtPath } from './record-paths.ts';

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

describe('setPath', () => {
  it('sets and removes a nested part without changing the objects it was given', () => {
    const data = { ...record };
    expect(setPath(data, 'meta.color', 'blue')).toBeUndefined();
    expect(setPath(data, 'meta.size.eu', null)).toBeUndefined();
    expect(setPath(data, 'dims.h.cm', 3)).toBeUndefined();
    expect(data.meta).toEqual({ color: 'blue', size: { us: 8 }, note: null });
    expect(data).toMatchObject({ dims: { h: { cm: 3 } } });
    expect(record.meta).toEqual({ color: 'red', size: { eu: 38, us: 8 }, note: null });
    expect(Object.hasOwn(data, 'meta.color')).toBe(false);
  });

  it('a field holding the dotted name is set as it is; removing what is not there is nothing', () => {
    const data = { ...record };
    expect(setPath(data, 'a.b', 'changed')).toBeUndefined();
    expect(data['a.b']).toBe('changed');
    expect(data).not.toHaveProperty('a');
    expect(setPath(data, 'nope.deep', null)).toBeUndefined();
    expect(data).not.toHaveProperty('nope');
  });

  it('refuses a path through a value that is not an object, and empty names between dots', () => {
    const data = { ...record };
    expect(setPath(data, 'name.first', 'x')).toMatch(/name is a string, not an object/);
    expect(setPath(data, 'variants.sku', 'x')).toMatch(/variants is a list/);
    expect(setPath(data, 'meta.note.x', 'x')).toMatch(/meta\.note is null/);
    expect(setPath(data, 'meta..color', 'x')).toMatch(/between its dots/);
    expect(data).toEqual(record);
  });

  it('refuses __proto__ and constructor.prototype along a path, as a body\'s keys are, and writes a top-level one as a field', () => {
    const data: Record<string, unknown> = {};
    expect(setPath(data, 'x.__proto__.polluted', true)).toMatch(/__proto__/);
    expect(setPath(data, 'constructor.prototype.polluted', true)).toMatch(/__proto__/);
    expect(data).toEqual({});
    expect(setPath(data, '__proto__', { polluted: true })).toBeUndefined();
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(data)).toEqual(['__proto__']);
  });

  it('refuses a path that would nest the record deeper than a body may carry', () => {
    const data: Record<string, unknown> = {};
    expect(setPath(data, Array.from({ length: 20_000 }, () => 'a').join('.'), 1)).toMatch(/deeper than 30 levels/);
    // the record, then 29 objects along the path: 30 levels, as deep as a body carries a record
    expect(setPath(data, Array.from({ length: 31 }, () => 'a').join('.'), 1)).toMatch(/deeper than 30/);
    expect(setPath(data, Array.from({ length: 30 }, () => 'a').join('.'), [1])).toMatch(/deeper than 30/);
    expect(setPath(data, Array.from({ length: 30 }, () => 'a').join('.'), 1)).toBeUndefined();
  });
});

describe('pathConflict', () => {
  it('names a parent sent beside a path inside it, in either order, and lets siblings be', () => {
    expect(pathConflict(['cond', 'cond.wear'], ['cond.wear'])).toContain('cond.wear and cond');
    expect(pathConflict(['a.b.c', 'a.b'], ['a.b.c', 'a.b'])).toContain('a.b.c and a.b');
    expect(pathConflict(['cond.wear', 'cond.edge', 'other'], ['cond.wear', 'cond.edge'])).toBeUndefined();
    expect(pathConflict(['condition', 'cond.wear'], ['cond.wear'])).toBeUndefined();
  });
});
