import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Nullable } from './schemas/common.ts';
import { dropNullOptionals } from './null-optional.ts';
import { ImageRecordInput } from './schemas/search.ts';
import { emptiedFields } from '../util/emptied-fields.ts';

describe('dropNullOptionals', () => {
  const schema = Type.Object({
    query_record: Type.Object({ _text_data: Type.Optional(Type.String()), must: Type.String() }, { additionalProperties: true }),
    k: Type.Optional(Type.Integer()),
    note: Type.Optional(Nullable(Type.String())),
    records: Type.Optional(Type.Array(Type.Object({ _url: Type.Optional(Type.String()) }, { additionalProperties: true }))),
  });

  it('removes null optional fields at every level the schema declares', () => {
    const body = { query_record: { _text_data: null, must: null, price: null }, k: null, note: null, records: [{ _url: null, color: null }] };
    dropNullOptionals(schema, body);
    // Required and nullable fields keep their null (validation decides), as do undeclared attributes.
    expect(body).toEqual({ query_record: { must: null, price: null }, note: null, records: [{ color: null }] });
  });

  it("keeps null where a union allows it (a client app's name sent as null is its own)", () => {
    const client = Type.Object({ client: Type.Optional(Nullable(Type.Object({ name: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Null()])), os: Type.Optional(Type.Union([Type.String(), Type.Number()])) }, { additionalProperties: true }))) });
    const body = { client: { name: null, os: null, foo: null } };
    dropNullOptionals(client, body);
    expect(body).toEqual({ client: { name: null, foo: null } });
  });

  it('leaves other values alone', () => {
    const body = { k: 5, query_record: { _text_data: 'red', must: 'x' } };
    dropNullOptionals(schema, body);
    expect(body).toEqual({ k: 5, query_record: { _text_data: 'red', must: 'x' } });
  });

  it('removes an empty image field the schema marks, as null: the other field, or the _id, is the image', () => {
    const body = { query_record: { _id: 'leo3', _url: '', _base64: '', note: '' }, records: [{ _url: 'http://x/a.jpg', _base64: '' }] };
    dropNullOptionals({ type: 'object', properties: { query_record: ImageRecordInput, records: { type: 'array', items: ImageRecordInput } } }, body);
    // an attribute of the record's own keeps its ""
    expect(body).toEqual({ query_record: { _id: 'leo3', note: '', [emptiedFields]: ['_url', '_base64'] }, records: [{ _url: 'http://x/a.jpg', [emptiedFields]: ['_base64'] }] });
    const plain = { k: 5, note: '' };
    dropNullOptionals(schema, plain);
    expect(plain).toEqual({ k: 5, note: '' });
  });
});
