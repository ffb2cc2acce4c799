import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { checkAnswerContract } from './answer-contract.ts';
import type { Harness } from './harness.ts';
import type { Services } from '../../src/services/container.ts';
import { collectionTypes, type CollectionType } from '../../src/store/collection-store.ts';
import { basesOf } from '../../src/services/collection-service.ts';
import { seededRandom } from '../../src/util/seeded-random.ts';

/**
 * A seeded fuzzer over every operation of the server's own OpenAPI document (the three spec documents' endpoints): each
 * case starts from the operation's example request and breaks it one to three ways (a type swapped, a field removed,
 * huge or odd values, broken images, bad ids, bad headers), then holds the answer to the house rule: bad input gets a
 * clear error in the one error shape and loses nothing. `scripts/fuzz-api.ts` runs it long; `test/http/api-fuzz.test.ts`
 * runs a few hundred cases of it. Case `i` of seed `s` is the same request whatever ran before, so a failure replays
 * alone (`--replay i`).
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Param = { in: string; name: string; required?: boolean; schema?: { type?: string } };
type DocOp = { requestBody?: { content?: Record<string, { example?: unknown; schema?: unknown }> }; parameters?: Param[]; responses: Record<string, unknown> };
export type OpenApiDoc = { paths: Record<string, Record<string, DocOp>> };

export interface FuzzOp {
  method: string;
  route: string;
  /** The route with a collection base replaced by `{base}`: the operations fuzzed alike, whatever their base. */
  group: string;
  params: Param[];
  example?: Json;
  responses: Set<string>;
  collectionType?: CollectionType;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export interface FuzzCase {
  index: number;
  op: FuzzOp;
  mutations: string[];
  /** The body fields the mutations touched (`records[0]._id`), which a 400 should name. */
  fields: string[];
  request: FuzzRequest;
}

export interface FuzzFailure {
  kind: string;
  case: FuzzCase;
  status: number;
  answer: string;
  note: string;
}

/** What the cases need to exist: a session with a row, a collection of each type with a record, a queued request. */
export interface FuzzContext {
  token: string;
  sessionId: string;
  identificationId: string;
  requestId: string;
  mediaPath?: string;
  collections: Map<CollectionType, string>;
}

/** Case `index` of `seed` draws from its own stream, so it is the same request however many cases ran before it. */
export const caseRng = (seed: number, index: number) => seededRandom(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));

const pick = <T>(rng: () => number, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;

/** The collection type whose base a route is under (text search included), as the examples test tells them. */
export function collectionTypeOf(route: string): CollectionType | undefined {
  const text = /^\/similarity\/text\/([a-z]+)\/v2\/text$|^\/photo\/text\/v2\/text$/.exec(route);
  if (text) return ({ photos: 'photo', products: 'product', fashion: 'fashion', homedecor: 'homedecor' } as Record<string, CollectionType>)[text[1] ?? 'photos'];
  return collectionTypes.find((t) => basesOf(t).some((b) => route.startsWith(`${b}/`)));
}

/** Every operation of the document but the documentation's own pages. */
export function operationsOf(doc: OpenApiDoc): FuzzOp[] {
  const ops: FuzzOp[] = [];
  for (const [route, methods] of Object.entries(doc.paths)) {
    if (route.startsWith('/docs')) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
      const type = collectionTypeOf(route);
      const base = type && basesOf(type).find((b) => route.startsWith(`${b}/`));
      ops.push({
        method: method.toUpperCase(),
        route,
        group: `${method.toUpperCase()} ${base ? route.replace(base, '{base}') : route}`,
        params: op.parameters ?? [],
        example: op.requestBody?.content?.['application/json']?.example as Json | undefined,
        responses: new Set(Object.keys(op.responses)),
        ...(type ? { collectionType: type } : {}),
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------- values

const ONE_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A PNG that says it is 20000 × 20000 (400 megapixels) in 100 bytes: a decompression bomb's header. */
function bombPng(): string {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(20000, 0);
  ihdr.writeUInt32BE(20000, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const idat = zlib.deflateSync(Buffer.alloc(20001 * 3));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]).toString('base64');
}
const BOMB_PNG = bombPng();

const oddStrings: [string, string][] = [
  ['NUL', 'a\u0000b'],
  ['RTL marks', '\u202Eevil\u202C\u200F'],
  ['zero-width and BOM', '\u200B\uFEFF\u200D'],
  ['combining marks', 'e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301'],
  ['emoji', '🃏👨‍👩‍👧‍👦'],
  ['dot-dot path', '../../../etc/passwd'],
  ['percent junk', '%00%ff%2e%2e%2f'],
  ['empty', ''],
  ['spaces', '   '],
  ['SQL', "' OR 1=1 --"],
  ['regex', '.*(a+)+$'],
  ['mongo operator', '$where'],
  ['HTML', '<script>alert(1)</script>'],
  ['control chars', '\u0001\u001f\u007f'],
  ['non-BMP', '\u{10FFFF}\u{1F600}'],
];

const oddNumbers: [string, string][] = [
  ['1e308', '1e308'],
  ['-1e308', '-1e308'],
  ['1e400 (Infinity when parsed)', '1e400'],
  ['-0', '-0'],
  ['negative', '-1'],
  ['fraction', '0.5'],
  ['2^53+1', '9007199254740993'],
  ['2^64', '18446744073709551616'],
  ['tiny', '5e-324'],
  ['zero', '0'],
  ['int32 max+1', '2147483648'],
];

/** A raw JSON text to stand in a value's place (numbers like `1e400` and lone surrogates cannot come from JSON.stringify). */
const RAW = Symbol('raw');
type Mark = { [RAW]: string };
const raw = (text: string): Mark => ({ [RAW]: text });

function stringify(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && RAW in (v as object)) {
      marks.push((v as Mark)[RAW]);
      return `\u0000RAW${marks.length - 1}\u0000`;
    }
    return v;
  });
  return (text ?? '').replace(/"\\u0000RAW(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]!);
}

function nested(depth: number, leaf: unknown, asArray: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
}

// ---------------------------------------------------------------- body paths

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

const nameOf = (p: Path) => p.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${k}` : k), '') || 'body';

function getAt(root: unknown, p: Path): unknown {
  let v = root;
  for (const k of p) v = (v as Record<string | number, unknown>)?.[k];
  return v;
}

/** Sets (or with `undefined`, removes) the value at a path; the root itself is returned replaced. */
function setAt(root: unknown, p: Path, value: unknown): unknown {
  if (!p.length) return value;
  const parent = getAt(root, p.slice(0, -1)) as Record<string | number, unknown>;
  const key = p[p.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else parent[key] = value;
  return root;
}

const imageKeys = new Set(['_base64', 'image']);

// ---------------------------------------------------------------- mutations

interface Draft {
  method: string;
  pathValues: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  /** Replaces the JSON body's text outright (not JSON, empty). */
  payload?: string | Buffer;
  fields: string[];
  /** The operation takes its filter in the query string (allRecords). */
  filterInQuery: boolean;
}

type Mutation = (rng: () => number, d: Draft, op: FuzzOp) => string | undefined;

function swapped(rng: () => number, v: unknown): [string, unknown] {
  const choices: [string, unknown][] = [
    ['string', 'x'],
    ['number', 7],
    ['array', [v === undefined ? 1 : v]],
    ['object', { v: v ?? 1 }],
    ['null', null],
    ['boolean', true],
  ];
  const kind = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  return pick(
    rng,
    choices.filter(([k]) => k !== kind),
  );
}

/** A body path to mutate: a leaf more often than a container, never under an image's bytes. */
function bodyPath(rng: () => number, body: unknown, filter?: (v: unknown, p: Path) => boolean): Path | undefined {
  const all = pathsOf(body).filter((p) => (filter ? filter(getAt(body, p), p) : true));
  return all.length ? pick(rng, all) : undefined;
}

const bodyMutations: Record<string, Mutation> = {
  typeSwap(rng, d) {
    const p = bodyPath(rng, d.body);
    if (!p) return undefined;
    const [kind, v] = swapped(rng, getAt(d.body, p));
    d.body = setAt(d.body, p, v);
    d.fields.push(nameOf(p));
    return `${nameOf(p)} as ${kind}`;
  },
  removeField(rng, d) {
    const p = bodyPath(rng, d.body, (_v, p) => p.length > 0 && typeof p[p.length - 1] === 'string');
    if (!p) return undefined;
    d.body = setAt(d.body, p, undefined);
    d.fields.push(nameOf(p));
    return `${nameOf(p)} removed`;
  },
  unknownField(rng, d) {
    const p = bodyPath(rng, d.body, (v) => !!v && typeof v === 'object' && !Array.isArray(v));
    if (!p) return undefined;
    const key = pick(rng, ['zz_unknown', '$gt', '__proto__', 'constructor', '', '_status', 'prototype', 'a.b']);
    (getAt(d.body, p) as Record<string, unknown>)[key] = pick<unknown>(rng, [1, 'x', { prototype: {} }, null, []]);
    return `unknown field ${JSON.stringify(key)} in ${nameOf(p)}`;
  },
  longString(rng, d) {
    const p = bodyPath(rng, d.body, (v, p) => typeof v === 'string' || (p.length > 0 && rng() < 0.2));
    if (!p) return undefined;
    const n = pick(rng, [100_000, 65_537, 1_000_001]);
    d.body = setAt(d.body, p, pick(rng, ['a', 'é', '🃏']).repeat(n));
    d.fields.push(nameOf(p));
    return `${nameOf(p)} a string of ${n} characters`;
  },
  oddNumber(rng, d) {
    const p = bodyPath(rng, d.body, (v, p) => typeof v === 'number' || (p.length > 0 && rng() < 0.15));
    if (!p) return undefined;
    const [name, text] = pick(rng, oddNumbers);
    d.body = setAt(d.body, p, raw(text));
    d.fields.push(nameOf(p));
    return `${nameOf(p)} = ${name}`;
  },
  oddArray(rng, d) {
    const p = bodyPath(rng, d.body, (v, p) => Array.isArray(v) || (p.length > 0 && rng() < 0.1));
    if (!p) return undefined;
    const v = getAt(d.body, p);
    const first = Array.isArray(v) ? v[0] : v;
    const long = rng() < 0.5;
    const size = long ? 10_000 : 0;
    // (an element of a few KiB at most: 10k copies of a record with a 1M-character field is no body JSON can write)
    const small = first === undefined || stringify(first).length <= 4096;
    const fill = pick<unknown>(rng, [small ? (first ?? 1) : 1, 1, 'x', null]);
    d.body = setAt(d.body, p, long ? Array.from({ length: size }, () => (fill && typeof fill === 'object' ? structuredClone(fill) : fill)) : []);
    d.fields.push(nameOf(p));
    return `${nameOf(p)} an array of ${size}`;
  },
  deepNesting(rng, d) {
    const p = bodyPath(rng, d.body);
    if (!p) return undefined;
    const depth = pick(rng, [200, 33, 31]);
    d.body = setAt(d.body, p, nested(depth, 1, rng() < 0.5));
    d.fields.push(nameOf(p));
    return `${nameOf(p)} nested ${depth} deep`;
  },
  oddString(rng, d) {
    const p = bodyPath(rng, d.body, (v, p) => typeof v === 'string' || (p.length > 0 && rng() < 0.1));
    if (!p) return undefined;
    if (rng() < 0.2) {
      d.body = setAt(d.body, p, raw(pick(rng, ['"\\ud800"', '"a\\udfffb"', '"\\ud83d"'])));
      d.fields.push(nameOf(p));
      return `${nameOf(p)} a lone surrogate`;
    }
    const [name, s] = pick(rng, oddStrings);
    const v = getAt(d.body, p);
    d.body = setAt(d.body, p, typeof v === 'string' && rng() < 0.5 ? v + s : s);
    d.fields.push(nameOf(p));
    return `${nameOf(p)} with ${name}`;
  },
  badImage(rng, d) {
    const p = bodyPath(rng, d.body, (_v, p) => imageKeys.has(String(p[p.length - 1])));
    if (!p) return undefined;
    const v = String(getAt(d.body, p) ?? '');
    const [name, bad] = pick<[string, string]>(rng, [
      ['broken base64', `${v.slice(0, 40)}!!!***${v.slice(40)}`],
      ['truncated base64', v.slice(0, Math.floor(v.length / 2) + 1)],
      ['truncated image', v.slice(0, Math.floor((v.length * 3) / 16) * 4)],
      ['a non-image', Buffer.from('%PDF-1.4 this is not an image at all').toString('base64')],
      ['a 1x1 image', ONE_PIXEL_PNG],
      ['a 20000x20000 PNG header', BOMB_PNG],
      ['a data URI', `data:image/jpeg;base64,${v}`],
      ['base64 with whitespace', v.replace(/(.{60})/g, '$1\n')],
      ['url-safe base64', v.replace(/\+/g, '-').replace(/\//g, '_')],
      ['one character', 'A'],
      ['padding only', '===='],
    ]);
    d.body = setAt(d.body, p, bad);
    d.fields.push(nameOf(p));
    return `${nameOf(p)} ${name}`;
  },
  badUrlField(rng, d) {
    const p = bodyPath(rng, d.body, (v) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => imageKeys.has(k) || k === '_id'));
    if (!p) return undefined;
    const rec = getAt(d.body, p) as Record<string, unknown>;
    const [key, value] = pick<[string, string]>(rng, [
      ['_url', 'http://127.0.0.1:1/x.jpg'],
      ['_url', 'file:///etc/passwd'],
      ['_url', 'not a url'],
      ['_file', '../../etc/passwd'],
      ['_file', '/etc/passwd'],
    ]);
    if (rng() < 0.5) delete rec._base64;
    rec[key] = value;
    d.fields.push(nameOf([...p, key]));
    return `${nameOf(p)}.${key} = ${value}`;
  },
};

/** Filters (docs/filters.md) of the wrong shape, or right in shape and costly: a catastrophic regex, a 10k `$in`, deep `$and`. */
const oddFilters: [string, () => unknown][] = [
  ['$regex catastrophic', () => ({ color: { $regex: '^(a+)+$' } })],
  ['$regex invalid', () => ({ color: { $regex: '([' } })],
  ['$regex with options', () => ({ color: { $regex: 'b', $options: 'xyzq' } })],
  ['$in of 10000', () => ({ price: { $in: Array.from({ length: 10_000 }, (_, i) => i) } })],
  ['$in not a list', () => ({ price: { $in: 5 } })],
  ['$and 40 deep', () => nested(40, { price: 1 }, false)],
  ['$and nested', () => Array.from({ length: 30 }).reduce<unknown>((f) => ({ $and: [f] }), { price: 1 })],
  ['$or empty', () => ({ $or: [] })],
  ['$where', () => ({ $where: 'sleep(1000)' })],
  ['unknown operator', () => ({ price: { $near: [1, 2] } })],
  ['$exists string', () => ({ price: { $exists: 'yes' } })],
  ['$gt object', () => ({ price: { $gt: { $gt: 1 } } })],
  ['$elemMatch', () => ({ tags: { $elemMatch: { $eq: 'x' } } })],
  ['$size negative', () => ({ tags: { $size: -1 } })],
  ['$mod zero', () => ({ price: { $mod: [0, 0] } })],
  ['$not regex', () => ({ color: { $not: { $regex: '.*' } } })],
  ['dotted field', () => ({ 'a.b.c.d.e.f': 1 })],
  ['field with NUL', () => ({ 'a\u0000b': 1 })],
  ['field 10k long', () => ({ ['f'.repeat(10_000)]: 1 })],
  ['$_id', () => ({ _id: { $in: ['item-1', 2, null, { a: 1 }] } })],
  ['filter as string', () => 'price > 5'],
  ['filter as list', () => [{ price: 1 }]],
  ['$eq NaN-ish', () => ({ price: { $eq: raw('1e400') } })],
  ['$type', () => ({ price: { $type: 'string' } })],
];

/** Times a date parser may take and a date type may not hold, or that are no time at all. */
const oddDates = ['2026-02-30T25:61:00Z', '0000-00-00T00:00:00Z', '+275760-09-13T00:00:00.001Z', '-271821-04-20T00:00:00Z', '9999-12-31T23:59:60Z', '1970-01-01T00:00:00+99:99', '2026-12-05', '2026-12-05T20:15:00', 'yesterday', '1e308', '2026-12-05T20:15:00.123456789Z', '１９７０-01-01T00:00:00Z'];

const headerMutations: Record<string, Mutation> = {
  oddDate(rng, d) {
    const dated = (v: unknown, p: Path) => (typeof v === 'string' && /^\d{4}-\d\d-\d\d/.test(v)) || /^(seen|up_to|after|since|date|time|started|ended)$/.test(String(p[p.length - 1]));
    const p = bodyPath(rng, d.body, dated);
    const v = pick(rng, oddDates);
    if (p) {
      d.body = setAt(d.body, p, v);
      d.fields.push(nameOf(p));
      return `${nameOf(p)} = ${v}`;
    }
    const q = pick(rng, ['up_to', 'after', 'expires']);
    d.query[q] = v;
    return `query ${q}=${v}`;
  },
  imageFieldType(rng, d) {
    const p = bodyPath(rng, d.body, (v) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => imageKeys.has(k)));
    if (!p) return undefined;
    const key = pick(rng, ['_url', '_file', '_base64', '_objects', '_width', '_height', '_descriptor', '_tags', 'tags', '_tags_simple', 'product_id', '_dominant_colors']);
    const value = pick<unknown>(rng, [5, true, { a: 1 }, ['x'], null, -1, 1.5, 'x'.repeat(9000), '', [[]], { luv_colors: [[1, 2]], percentages: [200] }]);
    (getAt(d.body, p) as Record<string, unknown>)[key] = value;
    d.fields.push(nameOf([...p, key]));
    return `${nameOf([...p, key])} = ${JSON.stringify(value).slice(0, 30)}`;
  },
  oddFilter(rng, d) {
    const p = bodyPath(rng, d.body, (_v, p) => p[p.length - 1] === 'filter');
    const [name, make] = pick(rng, oddFilters);
    if (p) d.body = setAt(d.body, p, make());
    else if (d.filterInQuery) d.query.filter = stringify(make());
    else return undefined;
    d.fields.push(p ? nameOf(p) : 'filter');
    return `filter ${name}`;
  },
  wrongContentType(rng, d) {
    d.headers['content-type'] = pick(rng, ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=bogus-7', 'image/jpeg', 'application/xml', '']);
    return `Content-Type: ${d.headers['content-type']}`;
  },
  emptyBody(_rng, d) {
    d.payload = '';
    d.headers['content-type'] = 'application/json';
    return 'an empty body';
  },
  notJson(rng, d) {
    d.payload = pick<string | Buffer>(rng, ['{', '{"a":}', 'nul', 'NaN', '[1,]', "{'a':1}", '\uFEFF{}', Buffer.from([0xff, 0xfe, 0x00, 0x7b]), '{"a":1}{"b":2}', '"just a string"', '[]', 'null', '123']);
    d.headers['content-type'] = 'application/json';
    return `body ${JSON.stringify(d.payload.toString()).slice(0, 30)}`;
  },
  badCollectionId(rng, d, op) {
    if (!op.collectionType) return undefined;
    const v = pick(rng, ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', 'x'.repeat(5000), '', '../..', '1 OR 1=1', '\u00e9']);
    if (v === '') delete d.headers['collection-id'];
    else d.headers['collection-id'] = v;
    return `collection-id ${JSON.stringify(v.slice(0, 20))}`;
  },
  badHeader(rng, d, op) {
    const names = op.params.filter((p) => p.in === 'header' && p.name !== 'collection-id').map((p) => p.name);
    if (!names.length) return undefined;
    const name = pick(rng, names);
    d.headers[name] = pick(rng, ['', 'x'.repeat(8000), '"*"', 'W/"1"', '%ff', '0', '-1', '\u00e9\u00e9']);
    return `${name}: ${JSON.stringify(d.headers[name]!.slice(0, 20))}`;
  },
  badPathParam(rng, d) {
    const names = Object.keys(d.pathValues);
    if (!names.length) return undefined;
    const name = pick(rng, names);
    d.pathValues[name] = pick(rng, ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'x'.repeat(5000), '..', '%2e%2e', '%ff', '%00', '%C0%AE', 'a%2Fb', '-1', '1e308', ' ', '%20', "'", 'null', d.pathValues[name]!.toUpperCase()]);
    return `path ${name} = ${d.pathValues[name]!.slice(0, 30)}`;
  },
  badQuery(rng, d, op) {
    const names = [...op.params.filter((p) => p.in === 'query').map((p) => p.name), 'zz_unknown'];
    const name = pick(rng, names);
    const v = pick<string | string[]>(rng, ['', 'abc', '-1', '0', '1e308', 'NaN', '99999999999999999999', '1.5', '%ff', '%00', 'x'.repeat(100_000), ['1', '2'], 'true', '{"$gt":1}', '[1]', '\u202E', '..']);
    d.query[name] = v;
    return `query ${name}=${JSON.stringify(v).slice(0, 30)}`;
  },
  bodyOnGet(rng, d, op) {
    if (op.method !== 'GET' && op.method !== 'DELETE') return undefined;
    d.payload = pick(rng, ['{"a":1}', '{', 'x'.repeat(1000)]);
    d.headers['content-type'] = pick(rng, ['application/json', 'text/plain']);
    return `a body on ${op.method}`;
  },
  oddHeader(rng, d) {
    const [name, value] = pick<[string, string]>(rng, [
      ['host', ''],
      ['host', 'a b'],
      ['host', `${'x'.repeat(300)}.example`],
      ['host', '[::1'],
      ['accept-encoding', 'br;q=NaN, gzip;q=-1, *;q=0'],
      ['accept-encoding', 'x'.repeat(4000)],
      ['accept', 'text/html'],
      ['accept', 'application/xml;q=1, */*;q=0'],
      ['expect', '100-continue'],
      ['expect', 'teapot'],
      ['content-encoding', 'gzip'],
      ['x-request-id', 'x'.repeat(2000)],
      ['x-request-id', '../../etc'],
      ['origin', 'https://evil.example'],
      ['if-none-match', '*'],
      ['range', 'bytes=0-0,-1'],
    ]);
    d.headers[name] = value;
    return `${name}: ${JSON.stringify(value.slice(0, 30))}`;
  },
  noAuth(rng, d) {
    const v = pick(rng, ['', 'Token ', 'Token lp_wrong', 'Bearer x', `Token ${'x'.repeat(5000)}`, 'Token \u00e9']);
    if (v === '') delete d.headers.authorization;
    else d.headers.authorization = v;
    return `authorization ${JSON.stringify(v.slice(0, 20))}`;
  },
};

/** Each mutation's name and how often it is drawn; those that need a body are drawn only where there is one. */
const weights: [string, number, 'body' | 'any'][] = [
  ['typeSwap', 5, 'body'],
  ['removeField', 4, 'body'],
  ['unknownField', 2, 'body'],
  ['longString', 2, 'body'],
  ['oddNumber', 3, 'body'],
  ['oddArray', 2, 'body'],
  ['deepNesting', 1, 'body'],
  ['oddString', 4, 'body'],
  ['badImage', 4, 'body'],
  ['badUrlField', 1, 'body'],
  ['oddFilter', 2, 'any'],
  ['oddDate', 1.5, 'any'],
  ['imageFieldType', 2, 'body'],
  ['wrongContentType', 1, 'body'],
  ['emptyBody', 1, 'body'],
  ['notJson', 1, 'body'],
  ['badCollectionId', 1, 'any'],
  ['badHeader', 1, 'any'],
  ['badPathParam', 3, 'any'],
  ['badQuery', 3, 'any'],
  ['bodyOnGet', 1, 'any'],
  ['noAuth', 0.5, 'any'],
  ['oddHeader', 1, 'any'],
];

function drawMutation(rng: () => number, hasBody: boolean): string {
  const usable = weights.filter(([, , needs]) => hasBody || needs === 'any');
  const total = usable.reduce((s, [, w]) => s + w, 0);
  let r = rng() * total;
  for (const [name, w] of usable) if ((r -= w) < 0) return name;
  return usable[usable.length - 1]![0];
}

// ---------------------------------------------------------------- cases

/** Path parameters filled from the context: a session, its row, the queued request, a media key. */
function pathValuesOf(op: FuzzOp, ctx: FuzzContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.params.filter((p) => p.in === 'path')) {
    if (p.name === 'session_id') out[p.name] = ctx.sessionId;
    else if (p.name === 'id') out[p.name] = op.route.startsWith('/cardstream/') ? ctx.identificationId : ctx.requestId;
    else if (p.name === 'key') out[p.name] = ctx.mediaPath?.split('/media/')[1]?.split('?')[0] ?? 'none';
    else out[p.name] = 'x';
  }
  return out;
}

function encodeQuery(query: Record<string, string | string[]>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    for (const one of Array.isArray(v) ? v : [v]) {
      // a value already percent-encoded (%ff, %00) goes as written: that is the probe
      parts.push(`${encodeURIComponent(k)}=${/%[0-9a-fA-F]{2}/.test(one) ? one : encodeURIComponent(one)}`);
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function encodePathValue(v: string): string {
  return /%[0-9a-fA-F]{2}|^\.\.$/.test(v) ? v : encodeURIComponent(v);
}

export function makeCase(seed: number, index: number, ops: FuzzOp[], ctx: FuzzContext): FuzzCase {
  const rng = caseRng(seed, index);
  // operations grouped by what they do, so the eight collection bases together weigh as much as one card-session route
  const groups = [...new Set(ops.map((o) => o.group))];
  const group = pick(rng, groups);
  const op = pick(
    rng,
    ops.filter((o) => o.group === group),
  );
  const d: Draft = {
    method: op.method,
    pathValues: pathValuesOf(op, ctx),
    query: {},
    headers: { authorization: `Token ${ctx.token}` },
    body: op.example === undefined ? undefined : structuredClone(op.example),
    fields: [],
    filterInQuery: op.params.some((p) => p.in === 'query' && p.name === 'filter'),
  };
  if (op.collectionType) d.headers['collection-id'] = ctx.collections.get(op.collectionType)!;
  // an insert of the example's ids is a duplicate after the first (411): ids of its own let its records go in
  if (/\/(insert|nearDupsInsert)$/.test(op.route) && rng() < 0.7) {
    const records = (d.body as { records?: { _id?: unknown }[] } | undefined)?.records;
    records?.forEach((r, i) => (r._id = `fz-${index}-${i}`));
  }
  if (d.body !== undefined) d.headers['content-type'] = 'application/json';
  if (op.route.startsWith('/media/') && ctx.mediaPath) {
    const q = new URLSearchParams(ctx.mediaPath.split('?')[1] ?? '');
    for (const [k, v] of q) d.query[k] = v;
    delete d.headers.authorization;
  }
  if (op.route.includes('/identification/') && !op.route.includes('{id}')) d.query.session = ctx.sessionId;
  const mutations: string[] = [];
  const n = 1 + Math.floor(rng() * rng() * 3);
  for (let i = 0, tries = 0; i < n && tries < 10; tries++) {
    const name = drawMutation(rng, d.body !== undefined);
    const said = (bodyMutations[name] ?? headerMutations[name])!(rng, d, op);
    if (said) {
      mutations.push(said);
      i++;
    }
  }
  let path = op.route;
  for (const [k, v] of Object.entries(d.pathValues)) path = path.replace(`{${k}}`, encodePathValue(v));
  const payload = d.payload !== undefined ? d.payload : d.body !== undefined ? stringify(d.body) : undefined;
  return { index, op, mutations, fields: d.fields, request: { method: d.method, url: path + encodeQuery(d.query), headers: d.headers, ...(payload !== undefined ? { payload } : {}) } };
}

// ---------------------------------------------------------------- oracle

/**
 * 5xx answers that say something true about the machine, not a fault: no catalog imported, the vision queue full or slow.
 * Not `vision_failed` (500): docs/api-decisions.md calls it the server's fault, a query image whose processing failed,
 * which is what a broken image sent on purpose must never cause (it was let through, as the README's list never said).
 */
const fineServerCodes = new Set(['no_catalog', 'busy', 'vision_timeout']);

type Body = { detail?: unknown; code?: unknown; errors?: { field?: unknown; message?: unknown }[]; status?: { code?: unknown; text?: unknown } | string; [k: string]: unknown };

/** The answer's problems with the house rule, one line each (none: it holds). */
export function judge(c: FuzzCase, res: LightMyRequestResponse): { kind: string; note: string }[] {
  const out: { kind: string; note: string }[] = [];
  const status = res.statusCode;
  const type = String(res.headers['content-type'] ?? '');
  let body: Body | undefined;
  if (type.startsWith('application/json')) {
    try {
      body = JSON.parse(res.body) as Body;
    } catch {
      out.push({ kind: 'unparsable-json-answer', note: 'the answer says JSON and is not' });
    }
  }
  const code = typeof body?.code === 'string' ? body.code : undefined;
  if (status >= 500) {
    if (!(code && fineServerCodes.has(code))) out.push({ kind: `http-${status}`, note: `${code ?? 'no code'}` });
    return out;
  }
  if (!c.op.responses.has(String(status)) && !c.op.responses.has('default') && !(status === 405 || status === 404 || status === 401)) out.push({ kind: 'undocumented-status', note: `${status}` });
  if (status >= 400) {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      if (!(c.op.route.startsWith('/media/') && status === 404)) out.push({ kind: 'error-not-json', note: `content-type ${type}` });
      return out;
    }
    const envelopeAnswer = typeof body.status === 'object' && body.status !== null && body.detail === undefined;
    if (envelopeAnswer) return out;
    if (typeof body.detail !== 'string' || !body.detail) out.push({ kind: 'error-shape', note: 'no detail' });
    if (!code || !/^[a-z][a-z0-9_]*$/.test(code)) out.push({ kind: 'error-shape', note: `code ${JSON.stringify(body.code)}` });
    // a 400 for a field this case broke names it (or its record, or a field around it), in detail or errors
    // (a body JSON cannot read names no field: invalid_json says where in the text it stopped)
    if (status === 400 && code && code !== 'invalid_json' && c.fields.length && c.fields.length === c.mutations.length) {
      const said = `${String(body.detail)} ${(body.errors ?? []).map((e) => `${String(e.field)} ${String(e.message)}`).join(' ')}`;
      const named = c.fields.some((f) => {
        const parts = f.split(/[.[\]]+/).filter((p) => p && !/^\d+$/.test(p));
        // the body itself replaced: any field named is one of its own
        return f === 'body' || parts.some((p) => said.includes(p)) || /\bbody\b/.test(said);
      });
      if (!named) out.push({ kind: 'unnamed-field', note: `${c.fields.join(', ')} not named` });
    }
    return out;
  }
  if (body && typeof body === 'object' && typeof body.status === 'object' && body.status) {
    for (const list of ['records', 'skipped_records'] as const) {
      const records = body[list];
      if (!Array.isArray(records)) continue;
      // spec 2 §7: a record's problem is in its `_status` or its `_reason.status`
      const statusOf = (r: { _status?: { code?: unknown }; _reason?: { status?: { code?: unknown } } }) => r._status?.code ?? r._reason?.status?.code;
      const bad = records.findIndex((r) => !r || typeof r !== 'object' || typeof statusOf(r as object) !== 'number');
      if (bad >= 0) out.push({ kind: 'record-without-status', note: `${list}[${bad}]` });
    }
  }
  return out;
}

// ---------------------------------------------------------------- running

export const describeRequest = (r: FuzzRequest): string => {
  const payload = r.payload === undefined ? '' : typeof r.payload === 'string' ? r.payload : `<bytes ${r.payload.toString('hex')}>`;
  const shown = payload.length > 400 ? `${payload.slice(0, 300)}…(${payload.length} chars)…${payload.slice(-80)}` : payload;
  const headers = Object.entries(r.headers)
    .filter(([k]) => k !== 'authorization' || !/^Token lp_/.test(r.headers[k]!))
    .map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 60)}…(${v.length})` : v}`)
    .join('; ');
  return `${r.method} ${r.url.length > 300 ? `${r.url.slice(0, 250)}…(${r.url.length})` : r.url}${headers ? ` [${headers}]` : ''}${shown ? ` ${shown}` : ''}`;
};

const pathOf = (url: string) => new URL(url, 'http://localhost').pathname + new URL(url, 'http://localhost').search;

/** A session as the examples make one, with the example's row and its image. */
async function freshSession(h: Harness, ops: FuzzOp[]): Promise<{ sessionId: string; identificationId: string; mediaUrl?: string }> {
  const exampleOf = (method: string, route: string) => ops.find((o) => o.method === method && o.route === route)?.example;
  const session = await h.request('POST', '/cardstream/v2/session/', { body: exampleOf('POST', '/cardstream/v2/session/') });
  const sessionId = session.json().id as string;
  await h.request('POST', `/cardstream/v2/session/${sessionId}/identifications/`, { body: exampleOf('POST', '/cardstream/v2/session/{session_id}/identifications/') });
  const image = await h.request('POST', `/cardstream/v2/session/${sessionId}/images/`, { body: exampleOf('POST', '/cardstream/v2/session/{session_id}/images/') });
  const rows = (await h.request('GET', `/cardstream/v2/identification/?session=${sessionId}&event_id=e1`)).json().results as { id: string; image?: string }[];
  const mediaUrl = rows[0]?.image ?? (image.json() as { image?: string }).image;
  return { sessionId, identificationId: rows[0]?.id ?? 'none', ...(mediaUrl ? { mediaUrl } : {}) };
}

/** The fixtures cases name: made through the API where the API makes them. */
export async function prepareContext(h: Harness, ops: FuzzOp[], opts: { catalog?: boolean } = {}): Promise<FuzzContext> {
  const exampleOf = (method: string, route: string) => ops.find((o) => o.method === method && o.route === route)?.example;
  // every case may be charged: an account that ran dry would answer 402 to everything after, and test nothing
  await h.app.loupe.accounts.addCredits(h.account.account, 10_000_000);
  const collections = new Map<CollectionType, string>();
  for (const type of collectionTypes) collections.set(type, (await h.app.loupe.collections.create({ accountId: h.account.account, type, name: `fuzz ${type}` })).id);
  const { sessionId, identificationId, mediaUrl } = await freshSession(h, ops);
  const submitted = await h.request('POST', '/account/v2/request', { body: exampleOf('POST', '/account/v2/request') });
  // a made-up trading-card catalog of one set, so recognition gets past its 503 no_catalog to the records (h315: a run's
  // 150-odd 503s were all of it)
  if (opts.catalog) {
    const files = { cards: path.join(h.dataDir, 'fuzz-cards.json'), sets: path.join(h.dataDir, 'fuzz-sets.json') };
    await fs.writeFile(files.sets, JSON.stringify([{ id: 'fz1', name: 'Fuzz Set', series: 'Testing', printedTotal: 102, total: 102, releaseDate: '1999/01/09', ptcgoCode: 'FZ' }]));
    await fs.writeFile(files.cards, JSON.stringify([{ id: 'fz1-4', name: 'Charizard', number: '4', set: 'fz1', supertype: 'Pokémon', rarity: 'Rare Holo', subtypes: ['Stage 2'], hp: '120', types: ['Fire'] }]));
    await (h.app.loupe as unknown as Services).catalogs.import({ kind: 'pokemon', catalog: 'pokemon', files });
  }
  // one record in each collection, so get / update / search by `_id` find something
  for (const type of ['photo', 'product', 'custom'] as CollectionType[]) {
    const route = `${basesOf(type)[0]}/insert`;
    await h.request('POST', route, { body: exampleOf('POST', route), headers: { 'collection-id': collections.get(type)! } });
  }
  return {
    token: h.account.token,
    sessionId,
    identificationId,
    requestId: (submitted.json() as { id?: string }).id ?? 'none',
    ...(mediaUrl ? { mediaPath: pathOf(mediaUrl) } : {}),
    collections,
  };
}

/** Answer fields that differ between two reads of the same state. */
const volatile = new Set(['request_id', 'proc_id', 'statistics', 'processing time', 'OperationTime', 'x-request-id']);
function steady(value: unknown): unknown {
  // a media link's expiry is rounded up to a step: two reads across a step's end sign two links to one file
  if (typeof value === 'string') return value.replace(/([?&])expires=\d+&sig=[0-9a-f]+/g, '$1');
  if (Array.isArray(value)) return value.map(steady);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (volatile.has(k) ? [] : [[k, steady(v)]])));
}

/**
 * What a case's operation could change, read through the API: its session and the session's rows, its collection's
 * count and first record, the queued request. A refused call (4xx) must leave it as it was: "loses nothing".
 */
async function stateOf(h: Harness, c: FuzzCase, ctx: FuzzContext): Promise<string | undefined> {
  const read = async (method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await h.app.inject({ method, url, headers: { authorization: `Token ${ctx.token}`, ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
    return `${res.statusCode} ${JSON.stringify(steady(JSON.parse(res.body || 'null')))}`;
  };
  const route = c.op.route;
  if (route.startsWith('/cardstream/')) return `${await read('GET', `/cardstream/v2/session/${ctx.sessionId}/`)}\n${await read('GET', `/cardstream/v2/identification/?session=${ctx.sessionId}&page_size=500`)}`;
  if (c.op.collectionType && !route.includes('/text/')) {
    const base = route.slice(0, route.lastIndexOf('/'));
    const headers = { 'collection-id': ctx.collections.get(c.op.collectionType)! };
    return `${await read('POST', `${base}/getRecordCount`, {}, headers)}\n${await read('POST', `${base}/get`, { records: [{ _id: 'item-1' }] }, headers)}`;
  }
  if (route.startsWith('/account/v2/request/')) return read('GET', `/account/v2/request/${ctx.requestId}`);
  return undefined;
}

export interface FuzzOptions {
  seed: number;
  cases: number;
  /** Only operations whose route starts with one of these. */
  only?: string[];
  /** No operation whose route starts with one of these (inference-heavy ones in the bounded test). */
  skip?: string[];
  /** Replay these case numbers only. */
  replay?: number[];
  onCase?: (c: FuzzCase, res: LightMyRequestResponse, ms: number) => void;
  onFailure?: (f: FuzzFailure) => void;
  /** Import a made-up one-card catalog first, so recognition answers records rather than 503 no_catalog. */
  catalog?: boolean;
}

export interface FuzzResult {
  cases: number;
  failures: FuzzFailure[];
  byOperation: Map<string, number>;
  /** How many answers had each HTTP status: a run answered 402 or 404 throughout tested little. */
  byStatus: Map<number, number>;
}

export async function runFuzz(h: Harness, opts: FuzzOptions): Promise<FuzzResult> {
  const doc = h.app.swagger() as unknown as OpenApiDoc;
  const all = operationsOf(doc);
  const ops = all.filter((o) => (!opts.only?.length || opts.only.some((p) => o.route.startsWith(p))) && !opts.skip?.some((p) => o.route.startsWith(p)));
  if (!ops.length) throw new Error('no operation matches');
  const ctx = await prepareContext(h, all, { catalog: opts.catalog ?? false });
  const failures: FuzzFailure[] = [];
  const byOperation = new Map<string, number>();
  const byStatus = new Map<number, number>();
  const crashes: string[] = [];
  const onRejection = (e: unknown) => crashes.push(`unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  const onException = (e: unknown) => crashes.push(`uncaught exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const fail = (f: FuzzFailure) => {
    failures.push(f);
    opts.onFailure?.(f);
  };
  const indexes = opts.replay ?? Array.from({ length: opts.cases }, (_, i) => i);
  try {
    for (const i of indexes) {
      const c = makeCase(opts.seed, i, ops, ctx);
      byOperation.set(c.op.group, (byOperation.get(c.op.group) ?? 0) + 1);
      const writes = c.request.method !== 'GET';
      const before = writes ? await stateOf(h, c, ctx) : undefined;
      const started = performance.now();
      let res: LightMyRequestResponse;
      try {
        res = await h.app.inject({ method: c.request.method as 'GET', url: c.request.url, headers: c.request.headers, ...(c.request.payload !== undefined ? { payload: c.request.payload } : {}) });
      } catch (e) {
        fail({ kind: 'inject-threw', case: c, status: 0, answer: String(e), note: '' });
        continue;
      }
      const ms = performance.now() - started;
      byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
      opts.onCase?.(c, res, ms);
      const answer = res.body.length > 600 ? `${res.body.slice(0, 600)}…` : res.body;
      for (const p of judge(c, res)) fail({ kind: p.kind, case: c, status: res.statusCode, answer, note: p.note });
      try {
        checkAnswerContract(h.app, c.request.method, c.request.url, res);
      } catch (e) {
        fail({ kind: 'answer-contract', case: c, status: res.statusCode, answer, note: (e as Error).message.slice(0, 400) });
      }
      if (before !== undefined && res.statusCode >= 400) {
        const after = await stateOf(h, c, ctx);
        if (after !== before) {
          // where they part, with some of each around it
          let at = 0;
          while (at < before.length && before[at] === after?.[at]) at++;
          const around = (t: string | undefined) => (t ?? '').slice(Math.max(0, at - 150), at + 250);
          fail({ kind: 'refused-but-changed', case: c, status: res.statusCode, answer, note: `before: …${around(before)}… | after: …${around(after)}…` });
        }
      }
      // a case that deleted the session or its row (or closed the session) would leave every later card-session case a 404 or 409
      if (res.statusCode < 300 && /^\/cardstream\/v2\/(session\/\{session_id\}\/(close\/)?|identification\/\{id\}\/)$/.test(c.op.route) && c.request.method !== 'GET' && c.request.method !== 'PATCH') {
        const fresh = await freshSession(h, all);
        Object.assign(ctx, { sessionId: fresh.sessionId, identificationId: fresh.identificationId }, fresh.mediaUrl ? { mediaPath: pathOf(fresh.mediaUrl) } : {});
      }
      if (ms > 15_000) fail({ kind: 'slow', case: c, status: res.statusCode, answer, note: `${Math.round(ms)} ms` });
      const health = await h.app.inject({ method: 'GET', url: '/health' });
      if (health.statusCode !== 200) fail({ kind: 'health-after', case: c, status: health.statusCode, answer: health.body.slice(0, 300), note: '' });
      // give a rejection left behind by this case's work the turn to surface before the next case
      await new Promise((r) => setImmediate(r));
      while (crashes.length) fail({ kind: 'process-error', case: c, status: res.statusCode, answer, note: crashes.shift()!.slice(0, 800) });
    }
  } finally {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  }
  return { cases: indexes.length, failures, byOperation, byStatus };
}
