import { describe, expect, it } from 'vitest';
import { checkFilter } from './filter-check.ts';

describe('checkFilter', () => {
  it('accepts an empty box and MongoDB-style filters', () => {
    expect(checkFilter('  ')).toEqual({ ok: true, filter: undefined });
    expect(checkFilter('{"price": {"$gte": 10, "$lt": 50}, "tags": {"$in": ["sale"]}}')).toMatchObject({ ok: true });
    expect(checkFilter('{"$or": [{"a": 1}, {"b": {"$exists": true}}]}')).toMatchObject({ ok: true });
  });

  it('says what is wrong', () => {
    const notJson = checkFilter("{price: 3}");
    expect(notJson.ok).toBe(false);
    expect(!notJson.ok && notJson.message).toMatch(/^Not JSON/);
    expect(checkFilter('[1]')).toMatchObject({ ok: false, message: expect.stringMatching(/JSON object/) });
    expect(checkFilter('{"$where": "1"}')).toMatchObject({ ok: false, message: expect.stringMatching(/\$where is not an operator/) });
    expect(checkFilter('{"$or": {"a": 1}}')).toMatchObject({ ok: false, message: expect.stringMatching(/array of filters/) });
    expect(checkFilter('{"tags": {"$in": "sale"}}')).toMatchObject({ ok: false, message: expect.stringMatching(/tags.\$in: \$in takes an array/) });
  });
});
